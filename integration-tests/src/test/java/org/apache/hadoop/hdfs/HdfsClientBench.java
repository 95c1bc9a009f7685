/*
 * Licensed to the Apache Software Foundation (ASF) under one
 * or more contributor license agreements.  See the NOTICE file
 * distributed with this work for additional information
 * regarding copyright ownership.  The ASF licenses this file
 * to you under the Apache License, Version 2.0 (the
 * "License"); you may not use this file except in compliance
 * with the License.  You may obtain a copy of the License at
 *
 *     http://www.apache.org/licenses/LICENSE-2.0
 *
 * Unless required by applicable law or agreed to in writing, software
 * distributed under the License is distributed on an "AS IS" BASIS,
 * WITHOUT WARRANTIES OR CONDITIONS OF ANY KIND, either express or implied.
 * See the License for the specific language governing permissions and
 * limitations under the License.
 */
package org.apache.hadoop.hdfs;

import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Random;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.locality.it.harness.BlockMoves;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.Block;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.blockmanagement.BenchGraceEntries;
import org.apache.hadoop.hdfs.server.blockmanagement.BlockManager;
import org.apache.hadoop.hdfs.server.blockmanagement.DatanodeDescriptor;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.hdfs.server.namenode.NameNode;
import org.apache.hadoop.hdfs.server.protocol.NamenodeProtocols;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.test.MetricsAsserts;

/**
 * Benchmark of the HDFS patches (HDFS-16155, HDFS-16262, HDFS-16261) on a MiniDFSCluster, run by
 * build-scripts/bench-hdfs-client. Prints figures and side-by-side ratios and, per target,
 * {@code met} or {@code missed}; asserts nothing.
 * <ol>
 * <li>Backoff: time for a pread to succeed after the block it was reading moved to another
 * DataNode (its cached location is gone), stock retry settings vs the low-latency recipe.</li>
 * <li>Refresher cost: NameNode getBlockLocations calls per interval made for 1,000 open streams
 * when every replica is local, and when none is.</li>
 * <li>Pread throughput with the refresher on vs off, every replica local.</li>
 * <li>Opens and closes per second with the refresher off vs on (streams are handed to the
 * refresher when they are opened).</li>
 * <li>NameNode getBlockLocations calls per second with no replica in its grace period vs 10,000
 * (HDFS-16261: the read path must not pay for grace replicas of other blocks).</li>
 * <li>NameNode write lock holds per minute by the grace processing of HDFS-16261 with 10,000
 * replicas in their grace period, none of them due (target 0), then all of them due.</li>
 * </ol>
 */
public final class HdfsClientBench {
  private static final PrintStream OUT = System.out;
  private static final int BLOCK = 1024 * 1024;
  /** Rounds of the side-by-side throughput comparisons, alternating the two settings. */
  private static final int ROUNDS = 5;
  private static int missed = 0;

  private HdfsClientBench() {
  }

  public static void main(String[] args) throws Exception {
    int runs = args.length > 0 ? Integer.parseInt(args[0]) : 7;
    int streams = args.length > 1 ? Integer.parseInt(args[1]) : 1000;
    Configuration conf = new Configuration();
    conf.setLong(DFSConfigKeys.DFS_BLOCK_SIZE_KEY, BLOCK);
    conf.setInt(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_REPLICATION_KEY, 1);
    // Counts of the namesystem lock holds per operation, for part 6.
    conf.setBoolean(DFSConfigKeys.DFS_NAMENODE_LOCK_DETAILED_METRICS_KEY, true);
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(3).build();
    try {
      cluster.waitActive();
      backoff(cluster, runs);
      refresherCost(cluster, streams);
      throughput(cluster);
      openClose(cluster);
      graceEntries(cluster);
      graceLockHolds(cluster);
    } finally {
      cluster.shutdown();
    }
    OUT.println(missed == 0 ? "All targets met." : missed + " target(s) missed.");
    System.exit(0);
  }

  /** Prints {@code met} or {@code missed} for one target. */
  static void target(boolean met, String what) {
    if (!met) {
      missed++;
    }
    OUT.printf("   %-6s %s%n", met ? "met" : "missed", what);
  }

  /**
   * Runs {@code a} and {@code b} alternately, {@link #ROUNDS} times each, and returns their
   * median rates: {@code [medianA, medianB]}.
   */
  static double[] sideBySide(String unit, String nameA, RateRun a, String nameB, RateRun b)
      throws Exception {
    double[] ra = new double[ROUNDS];
    double[] rb = new double[ROUNDS];
    for (int round = 0; round < ROUNDS; round++) {
      ra[round] = a.rate();
      rb[round] = b.rate();
    }
    Arrays.sort(ra);
    Arrays.sort(rb);
    OUT.printf("   %s %s %s, %s %s %s%n", nameA,
      Arrays.toString(Arrays.stream(ra).mapToLong(Math::round).toArray()), unit, nameB,
      Arrays.toString(Arrays.stream(rb).mapToLong(Math::round).toArray()), unit);
    return new double[] { ra[ROUNDS / 2], rb[ROUNDS / 2] };
  }

  /** One timed run of a workload; returns operations per second. */
  interface RateRun {
    double rate() throws Exception;
  }

  // ---- 1. backoff -------------------------------------------------------------------------

  private static void backoff(MiniDFSCluster cluster, int runs) throws Exception {
    OUT.println("== 1. pread after its block moved (HDFS-16155), " + runs + " runs each");
    double stock = backoffMedian(cluster, runs, "stock", 3000, 1, Integer.MAX_VALUE);
    double recipe = backoffMedian(cluster, runs, "recipe", 50, 2, 10_000);
    double faster = stock / Math.max(recipe, 0.001);
    OUT.printf("   median stock %.0f ms, recipe %.0f ms: recipe is %.1fx faster%n", stock, recipe,
      faster);
    target(recipe <= 100, String.format("recipe median %.0f ms (<= 100 ms)", recipe));
    target(faster >= 5, String.format("recipe %.1fx faster than stock (>= 5x)", faster));
    OUT.println();
  }

  private static double backoffMedian(MiniDFSCluster cluster, int runs, String name, int base,
      int multiplier, int max) throws Exception {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.setInt(HdfsClientConfigKeys.Retry.WINDOW_BASE_KEY, base);
    conf.setInt(HdfsClientConfigKeys.Retry.WINDOW_MULTIPLIER_KEY, multiplier);
    conf.setInt(HdfsClientConfigKeys.Retry.WINDOW_MAXIMUM_KEY, max);
    double[] ms = new double[runs];
    try (DistributedFileSystem fs = (DistributedFileSystem) DistributedFileSystem
      .newInstance(cluster.getURI(), conf)) {
      for (int i = 0; i < runs; i++) {
        Path p = new Path("/bench/backoff-" + name + "-" + i);
        write(fs, p, BLOCK / 2);
        byte[] buf = new byte[4096];
        try (FSDataInputStream in = fs.open(p)) {
          in.readFully(0, buf);
          LocatedBlock lb = fs.getClient().getLocatedBlocks(p.toString(), 0).get(0);
          DatanodeInfo from = lb.getLocations()[0];
          DatanodeInfo to = otherDataNode(cluster, from);
          BlockMoves.replaceBlock(lb.getBlock(), from, from, to);
          waitReplicaGone(cluster, from, lb.getBlock());
          long t0 = System.nanoTime();
          in.readFully(BLOCK / 4, buf);
          ms[i] = (System.nanoTime() - t0) / 1e6;
        }
      }
    }
    Arrays.sort(ms);
    OUT.printf("   %-6s (base %d ms, multiplier %s, max %d ms): %s ms%n", name, base, multiplier,
      max, Arrays.toString(Arrays.stream(ms).mapToLong(Math::round).toArray()));
    return ms[runs / 2];
  }

  private static DatanodeInfo otherDataNode(MiniDFSCluster cluster, DatanodeInfo not)
      throws IOException {
    for (DatanodeInfo dn : cluster.getFileSystem().getDataNodeStats()) {
      if (!dn.getDatanodeUuid().equals(not.getDatanodeUuid())) {
        return dn;
      }
    }
    throw new IOException("no second DataNode");
  }

  /** Waits until the moved replica is deleted from the source DataNode's dataset. */
  private static void waitReplicaGone(MiniDFSCluster cluster, DatanodeInfo from,
      ExtendedBlock block) throws Exception {
    DataNode dn = cluster.getDataNode(from.getIpcPort());
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (DataNodeTestUtils.getFSDataset(dn).contains(block)) {
      if (System.nanoTime() > deadline) {
        throw new IOException("replica of " + block + " still on " + from + " after 60 s");
      }
      Thread.sleep(50);
    }
  }

  // ---- 2. refresher cost ------------------------------------------------------------------

  /** Client key of HDFS-16262: the longest a stream's locations go unrefreshed. */
  static final String MAX_AGE_KEY = "dfs.client.refresh.read-block-locations.max-age.ms";
  /**
   * Registration of every stream when opened, off by default on both lines: a key of our
   * HDFS-16262 (line lh-2.4), where streams are otherwise registered by their first read, and a
   * follow-up key on upstream's (lh-2.6), where they are otherwise registered from the read path
   * once they are one interval old.
   */
  static final String REGISTER_ON_OPEN_KEY =
    "dfs.client.refresh.read-block-locations.register-on-open";

  private static void refresherCost(MiniDFSCluster cluster, int streams) throws Exception {
    OUT.println("== 2. refresher cost (HDFS-16262): NameNode getBlockLocations calls per"
      + " pass for " + streams + " open streams (interval 1 s)");
    int nFiles = Math.min(streams, 100);
    List<Path> files = files("/bench/cost", nFiles);
    for (Path p : files) {
      write(cluster.getFileSystem(), p, 4096);
    }
    // max-age 0: only streams with a dead or non-local DataNode are refreshed.
    double[] conditional = callsPerPass(cluster, files, streams, 0, 5);
    OUT.printf("   max-age off: all replicas local %.1f calls per pass, no replica local %.1f%n",
      conditional[0], conditional[1]);
    // max-age 5 s: every stream is also refreshed once per 5 s (its local replica may have
    // moved away), spread over the passes.
    double[] aged = callsPerPass(cluster, files, streams, 5000, 15);
    double expected = streams / 5.0;
    OUT.printf("   max-age 5 s: all replicas local %.1f calls per pass, no replica local %.1f%n",
      aged[0], aged[1]);
    target(conditional[0] == 0, String.format(
      "all local, max-age off: %.1f calls per pass (0)", conditional[0]));
    target(Math.abs(conditional[1] - streams) <= streams * 0.01, String.format(
      "no replica local: %.1f calls per pass (%d, one per stream)", conditional[1], streams));
    target(aged[0] >= expected * 0.5 && aged[0] <= expected * 1.5, String.format(
      "all local, max-age 5 s: %.1f calls per pass (streams x interval / max-age = %.0f,"
        + " +-50%%)", aged[0], expected));
    OUT.println();
  }

  /**
   * Opens {@code streams} streams on {@code files} in a client with the refresher on (1 s) and
   * the given max-age, and measures NameNode calls per refresher pass, first with every replica
   * local, then with none local. Returns both averages.
   */
  private static double[] callsPerPass(MiniDFSCluster cluster, List<Path> files, int streams,
      long maxAgeMs, int passes) throws Exception {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.setLong(HdfsClientConfigKeys.DFS_CLIENT_REFRESH_READ_BLOCK_LOCATIONS_MS_KEY, 1000);
    conf.setBoolean(REGISTER_ON_OPEN_KEY, true);
    conf.setLong(MAX_AGE_KEY, maxAgeMs);
    conf.set(HdfsClientConfigKeys.DFS_CLIENT_CONTEXT, "bench-cost-" + System.nanoTime());
    List<FSDataInputStream> open = new ArrayList<>();
    try (DistributedFileSystem fs = (DistributedFileSystem) DistributedFileSystem
      .newInstance(cluster.getURI(), conf)) {
      try {
        LocatedBlocksRefresher refresher = fs.getClient().getLocatedBlockRefresher();
        for (int i = 0; i < streams; i++) {
          open.add(fs.open(files.get(i % files.size())));
        }
        byte[] one = new byte[1];
        for (FSDataInputStream in : open) {
          in.readFully(0, one);
        }
        // Streams are considered once they are one interval old.
        Thread.sleep(1100);
        double allLocal = callsPerPass(refresher, passes);
        // Every replica is on this host in a MiniDFSCluster: make the refresher see none local.
        refresher.setLocalNodeTester(dn -> false);
        double noneLocal = callsPerPass(refresher, 5);
        refresher.setLocalNodeTester(null);
        return new double[] { allLocal, noneLocal };
      } finally {
        for (FSDataInputStream in : open) {
          in.close();
        }
      }
    }
  }

  /** Average NameNode getBlockLocations calls per refresher pass, over {@code passes} passes. */
  private static double callsPerPass(LocatedBlocksRefresher refresher, int passes)
      throws InterruptedException {
    // Start on a pass boundary, so that no pass is counted half.
    int run0 = refresher.getRunCount();
    while (refresher.getRunCount() == run0) {
      Thread.sleep(5);
    }
    long calls0 = nameNodeGetBlockLocations();
    int start = refresher.getRunCount();
    while (refresher.getRunCount() < start + passes) {
      Thread.sleep(5);
    }
    long calls = nameNodeGetBlockLocations() - calls0;
    return (double) calls / (refresher.getRunCount() - start);
  }

  /** NameNode getBlockLocations calls so far (NameNodeActivity metrics). */
  static long nameNodeGetBlockLocations() {
    MetricsRecordBuilder rb = MetricsAsserts.getMetrics("NameNodeActivity");
    return MetricsAsserts.getLongCounter("GetBlockLocations", rb);
  }

  // ---- 3. throughput ----------------------------------------------------------------------

  private static void throughput(MiniDFSCluster cluster) throws Exception {
    OUT.println("== 3. pread throughput, every replica local, refresher off vs on (1 s), "
      + ROUNDS + " alternating runs of 5 s");
    Path p = new Path("/bench/throughput");
    write(cluster.getFileSystem(), p, 8 * BLOCK);
    double[] m = sideBySide("preads/s", "off", () -> preadRate(cluster, p, 0), "on",
      () -> preadRate(cluster, p, 1000));
    target(m[1] / m[0] >= 0.98, String.format("on/off = %.3f (>= 0.98, medians)", m[1] / m[0]));
    OUT.println();
  }

  // ---- 4. opens and closes ----------------------------------------------------------------

  private static void openClose(MiniDFSCluster cluster) throws Exception {
    OUT.println("== 4. opens+closes per second, refresher off vs on (1 s; a stream is handed to"
      + " the refresher when opened), " + ROUNDS + " alternating runs of 3 s");
    Path p = new Path("/bench/open-close");
    write(cluster.getFileSystem(), p, 4 * BLOCK);
    double[] m = sideBySide("opens+closes/s", "off", () -> openCloseRate(cluster, p, 0), "on",
      () -> openCloseRate(cluster, p, 1000));
    target(m[1] / m[0] >= 0.98, String.format("on/off = %.3f (>= 0.98, medians)", m[1] / m[0]));
    OUT.println();
  }

  private static double openCloseRate(MiniDFSCluster cluster, Path p, long refreshMs)
      throws Exception {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.setLong(HdfsClientConfigKeys.DFS_CLIENT_REFRESH_READ_BLOCK_LOCATIONS_MS_KEY, refreshMs);
    conf.setBoolean(REGISTER_ON_OPEN_KEY, true);
    conf.set(HdfsClientConfigKeys.DFS_CLIENT_CONTEXT, "bench-oc-" + refreshMs + "-"
      + System.nanoTime());
    try (DistributedFileSystem fs = (DistributedFileSystem) DistributedFileSystem
      .newInstance(cluster.getURI(), conf)) {
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (System.nanoTime() < end) {
        fs.open(p).close();
      }
      long n = 0;
      long t0 = System.nanoTime();
      end = t0 + TimeUnit.SECONDS.toNanos(3);
      while (System.nanoTime() < end) {
        fs.open(p).close();
        n++;
      }
      return n / ((System.nanoTime() - t0) / 1e9);
    }
  }

  private static double preadRate(MiniDFSCluster cluster, Path p, long refreshMs)
      throws Exception {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.setLong(HdfsClientConfigKeys.DFS_CLIENT_REFRESH_READ_BLOCK_LOCATIONS_MS_KEY, refreshMs);
    conf.setBoolean(REGISTER_ON_OPEN_KEY, true);
    // A client context of its own, so each configuration gets its own refresher.
    conf.set(HdfsClientConfigKeys.DFS_CLIENT_CONTEXT, "bench-" + refreshMs + "-" + System.nanoTime());
    try (DistributedFileSystem fs = (DistributedFileSystem) DistributedFileSystem
      .newInstance(cluster.getURI(), conf); FSDataInputStream in = fs.open(p)) {
      byte[] buf = new byte[4096];
      Random rnd = new Random(1);
      long len = fs.getFileStatus(p).getLen() - buf.length;
      // Warm up, then count preads for 5 s (longer than several refresh intervals).
      long end = System.nanoTime() + TimeUnit.SECONDS.toNanos(1);
      while (System.nanoTime() < end) {
        in.readFully((long) (rnd.nextDouble() * len), buf);
      }
      long n = 0;
      long t0 = System.nanoTime();
      end = t0 + TimeUnit.SECONDS.toNanos(5);
      while (System.nanoTime() < end) {
        in.readFully((long) (rnd.nextDouble() * len), buf);
        n++;
      }
      return n / ((System.nanoTime() - t0) / 1e9);
    }
  }

  // ---- 5. getBlockLocations with grace entries ---------------------------------------------

  /** Grace entries of other blocks in the "with" runs of part 5. */
  private static final int GRACE_ENTRIES = 10_000;
  /** Blocks of the file part 5 reads the locations of. */
  private static final int GRACE_FILE_BLOCKS = 64;

  /**
   * NameNode getBlockLocations calls per second for a file of 64 blocks, with no replica in its
   * grace period vs 10,000 replicas of other blocks in theirs (HDFS-16261). Calls go straight to
   * the NameNode's RPC server object, so the figure is the NameNode's own cost, not the IPC's.
   */
  private static void graceEntries(MiniDFSCluster cluster) throws Exception {
    OUT.println("== 5. NameNode getBlockLocations calls/s (" + GRACE_FILE_BLOCKS + "-block file),"
      + " 0 vs " + GRACE_ENTRIES + " replicas of other blocks in their grace period (HDFS-16261),"
      + " " + ROUNDS + " alternating runs of 2 s");
    String src = "/bench/grace-read";
    int blockSize = 64 * 1024;
    try (FSDataOutputStream out = cluster.getFileSystem().create(new Path(src), true, 4096,
      (short) 1, blockSize)) {
      out.write(new byte[GRACE_FILE_BLOCKS * blockSize]);
    }
    NameNode nn = cluster.getNameNode();
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    String key = DFSConfigKeys.DFS_NAMENODE_BLOCK_REPLACE_GRACE_PERIOD_MS_KEY;
    String oldGrace = String.valueOf(bm.getBlockReplaceGracePeriodMs());
    DatanodeDescriptor dn = bm.getDatanodeManager()
      .getDatanode(cluster.getDataNodes().get(0).getDatanodeUuid());
    try {
      double[] m = sideBySide("calls/s", "0 entries", () -> {
        dropGraceEntries(nn, bm);
        return getBlockLocationsRate(cluster, src);
      }, GRACE_ENTRIES + " entries", () -> {
        dropGraceEntries(nn, bm);
        // an hour: no grace period ends during the run
        nn.reconfigureProperty(key, "3600000");
        long firstId = Long.MAX_VALUE / 2;
        for (int i = 0; i < GRACE_ENTRIES; i++) {
          BenchGraceEntries.add(bm, new Block(firstId + i, blockSize, 1), dn);
        }
        if (bm.getPendingDeletionReplacedBlocksCount() != GRACE_ENTRIES) {
          throw new IOException("expected " + GRACE_ENTRIES + " grace entries, the NameNode has "
            + bm.getPendingDeletionReplacedBlocksCount());
        }
        return getBlockLocationsRate(cluster, src);
      });
      target(m[1] / m[0] >= 0.95, String.format("with/without = %.3f (>= 0.95, medians)",
        m[1] / m[0]));
    } finally {
      dropGraceEntries(nn, bm);
      nn.reconfigureProperty(key, oldGrace);
    }
    OUT.println();
  }

  /**
   * Ends every grace period: at 1 ms the redundancy monitor drops the synthetic entries (they
   * are not in the excess map) within a second.
   */
  private static void dropGraceEntries(NameNode nn, BlockManager bm) throws Exception {
    if (bm.getPendingDeletionReplacedBlocksCount() == 0) {
      return;
    }
    nn.reconfigureProperty(DFSConfigKeys.DFS_NAMENODE_BLOCK_REPLACE_GRACE_PERIOD_MS_KEY, "1");
    long deadline = System.nanoTime() + TimeUnit.SECONDS.toNanos(60);
    while (bm.getPendingDeletionReplacedBlocksCount() > 0) {
      if (System.nanoTime() > deadline) {
        throw new IOException(bm.getPendingDeletionReplacedBlocksCount()
          + " grace entries left after 60 s");
      }
      Thread.sleep(50);
    }
  }

  // ---- 6. namesystem write lock taken by the grace processing -------------------------------

  /** The detailed lock metric of the holds of the grace processing (FSNamesystemLock). */
  private static final String GRACE_LOCK_HOLDS =
    "FSNWriteLockProcessReplacedReplicasNanosNumOps";
  /** Length of each measurement of part 6. */
  private static final long GRACE_LOCK_WINDOW_MS = 15_000;

  /**
   * Namesystem write lock holds per minute by the redundancy monitor's grace processing
   * (HDFS-16261) with 10,000 replicas in their grace period none of which is due, then all due.
   * Counted by the NameNode's detailed lock metrics, which name the operation of each hold.
   */
  private static void graceLockHolds(MiniDFSCluster cluster) throws Exception {
    long intervalS = cluster.getConfiguration(0).getLong(
      DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY,
      DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_DEFAULT);
    OUT.println("== 6. NameNode write lock holds per minute by the grace processing (HDFS-16261),"
      + " " + GRACE_ENTRIES + " replicas in their grace period, redundancy monitor every "
      + intervalS + " s, " + GRACE_LOCK_WINDOW_MS / 1000 + " s per measurement");
    if (org.apache.hadoop.util.VersionInfo.getVersion().startsWith("3.3.")) {
      // Hadoop 3.3's BlockManager sees the namesystem through an interface without
      // writeUnlock(String): its holds are all counted as "OTHER".
      OUT.println("   not measured on Hadoop " + org.apache.hadoop.util.VersionInfo.getVersion()
        + ": its lock metrics cannot tell the grace processing's holds from others");
      OUT.println();
      return;
    }
    NameNode nn = cluster.getNameNode();
    BlockManager bm = cluster.getNamesystem().getBlockManager();
    String key = DFSConfigKeys.DFS_NAMENODE_BLOCK_REPLACE_GRACE_PERIOD_MS_KEY;
    String oldGrace = String.valueOf(bm.getBlockReplaceGracePeriodMs());
    DatanodeDescriptor dn = bm.getDatanodeManager()
      .getDatanode(cluster.getDataNodes().get(0).getDatanodeUuid());
    try {
      dropGraceEntries(nn, bm);
      nn.reconfigureProperty(key, "3600000");
      long firstId = Long.MAX_VALUE / 4;
      for (int i = 0; i < GRACE_ENTRIES; i++) {
        BenchGraceEntries.add(bm, new Block(firstId + i, 1024, 1), dn);
      }
      long h0 = graceLockHolds();
      long t0 = System.nanoTime();
      Thread.sleep(GRACE_LOCK_WINDOW_MS);
      double none = (graceLockHolds() - h0) * 60e9 / (System.nanoTime() - t0);
      long left = bm.getPendingDeletionReplacedBlocksCount();
      OUT.printf("   none due: %.1f holds/min (%d entries left)%n", none, left);
      target(none == 0 && left == GRACE_ENTRIES,
        String.format("none due: %.1f write lock holds/min (target 0)", none));

      // Every entry due: the synthetic entries name blocks the NameNode does not have, so each
      // is dropped, not invalidated.
      h0 = graceLockHolds();
      t0 = System.nanoTime();
      nn.reconfigureProperty(key, "1");
      long ended = -1;
      long end = t0 + TimeUnit.MILLISECONDS.toNanos(GRACE_LOCK_WINDOW_MS);
      while (System.nanoTime() < end) {
        if (ended < 0 && bm.getPendingDeletionReplacedBlocksCount() == 0) {
          ended = System.nanoTime() - t0;
        }
        Thread.sleep(10);
      }
      long holds = graceLockHolds() - h0;
      OUT.printf("   all due: %d holds in %d s, %.1f holds/min; every grace period ended after"
        + " %s%n", holds, GRACE_LOCK_WINDOW_MS / 1000,
        holds * 60e9 / (System.nanoTime() - t0),
        ended < 0 ? "more than the window" : TimeUnit.NANOSECONDS.toMillis(ended) + " ms");
    } finally {
      dropGraceEntries(nn, bm);
      nn.reconfigureProperty(key, oldGrace);
    }
    OUT.println();
  }

  /** @return the holds of the write lock by the grace processing so far. */
  private static long graceLockHolds() {
    MetricsRecordBuilder rb = MetricsAsserts.getMetrics("FSNamesystem");
    try {
      return MetricsAsserts.getLongCounter(GRACE_LOCK_HOLDS, rb);
    } catch (AssertionError absent) {
      // The metric appears with the first hold.
      return 0;
    }
  }

  private static double getBlockLocationsRate(MiniDFSCluster cluster, String src)
    throws Exception {
    NamenodeProtocols rpc = cluster.getNameNodeRpc();
    long end = System.nanoTime() + TimeUnit.MILLISECONDS.toNanos(500);
    while (System.nanoTime() < end) {
      rpc.getBlockLocations(src, 0, Long.MAX_VALUE);
    }
    long n = 0;
    long t0 = System.nanoTime();
    end = t0 + TimeUnit.SECONDS.toNanos(2);
    while (System.nanoTime() < end) {
      if (rpc.getBlockLocations(src, 0, Long.MAX_VALUE).locatedBlockCount()
        != GRACE_FILE_BLOCKS) {
        throw new IOException("unexpected block count of " + src);
      }
      n++;
    }
    return n / ((System.nanoTime() - t0) / 1e9);
  }

  static void write(org.apache.hadoop.fs.FileSystem fs, Path p, int bytes) throws IOException {
    byte[] data = new byte[bytes];
    new Random(p.hashCode()).nextBytes(data);
    try (FSDataOutputStream out = fs.create(p, true)) {
      out.write(data);
    }
  }

  static List<Path> files(String dir, int n) {
    List<Path> out = new ArrayList<>();
    for (int i = 0; i < n; i++) {
      out.add(new Path(dir, "f" + i));
    }
    return out;
  }
}
