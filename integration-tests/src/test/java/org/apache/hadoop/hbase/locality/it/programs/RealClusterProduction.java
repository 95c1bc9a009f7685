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
package org.apache.hadoop.hbase.locality.it.programs;

import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.compacted;
import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.fileNames;
import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.hdfsLocality;
import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.minReported;
import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.tableBytes;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.mib;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.moveEveryRegionToNextServer;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.reportDir;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.target;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ArrayNode;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.atomic.AtomicLong;
import java.util.regex.Pattern;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HConstants;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.BufferedMutator;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.io.compress.Compression;
import org.apache.hadoop.hbase.io.encoding.DataBlockEncoding;
import org.apache.hadoop.hbase.locality.it.harness.BlockMoves;
import org.apache.hadoop.hbase.locality.it.harness.DemoReader;
import org.apache.hadoop.hbase.locality.it.harness.RealCluster;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.regionserver.ConstantSizeRegionSplitPolicy;
import org.apache.hadoop.hbase.util.Bytes;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;

/**
 * The production-shape benchmark of {@code build-scripts/bench --production}: the healer against
 * a major compaction on the real cluster of build-scripts/cluster brought up as production runs
 * (replication 3, 128 MiB blocks, two racks, balancer bandwidth 100 MiB/s), on a SNAPPY-compressed,
 * FAST_DIFF-encoded table written through the RegionServers. Prints figures measured in one run
 * and asserts nothing.
 * <ul>
 * <li>{@code run LEVEL SIZE_MIB BANDWIDTH [compact] [curve B1,B2,...]}: loads SIZE_MIB of 1 KiB
 * values (uncompressed) into one region per RegionServer; then per scenario (every region moved
 * to the next RegionServer: wholly non-local; the same, with about half of each region's bytes
 * made local again by HDFS block moves: half non-local) the healer's jar {@code --once}, and with
 * {@code compact} a major compaction of the same state. With {@code curve}, the wholly non-local
 * scenario again, healed with {@code --bandwidth} at each of B1, B2, ... bytes per second.
 * BANDWIDTH is the DataNodes' balancer bandwidth. Figures go to production-LEVEL-SIZE.json in the
 * directory of the system property lh.report.dir.</li>
 * <li>{@code table}: every production-*.json there side by side, and the targets.</li>
 * </ul>
 */
public final class RealClusterProduction {
  private static final PrintStream OUT = System.out;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TableName TABLE = TableName.valueOf("prod");
  private static final int VALUE_BYTES = 1024;
  /** Seconds after the operation that reported locality may take to reach 1.0. */
  private static final int REPORT_CAP_S = 60;
  /**
   * Below this share of non-local bytes a scenario has too little to heal to compare (a region of
   * one block cannot be made half local block by block).
   */
  private static final double MIN_NON_LOCAL = 0.1;
  /** Longer than a DataNode's JMX cache (Hadoop metrics2's jmxCacheTTL, 10 s by default). */
  private static final long JMX_CACHE_MS = 11_000;
  private static final Pattern STARTED = Pattern.compile("^(\\S+ \\S+) .*Start moving \\S+ with"
    + " size=(\\d+) from ([^:/\\s]+)\\S* to ([^:/\\s]+)\\S* through ([^:/\\s]+)");
  private static final Pattern MOVED = Pattern.compile("^(\\S+ \\S+) .*Successfully moved ");
  private static final Pattern PASS_ENDED =
    Pattern.compile("^(\\S+ \\S+) .*LocalityHealer pass \\d+:");
  private static final Pattern FIRST_MOVE =
    Pattern.compile("^(\\S+ \\S+) .*Pass \\d+ moves its first blocks (\\d+) ms after its start");
  /** The daemon's interval in the start stage: longer than moving the regions takes. */
  private static final int DAEMON_INTERVAL_S = 90;
  /** The machine is idle below this share of its CPUs' time busy over a second. */
  private static final double QUIET_BUSY = 0.15;
  private static final int QUIET_WAIT_S = 120;

  private RealClusterProduction() {
  }

  public static void main(String[] args) {
    try {
      if (args.length == 1 && args[0].equals("table")) {
        table();
      } else if (args.length >= 4 && args[0].equals("run")) {
        boolean compact = false;
        boolean start = false;
        long[] curve = new long[0];
        for (int i = 4; i < args.length; i++) {
          if (args[i].equals("compact")) {
            compact = true;
          } else if (args[i].equals("start")) {
            start = true;
          } else if (args[i].equals("curve") && i + 1 < args.length) {
            String[] b = args[++i].split(",");
            curve = new long[b.length];
            for (int k = 0; k < b.length; k++) {
              curve[k] = Long.parseLong(b[k]);
            }
          } else {
            throw new IllegalArgumentException("unknown argument '" + args[i] + "'");
          }
        }
        try (RealCluster cluster = new RealCluster()) {
          run(cluster, args[1], Integer.parseInt(args[2]), Long.parseLong(args[3]), compact,
            start, curve);
        }
      } else {
        System.err.println("usage: RealClusterProduction run LEVEL SIZE_MIB BANDWIDTH [compact]"
          + " [start] [curve B1,B2,...] | table");
        System.exit(2);
      }
      System.exit(0);
    } catch (Throwable t) {
      System.err.println("production benchmark failed: " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static double seconds(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1e9;
  }

  private static void run(RealCluster cluster, String level, int sizeMib, long bandwidth,
      boolean compact, boolean start, long[] curve) throws Exception {
    int regions = cluster.hostsWith("regionserver").size();
    int rows = (int) ((long) sizeMib * 1024 / regions);
    OUT.printf("== production shape, %s: %d MiB of 1 KiB values in %d regions (one per"
      + " RegionServer), SNAPPY, FAST_DIFF%n", level, sizeMib, regions);
    ObjectNode out = JSON.createObjectNode();
    out.put("level", level);
    out.put("size_mib", sizeMib);
    out.put("regions", regions);
    out.put("rows_per_region", rows);
    out.put("balancer_bandwidth", bandwidth);
    long t = System.nanoTime();
    long written = load(cluster, regions, rows);
    out.put("load_s", seconds(t));
    long[] b = tableBytes(cluster, TABLE);
    out.put("table_mib", mib(b[1]));
    out.put("compression_ratio", (double) written / b[1]);
    OUT.printf("   loaded %.0f MiB (row keys and values) through the RegionServers and major"
      + " compacted in %.0f s; %.0f MiB of store files: ratio %.2f%n", mib(written),
      out.get("load_s").asDouble(), mib(b[1]), out.get("compression_ratio").asDouble());
    if (start) {
      out.set("start", start(cluster));
    }
    out.set("whole_heal", heal(cluster, false, regions, rows, bandwidth, 0));
    if (compact) {
      out.set("whole_compact", compact(cluster, false, regions, rows));
    }
    out.set("half_heal", heal(cluster, true, regions, rows, bandwidth, 0));
    if (compact) {
      out.set("half_compact", compact(cluster, true, regions, rows));
    }
    ArrayNode c = out.putArray("curve");
    for (long bw : curve) {
      c.add(heal(cluster, false, regions, rows, bw, bw));
    }
    File file = new File(reportDir(), "production-" + level + "-" + sizeMib + ".json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(file, out);
    OUT.println("   figures written to " + file);
  }

  /**
   * Creates the table, writes {@code rows} rows into each region through the RegionServers (a
   * writer per region), flushes, and major compacts it, as a table at rest is. Regions split at
   * hbase.hregion.max.filesize only. Returns the bytes of row keys and values written.
   */
  private static long load(RealCluster cluster, int regions, int rows) throws Exception {
    byte[][] splits = new byte[regions - 1][];
    for (int r = 1; r < regions; r++) {
      splits[r - 1] = Bytes.toBytes(String.format("r%02d", r));
    }
    Admin admin = cluster.admin();
    // A table of 100 regions per RegionServer splits at hbase.hregion.max.filesize (10 GiB);
    // upstream's SteppingSplitPolicy splits a table's only region on a server at twice the
    // flush size (256 MiB), which would make this one table of production's regions many small
    // ones.
    admin.createTable(TableDescriptorBuilder.newBuilder(TABLE)
      .setRegionSplitPolicyClassName(ConstantSizeRegionSplitPolicy.class.getName())
      .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(TestTables.FAMILY)
        .setCompressionType(Compression.Algorithm.SNAPPY)
        .setDataBlockEncoding(DataBlockEncoding.FAST_DIFF).build()).build(), splits);
    TestTables.spreadRegions(cluster.connection(), TABLE);
    ExecutorService pool = Executors.newFixedThreadPool(regions);
    AtomicLong bytes = new AtomicLong();
    try {
      List<Future<?>> writers = new ArrayList<>();
      for (int r = 0; r < regions; r++) {
        int region = r;
        writers.add(pool.submit(() -> {
          try (BufferedMutator m = cluster.connection().getBufferedMutator(TABLE)) {
            for (int i = 0; i < rows; i++) {
              byte[] row = TestTables.row(region, i);
              m.mutate(new Put(row).addColumn(TestTables.FAMILY, TestTables.QUALIFIER,
                TestTables.compressibleValue(row, VALUE_BYTES)));
              bytes.addAndGet(row.length + VALUE_BYTES);
            }
          }
          return null;
        }));
      }
      for (Future<?> w : writers) {
        w.get();
      }
    } finally {
      pool.shutdownNow();
    }
    admin.flush(TABLE);
    waitNoCompaction(admin);
    // A region that opens with 3 store files or more (hbase.hstore.compactionThreshold) is
    // compacted on opening, which makes it local behind the healer's back: a table at rest has
    // had its major compaction, so each region starts with one store file.
    Set<String> files = fileNames(cluster, TABLE);
    for (int attempt = 1; !compacted(cluster, TABLE, files); attempt++) {
      if (attempt > 3) {
        throw new IOException("three major compactions of " + TABLE + " left a region with"
          + " more than one store file");
      }
      admin.majorCompact(TABLE);
      Thread.sleep(3000);
      waitNoCompaction(admin);
    }
    dropGarbage(cluster);
    return bytes.get();
  }

  private static void waitNoCompaction(Admin admin) throws Exception {
    // A compaction the flush queued may not have started yet: NONE three times in a row.
    int none = 0;
    long deadline = System.nanoTime() + 7_200_000_000_000L;
    while (none < 3) {
      none = admin.getCompactionState(TABLE) == CompactionState.NONE ? none + 1 : 0;
      if (System.nanoTime() > deadline) {
        throw new IOException("the compactions of " + TABLE + " did not end in 2 hours");
      }
      Thread.sleep(1000);
    }
  }

  /**
   * Puts the replicas back as writing the regions on their servers left them (see
   * {@link #restoreWrittenLayout}), moves every region to the next RegionServer, and on while a
   * server holds a replica of its region's blocks; with {@code half}, then makes about half of
   * each region's bytes local again, block by block, by moving the replica of its old host (the
   * new host's rack) to the new host. Returns [non-local bytes, all bytes].
   */
  private static long[] prepare(RealCluster cluster, boolean half) throws Exception {
    dropGarbage(cluster);
    waitNoExcessReplicas(cluster);
    if (restoreWrittenLayout(cluster) > 0) {
      waitNoExcessReplicas(cluster);
    }
    Map<String, String> oldHost = new HashMap<>();
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      oldHost.put(e.getKey().getEncodedName(), e.getValue().getHostname());
    }
    moveEveryRegionToNextServer(cluster, TABLE);
    cluster.waitForLocalityReports(TABLE);
    // A server may still hold replicas from an earlier scenario (one the NameNode kept as a
    // block's excess replica over the one the move replaced): move on until none does.
    int servers = cluster.hostsWith("regionserver").size();
    for (int i = 1; i < servers && !wholly(cluster); i++) {
      moveEveryRegionToNextServer(cluster, TABLE);
      cluster.waitForLocalityReports(TABLE);
    }
    if (half) {
      DistributedFileSystem dfs = (DistributedFileSystem) cluster.fs();
      for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
        List<FileStatus> files = cluster.storeFiles(e.getKey());
        long total = files.stream().mapToLong(FileStatus::getLen).sum();
        String from = oldHost.get(e.getKey().getEncodedName());
        long[] taken = new long[1];
        BlockMoves.makeLocal(dfs, files, e.getValue().getHostname(), lb -> {
          for (DatanodeInfo dn : lb.getLocations()) {
            if (dn.getHostName().equals(from)) {
              return dn;
            }
          }
          return lb.getLocations()[0];
        }, (LocatedBlock lb) -> {
          // the block whose middle is in the first half of the region's bytes
          boolean take = 2 * taken[0] + lb.getBlockSize() <= total;
          if (take) {
            taken[0] += lb.getBlockSize();
          }
          return take;
        });
      }
    }
    long[] b = tableBytes(cluster, TABLE);
    return new long[] { b[1] - b[0], b[1] };
  }

  /**
   * Gives every block of the table the replicas a write on its region's server gives it: one on
   * that server's host, the others on DataNode-only hosts. A healed block keeps a replica on the
   * host its region was written on (the planner replaces one in the other rack), so after a
   * scenario or two, every RegionServer host holds some of every region's blocks and no move of
   * the regions makes them wholly non-local again. Moves each replica on another RegionServer
   * host to the serving host if it has none, else to a DataNode-only host without one. Returns
   * the replicas moved.
   */
  private static int restoreWrittenLayout(RealCluster cluster) throws Exception {
    DistributedFileSystem dfs = (DistributedFileSystem) cluster.fs();
    Set<String> serverHosts = new HashSet<>(cluster.hostsWith("regionserver"));
    List<DatanodeInfo> dataNodeOnly = new ArrayList<>();
    Map<String, DatanodeInfo> byHost = new HashMap<>();
    for (DatanodeInfo dn : dfs.getDataNodeStats()) {
      byHost.put(dn.getHostName(), dn);
      if (!serverHosts.contains(dn.getHostName())) {
        dataNodeOnly.add(dn);
      }
    }
    int moved = 0;
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      String serving = e.getValue().getHostname();
      for (FileStatus f : cluster.storeFiles(e.getKey())) {
        for (LocatedBlock lb : dfs.getClient()
          .getLocatedBlocks(f.getPath().toUri().getPath(), 0, f.getLen()).getLocatedBlocks()) {
          Set<String> holders = new HashSet<>();
          for (DatanodeInfo dn : lb.getLocations()) {
            holders.add(dn.getHostName());
          }
          for (DatanodeInfo dn : lb.getLocations()) {
            if (!serverHosts.contains(dn.getHostName()) || dn.getHostName().equals(serving)) {
              continue;
            }
            DatanodeInfo to = holders.contains(serving) ? dataNodeOnly.stream()
              .filter(d -> !holders.contains(d.getHostName())).findFirst().orElse(null)
              : byHost.get(serving);
            if (to == null) {
              throw new IOException("no DataNode to move the replica of " + lb.getBlock()
                + " on " + dn.getHostName() + " to");
            }
            BlockMoves.replaceBlock(lb.getBlock(), dn, dn, to);
            holders.remove(dn.getHostName());
            holders.add(to.getHostName());
            moved++;
          }
        }
      }
    }
    OUT.printf("   replicas put back as written on the regions' servers: %d moved%n", moved);
    return moved;
  }

  /**
   * Waits until no block of the table has more replicas than its replication: a replica a move
   * replaced stays until the NameNode deletes it (at L4 after its grace period), and a region
   * moved to its host would find it local.
   */
  private static void waitNoExcessReplicas(RealCluster cluster) throws Exception {
    DistributedFileSystem dfs = (DistributedFileSystem) cluster.fs();
    long deadline = System.nanoTime() + 300_000_000_000L;
    for (RegionInfo r : cluster.regionsOf(TABLE).keySet()) {
      for (FileStatus f : cluster.storeFiles(r)) {
        String path = f.getPath().toUri().getPath();
        while (true) {
          boolean excess = false;
          for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(path, 0, f.getLen())
            .getLocatedBlocks()) {
            excess |= lb.getLocations().length > f.getReplication();
          }
          if (!excess) {
            break;
          }
          if (System.nanoTime() > deadline) {
            throw new IOException("blocks of " + path + " kept more than " + f.getReplication()
              + " replicas for 300 s");
          }
          Thread.sleep(500);
        }
      }
    }
  }

  /**
   * Waits until the machine's CPUs were busy (not idle, I/O wait counted as busy: the page
   * cache's write-back of the replicas just put back) for less than {@link #QUIET_BUSY} of a
   * second, at most {@link #QUIET_WAIT_S} seconds; returns the busy share of the last second.
   */
  private static double waitQuiet() throws Exception {
    long deadline = System.nanoTime() + QUIET_WAIT_S * 1_000_000_000L;
    long[] before = cpuTicks();
    while (true) {
      Thread.sleep(1000);
      long[] now = cpuTicks();
      long total = now[0] - before[0];
      double busy = total <= 0 ? 0 : (double) (total - (now[1] - before[1])) / total;
      before = now;
      if (busy < QUIET_BUSY || System.nanoTime() > deadline) {
        return busy;
      }
    }
  }

  /** The machine's CPU ticks from /proc/stat: [all, idle]. */
  private static long[] cpuTicks() throws IOException {
    String line = Files.readAllLines(Paths.get("/proc/stat"), StandardCharsets.UTF_8).get(0);
    String[] f = line.trim().split("\\s+");
    if (!f[0].equals("cpu") || f.length < 5) {
      throw new IOException("unexpected first line of /proc/stat: " + line);
    }
    long all = 0;
    // user nice system idle iowait irq softirq steal; guest time is in user already
    for (int i = 1; i < Math.min(f.length, 9); i++) {
      all += Long.parseLong(f[i]);
    }
    return new long[] { all, Long.parseLong(f[4]) };
  }

  private static boolean wholly(RealCluster cluster) throws IOException {
    long[] b = tableBytes(cluster, TABLE);
    return b[0] <= 0.01 * b[1];
  }

  /**
   * Deletes the store files the table's compactions archived and the archived WALs, which HBase's
   * cleaners keep 5 and 10 minutes: at 8 GiB they are several times the table and would fill the
   * disk. Before a scenario, not during one.
   */
  private static void dropGarbage(RealCluster cluster) throws IOException {
    Path root = new Path(cluster.conf().get(HConstants.HBASE_DIR));
    FileSystem fs = root.getFileSystem(cluster.conf());
    for (Path dir : new Path[] { new Path(root, "archive/data/default/" + TABLE.getNameAsString()),
      new Path(root, HConstants.HREGION_OLDLOGDIR_NAME) }) {
      if (fs.exists(dir)) {
        for (FileStatus f : fs.listStatus(dir)) {
          fs.delete(f.getPath(), true);
        }
      }
    }
  }

  /** What every daemon and the DataNodes have done so far, read at one moment. */
  private static final class Snapshot {
    final long nanos = System.nanoTime();
    final Map<String, Double> cpu;
    final Map<String, long[]> dataNodeBytes;
    final long childTicks;

    Snapshot(RealCluster cluster, Map<String, long[]> dataNodeBytes) throws IOException {
      this.cpu = daemonCpu(cluster);
      this.dataNodeBytes = dataNodeBytes;
      this.childTicks = childTicks();
    }
  }

  /** CPU seconds (user + system) of each daemon of the cluster, by "HOST-ROLE". */
  private static Map<String, Double> daemonCpu(RealCluster cluster) throws IOException {
    Map<String, Double> out = new TreeMap<>();
    for (String role : new String[] { "namenode", "datanode", "zookeeper", "master",
      "regionserver" }) {
      for (String h : cluster.hostsWith(role)) {
        long[] t = stat(new File("/proc/" + cluster.pid(h, role) + "/stat"));
        out.put(h + "-" + role, t == null ? 0 : (t[0] + t[1]) / 100.0);
      }
    }
    return out;
  }

  /**
   * Ticks of user and system time of the waited-for children of this JVM (the healer, which
   * build-scripts/cluster runs and this JVM waits for).
   */
  private static long childTicks() throws IOException {
    long[] t = stat(new File("/proc/self/stat"));
    return t == null ? 0 : t[2] + t[3];
  }

  /** utime, stime, cutime, cstime (in ticks of 1/100 s) of a /proc stat file, null if gone. */
  private static long[] stat(File f) throws IOException {
    if (!f.exists()) {
      return null;
    }
    String s = new String(Files.readAllBytes(f.toPath()), StandardCharsets.UTF_8);
    // fields 14 to 17 of stat are 12 to 15 after the command name
    String[] x = s.substring(s.lastIndexOf(')') + 2).split(" ");
    return new long[] { Long.parseLong(x[11]), Long.parseLong(x[12]), Long.parseLong(x[13]),
      Long.parseLong(x[14]) };
  }

  /** [bytes read, bytes written] of each DataNode by host, as its metrics say now. */
  private static Map<String, long[]> dataNodeBytes(RealCluster cluster)
      throws IOException, InterruptedException {
    readDataNodeBytes(cluster);
    Thread.sleep(JMX_CACHE_MS);
    return readDataNodeBytes(cluster);
  }

  private static Map<String, long[]> readDataNodeBytes(RealCluster cluster) throws IOException {
    Map<String, long[]> out = new TreeMap<>();
    for (String h : cluster.hostsWith("datanode")) {
      URL url = new URL("http://" + h + ":9864/jmx?qry=Hadoop:service=DataNode,"
        + "name=DataNodeActivity-*");
      try (InputStream in = url.openStream()) {
        JsonNode bean = JSON.readTree(in).path("beans").path(0);
        out.put(h, new long[] { bean.path("BytesRead").asLong(),
          bean.path("BytesWritten").asLong() });
      }
    }
    return out;
  }

  /**
   * Puts the figures of the window from {@code a} to {@code b} into {@code out}: CPU seconds by
   * daemon, in all and net of the reader's rate of the before phase ({@code readerCpuPerS}), MiB
   * read and written by DataNode.
   */
  private static void window(ObjectNode out, Snapshot a, Snapshot b, Snapshot end,
      double readerCpuPerS) {
    ObjectNode cpu = out.putObject("cpu_s");
    double total = 0;
    for (Map.Entry<String, Double> e : end.cpu.entrySet()) {
      double d = e.getValue() - a.cpu.getOrDefault(e.getKey(), 0.0);
      cpu.put(e.getKey(), d);
      total += d;
    }
    double healer = (end.childTicks - a.childTicks) / 100.0;
    double secs = (end.nanos - a.nanos) / 1e9;
    out.put("healer_cpu_s", healer);
    out.put("daemons_cpu_s", total);
    out.put("cpu_net_of_reader_s", Math.max(0, total - readerCpuPerS * secs) + healer);
    ObjectNode dn = out.putObject("datanode_mib");
    long read = 0;
    long written = 0;
    for (Map.Entry<String, long[]> e : b.dataNodeBytes.entrySet()) {
      long[] from = a.dataNodeBytes.get(e.getKey());
      long r = e.getValue()[0] - from[0];
      long w = e.getValue()[1] - from[1];
      dn.putObject(e.getKey()).put("read", mib(r)).put("written", mib(w));
      read += r;
      written += w;
    }
    out.put("datanodes_read_mib", mib(read));
    out.put("datanodes_written_mib", mib(written));
  }

  private static double readerCpuPerS(Snapshot a, Snapshot b) {
    double total = 0;
    for (Map.Entry<String, Double> e : b.cpu.entrySet()) {
      total += e.getValue() - a.cpu.getOrDefault(e.getKey(), 0.0);
    }
    return total / ((b.nanos - a.nanos) / 1e9);
  }

  /** A reader in its phase 1 (during), with what was measured before. */
  private static final class Started {
    final DemoReader reader;
    final Snapshot start;
    final double readerCpuPerS;

    Started(DemoReader reader, Snapshot start, double readerCpuPerS) {
      this.reader = reader;
      this.start = start;
      this.readerCpuPerS = readerCpuPerS;
    }
  }

  /**
   * Starts the reader, counts its reads as before (phase 0) while the daemons' CPU rate with the
   * reader alone and the DataNodes' metrics are read (one JMX cache period), then as during.
   */
  private static Started startReader(RealCluster cluster, int regions, int rows)
      throws Exception {
    DemoReader reader = new DemoReader(cluster, TABLE, regions, rows, 2,
      row -> TestTables.compressibleValue(row, VALUE_BYTES));
    reader.start();
    Thread.sleep(3000);
    reader.phase(0);
    Snapshot before = new Snapshot(cluster, readDataNodeBytes(cluster));
    Snapshot start = new Snapshot(cluster, dataNodeBytes(cluster));
    double rate = readerCpuPerS(before, start);
    reader.phase(1);
    return new Started(reader, start, rate);
  }

  /** The reader's figures of both phases (0: before, 1: during). */
  private static void readerFigures(ObjectNode out, DemoReader reader) {
    for (int p = 0; p < 2; p++) {
      String when = p == 0 ? "before" : "during";
      double[] l = reader.latencies(p);
      putTime(out, "p50_" + when + "_ms", DemoReader.pct(l, 50));
      putTime(out, "p99_" + when + "_ms", DemoReader.pct(l, 99));
      out.put("reads_" + when, l.length);
      out.put("failed_reads_" + when, reader.errors(p));
    }
  }

  /**
   * Prepares the scenario, starts the reader, and measures a {@code --once} run of the healer's
   * jar from its start until HDFS locality and reported locality are 1.0 (reported: at most
   * {@value #REPORT_CAP_S} s after the healer ended). {@code healerBandwidth} &gt; 0: the
   * healer's {@code --bandwidth}; {@code bandwidth}: what the DataNodes move at during the pass.
   */
  private static ObjectNode heal(RealCluster cluster, boolean half, int regions, int rows,
      long bandwidth, long healerBandwidth) throws Exception {
    long[] nonLocal = prepare(cluster, half);
    ObjectNode out = scenario("heal", half, nonLocal);
    out.put("bandwidth", bandwidth);
    Started started = startReader(cluster, regions, rows);
    DemoReader reader = started.reader;
    Snapshot start = started.start;
    double readerRate = started.readerCpuPerS;
    int startsBefore = cluster.healerLogLines(STARTED).size();
    int movesBefore = cluster.healerLogLines(MOVED).size();
    List<String> args = new ArrayList<>(Arrays.asList("--once", "--table", TABLE.getNameAsString(),
      "--threshold", "1.0"));
    if (healerBandwidth > 0) {
      args.add("--bandwidth");
      args.add(Long.toString(healerBandwidth));
    }
    long healStart = System.nanoTime();
    long healStartMs = System.currentTimeMillis();
    AtomicLong healEnd = new AtomicLong();
    CompletableFuture<JsonNode> healing = CompletableFuture.supplyAsync(() -> {
      try {
        JsonNode s = cluster.heal(args.toArray(new String[0]));
        healEnd.set(System.nanoTime());
        return s;
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    double hdfs = Double.NaN;
    double reported = Double.NaN;
    long capAt = Long.MAX_VALUE;
    Snapshot end = null;
    while (true) {
      boolean done = healing.isDone();
      if (Double.isNaN(hdfs) && hdfsLocality(cluster, TABLE) >= 0.9999) {
        hdfs = seconds(healStart);
      }
      if (Double.isNaN(reported) && minReported(cluster, TABLE) >= 0.9999) {
        reported = seconds(healStart);
      }
      if (done && end == null) {
        end = new Snapshot(cluster, null);
        reader.phase(-1);
        capAt = System.nanoTime() + REPORT_CAP_S * 1_000_000_000L;
      }
      if (done && (!Double.isNaN(hdfs) && !Double.isNaN(reported)
        || System.nanoTime() >= capAt)) {
        break;
      }
      Thread.sleep(500);
    }
    JsonNode summary = healing.get();
    reader.stop();
    Snapshot after = new Snapshot(cluster, dataNodeBytes(cluster));
    out.put("healer_exit", summary.path("exitCode").asText());
    out.put("healer_s", (healEnd.get() - healStart) / 1e9);
    putTime(out, "hdfs_locality_1_s", hdfs);
    putTime(out, "reported_1_s", reported);
    out.put("mib_moved", mib(summary.path("bytesMoved").asLong()));
    out.put("blocks_moved", summary.path("blocksMoved").asLong());
    window(out, start, after, end, readerRate);
    readerFigures(out, reader);
    moves(out, cluster, startsBefore, movesBefore, healStartMs, bandwidth);
    print(out);
    return out;
  }

  /**
   * The healer's start on the idle cluster, no reader running, the regions moved as for the
   * wholly non-local scenario: the seconds from the launch of a {@code --once} run (its launcher,
   * the JVM, the connections, the plan) to its first move started; then a daemon's pass: the
   * seconds from its interval's end (the end of its first pass, which finds the table local, plus
   * the interval) to its first move started, and the milliseconds the daemon logs from its pass's
   * start to its first move. The regions are moved while the daemon sleeps out its interval.
   */
  private static ObjectNode start(RealCluster cluster) throws Exception {
    ObjectNode out = JSON.createObjectNode();
    prepare(cluster, false);
    // idle: the replicas put back written out and their excess deleted, the regions opened
    long quietFrom = System.nanoTime();
    double busy = waitQuiet();
    out.put("quiet_wait_s", seconds(quietFrom));
    out.put("busy_at_launch", busy);
    SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss,SSS");
    int startsBefore = cluster.healerLogLines(STARTED).size();
    long launched = System.currentTimeMillis();
    JsonNode once = cluster.heal("--once", "--table", TABLE.getNameAsString(), "--threshold",
      "1.0");
    List<String[]> started = cluster.healerLogLines(STARTED);
    out.put("once_exit", once.path("exitCode").asText());
    out.put("once_s", (System.currentTimeMillis() - launched) / 1000.0);
    double firstMove = started.size() > startsBefore
      ? (f.parse(started.get(startsBefore)[0]).getTime() - launched) / 1000.0 : Double.NaN;
    putTime(out, "once_first_move_s", firstMove);
    // where the time went, from the healer's summary: each step's end, from the JVM's start
    JsonNode ms = once.path("startupMs");
    if (ms.isObject() && !Double.isNaN(firstMove)) {
      double jvm = ms.path("firstMove").asLong() / 1000.0;
      out.put("once_launcher_s", firstMove - jvm);
      out.put("once_classes_s", ms.path("run").asLong() / 1000.0);
      out.put("once_connections_s", (ms.path("connections").asLong()
        - ms.path("run").asLong()) / 1000.0);
      out.put("once_to_pass_s", (ms.path("firstPass").asLong()
        - ms.path("connections").asLong()) / 1000.0);
      out.put("once_plan_s", (ms.path("firstMove").asLong()
        - ms.path("firstPass").asLong()) / 1000.0);
    }
    File log = cluster.healerDaemonLog();
    int passesBefore = RealCluster.logLines(log, PASS_ENDED).size();
    int firstBefore = RealCluster.logLines(log, FIRST_MOVE).size();
    int movesBefore = RealCluster.logLines(log, STARTED).size();
    cluster.cluster("healer-daemon", "start", "--table", TABLE.getNameAsString(), "--threshold",
      "1.0", "--interval", Integer.toString(DAEMON_INTERVAL_S), "--grace", "5");
    try {
      long deadline = System.nanoTime() + 300_000_000_000L;
      while (RealCluster.logLines(log, PASS_ENDED).size() <= passesBefore) {
        if (System.nanoTime() > deadline) {
          throw new IOException("the healer daemon ended no pass in 5 minutes; see " + log);
        }
        Thread.sleep(200);
      }
      long firstEnded =
        f.parse(RealCluster.logLines(log, PASS_ENDED).get(passesBefore)[0]).getTime();
      prepare(cluster, false);
      if (RealCluster.logLines(log, PASS_ENDED).size() > passesBefore + 1
        || System.currentTimeMillis() > firstEnded + DAEMON_INTERVAL_S * 1000L) {
        // the regions moved too slowly: the next pass may have found some of them still local
        out.putNull("daemon_first_move_s");
        out.put("daemon_not_measured", String.format("moving the regions took longer than the"
          + " daemon's interval of %d s", DAEMON_INTERVAL_S));
      } else {
        while (RealCluster.logLines(log, STARTED).size() <= movesBefore
          || RealCluster.logLines(log, FIRST_MOVE).size() <= firstBefore) {
          if (System.nanoTime() > deadline + DAEMON_INTERVAL_S * 1_000_000_000L) {
            throw new IOException("the healer daemon's second pass moved nothing; see " + log);
          }
          Thread.sleep(200);
        }
        long moved =
          f.parse(RealCluster.logLines(log, STARTED).get(movesBefore)[0]).getTime();
        out.put("daemon_first_move_s",
          (moved - firstEnded - DAEMON_INTERVAL_S * 1000L) / 1000.0);
        out.put("daemon_logged_first_move_ms",
          Long.parseLong(RealCluster.logLines(log, FIRST_MOVE).get(firstBefore)[1]));
      }
    } finally {
      cluster.cluster("healer-daemon", "stop");
    }
    OUT.printf("   the healer's start, idle cluster (launched at %.0f%% of the machine's CPU, after"
      + " %.0f s waiting for it to fall below %.0f%%): --once %s, first move %s after its launch"
      + " (run %.1f s); the daemon's pass: first move %s after its interval (%s ms after the"
      + " pass's start, as it logs it)%n", 100 * out.path("busy_at_launch").asDouble(),
      out.path("quiet_wait_s").asDouble(), 100 * QUIET_BUSY, out.path("once_exit").asText(),
      time(out, "once_first_move_s"), out.path("once_s").asDouble(),
      time(out, "daemon_first_move_s"), out.path("daemon_logged_first_move_ms").asText("-"));
    if (out.has("once_launcher_s")) {
      OUT.printf("     --once: %.1f s before its JVM started (launcher), %.1f s to its run's start"
        + " (JVM, classes), %.1f s to its connections (HBase, NameNode, superuser and scope"
        + " checks), %.1f s to its pass's start, %.1f s to its first move (list, locate, plan)%n",
        out.path("once_launcher_s").asDouble(), out.path("once_classes_s").asDouble(),
        out.path("once_connections_s").asDouble(), out.path("once_to_pass_s").asDouble(),
        out.path("once_plan_s").asDouble());
    }
    return out;
  }

  /**
   * The healer's moves of this pass, from its log: seconds from its start to the first move
   * started, from the first move started to the last done, and the floor of the pass: the most
   * bytes a DataNode sent (as proxy) and received (as target), over the bandwidth; and the floor
   * the best choice of proxies could reach at most.
   */
  private static void moves(ObjectNode out, RealCluster cluster, int startsBefore,
      int movesBefore, long healStartMs, long bandwidth) throws Exception {
    List<String[]> started = cluster.healerLogLines(STARTED);
    List<String[]> done = cluster.healerLogLines(MOVED);
    started = started.subList(Math.min(startsBefore, started.size()), started.size());
    done = done.subList(Math.min(movesBefore, done.size()), done.size());
    if (started.isEmpty() || done.isEmpty()) {
      out.putNull("first_move_s");
      out.putNull("moving_s");
      out.putNull("floor_s");
      out.putNull("best_floor_s");
      return;
    }
    SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss,SSS");
    long first = f.parse(started.get(0)[0]).getTime();
    long last = f.parse(done.get(done.size() - 1)[0]).getTime();
    Map<String, Long> load = new HashMap<>();
    Map<String, Long> received = new HashMap<>();
    long total = 0;
    for (String[] s : started) {
      long size = Long.parseLong(s[1]);
      load.merge(s[3], size, Long::sum);
      load.merge(s[4], size, Long::sum);
      received.merge(s[3], size, Long::sum);
      total += size;
    }
    long most = load.values().stream().mapToLong(Long::longValue).max().orElse(0);
    long mostReceived = received.values().stream().mapToLong(Long::longValue).max().orElse(0);
    out.put("first_move_s", (first - healStartMs) / 1000.0);
    out.put("moving_s", (last - first) / 1000.0);
    out.put("floor_s", (double) most / bandwidth);
    // Whatever the proxies: every target receives its bytes, and every byte is sent once and
    // received once, so some DataNode carries at least 2 x total / DataNodes.
    int dataNodes = cluster.hostsWith("datanode").size();
    out.put("best_floor_s", Math.max(mostReceived, 2.0 * total / dataNodes) / bandwidth);
  }

  /**
   * Prepares the scenario, starts the reader, and measures a major compaction of the table until
   * every RegionServer reports it ended (the compaction state NONE, every region one new file),
   * HDFS locality and reported locality 1.0.
   */
  private static ObjectNode compact(RealCluster cluster, boolean half, int regions, int rows)
      throws Exception {
    long[] nonLocal = prepare(cluster, half);
    ObjectNode out = scenario("compaction", half, nonLocal);
    Started started = startReader(cluster, regions, rows);
    DemoReader reader = started.reader;
    Snapshot start = started.start;
    double readerRate = started.readerCpuPerS;
    Set<String> files = fileNames(cluster, TABLE);
    long t0 = System.nanoTime();
    cluster.admin().majorCompact(TABLE);
    double ended = Double.NaN;
    double hdfs = Double.NaN;
    double reported = Double.NaN;
    Snapshot end = null;
    long capAt = Long.MAX_VALUE;
    long deadline = t0 + 7_200_000_000_000L;
    while (true) {
      if (Double.isNaN(ended) && compacted(cluster, TABLE, files)
        && cluster.admin().getCompactionState(TABLE) == CompactionState.NONE) {
        ended = seconds(t0);
        end = new Snapshot(cluster, null);
        reader.phase(-1);
        capAt = System.nanoTime() + REPORT_CAP_S * 1_000_000_000L;
      }
      if (!Double.isNaN(ended) && Double.isNaN(hdfs) && hdfsLocality(cluster, TABLE) >= 0.9999) {
        hdfs = seconds(t0);
      }
      if (!Double.isNaN(ended) && Double.isNaN(reported)
        && minReported(cluster, TABLE) >= 0.9999) {
        reported = seconds(t0);
      }
      if (!Double.isNaN(ended) && (!Double.isNaN(hdfs) && !Double.isNaN(reported)
        || System.nanoTime() >= capAt)) {
        break;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("the major compaction of " + TABLE + " did not end in 2 hours");
      }
      Thread.sleep(500);
    }
    reader.stop();
    Snapshot after = new Snapshot(cluster, dataNodeBytes(cluster));
    out.put("compaction_s", ended);
    putTime(out, "hdfs_locality_1_s", hdfs);
    putTime(out, "reported_1_s", reported);
    window(out, start, after, end, readerRate);
    readerFigures(out, reader);
    print(out);
    return out;
  }

  private static ObjectNode scenario(String kind, boolean half, long[] nonLocal) {
    ObjectNode out = JSON.createObjectNode();
    out.put("kind", kind);
    out.put("scenario", half ? "half" : "whole");
    out.put("non_local_mib", mib(nonLocal[0]));
    out.put("store_mib", mib(nonLocal[1]));
    out.put("non_local_fraction", (double) nonLocal[0] / nonLocal[1]);
    return out;
  }

  private static void print(JsonNode o) {
    boolean heal = o.path("kind").asText().equals("heal");
    OUT.printf("   %s, %s non-local (%.0f of %.0f MiB, f=%.2f)%s: HDFS locality 1.0 after %s,"
      + " reported 1.0 after %s%n", heal ? "healer" : "major compaction",
      o.path("scenario").asText().equals("half") ? "half" : "wholly",
      o.path("non_local_mib").asDouble(), o.path("store_mib").asDouble(),
      o.path("non_local_fraction").asDouble(),
      heal ? String.format(" at %.0f MiB/s", mib(o.path("bandwidth").asDouble())) : "",
      time(o, "hdfs_locality_1_s"), time(o, "reported_1_s"));
    if (heal) {
      OUT.printf("     exit %s in %.1f s; %.0f MiB moved in %d blocks; first move %s after"
        + " the start; moving %s against a floor of %s with the proxies chosen, %s with the best"
        + "%n", o.path("healer_exit").asText(), o.path("healer_s").asDouble(),
        o.path("mib_moved").asDouble(), o.path("blocks_moved").asLong(), time(o, "first_move_s"),
        time(o, "moving_s"), time(o, "floor_s"), time(o, "best_floor_s"));
    } else {
      OUT.printf("     ended (as the RegionServers report it) after %.1f s%n",
        o.path("compaction_s").asDouble());
    }
    OUT.printf("     CPU: daemons %.1f s, healer %.1f s, net of the reader %.1f s; DataNodes"
      + " read %.0f MiB, wrote %.0f MiB%n", o.path("daemons_cpu_s").asDouble(),
      o.path("healer_cpu_s").asDouble(), o.path("cpu_net_of_reader_s").asDouble(),
      o.path("datanodes_read_mib").asDouble(), o.path("datanodes_written_mib").asDouble());
    OUT.printf("     reader p50/p99 before %.1f/%.1f ms, during %.1f/%.1f ms; failed reads"
      + " %d%n", o.path("p50_before_ms").asDouble(Double.NaN),
      o.path("p99_before_ms").asDouble(Double.NaN), o.path("p50_during_ms").asDouble(Double.NaN),
      o.path("p99_during_ms").asDouble(Double.NaN), o.path("failed_reads_during").asLong());
  }

  /** A figure, null if there is none (NaN: not reached, no reads). */
  private static void putTime(ObjectNode out, String key, double value) {
    if (Double.isNaN(value)) {
      out.putNull(key);
    } else {
      out.put(key, value);
    }
  }

  private static String time(JsonNode o, String key) {
    JsonNode v = o.path(key);
    return v.isNumber() ? String.format("%.1f s", v.asDouble()) : "never";
  }

  // ---- the table ----------------------------------------------------------------------------

  private static void table() throws IOException {
    File[] files = reportDir().listFiles((d, n) -> n.startsWith("production-")
      && n.endsWith(".json"));
    if (files == null || files.length == 0) {
      throw new IOException("no production-*.json in " + reportDir());
    }
    // size -> level -> run
    TreeMap<Integer, TreeMap<String, JsonNode>> runs = new TreeMap<>();
    for (File f : files) {
      JsonNode run = JSON.readTree(f);
      runs.computeIfAbsent(run.path("size_mib").asInt(), k -> new TreeMap<>())
        .put(run.path("level").asText(), run);
    }
    List<String> md = new ArrayList<>();
    md.add("| data (MiB) | ratio | scenario | what | f | HDFS locality 1.0 | reported 1.0"
      + " | compaction / healer | CPU net (s) | DataNodes wrote (MiB) | p99 before / during (ms)"
      + " |");
    md.add("|---|---|---|---|---|---|---|---|---|---|---|");
    OUT.println("== production shape, real cluster: the healer against a major compaction"
      + " (times from the start of each)");
    OUT.printf("   %-8s %-5s %-6s %-11s %5s %10s %10s %8s %8s %9s %16s%n", "MiB", "ratio",
      "scen.", "what", "f", "HDFS 1.0", "rep. 1.0", "ratio", "CPU s", "written", "p99 bef./dur.");
    // size -> scenario -> level -> compaction / healer
    TreeMap<Integer, Map<String, Map<String, Double>>> faster = new TreeMap<>();
    for (Map.Entry<Integer, TreeMap<String, JsonNode>> size : runs.entrySet()) {
      for (String scenario : new String[] { "whole", "half" }) {
        JsonNode compaction = null;
        for (JsonNode run : size.getValue().values()) {
          if (run.path(scenario + "_compact").isObject()) {
            compaction = run.path(scenario + "_compact");
          }
        }
        double c = compaction == null ? Double.NaN
          : compaction.path("hdfs_locality_1_s").asDouble(Double.NaN);
        for (JsonNode run : size.getValue().values()) {
          JsonNode h = run.path(scenario + "_heal");
          double ratio = h.path("non_local_fraction").asDouble() < MIN_NON_LOCAL ? Double.NaN
            : c / h.path("hdfs_locality_1_s").asDouble(Double.NaN);
          faster.computeIfAbsent(size.getKey(), k -> new HashMap<>())
            .computeIfAbsent(scenario, k -> new HashMap<>()).put(run.path("level").asText(),
              ratio);
          row(md, run, scenario, "healer " + run.path("level").asText(), h, ratio);
        }
        if (compaction != null) {
          row(md, size.getValue().firstEntry().getValue(), scenario, "compaction", compaction,
            Double.NaN);
        }
      }
    }
    md.add("");
    md.add("| data (MiB) | healer bandwidth (MiB/s) | HDFS locality 1.0 | moving / floor"
      + " | reader p99 before / during (ms) |");
    md.add("|---|---|---|---|---|");
    OUT.println("   the operator's trade-off: heal time against reader p99 by --bandwidth");
    for (Map.Entry<Integer, TreeMap<String, JsonNode>> size : runs.entrySet()) {
      for (JsonNode run : size.getValue().values()) {
        for (JsonNode h : run.path("curve")) {
          if (h.path("non_local_fraction").asDouble() < MIN_NON_LOCAL) {
            String line = String.format("| %d | %.0f | not measured: %.2f of the bytes were"
              + " non-local after the regions moved | | |", size.getKey(),
              mib(h.path("bandwidth").asDouble()), h.path("non_local_fraction").asDouble());
            OUT.println("   " + line);
            md.add(line);
            continue;
          }
          String line = String.format("| %d | %.0f | %s | %.2f | %.1f / %.1f |", size.getKey(),
            mib(h.path("bandwidth").asDouble()), time(h, "hdfs_locality_1_s"),
            h.path("moving_s").asDouble(Double.NaN) / h.path("floor_s").asDouble(Double.NaN),
            h.path("p99_before_ms").asDouble(Double.NaN),
            h.path("p99_during_ms").asDouble(Double.NaN));
          OUT.println("   " + line);
          md.add(line);
        }
      }
    }
    md.add("");
    OUT.println("   targets:");
    targets(md, runs, faster);
    File mdFile = new File(reportDir(), "production.md");
    Files.write(mdFile.toPath(), (String.join("\n", md) + "\n").getBytes(StandardCharsets.UTF_8));
    OUT.println("   table written to " + mdFile);
  }

  private static void row(List<String> md, JsonNode run, String scenario, String what,
      JsonNode o, double ratio) {
    OUT.printf("   %-8d %5.2f %-6s %-11s %5.2f %10s %10s %8s %8.1f %9.0f %7.1f / %6.1f%n",
      run.path("size_mib").asInt(), run.path("compression_ratio").asDouble(), scenario, what,
      o.path("non_local_fraction").asDouble(), time(o, "hdfs_locality_1_s"),
      time(o, "reported_1_s"), Double.isNaN(ratio) ? "" : String.format("%.2fx", ratio),
      o.path("cpu_net_of_reader_s").asDouble(), o.path("datanodes_written_mib").asDouble(),
      o.path("p99_before_ms").asDouble(Double.NaN), o.path("p99_during_ms").asDouble(Double.NaN));
    md.add(String.format("| %d | %.2f | %s | %s | %.2f | %s | %s | %s | %.1f | %.0f | %.1f / %.1f"
      + " |", run.path("size_mib").asInt(), run.path("compression_ratio").asDouble(), scenario,
      what, o.path("non_local_fraction").asDouble(), time(o, "hdfs_locality_1_s"),
      time(o, "reported_1_s"), Double.isNaN(ratio) ? "" : String.format("%.2fx", ratio),
      o.path("cpu_net_of_reader_s").asDouble(), o.path("datanodes_written_mib").asDouble(),
      o.path("p99_before_ms").asDouble(Double.NaN), o.path("p99_during_ms").asDouble(Double.NaN)));
  }

  private static void check(List<String> md, String what, boolean met, String why) {
    target(what, met, why);
    md.add("- " + (met ? "met" : "missed") + ": " + what + (met ? "" : " (" + why + ")"));
  }

  private static void targets(List<String> md, TreeMap<Integer, TreeMap<String, JsonNode>> runs,
      TreeMap<Integer, Map<String, Map<String, Double>>> faster) {
    for (Map.Entry<Integer, TreeMap<String, JsonNode>> size : runs.entrySet()) {
      JsonNode any = size.getValue().firstEntry().getValue();
      double r = any.path("compression_ratio").asDouble();
      check(md, String.format("%d MiB: values compress %.2f times (2.5 to 4)", size.getKey(), r),
        r >= 2.5 && r <= 4, "the values' vocabulary and random share set the ratio");
    }
    int larger = runs.lastKey();
    TreeMap<String, JsonNode> big = runs.lastEntry().getValue();
    for (String scenario : new String[] { "whole", "half" }) {
      double want = scenario.equals("whole") ? 3 : 6;
      JsonNode compaction = null;
      for (JsonNode run : big.values()) {
        if (run.path(scenario + "_compact").isObject()) {
          compaction = run.path(scenario + "_compact");
        }
      }
      for (JsonNode run : big.values()) {
        String level = run.path("level").asText();
        JsonNode h = run.path(scenario + "_heal");
        if (h.path("non_local_fraction").asDouble() < MIN_NON_LOCAL) {
          check(md, String.format("%d MiB, %s non-local, %s: not measured", larger, scenario,
            level), false, String.format("only %.2f of the bytes were non-local: a region of this"
              + " size has too few blocks to make half of it local", h.path("non_local_fraction")
                .asDouble()));
          continue;
        }
        double ratio = faster.get(larger).get(scenario).getOrDefault(level, Double.NaN);
        check(md, String.format("%d MiB, %s non-local, %s: the healer reaches HDFS locality 1.0"
          + " %.2fx as fast as the major compaction (>= %.0fx)", larger,
          scenario.equals("whole") ? "wholly" : "half", level, ratio, want), ratio >= want,
          compaction == null ? "no compaction measured at this size"
            : String.format("the healer moved %.0f MiB in %s (floor %s), the compaction"
              + " rewrote %.0f MiB of store files", h.path("mib_moved").asDouble(),
              time(h, "moving_s"), time(h, "floor_s"), compaction.path("store_mib").asDouble()));
        if (compaction != null) {
          double cpu = h.path("cpu_net_of_reader_s").asDouble()
            / compaction.path("cpu_net_of_reader_s").asDouble();
          check(md, String.format("%d MiB, %s, %s: the healer's CPU (net of the reader's) is"
            + " %.3f of the compaction's (<= 0.1)", larger, scenario, level, cpu), cpu <= 0.1,
            "the healer's JVM and the DataNodes' copying against the RegionServers' rewrite");
          double w = h.path("datanodes_written_mib").asDouble()
            / compaction.path("datanodes_written_mib").asDouble();
          check(md, String.format("%d MiB, %s, %s: HDFS bytes written are %.3f of the"
            + " compaction's (<= 0.35)", larger, scenario, level, w), w <= 0.35,
            "each moved replica is written once, the compaction writes every replica");
        }
        double p99 = h.path("p99_during_ms").asDouble(Double.NaN)
          / h.path("p99_before_ms").asDouble(Double.NaN);
        check(md, String.format("%d MiB, %s, %s: reader p99 while healing is %.2fx before"
          + " (<= 1.25x)", larger, scenario, level, p99), p99 <= 1.25,
          "the reads competed with the moves for the 2 cores and the one disk");
        double floor = h.path("moving_s").asDouble(Double.NaN)
          / h.path("floor_s").asDouble(Double.NaN);
        check(md, String.format("%d MiB, %s, %s: moving time %.2fx the floor of the proxies"
          + " chosen (<= 1.15x)", larger, scenario, level, floor), floor <= 1.15,
          "the DataNodes did not move at their balancer bandwidth the whole time");
        double best = h.path("moving_s").asDouble(Double.NaN)
          / h.path("best_floor_s").asDouble(Double.NaN);
        check(md, String.format("%d MiB, %s, %s: moving time %.2fx the floor of the best proxies"
          + " (<= 1.15x)", larger, scenario, level, best), best <= 1.15,
          String.format("with the proxies chosen the busiest DataNode sent and received %s of"
            + " bytes at the bandwidth, with the best %s", time(h, "floor_s"),
            time(h, "best_floor_s")));
        double first = h.path("first_move_s").asDouble(Double.NaN);
        check(md, String.format("%d MiB, %s, %s: first move %.1f s after the healer's start"
          + " (<= 3 s)", larger, scenario, level, first), first <= 3,
          "JVM start, class loading, connections and the plan come before the first move");
      }
    }
    for (TreeMap<String, JsonNode> size : runs.values()) {
      for (JsonNode run : size.values()) {
        JsonNode st = run.path("start");
        if (!st.isObject()) {
          continue;
        }
        double once = st.path("once_first_move_s").asDouble(Double.NaN);
        check(md, String.format("the healer's start on the idle cluster (%s, %d MiB, launched at"
          + " %.0f%% CPU): --once moves %.1f s after its launch (<= 3 s)",
          run.path("level").asText(), run.path("size_mib").asInt(),
          100 * st.path("busy_at_launch").asDouble(), once),
          once <= 3, "the launcher, the JVM's start and the first calls to HBase and the NameNode,"
            + " on 2 cores");
        double daemon = st.path("daemon_first_move_s").asDouble(Double.NaN);
        check(md, String.format("the healer's start on the idle cluster: a daemon's pass moves"
          + " %.1f s after its interval (<= 1 s)", daemon), daemon <= 1,
          st.path("daemon_not_measured").asText("listing, locating and planning before the"
            + " first batch's moves"));
      }
    }
    if (runs.size() >= 2) {
      int smaller = runs.firstKey();
      for (String scenario : new String[] { "whole", "half" }) {
        for (Map.Entry<String, Double> e : faster.get(larger).get(scenario).entrySet()) {
          double a = faster.get(smaller).get(scenario).getOrDefault(e.getKey(), Double.NaN);
          double b = e.getValue();
          if (Double.isNaN(a) || Double.isNaN(b)) {
            check(md, String.format("%s, %s: compaction / healer from %d to %d MiB: not measured",
              scenario, e.getKey(), smaller, larger), false, "a size had no compaction or too"
                + " little non-local to compare");
            continue;
          }
          check(md, String.format("%s, %s: compaction / healer %.2fx at %d MiB, %.2fx at %d MiB"
            + " (does not shrink)", scenario, e.getKey(), a, smaller, b, larger), b >= a,
            "the healer's fixed cost (JVM, plan, verification) weighs less at the larger size"
              + " only if its moving time grows no faster than the compaction's");
        }
      }
    }
  }
}
