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
import org.apache.hadoop.hbase.locality.it.BlockMoves;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.datanode.DataNode;
import org.apache.hadoop.hdfs.server.datanode.DataNodeTestUtils;
import org.apache.hadoop.metrics2.MetricsRecordBuilder;
import org.apache.hadoop.test.MetricsAsserts;

/**
 * Benchmark of the HDFS client patches (HDFS-16155, HDFS-16262) on a MiniDFSCluster, run by
 * build-scripts/bench-hdfs-client. Prints figures and side-by-side ratios; asserts nothing.
 * <ol>
 * <li>Backoff: time for a pread to succeed after the block it was reading moved to another
 * DataNode (its cached location is gone), stock retry settings vs the low-latency recipe.</li>
 * <li>Refresher cost: NameNode getBlockLocations calls per interval made for 1,000 open streams
 * when every replica is local, and when none is.</li>
 * <li>Pread throughput with the refresher on vs off, every replica local.</li>
 * </ol>
 */
public final class HdfsClientBench {
  private static final PrintStream OUT = System.out;
  private static final int BLOCK = 1024 * 1024;

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
    MiniDFSCluster cluster = new MiniDFSCluster.Builder(conf).numDataNodes(3).build();
    try {
      cluster.waitActive();
      backoff(cluster, runs);
      refresherCost(cluster, streams);
      throughput(cluster);
    } finally {
      cluster.shutdown();
    }
    System.exit(0);
  }

  // ---- 1. backoff -------------------------------------------------------------------------

  private static void backoff(MiniDFSCluster cluster, int runs) throws Exception {
    OUT.println("== 1. pread after its block moved (HDFS-16155), " + runs + " runs each");
    double stock = backoffMedian(cluster, runs, "stock", 3000, 1, Integer.MAX_VALUE);
    double recipe = backoffMedian(cluster, runs, "recipe", 50, 2, 10_000);
    OUT.printf("   median stock %.0f ms, recipe %.0f ms: recipe is %.1fx faster%n%n", stock, recipe,
      stock / Math.max(recipe, 0.001));
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

  private static void refresherCost(MiniDFSCluster cluster, int streams) throws Exception {
    OUT.println("== 2. refresher cost (HDFS-16262): NameNode getBlockLocations calls per"
      + " pass for " + streams + " open streams (interval 1 s)");
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.setLong(HdfsClientConfigKeys.DFS_CLIENT_REFRESH_READ_BLOCK_LOCATIONS_MS_KEY, 1000);
    conf.set(HdfsClientConfigKeys.DFS_CLIENT_CONTEXT, "bench-cost-" + System.nanoTime());
    int nFiles = Math.min(streams, 100);
    List<Path> files = files("/bench/cost", nFiles);
    for (Path p : files) {
      write(cluster.getFileSystem(), p, 4096);
    }
    List<FSDataInputStream> open = new ArrayList<>();
    try (DistributedFileSystem fs = (DistributedFileSystem) DistributedFileSystem
      .newInstance(cluster.getURI(), conf)) {
      try {
        LocatedBlocksRefresher refresher = fs.getClient().getLocatedBlockRefresher();
        for (int i = 0; i < streams; i++) {
          open.add(fs.open(files.get(i % nFiles)));
        }
        // Streams register lazily, on their first read one interval after their locations
        // were fetched.
        Thread.sleep(1100);
        byte[] one = new byte[1];
        for (FSDataInputStream in : open) {
          in.readFully(0, one);
        }
        double allLocal = callsPerPass(refresher, 5);
        // Every replica is on this host in a MiniDFSCluster: make the refresher see none local.
        refresher.setLocalNodeTester(dn -> false);
        double noneLocal = callsPerPass(refresher, 5);
        refresher.setLocalNodeTester(null);
        OUT.printf("   all replicas local: %.1f calls per pass (target 0)%n", allLocal);
        OUT.printf("   no replica local:   %.1f calls per pass (target %d)%n%n", noneLocal,
          streams);
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
    OUT.println("== 3. pread throughput, every replica local, refresher off vs on (1 s)");
    Path p = new Path("/bench/throughput");
    write(cluster.getFileSystem(), p, 8 * BLOCK);
    double[] off = new double[3];
    double[] on = new double[3];
    for (int round = 0; round < 3; round++) {
      off[round] = preadRate(cluster, p, 0);
      on[round] = preadRate(cluster, p, 1000);
    }
    Arrays.sort(off);
    Arrays.sort(on);
    OUT.printf("   off %s preads/s, on %s preads/s: on/off = %.3f (median of 3 alternating runs)"
      + "%n%n", Arrays.toString(Arrays.stream(off).mapToLong(Math::round).toArray()),
      Arrays.toString(Arrays.stream(on).mapToLong(Math::round).toArray()), on[1] / off[1]);
  }

  private static double preadRate(MiniDFSCluster cluster, Path p, long refreshMs)
      throws Exception {
    Configuration conf = new Configuration(cluster.getConfiguration(0));
    conf.setLong(HdfsClientConfigKeys.DFS_CLIENT_REFRESH_READ_BLOCK_LOCATIONS_MS_KEY, refreshMs);
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
