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
package org.apache.hadoop.hbase.locality.it;

import java.io.ByteArrayOutputStream;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Collections;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.atomic.AtomicBoolean;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.LocalityHealer;
import org.apache.hadoop.hbase.locality.LocalityHealerSummary;
import org.apache.hadoop.hbase.util.JVMClusterUtil;

/**
 * The demo of build-scripts/demo. Starts the multi-host patched cluster with the whole series
 * switched on, loads a table, starts a reader (gets and multi-gets, every value checked), crashes
 * a RegionServer the way production loses one (its regions are reassigned to the others while
 * their blocks stay where they were), then runs the LocalityHealer and shows its progress. Ends
 * with a report (locality per RegionServer before and after, time to heal, bytes moved vs the
 * bytes a major compaction would rewrite, reader latency and errors per phase) and writes
 * demo.json and two PNG charts to the directory of the system property lh.report.dir.
 */
public final class LocalityDemo {
  private static final TableName TABLE = TableName.valueOf("demo");
  private static final PrintStream OUT = System.out;
  private static final String[] RACKS = { "/r1", "/r1", "/r2", "/r2" };
  private static final String[] PHASES = { "before the crash", "after the crash", "healing",
    "healed" };
  private static final long T0 = System.nanoTime();

  private LocalityDemo() {
  }

  public static void main(String[] args) {
    try {
      run(args);
      System.exit(0);
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
    Configuration conf = HBaseConfiguration.create();
    conf.setLong("dfs.blocksize", 256 * 1024);
    conf.setLong("dfs.namenode.fs-limits.min-block-size", 64 * 1024);
    conf.setLong("dfs.client.refresh.read-block-locations.ms", 2000);
    conf.setLong("dfs.namenode.block.replace.grace.period.ms", 10_000);
    conf.setInt("dfs.client.retry.window.base", 50);
    conf.setInt("dfs.client.retry.window.multiplier", 2);
    conf.setInt("dfs.client.retry.window.max", 10_000);
    conf.setBoolean("hbase.locality.inputstream.derive.enabled", true);
    conf.setLong("hbase.locality.inputstream.derive.cache.period", 2000);
    conf.setInt("hbase.balancer.statusPeriod", 1000);
    return conf;
  }

  private static void run(String[] args) throws Exception {
    int regions = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int rowsPerRegion = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
    OUT.println("Starting a minicluster: 4 DataNodes (host1..host4; racks /r1 /r1 /r2 /r2),"
      + " 3 RegionServers (host1..host3), HDFS replication 2, 256 KiB blocks.");
    OUT.println("Series on: location refresher 2 s (HDFS-16262), replaced-replica grace 10 s"
      + " (HDFS-16261), backoff 50 ms x2 up to 10 s (HDFS-16155), locality from the stream"
      + " (HBASE-26304).");
    Map<String, Object> report = new LinkedHashMap<>();
    try (MultiHostCluster cluster = MultiHostCluster.start(demoConf(), 4, 3, 2, RACKS)) {
      OUT.printf("Cluster up in %.1f s. Loading %d regions x %d rows of 1 KiB and flushing...%n",
        now(), regions, rowsPerRegion);
      TestTables.createAndLoad(cluster, TABLE, regions, rowsPerRegion);
      cluster.waitForLocalityReports(TABLE);
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

      JVMClusterUtil.RegionServerThread victim = cluster.util().getMiniHBaseCluster()
        .getLiveRegionServerThreads().stream()
        .filter(t -> t.getRegionServer().getServerName().getHostname().equals("host3"))
        .findFirst().orElseThrow(() -> new IllegalStateException("no RegionServer on host3"));
      ServerName dead = victim.getRegionServer().getServerName();
      OUT.println("\nCrashing RegionServer " + dead + "; the master reassigns its regions...");
      reader.phase(1);
      victim.getRegionServer().abort("LocalityDemo: simulated crash");
      cluster.util().waitFor(180_000, 500, () -> {
        Map<RegionInfo, ServerName> now = cluster.regionsOf(TABLE);
        return now.size() == regions && !now.containsValue(dead)
          && !cluster.admin().getRegionServers().contains(dead);
      });
      cluster.waitForLocalityReports(TABLE);
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

      OUT.println("\nRunning LocalityHealer --once --table demo --threshold 1.0 --grace 5 ...");
      reader.phase(2);
      double tHeal = now();
      Configuration healerConf = new Configuration(cluster.util().getConfiguration());
      CompletableFuture<LocalityHealerSummary> healing = CompletableFuture.supplyAsync(
        () -> LocalityHealer.heal(healerConf, "--once", "--table", TABLE.getNameAsString(),
          "--threshold", "1.0", "--grace", "5"));
      double tHealed = Double.NaN;
      while (Double.isNaN(tHealed) && now() - tHeal < 180) {
        Thread.sleep(1000);
        double[] loc = sampler.last();
        OUT.printf("  %5.1f s  cluster locality %5.1f%% (HDFS), %5.1f%% (reported by the"
          + " RegionServers)%s%n", now() - tHeal, 100 * loc[0], 100 * loc[1],
          healing.isDone() ? ", healer done" : "");
        if (healing.isDone() && loc[1] >= 0.9999) {
          tHealed = now();
        }
      }
      LocalityHealerSummary summary = healing.get();
      reader.phase(3);
      Thread.sleep(5000);
      reader.stop();
      sampler.stop();
      report.put("after_healing", table(cluster, "after healing"));

      double timeToHeal = tHealed - tHeal;
      OUT.println("Report:");
      OUT.printf("  time to heal (healer start -> every region reports 100%%): %.1f s%n",
        timeToHeal);
      OUT.printf("  bytes moved by the healer: %.1f MiB (non-local bytes before: %.1f MiB)%n",
        summary.getBytesMoved() / 1048576.0, nonLocal / 1048576.0);
      OUT.printf("  a major compaction of the %d affected regions would read %.1f MiB and write"
        + " %.1f MiB (x2 replicas): the healer moved %.0f%% of that write%n", affected,
        affectedBytes / 1048576.0, 2 * affectedBytes / 1048576.0,
        100.0 * summary.getBytesMoved() / Math.max(1, 2 * affectedBytes));
      OUT.printf("  %-18s %8s %10s %10s %10s %8s%n", "reader phase", "reads", "p50 ms",
        "p99 ms", "max ms", "errors");
      List<Map<String, Object>> phases = new ArrayList<>();
      for (int p = 0; p < PHASES.length; p++) {
        double[] lat = reader.latencies(p);
        Map<String, Object> ph = new LinkedHashMap<>();
        ph.put("phase", PHASES[p]);
        ph.put("reads", lat.length);
        ph.put("p50_ms", DemoReader.pct(lat, 50));
        ph.put("p99_ms", DemoReader.pct(lat, 99));
        ph.put("max_ms", DemoReader.pct(lat, 100));
        ph.put("errors", reader.errors(p));
        phases.add(ph);
        OUT.printf("  %-18s %8d %10.2f %10.2f %10.2f %8d%n", PHASES[p], lat.length,
          DemoReader.pct(lat, 50), DemoReader.pct(lat, 99), DemoReader.pct(lat, 100),
          reader.errors(p));
      }
      report.put("healer", healerReport(summary));
      report.put("time_to_heal_s", timeToHeal);
      report.put("non_local_bytes_before", nonLocal);
      report.put("affected_regions", affected);
      report.put("compaction_read_bytes", affectedBytes);
      report.put("compaction_write_bytes", 2 * affectedBytes);
      report.put("reader", phases);
      writeReport(report, sampler, reader, tLoad, tHeal - tLoad, tHealed - tLoad);
      OUT.printf("%nDemo finished in %.1f s. Shutting the cluster down.%n", now());
      // The master prints thread dumps to stdout while it stops: keep them off the report.
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
    }
  }

  private static Map<String, Object> healerReport(LocalityHealerSummary s) {
    Map<String, Object> m = new LinkedHashMap<>();
    m.put("exit_code", s.getExitCode().name());
    m.put("passes", s.getPasses());
    m.put("regions_below_threshold", s.getRegionsBelowThreshold());
    m.put("blocks_moved", s.getBlocksMoved());
    m.put("blocks_failed", s.getBlocksFailed());
    m.put("blocks_skipped", s.getBlocksSkipped());
    m.put("bytes_moved", s.getBytesMoved());
    m.put("elapsed_ms", s.getElapsedMs());
    m.put("locality_before", s.getLocalityBefore());
    m.put("locality_after", s.getLocalityAfter());
    return m;
  }

  private static void writeReport(Map<String, Object> report, Sampler sampler, DemoReader reader,
      double tLoad, double healFrom, double healTo) throws IOException {
    File dir = new File(System.getProperty("lh.report.dir", "build/report"));
    dir.mkdirs();
    report.put("locality_over_time", sampler.series);
    Files.write(new File(dir, "demo.json").toPath(),
      toJson(report, "").getBytes(StandardCharsets.UTF_8));
    Map<String, List<double[]>> locality = new TreeMap<>();
    for (Map.Entry<String, List<double[]>> e : sampler.series.entrySet()) {
      List<double[]> pct = new ArrayList<>();
      for (double[] p : e.getValue()) {
        pct.add(new double[] { p[0], 100 * p[1] });
      }
      locality.put(e.getKey(), pct);
    }
    DemoCharts.lineChart(new File(dir, "demo-locality.png"),
      "Reported locality per RegionServer (host3 crashes; LocalityHealer heals)", "locality %",
      100, locality, healFrom, healTo, "healing");
    Map<String, List<double[]>> p99 = new TreeMap<>();
    p99.put("reader p99", reader.p99PerSecond(T0 / 1e9 + tLoad));
    DemoCharts.lineChart(new File(dir, "demo-read-p99.png"), "Reader p99 latency (gets and"
      + " multi-gets)", "p99 ms", 1, p99, healFrom, healTo, "healing");
    OUT.println("\nReport written to " + dir + ": demo.json, demo-locality.png,"
      + " demo-read-p99.png");
  }

  @SuppressWarnings("unchecked")
  private static String toJson(Object o, String indent) {
    if (o instanceof Map) {
      StringBuilder b = new StringBuilder("{\n");
      String in = indent + "  ";
      int i = 0;
      for (Map.Entry<String, Object> e : ((Map<String, Object>) o).entrySet()) {
        b.append(in).append('"').append(e.getKey()).append("\": ")
          .append(toJson(e.getValue(), in)).append(++i < ((Map<?, ?>) o).size() ? ",\n" : "\n");
      }
      return b.append(indent).append('}').toString();
    }
    if (o instanceof List) {
      List<String> items = new ArrayList<>();
      for (Object x : (List<Object>) o) {
        items.add(toJson(x, indent + "  "));
      }
      return "[" + String.join(", ", items) + "]";
    }
    if (o instanceof double[]) {
      List<String> items = new ArrayList<>();
      for (double d : (double[]) o) {
        items.add(toJson(d, indent));
      }
      return "[" + String.join(", ", items) + "]";
    }
    if (o instanceof Double || o instanceof Float) {
      double d = ((Number) o).doubleValue();
      return Double.isNaN(d) || Double.isInfinite(d) ? "null" : String.format("%.4f", d);
    }
    if (o instanceof Number || o instanceof Boolean) {
      return o.toString();
    }
    return "\"" + String.valueOf(o).replace("\\", "\\\\").replace("\"", "\\\"") + "\"";
  }

  /** Samples reported and HDFS locality per RegionServer once a second. */
  private static final class Sampler implements Runnable {
    private final MultiHostCluster cluster;
    private final double t0;
    private final AtomicBoolean stop = new AtomicBoolean();
    private final Map<String, List<double[]>> series = Collections.synchronizedMap(new TreeMap<>());
    private volatile double[] last = { Double.NaN, Double.NaN };
    private Thread thread;

    Sampler(MultiHostCluster cluster, double t0) {
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
          for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
            long[] b = cluster.localBytes(e.getKey(), e.getValue().getHostname());
            double r = cluster.reportedLocality(e.getKey(), e.getValue());
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

  private static Map<String, Object> table(MultiHostCluster cluster, String title)
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
