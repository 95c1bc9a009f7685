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

import static org.apache.hadoop.hbase.locality.it.harness.TableChecks.waitReassigned;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.it.harness.Charts;
import org.apache.hadoop.hbase.locality.it.harness.ClusterAccess;
import org.apache.hadoop.hbase.locality.it.harness.ClusterControl;
import org.apache.hadoop.hbase.locality.it.harness.DemoReader;
import org.apache.hadoop.hbase.locality.it.harness.MultiHostCluster;
import org.apache.hadoop.hbase.locality.it.harness.RealCluster;
import org.apache.hadoop.hbase.locality.it.harness.SeriesConf;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.locality.it.harness.Topology;

/**
 * The demo of build-scripts/demo, on the one-JVM harness or (argument {@code --real-cluster}, run
 * on host0 of build-scripts/cluster) on the real multi-host cluster. Loads a table, starts a
 * reader (gets and multi-gets, every value checked), crashes the RegionServer of host3 the way
 * production loses one (its regions are reassigned to the others while their blocks stay where
 * they were), then runs the LocalityHealer and shows its progress. Ends with a report (locality
 * per RegionServer before and after, time to heal, bytes moved vs the bytes a major compaction
 * would rewrite, reader latency and errors per phase) and writes demo.json and two PNG charts to
 * the directory of the system property lh.report.dir.
 */
public final class LocalityDemo {
  private static final TableName TABLE = TableName.valueOf("demo");
  private static final PrintStream OUT = System.out;
  private static final Topology TOPOLOGY = Topology.load();
  private static final String[] PHASES = { "before the crash", "after the crash", "healing",
    "healed" };
  private static final long T0 = System.nanoTime();
  private static final ObjectMapper JSON = new ObjectMapper();

  private LocalityDemo() {
  }

  public static void main(String[] args) {
    try {
      run(args);
      System.exit(0);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
    } catch (Throwable t) {
      System.err.println("demo failed: " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static double now() {
    return (System.nanoTime() - T0) / 1e9;
  }

  /** The configuration of the demo: the whole series on, at demo time scales. */
  static Configuration demoConf() {
    Configuration conf = SeriesConf.seriesOn(HBaseConfiguration.create());
    conf.setLong("dfs.blocksize", 256 * 1024);
    conf.setLong("dfs.namenode.fs-limits.min-block-size", 64 * 1024);
    // RegionServers report region loads (locality included) to the master every second, and
    // the master hands them to the balancer every second.
    conf.setInt("hbase.regionserver.msginterval", 1000);
    conf.setInt("hbase.balancer.statusPeriod", 1000);
    // The files a compaction replaced leave the store directory within a second (default: up
    // to 2 min later), so that the benchmark sees a compaction end when the RegionServer does.
    conf.setInt("hbase.hfile.compaction.discharger.interval", 1000);
    return conf;
  }

  private static void run(String[] args) throws Exception {
    List<String> a = new ArrayList<>(Arrays.asList(args));
    boolean real = a.remove("--real-cluster");
    if (a.size() > 2) {
      throw new IllegalArgumentException("usage: LocalityDemo [--real-cluster] [REGIONS"
        + " [ROWS_PER_REGION]]");
    }
    int regions = a.size() > 0 ? positive(a.get(0)) : 9;
    int rowsPerRegion = a.size() > 1 ? positive(a.get(1)) : 3000;
    if (real) {
      try (RealCluster cluster = new RealCluster()) {
        Configuration c = cluster.conf();
        OUT.printf("Real cluster of build-scripts/cluster: every host its own network namespace"
          + " and address, every daemon its own JVM. %d live RegionServers, HDFS replication"
          + " %d, %d KiB blocks.%n", cluster.admin().getRegionServers().size(),
          c.getInt("dfs.replication", 3), c.getLong("dfs.blocksize", 0) / 1024);
        printSeries(c);
        story(cluster, regions, rowsPerRegion);
      }
      return;
    }
    OUT.printf("Starting a minicluster: %d DataNodes (host1..host%d; racks %s), %d RegionServers"
      + " (host1..host%d), HDFS replication 2, 256 KiB blocks.%n", TOPOLOGY.dataNodes(),
      TOPOLOGY.dataNodes(), String.join(" ", TOPOLOGY.racks()), TOPOLOGY.regionServers(),
      TOPOLOGY.regionServers());
    Configuration conf = demoConf();
    printSeries(conf);
    try (MultiHostCluster cluster = MultiHostCluster.start(conf, TOPOLOGY.dataNodes(),
      TOPOLOGY.regionServers(), 2, TOPOLOGY.racks())) {
      OUT.printf("Cluster up in %.1f s.%n", now());
      story(cluster, regions, rowsPerRegion);
      // The master prints thread dumps to stdout while it stops: keep them off the report.
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
    }
  }

  private static int positive(String s) {
    try {
      int n = Integer.parseInt(s);
      if (n > 0) {
        return n;
      }
    } catch (NumberFormatException e) {
      // below
    }
    throw new IllegalArgumentException("'" + s + "' is not a positive whole number");
  }

  private static void printSeries(Configuration c) {
    OUT.printf("Series on: location refresher %d ms (HDFS-16262), replaced-replica grace %d ms"
      + " (HDFS-16261), backoff %d ms x%d up to %d ms (HDFS-16155), locality from the stream %s"
      + " (HBASE-26304).%n", c.getLong("dfs.client.refresh.read-block-locations.ms", 0),
      c.getLong("dfs.namenode.block.replace.grace.period.ms", 0),
      c.getInt("dfs.client.retry.window.base", 3000),
      c.getInt("dfs.client.retry.window.multiplier", 1),
      c.getInt("dfs.client.retry.window.max-wait-ms", 60000),
      c.getBoolean("hbase.locality.inputstream.derive.enabled", false) ? "on" : "off");
  }

  private static void story(ClusterControl cluster, int regions, int rowsPerRegion)
      throws Exception {
    Map<String, Object> report = new LinkedHashMap<>();
    report.put("cluster", cluster.kind());
    OUT.printf("Loading %d regions x %d rows of 1 KiB and flushing...%n", regions, rowsPerRegion);
    TestTables.createAndLoad(cluster, TABLE, regions, rowsPerRegion);
    cluster.waitForLocalityReports(TABLE);
    waitForMasterReports(cluster);
    double tLoad = now();
    report.put("after_load", table(cluster, "after load"));

    DemoReader reader = new DemoReader(cluster, TABLE, regions, rowsPerRegion, PHASES.length);
    Sampler sampler = new Sampler(cluster, tLoad);
    reader.start();
    sampler.start();
    // Reads of the first seconds warm the client up and are not counted.
    Thread.sleep(3000);
    reader.phase(0);
    Thread.sleep(5000);

    OUT.println("\nCrashing the RegionServer of host3; the master reassigns its regions...");
    reader.phase(1);
    double tCrash = now();
    ServerName dead = cluster.crashRegionServer("host3");
    OUT.println("  " + dead + " crashed (" + (cluster instanceof RealCluster ? "SIGKILL"
      : "aborted") + ")");
    waitReassigned(cluster, dead, regions, 300, TABLE);
    OUT.printf("  regions reassigned %.1f s after the crash%n", now() - tCrash);
    cluster.waitForLocalityReports(TABLE);
    // A read that met the crashed server waits out the client's retries; heal once reads flow.
    long reads = reader.completed();
    long readsDeadline = System.currentTimeMillis() + 180_000;
    while (reader.completed() < reads + 20 && System.currentTimeMillis() < readsDeadline) {
      Thread.sleep(200);
    }
    OUT.printf("  reads flowing again %.1f s after the crash%n", now() - tCrash);
    report.put("after_crash", table(cluster, "after the crash of host3"));
    Thread.sleep(3000);

    // What a major compaction of the affected regions would rewrite.
    long nonLocal = 0;
    long affectedBytes = 0;
    int affected = 0;
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      long[] b = cluster.localBytes(e.getKey(), e.getValue().getHostname());
      if (b[0] < b[1]) {
        affected++;
        affectedBytes += b[1];
        nonLocal += b[1] - b[0];
      }
    }

    OUT.println("\nRunning LocalityHealer --once --table demo --threshold 1.0 --grace 5"
      + (cluster instanceof RealCluster
        ? " (build/<line>/dist/bin/locality-healer on host0, its own process)"
        : "") + " ...");
    reader.phase(2);
    double tHeal = now();
    CompletableFuture<JsonNode> healing = CompletableFuture.supplyAsync(() -> {
      try {
        return cluster.heal("--once", "--table", TABLE.getNameAsString(), "--threshold", "1.0",
          "--grace", "5");
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    double tHealed = Double.NaN;
    while (Double.isNaN(tHealed) && now() - tHeal < 300) {
      Thread.sleep(1000);
      double[] loc = sampler.last();
      long moved = cluster.blocksMovedSoFar();
      OUT.printf("  %5.1f s  cluster locality %5.1f%% (HDFS), %5.1f%% (reported by the"
        + " RegionServers)%s%s%n", now() - tHeal, 100 * loc[0], 100 * loc[1],
        moved >= 0 && !healing.isDone() ? ", " + moved + " blocks moved" : "",
        healing.isDone() ? ", healer done" : "");
      if (healing.isDone() && loc[1] >= 0.9999) {
        tHealed = now();
      }
    }
    JsonNode summary = healing.get();
    reader.phase(3);
    Thread.sleep(5000);
    reader.stop();
    sampler.stop();
    report.put("after_healing", table(cluster, "after healing"));

    double timeToHeal = tHealed - tHeal;
    long bytesMoved = summary.path("bytesMoved").asLong();
    OUT.println("Report:");
    OUT.printf("  time to heal (healer start -> every region reports 100%%): %.1f s%s%n",
      timeToHeal, Double.isNaN(timeToHeal) ? " (NOT HEALED within 300 s)" : "");
    OUT.printf("  healer: %s, %d blocks moved, %d failed%n", summary.path("exitCode").asText(),
      summary.path("blocksMoved").asLong(), summary.path("blocksFailed").asLong());
    OUT.printf("  bytes moved by the healer: %.1f MiB (non-local bytes before: %.1f MiB)%n",
      bytesMoved / 1048576.0, nonLocal / 1048576.0);
    OUT.printf("  a major compaction of the %d affected regions would read %.1f MiB and write"
      + " %.1f MiB (x2 replicas): the healer moved %.0f%% of that write%n", affected,
      affectedBytes / 1048576.0, 2 * affectedBytes / 1048576.0,
      100.0 * bytesMoved / Math.max(1, 2 * affectedBytes));
    OUT.printf("  %-18s %8s %10s %10s %10s %8s%n", "reader phase", "reads", "p50 ms",
      "p99 ms", "max ms", "errors");
    List<Map<String, Object>> phases = new ArrayList<>();
    for (int p = 0; p < PHASES.length; p++) {
      double[] lat = reader.latencies(p);
      Map<String, Object> ph = new LinkedHashMap<>();
      ph.put("phase", PHASES[p]);
      ph.put("reads", lat.length);
      ph.put("p50_ms", num(DemoReader.pct(lat, 50)));
      ph.put("p99_ms", num(DemoReader.pct(lat, 99)));
      ph.put("max_ms", num(DemoReader.pct(lat, 100)));
      ph.put("errors", reader.errors(p));
      phases.add(ph);
      OUT.printf("  %-18s %8d %10.2f %10.2f %10.2f %8d%n", PHASES[p], lat.length,
        DemoReader.pct(lat, 50), DemoReader.pct(lat, 99), DemoReader.pct(lat, 100),
        reader.errors(p));
    }
    report.put("healer", summary);
    report.put("crash_at_s", tCrash - tLoad);
    report.put("healer_start_s", tHeal - tLoad);
    report.put("time_to_heal_s", num(timeToHeal));
    report.put("non_local_bytes_before", nonLocal);
    report.put("affected_regions", affected);
    report.put("compaction_read_bytes", affectedBytes);
    report.put("compaction_write_bytes", 2 * affectedBytes);
    report.put("reader", phases);
    writeReport(report, sampler, reader, tLoad, tCrash - tLoad, tHeal - tLoad, tHealed - tLoad);
    OUT.printf("%nDemo finished in %.1f s.%n", now());
    if (Double.isNaN(timeToHeal)) {
      throw new IOException("the regions did not all report locality 1.0 within 300 s of the"
        + " healer's start");
    }
  }

  /**
   * Waits (30 s at most) until the master's last reports of the regions (what the sampler reads)
   * are as fresh as the RegionServers' own.
   */
  private static void waitForMasterReports(ClusterAccess cluster) throws Exception {
    long deadline = System.currentTimeMillis() + 30_000;
    while (System.currentTimeMillis() < deadline) {
      Map<String, Double> master = cluster.reportedLocalities(TABLE);
      boolean fresh = true;
      for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
        Double m = master.get(e.getKey().getEncodedName());
        fresh &= m != null
          && Math.abs(m - cluster.reportedLocality(e.getKey(), e.getValue())) < 1e-4;
      }
      if (fresh) {
        return;
      }
      Thread.sleep(250);
    }
  }

  /** A finite number, or null (JSON has no NaN). */
  static Double num(double d) {
    return Double.isFinite(d) ? d : null;
  }

  private static void writeReport(Map<String, Object> report, Sampler sampler,
      DemoReader reader, double tLoad, double crashAt, double healFrom, double healTo)
      throws IOException {
    File dir = new File(System.getProperty("lh.report.dir", "build/report"));
    dir.mkdirs();
    Map<String, List<double[]>> locality = new TreeMap<>();
    Map<String, List<List<Double>>> series = new TreeMap<>();
    synchronized (sampler.series) {
      for (Map.Entry<String, List<double[]>> e : sampler.series.entrySet()) {
        List<double[]> pct = new ArrayList<>();
        List<List<Double>> json = new ArrayList<>();
        synchronized (e.getValue()) {
          for (double[] p : e.getValue()) {
            pct.add(new double[] { p[0], 100 * p[1] });
            json.add(Arrays.asList(p[0], num(p[1])));
          }
        }
        locality.put(e.getKey(), pct);
        series.put(e.getKey(), json);
      }
    }
    report.put("locality_over_time", series);
    JSON.writerWithDefaultPrettyPrinter().writeValue(new File(dir, "demo.json"), report);
    String x = "seconds since the table was loaded";
    Charts.lineChart(new File(dir, "demo-locality.png"), "Reported locality per RegionServer"
      + " (" + report.get("cluster") + ")", x, "locality %", 100, locality, crashAt, healFrom,
      healTo);
    Map<String, List<double[]>> p99 = new TreeMap<>();
    p99.put("reader p99", reader.p99PerSecond(T0 / 1e9 + tLoad));
    Charts.lineChart(new File(dir, "demo-read-p99.png"), "Reader p99 latency, gets and"
      + " multi-gets (" + report.get("cluster") + ")", x, "p99 ms", 1, true, p99, crashAt,
      healFrom, healTo);
    OUT.println("\nReport written to " + dir + ": demo.json, demo-locality.png,"
      + " demo-read-p99.png");
  }

  /** Samples reported and HDFS locality per RegionServer once a second. */
  private static final class Sampler implements Runnable {
    private final ClusterAccess cluster;
    private final double t0;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, List<double[]>> series = Collections.synchronizedMap(new TreeMap<>());
    private volatile double[] last = { Double.NaN, Double.NaN };
    private Thread thread;

    Sampler(ClusterAccess cluster, double t0) {
      this.cluster = cluster;
      this.t0 = t0;
    }

    void start() {
      thread = new Thread(this, "demo-sampler");
      thread.setDaemon(true);
      thread.start();
    }

    void stop() throws InterruptedException {
      stop.set(true);
      thread.join(60_000);
    }

    double[] last() {
      return last;
    }

    @Override
    public void run() {
      while (!stop.get()) {
        try {
          Map<String, double[]> byHost = new TreeMap<>();
          long local = 0;
          long total = 0;
          double reported = 0;
          Map<String, Double> reports = cluster.reportedLocalities(TABLE);
          for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
            long[] b = cluster.localBytes(e.getKey(), e.getValue().getHostname());
            double r = reports.getOrDefault(e.getKey().getEncodedName(), Double.NaN);
            double[] acc = byHost.computeIfAbsent(e.getValue().getHostname(), h -> new double[2]);
            acc[0] += r * b[1];
            acc[1] += b[1];
            local += b[0];
            total += b[1];
            reported += r * b[1];
          }
          double t = now() - t0;
          for (Map.Entry<String, double[]> e : byHost.entrySet()) {
            series.computeIfAbsent(e.getKey(), h -> Collections.synchronizedList(
              new ArrayList<>())).add(new double[] { t, e.getValue()[0] / e.getValue()[1] });
          }
          last = new double[] { (double) local / Math.max(1, total),
            reported / Math.max(1, total) };
          Thread.sleep(1000);
        } catch (InterruptedException e) {
          return;
        } catch (Exception e) {
          // a server going down mid-sample: sample again
        }
      }
    }
  }

  private static Map<String, Object> table(ClusterAccess cluster, String title)
      throws Exception {
    Map<String, long[]> byHost = new TreeMap<>();
    // Reported locality per server: the regions' reported locality weighted by their bytes.
    Map<String, Double> reported = new TreeMap<>();
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      long[] b = cluster.localBytes(e.getKey(), e.getValue().getHostname());
      long[] acc = byHost.computeIfAbsent(e.getValue().getHostname(), h -> new long[3]);
      acc[0]++;
      acc[1] += b[0];
      acc[2] += b[1];
      reported.merge(e.getValue().getHostname(),
        cluster.reportedLocality(e.getKey(), e.getValue()) * b[1], Double::sum);
    }
    OUT.println("\nLocality per RegionServer, " + title + ":");
    OUT.printf("  %-12s %8s %12s %12s %10s %10s%n", "server", "regions", "local MiB", "total MiB",
      "locality", "reported");
    Map<String, Object> out = new LinkedHashMap<>();
    long local = 0;
    long total = 0;
    for (Map.Entry<String, long[]> e : byHost.entrySet()) {
      long[] a = e.getValue();
      local += a[1];
      total += a[2];
      double rep = reported.get(e.getKey()) / Math.max(1, a[2]);
      OUT.printf("  %-12s %8d %12.1f %12.1f %9.1f%% %9.1f%%%n", e.getKey(), a[0], a[1] / 1048576.0,
        a[2] / 1048576.0, 100.0 * a[1] / Math.max(1, a[2]), 100.0 * rep);
      Map<String, Object> h = new LinkedHashMap<>();
      h.put("regions", a[0]);
      h.put("local_bytes", a[1]);
      h.put("total_bytes", a[2]);
      h.put("reported_locality", rep);
      out.put(e.getKey(), h);
    }
    OUT.printf("  %-12s %8s %12.1f %12.1f %9.1f%%%n", "cluster", "", local / 1048576.0,
      total / 1048576.0, 100.0 * local / Math.max(1, total));
    out.put("cluster_locality", (double) local / Math.max(1, total));
    return out;
  }
}
