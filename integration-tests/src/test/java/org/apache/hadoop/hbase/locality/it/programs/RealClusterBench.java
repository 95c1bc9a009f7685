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
import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.waitReassigned;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.File;
import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.io.RandomAccessFile;
import java.net.URL;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.text.SimpleDateFormat;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.it.harness.ClusterAccess;
import org.apache.hadoop.hbase.locality.it.harness.DemoReader;
import org.apache.hadoop.hbase.locality.it.harness.RealCluster;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;

/**
 * The benchmark of {@code build-scripts/bench --real-cluster}, run on host0 of the real cluster
 * of build-scripts/cluster (every daemon its own JVM, every host its own address). Prints figures
 * measured in one run, the ratios and whether each target is met; asserts nothing.
 * <ul>
 * <li>{@code compare REGIONS ROWS}: after the crash (SIGKILL) of host3's RegionServer, the
 * LocalityHealer on one table vs a major compaction of an identical table: wall time, HDFS bytes
 * read and written (the DataNodes' own metrics), CPU of every daemon, locality reached; and the
 * healer's throughput against the limit the operator set (bytes moved per second over the
 * configured dfs.datanode.balance.bandwidthPerSec times the DataNodes receiving moves).</li>
 * <li>{@code read REGIONS ROWS}: a reader while the healer moves blocks after every region moved
 * to another server, on the cluster as it is configured (series on or off): reads/s, p99,
 * errors, ReplicaNotFoundException retries and refetch waits in the RegionServers' logs, time
 * to heal, throughput. With the series on, and the series-off run's figures in
 * bench-read-off.json, prints both side by side.</li>
 * </ul>
 * JSON of each part goes to the directory of the system property lh.report.dir.
 */
public final class RealClusterBench {
  private static final PrintStream OUT = System.out;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TableName HEAL = TableName.valueOf("bench_heal");
  private static final TableName COMPACT = TableName.valueOf("bench_compact");
  private static final TableName READ = TableName.valueOf("bench_read");
  private static final String[] READ_PHASES = { "before", "during", "after" };
  private static final double TARGET_THROUGHPUT = 0.7;
  /** Longer than the DataNodes' metrics period (10 s), for which their JMX values are cached. */
  private static final long JMX_CACHE_MS = 11_000;

  private RealClusterBench() {
  }

  public static void main(String[] args) {
    try {
      if (args.length != 3 || !(args[0].equals("compare") || args[0].equals("read"))) {
        System.err.println("usage: RealClusterBench compare|read REGIONS ROWS_PER_REGION");
        System.exit(2);
      }
      int regions = Integer.parseInt(args[1]);
      int rows = Integer.parseInt(args[2]);
      try (RealCluster cluster = new RealCluster()) {
        if (args[0].equals("compare")) {
          compare(cluster, regions, rows);
        } else {
          read(cluster, regions, rows);
        }
      }
      System.exit(0);
    } catch (Throwable t) {
      System.err.println("bench failed: " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  static File reportDir() {
    File dir = new File(System.getProperty("lh.report.dir", "build/report/real-cluster"));
    dir.mkdirs();
    return dir;
  }

  private static boolean seriesOn(RealCluster cluster) {
    return cluster.conf().getLong("dfs.client.refresh.read-block-locations.ms", 0) > 0;
  }

  // ---- compare: healer vs major compaction ------------------------------------------------

  private static void compare(RealCluster cluster, int regions, int rows) throws Exception {
    int replication = cluster.conf().getInt("dfs.replication", 3);
    OUT.printf("== 1. healing after the crash (SIGKILL) of host3's RegionServer: LocalityHealer"
      + " vs major compaction, identical tables of %d regions x %d rows of 1 KiB, HDFS"
      + " replication %d, real cluster%n", regions, rows, replication);
    TestTables.createAndLoad(cluster, HEAL, regions, rows);
    TestTables.createAndLoad(cluster, COMPACT, regions, rows);
    cluster.waitForLocalityReports(HEAL);
    cluster.waitForLocalityReports(COMPACT);
    OUT.printf("   locality after the load (flushes write their first replica on their own"
      + " host): %s %.1f%%, %s %.1f%%%n", HEAL, 100 * hdfsLocality(cluster, HEAL), COMPACT,
      100 * hdfsLocality(cluster, COMPACT));
    ServerName dead = cluster.crashRegionServer("host3");
    long t0 = System.currentTimeMillis();
    waitReassigned(cluster, dead, regions, 300, HEAL, COMPACT);
    OUT.printf("   %s killed; its regions reassigned in %.1f s%n", dead,
      (System.currentTimeMillis() - t0) / 1000.0);
    cluster.waitForLocalityReports(HEAL);
    cluster.waitForLocalityReports(COMPACT);
    // Reads reach every store file, as production traffic does.
    TestTables.readAllChecked(cluster, HEAL);
    TestTables.readAllChecked(cluster, COMPACT);
    long[] healBytes = tableBytes(cluster, HEAL);
    long[] compactBytes = tableBytes(cluster, COMPACT);
    OUT.printf("   non-local after the crash: %s %.1f of %.1f MiB, %s %.1f of %.1f MiB%n", HEAL,
      mib(healBytes[1] - healBytes[0]), mib(healBytes[1]), COMPACT,
      mib(compactBytes[1] - compactBytes[0]), mib(compactBytes[1]));

    Measure heal = new Measure(cluster);
    int movesBefore = cluster.movesDone().size();
    int startsBefore = cluster.movesStarted().size();
    JsonNode summary = cluster.heal("--once", "--table", HEAL.getNameAsString(), "--threshold",
      "1.0", "--grace", "5");
    waitReported(cluster, HEAL, 120);
    heal.stop(hdfsLocality(cluster, HEAL));
    Throughput tp = throughput(cluster, movesBefore, startsBefore);

    Measure compact = new Measure(cluster);
    Set<String> before = fileNames(cluster, COMPACT);
    cluster.admin().majorCompact(COMPACT);
    long deadline = System.currentTimeMillis() + 600_000;
    while (!compacted(cluster, COMPACT, before)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the major compaction of " + COMPACT + " did not end in 600 s");
      }
      Thread.sleep(500);
    }
    cluster.waitForLocalityReports(COMPACT);
    compact.stop(hdfsLocality(cluster, COMPACT));

    OUT.printf("   %-34s %12s %12s %12s%n", "", "healer", "compaction", "ratio");
    row("wall time (s)", heal.seconds, compact.seconds);
    row("HDFS bytes read (MiB)", mib(heal.read), mib(compact.read));
    row("HDFS bytes written (MiB)", mib(heal.written), mib(compact.written));
    row("RegionServers' CPU (s)", heal.rsCpu, compact.rsCpu);
    row("CPU of every daemon (s)", heal.allCpu, compact.allCpu);
    OUT.printf("   %-34s %11.1f%% %11.1f%%%n", "locality reached (HDFS)", 100 * heal.locality,
      100 * compact.locality);
    OUT.printf("   healer: %s, %d blocks moved, %.1f MiB%n", summary.path("exitCode").asText(),
      summary.path("blocksMoved").asLong(), mib(summary.path("bytesMoved").asLong()));
    tp.print(cluster);

    long nonLocal = healBytes[1] - healBytes[0];
    double fraction = (double) nonLocal / healBytes[1];
    double moved = (double) summary.path("bytesMoved").asLong() / Math.max(1, nonLocal);
    double written = heal.written / Math.max(1.0, compact.written);
    double faster = compact.seconds / Math.max(0.001, heal.seconds);
    OUT.println("   targets:");
    target(String.format("healer bytes moved / non-local bytes = %.3f (<= 1.05)", moved),
      moved <= 1.05, "see the healer's pass lines in build/<line>/cluster/logs/host0-healer.log");
    // A compaction writes every byte once per replica, the healer each non-local byte once.
    double writtenTarget = 1.05 * fraction / replication;
    target(String.format("healer / compaction bytes written = %.3f (<= 1.05 x non-local"
      + " fraction %.3f / replication %d = %.3f)", written, fraction, replication,
      writtenTarget), written <= writtenTarget, "DataNode bytes written include the cluster's"
        + " other writes (WALs, flushes) during the measured window");
    target(String.format("healing %.1fx faster than compaction (>= 5x)", faster), faster >= 5,
      "the healer's time includes its JVM start, its grace period (5 s) and moves at the"
        + " bandwidth set (--balancer-bandwidth), which weigh more when the regions are small");
    target(String.format("compaction reaches locality 1.0 on a real cluster: %.3f",
      compact.locality), compact.locality >= 0.9999, "a compaction's first replica did not"
        + " land on the compacting RegionServer's host");
    tp.target();

    Map<String, Object> report = new LinkedHashMap<>();
    report.put("healer", measure(heal));
    report.put("compaction", measure(compact));
    report.put("healer_summary", summary);
    report.put("non_local_bytes", nonLocal);
    report.put("throughput", tp.json());
    JSON.writerWithDefaultPrettyPrinter().writeValue(new File(reportDir(),
      "bench-compare.json"), report);
    // What follows runs on every RegionServer again.
    cluster.cluster("start", "host3", "regionserver");
    OUT.println();
  }

  private static Map<String, Object> measure(Measure m) {
    Map<String, Object> out = new LinkedHashMap<>();
    out.put("seconds", m.seconds);
    out.put("hdfs_bytes_read", m.read);
    out.put("hdfs_bytes_written", m.written);
    out.put("regionserver_cpu_s", m.rsCpu);
    out.put("daemon_cpu_s", m.allCpu);
    out.put("locality_reached", m.locality);
    return out;
  }

  /** Waits until every region of the table reports locality 1.0. */
  private static void waitReported(RealCluster cluster, TableName table, int seconds)
      throws Exception {
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    while (minReported(cluster, table) < 0.9999) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException(table + ": not every region reports locality 1.0 after "
          + seconds + " s");
      }
      Thread.sleep(500);
    }
  }

  /** DataNode bytes (their metrics, over HTTP) and daemon CPU (/proc) over an operation. */
  private static final class Measure {
    private final RealCluster cluster;
    private final long t0;
    private final long[] dn0;
    private final double rs0;
    private final double all0;
    double seconds;
    double read;
    double written;
    double rsCpu;
    double allCpu;
    double locality;

    Measure(RealCluster cluster) throws IOException, InterruptedException {
      this.cluster = cluster;
      this.dn0 = freshDataNodeBytes(cluster);
      this.rs0 = cpu(cluster, "regionserver");
      this.all0 = cpu(cluster, null);
      this.t0 = System.nanoTime();
    }

    void stop(double localityReached) throws IOException, InterruptedException {
      seconds = (System.nanoTime() - t0) / 1e9;
      long[] dn1 = freshDataNodeBytes(cluster);
      read = dn1[0] - dn0[0];
      written = dn1[1] - dn0[1];
      rsCpu = cpu(cluster, "regionserver") - rs0;
      allCpu = cpu(cluster, null) - all0;
      locality = localityReached;
    }
  }

  /**
   * A DataNode's metrics over JMX are a snapshot cached for its metrics period (10 s by default,
   * Hadoop metrics2's jmxCacheTTL), taken again when read after that: read once, wait longer than
   * the period, read again, and the second reading is of now. Without this, an operation shorter
   * than the period (a compaction of small regions) measured 0 bytes.
   */
  private static long[] freshDataNodeBytes(RealCluster cluster)
      throws IOException, InterruptedException {
    dataNodeBytes(cluster);
    Thread.sleep(JMX_CACHE_MS);
    return dataNodeBytes(cluster);
  }

  /** [0] bytes read, [1] bytes written, summed over the DataNodes' DataNodeActivity metrics. */
  private static long[] dataNodeBytes(RealCluster cluster) throws IOException {
    long[] out = new long[2];
    for (String h : cluster.hostsWith("datanode")) {
      URL url = new URL("http://" + h + ":9864/jmx?qry=Hadoop:service=DataNode,"
        + "name=DataNodeActivity-*");
      try (InputStream in = url.openStream()) {
        JsonNode bean = JSON.readTree(in).path("beans").path(0);
        out[0] += bean.path("BytesRead").asLong();
        out[1] += bean.path("BytesWritten").asLong();
      }
    }
    return out;
  }

  /** CPU seconds (user + system) of the daemons of {@code role} (null: every daemon). */
  private static double cpu(RealCluster cluster, String role) throws IOException {
    double ticks = 0;
    for (String r : new String[] { "namenode", "datanode", "zookeeper", "master",
      "regionserver" }) {
      if (role != null && !role.equals(r)) {
        continue;
      }
      for (String h : cluster.hostsWith(r)) {
        long pid = cluster.pid(h, r);
        File stat = new File("/proc/" + pid + "/stat");
        if (pid < 0 || !stat.exists()) {
          continue;
        }
        String s = new String(Files.readAllBytes(stat.toPath()), StandardCharsets.UTF_8);
        String[] f = s.substring(s.lastIndexOf(')') + 2).split(" ");
        // fields 14 and 15 of stat (utime, stime) are 12 and 13 after the command name
        ticks += Long.parseLong(f[11]) + Long.parseLong(f[12]);
      }
    }
    return ticks / 100.0;
  }

  // ---- throughput ---------------------------------------------------------------------------

  /** The moves of one healer run, from its log: bytes, window, receiving DataNodes. */
  private static final class Throughput {
    long bytes;
    int moves;
    double seconds;
    Set<String> targets = new HashSet<>();
    /** Bytes each DataNode sent or received: both go through its one balancer throttler. */
    Map<String, Long> throughDataNode = new HashMap<>();
    long bandwidth;

    /**
     * The shortest time the moves could take at the configured bandwidth: a DataNode throttles
     * what it sends and what it receives for block moves together, so the busiest one decides.
     */
    double boundSeconds() {
      long busiest = 0;
      for (long b : throughDataNode.values()) {
        busiest = Math.max(busiest, b);
      }
      return (double) busiest / Math.max(1, bandwidth);
    }

    double bytesPerSecond() {
      return seconds > 0 ? bytes / seconds : Double.NaN;
    }

    double ratio() {
      return bytesPerSecond() / ((double) bandwidth * Math.max(1, targets.size()));
    }

    void print(RealCluster cluster) {
      OUT.printf("   healer throughput: %d moves, %.1f MiB in %.1f s (first move started ->"
        + " last move done) = %.2f MiB/s into %d DataNodes; limit set: %.2f MiB/s per"
        + " DataNode (dfs.datanode.balance.bandwidthPerSec)%n", moves, mib(bytes), seconds,
        mib(bytesPerSecond()), targets.size(), mib(bandwidth));
      StringBuilder per = new StringBuilder();
      new java.util.TreeMap<>(throughDataNode).forEach((dn, b) -> per.append(' ').append(dn)
        .append(' ').append(String.format("%.1f", mib(b))));
      OUT.printf("   MiB sent + received per DataNode:%s; at the limit set the busiest needs"
        + " %.1f s: the moves ran at %.2f of what the throttles allow%n", per,
        boundSeconds(), boundSeconds() / Math.max(1e-9, seconds));
    }

    void target() {
      RealClusterBench.target(String.format("healing throughput / (bandwidthPerSec x %d"
        + " receiving DataNodes) = %.2f (>= %.1f)", targets.size(), ratio(), TARGET_THROUGHPUT),
        ratio() >= TARGET_THROUGHPUT, "a DataNode's bandwidthPerSec covers what it sends and"
          + " what it receives for moves together, so when receivers also send, or few"
          + " DataNodes send, the throttles allow less than bandwidthPerSec x receivers (the"
          + " line 'MiB sent + received per DataNode' above gives what they allow)");
    }

    Map<String, Object> json() {
      Map<String, Object> m = new LinkedHashMap<>();
      m.put("moves", moves);
      m.put("bytes", bytes);
      m.put("seconds", seconds);
      m.put("receiving_datanodes", targets.size());
      m.put("bandwidth_per_datanode", bandwidth);
      m.put("ratio", Double.isFinite(ratio()) ? ratio() : null);
      m.put("bytes_through_datanode", throughDataNode);
      m.put("throttle_bound_seconds", boundSeconds());
      return m;
    }
  }

  private static Throughput throughput(RealCluster cluster, int movesBefore, int startsBefore)
      throws Exception {
    SimpleDateFormat f = new SimpleDateFormat("yyyy-MM-dd HH:mm:ss,SSS");
    Throughput t = new Throughput();
    t.bandwidth = cluster.conf().getLong("dfs.datanode.balance.bandwidthPerSec", 0);
    List<String[]> done = cluster.movesDone();
    List<String[]> started = cluster.movesStarted();
    if (done.size() <= movesBefore || started.size() <= startsBefore) {
      return t;
    }
    long first = f.parse(started.get(startsBefore)[0]).getTime();
    long last = 0;
    for (String[] m : done.subList(movesBefore, done.size())) {
      t.moves++;
      long size = Long.parseLong(m[1]);
      t.bytes += size;
      t.targets.add(m[3]);
      t.throughDataNode.merge(m[2], size, Long::sum);
      t.throughDataNode.merge(m[3], size, Long::sum);
      last = Math.max(last, f.parse(m[0]).getTime());
    }
    t.seconds = (last - first) / 1000.0;
    return t;
  }

  // ---- read: the read path while blocks move -------------------------------------------------

  private static void read(RealCluster cluster, int regions, int rows) throws Exception {
    String name = seriesOn(cluster) ? "on" : "off";
    OUT.println("== 2. series " + name + ": a reader while the healer moves blocks (every region"
      + " moved to another RegionServer first), real cluster");
    TestTables.createAndLoad(cluster, READ, regions, rows);
    cluster.waitForLocalityReports(READ);
    moveEveryRegionToNextServer(cluster, READ);
    cluster.waitForLocalityReports(READ);
    long[] b = tableBytes(cluster, READ);
    OUT.printf("   non-local after the moves: %.1f of %.1f MiB%n", mib(b[1] - b[0]), mib(b[1]));
    DemoReader reader = new DemoReader(cluster, READ, regions, rows, READ_PHASES.length);
    reader.start();
    Thread.sleep(3000);
    long[][] logAt = new long[READ_PHASES.length + 1][];
    double[] startAt = new double[READ_PHASES.length + 1];
    mark(cluster, 0, reader, logAt, startAt);
    Thread.sleep(8000);
    mark(cluster, 1, reader, logAt, startAt);
    int movesBefore = cluster.movesDone().size();
    int startsBefore = cluster.movesStarted().size();
    long healStart = System.nanoTime();
    CompletableFuture<JsonNode> healing = CompletableFuture.supplyAsync(() -> {
      try {
        return cluster.heal("--once", "--table", READ.getNameAsString(), "--threshold", "1.0",
          "--grace", "5");
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    JsonNode summary = healing.get();
    // Stock RegionServers (series off) keep the block distribution they computed when they
    // opened a store file, so their reports may never follow the moves: wait a minute at most.
    double timeToHeal = Double.NaN;
    long reportsDeadline = System.nanoTime() + 60_000_000_000L;
    while (Double.isNaN(timeToHeal) && System.nanoTime() < reportsDeadline) {
      if (minReported(cluster, READ) >= 0.9999) {
        timeToHeal = (System.nanoTime() - healStart) / 1e9;
      } else {
        Thread.sleep(500);
      }
    }
    Throughput tp = throughput(cluster, movesBefore, startsBefore);
    OUT.printf("   healer: %s, %d blocks moved; HDFS locality now %.3f; time to heal (healer"
      + " start -> every region reports 1.0): %s%n", summary.path("exitCode").asText(),
      summary.path("blocksMoved").asLong(), hdfsLocality(cluster, READ),
      Double.isNaN(timeToHeal) ? "not reached (the lowest region still reports "
        + String.format("%.3f", minReported(cluster, READ)) + " a minute after the healer)"
        : String.format("%.1f s", timeToHeal));
    tp.print(cluster);
    // Past the NameNode's grace period (10 s with the series on), so that replaced replicas
    // are deleted inside the window.
    Thread.sleep(15_000);
    mark(cluster, 2, reader, logAt, startAt);
    Thread.sleep(8000);
    logAt[3] = logSizes(cluster);
    startAt[3] = System.nanoTime() / 1e9;
    reader.stop();
    List<Map<String, Object>> phases = new ArrayList<>();
    for (int p = 0; p < READ_PHASES.length; p++) {
      double[] lat = reader.latencies(p);
      String log = logSegments(cluster, logAt[p], logAt[p + 1]);
      Map<String, Object> ph = new LinkedHashMap<>();
      ph.put("phase", READ_PHASES[p]);
      ph.put("reads_per_s", lat.length / (startAt[p + 1] - startAt[p]));
      ph.put("p99_ms", LocalityDemo.num(DemoReader.pct(lat, 99)));
      ph.put("errors", reader.errors(p));
      ph.put("rnf_retries", count(log, "ReplicaNotFoundException"));
      ph.put("refetch_waits", count(log, "DFS chooseDataNode: got #"));
      phases.add(ph);
    }
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("series", name);
    report.put("time_to_heal_s", LocalityDemo.num(timeToHeal));
    report.put("healer_summary", summary);
    report.put("throughput", tp.json());
    report.put("phases", phases);
    File out = new File(reportDir(), "bench-read-" + name + ".json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(out, report);
    OUT.println("   figures written to " + out);
    File off = new File(reportDir(), "bench-read-off.json");
    if (name.equals("on") && off.exists()) {
      printReadPath(JSON.readTree(off), JSON.valueToTree(report));
      tp.target();
    }
  }

  static void moveEveryRegionToNextServer(RealCluster cluster, TableName table)
      throws Exception {
    List<ServerName> servers = new ArrayList<>(cluster.admin().getRegionServers());
    servers.sort(null);
    Map<RegionInfo, ServerName> where = cluster.regionsOf(table);
    for (Map.Entry<RegionInfo, ServerName> e : where.entrySet()) {
      ServerName next = servers.get((servers.indexOf(e.getValue()) + 1) % servers.size());
      cluster.admin().move(e.getKey().getEncodedNameAsBytes(), next);
    }
    long deadline = System.currentTimeMillis() + 120_000;
    while (true) {
      Map<RegionInfo, ServerName> now = cluster.regionsOf(table);
      boolean moved = now.size() == where.size();
      for (Map.Entry<RegionInfo, ServerName> e : where.entrySet()) {
        moved &= !e.getValue().equals(now.get(e.getKey()));
      }
      if (moved) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("regions of " + table + " not moved in 120 s: " + now);
      }
      Thread.sleep(500);
    }
  }

  private static void mark(RealCluster cluster, int phase, DemoReader reader, long[][] logAt,
      double[] startAt) throws IOException {
    logAt[phase] = logSizes(cluster);
    startAt[phase] = System.nanoTime() / 1e9;
    reader.phase(phase);
  }

  /** Sizes of the RegionServers' logs. */
  static long[] logSizes(RealCluster cluster) throws IOException {
    List<String> hosts = cluster.hostsWith("regionserver");
    long[] out = new long[hosts.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = cluster.log(hosts.get(i), "regionserver").length();
    }
    return out;
  }

  static String logSegments(RealCluster cluster, long[] from, long[] to)
      throws IOException {
    List<String> hosts = cluster.hostsWith("regionserver");
    StringBuilder sb = new StringBuilder();
    for (int i = 0; i < hosts.size(); i++) {
      try (RandomAccessFile f = new RandomAccessFile(cluster.log(hosts.get(i), "regionserver"),
        "r")) {
        byte[] b = new byte[(int) Math.max(0, Math.min(to[i], f.length()) - from[i])];
        f.seek(from[i]);
        f.readFully(b);
        sb.append(new String(b, StandardCharsets.UTF_8));
      }
    }
    return sb.toString();
  }

  /** Lines of the RegionServers' HDFS client log (hdfs.DFSClient) containing {@code what}. */
  static int count(String log, String what) {
    int n = 0;
    for (String line : log.split("\n")) {
      if (line.contains("hdfs.DFSClient") && line.contains(what)) {
        n++;
      }
    }
    return n;
  }

  private static void printReadPath(JsonNode off, JsonNode on) {
    OUT.println("== 2. read path while the healer moves blocks: stock (series off) vs series on,"
      + " real cluster");
    OUT.printf("   %-8s %-11s %10s %10s %8s %14s %14s%n", "phase", "", "reads/s", "p99 ms",
      "errors", "RNF retries", "refetch waits");
    double errors = 0;
    double rnfOn = 0;
    for (int p = 0; p < READ_PHASES.length; p++) {
      for (int m = 0; m < 2; m++) {
        JsonNode v = (m == 0 ? off : on).path("phases").path(p);
        OUT.printf("   %-8s %-11s %10.0f %10.2f %8d %14d %14d%n", m == 0 ? READ_PHASES[p] : "",
          m == 0 ? "series off" : "series on", v.path("reads_per_s").asDouble(),
          v.path("p99_ms").asDouble(Double.NaN), v.path("errors").asLong(),
          v.path("rnf_retries").asLong(), v.path("refetch_waits").asLong());
        errors += v.path("errors").asLong();
        if (m == 1) {
          rnfOn += v.path("rnf_retries").asLong();
        }
      }
    }
    OUT.printf("   time to heal (every region reports 1.0): series off %s, series on %s%n",
      healTime(off), healTime(on));
    double p99Before = on.path("phases").path(0).path("p99_ms").asDouble(Double.NaN);
    double p99During = on.path("phases").path(1).path("p99_ms").asDouble(Double.NaN);
    OUT.println("   targets:");
    target(String.format("failed reads in both runs: %.0f (0)", errors), errors == 0,
      "the reader's errors: see the RegionServers' logs in build/<line>/cluster/logs");
    target(String.format("ReplicaNotFoundException retries with the series: %.0f (0)", rnfOn),
      rnfOn == 0, "a RegionServer stream read a replaced replica after the NameNode deleted it;"
        + " the hdfs.DFSClient lines of build/<line>/cluster/logs/host*-regionserver.log name it");
    target(String.format("p99 during healing / p99 before, with the series: %.2f (<= 1.5)",
      p99During / p99Before), p99During <= 1.5 * p99Before, "reads competed for the 2 cores"
        + " with the block moves; compare several runs");
  }

  private static String healTime(JsonNode run) {
    JsonNode t = run.path("time_to_heal_s");
    return t.isNumber() ? String.format("%.1f s", t.asDouble()) : "not reached";
  }

  private static void row(String name, double healer, double compaction) {
    OUT.printf("   %-34s %12.2f %12.2f %12.3f%n", name, healer, compaction,
      healer / Math.max(1e-9, compaction));
  }

  static void target(String what, boolean met, String whyIfMissed) {
    OUT.printf("     %-6s %s%n", met ? "met" : "MISSED", what);
    if (!met) {
      OUT.printf("            why: %s%n", whyIfMissed);
    }
  }

  static double mib(double bytes) {
    return bytes / 1048576.0;
  }
}
