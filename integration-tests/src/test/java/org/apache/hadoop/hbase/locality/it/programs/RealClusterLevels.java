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
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.count;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.logSegments;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.logSizes;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.mib;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.moveEveryRegionToNextServer;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.reportDir;
import static org.apache.hadoop.hbase.locality.it.programs.RealClusterBench.target;

import com.fasterxml.jackson.databind.JsonNode;
import com.fasterxml.jackson.databind.ObjectMapper;
import com.fasterxml.jackson.databind.node.ObjectNode;
import java.io.File;
import java.io.IOException;
import java.io.PrintStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;
import java.util.TreeMap;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.CompletionException;
import java.util.concurrent.atomic.AtomicLong;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.locality.it.harness.DemoReader;
import org.apache.hadoop.hbase.locality.it.harness.RealCluster;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;

/**
 * The levels of adoption of {@code build-scripts/bench --levels}, one level per run on the real
 * cluster of build-scripts/cluster, each brought up with that level's jars and keys. Prints
 * figures measured in one run and asserts nothing.
 * <ul>
 * <li>{@code run LEVEL DESCRIPTION REGIONS ROWS [compact]}: two tables of REGIONS regions x ROWS
 * rows of 1 KiB, one read all the time ({@code lv_read}), one idle ({@code lv_idle}); every region
 * moved to another RegionServer; then the healer's jar ({@code --once}) on both. Measured from the
 * healer's start: time until HDFS locality is 1.0, until every read region and every idle region
 * reports 1.0 (or "never" within {@value #REPORT_CAP_S} s after the healer), the reader's p99
 * before and during healing, its failed reads, ReplicaNotFoundException retries in the
 * RegionServers' logs. With {@code compact}, then: every region moved again and both tables
 * major compacted, time until HDFS locality is 1.0 again. Figures go to
 * level-LEVEL-ROWS.json in the directory of the system property lh.report.dir.</li>
 * <li>{@code table}: the table of every level-*.json there, the healer against the
 * compaction at each size, the targets; also written as levels.md.</li>
 * </ul>
 */
public final class RealClusterLevels {
  private static final PrintStream OUT = System.out;
  private static final ObjectMapper JSON = new ObjectMapper();
  private static final TableName READ = TableName.valueOf("lv_read");
  private static final TableName IDLE = TableName.valueOf("lv_idle");
  /** Seconds after the healer ended that reported locality may take to reach 1.0. */
  static final int REPORT_CAP_S = 60;
  /** The healer is to be this much faster than a major compaction at the larger size. */
  private static final double TARGET_FASTER = 10;

  private RealClusterLevels() {
  }

  public static void main(String[] args) {
    try {
      if (args.length == 1 && args[0].equals("table")) {
        table();
      } else if ((args.length == 5 || args.length == 6 && args[5].equals("compact"))
        && args[0].equals("run")) {
        try (RealCluster cluster = new RealCluster()) {
          run(cluster, args[1], args[2], Integer.parseInt(args[3]), Integer.parseInt(args[4]),
            args.length == 6);
        }
      } else {
        System.err.println("usage: RealClusterLevels run LEVEL DESCRIPTION REGIONS ROWS"
          + " [compact] | table");
        System.exit(2);
      }
      System.exit(0);
    } catch (Throwable t) {
      System.err.println("levels failed: " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static double seconds(long sinceNanos) {
    return (System.nanoTime() - sinceNanos) / 1e9;
  }

  private static void run(RealCluster cluster, String level, String description, int regions,
      int rows, boolean compact) throws Exception {
    OUT.printf("== level %s (%s): %d + %d regions x %d rows of 1 KiB, every region moved to"
      + " another RegionServer, then the healer's jar%n", level, description, regions, regions,
      rows);
    long t = System.nanoTime();
    TestTables.createAndLoad(cluster, READ, regions, rows);
    TestTables.createAndLoad(cluster, IDLE, regions, rows);
    OUT.printf("   loaded in %.1f s%n", seconds(t));
    cluster.waitForLocalityReports(READ);
    cluster.waitForLocalityReports(IDLE);
    moveEveryRegionToNextServer(cluster, READ);
    moveEveryRegionToNextServer(cluster, IDLE);
    cluster.waitForLocalityReports(READ);
    cluster.waitForLocalityReports(IDLE);
    long[] r = tableBytes(cluster, READ);
    long[] i = tableBytes(cluster, IDLE);
    long total = r[1] + i[1];
    long nonLocal = total - r[0] - i[0];
    OUT.printf("   non-local after the moves: %.1f of %.1f MiB%n", mib(nonLocal), mib(total));

    DemoReader reader = new DemoReader(cluster, READ, regions, rows, 3);
    reader.start();
    Thread.sleep(3000);
    long[][] logAt = new long[4][];
    double[] startAt = new double[4];
    mark(cluster, 0, reader, logAt, startAt);
    Thread.sleep(8000);
    mark(cluster, 1, reader, logAt, startAt);
    long healStart = System.nanoTime();
    AtomicLong healEnd = new AtomicLong();
    CompletableFuture<JsonNode> healing = CompletableFuture.supplyAsync(() -> {
      try {
        JsonNode s = cluster.heal("--once", "--table", READ.getNameAsString() + ","
          + IDLE.getNameAsString(), "--threshold", "1.0", "--grace", "5");
        healEnd.set(System.nanoTime());
        return s;
      } catch (Exception e) {
        throw new CompletionException(e);
      }
    });
    double hdfs = Double.NaN;
    double read = Double.NaN;
    double idle = Double.NaN;
    double healerSeconds = Double.NaN;
    long capAt = Long.MAX_VALUE;
    while (true) {
      // whether the healer had ended before this round's checks
      boolean healerDone = healing.isDone();
      if (Double.isNaN(hdfs) && hdfsLocality(cluster, READ) >= 0.9999
        && hdfsLocality(cluster, IDLE) >= 0.9999) {
        hdfs = seconds(healStart);
      }
      if (Double.isNaN(read) && minReported(cluster, READ) >= 0.9999) {
        read = seconds(healStart);
      }
      if (Double.isNaN(idle) && minReported(cluster, IDLE) >= 0.9999) {
        idle = seconds(healStart);
      }
      if (healerDone && Double.isNaN(healerSeconds)) {
        healerSeconds = (healEnd.get() - healStart) / 1e9;
        mark(cluster, 2, reader, logAt, startAt);
        capAt = System.nanoTime() + REPORT_CAP_S * 1_000_000_000L;
      }
      if (healerDone && (!Double.isNaN(hdfs) && !Double.isNaN(read) && !Double.isNaN(idle)
        || System.nanoTime() >= capAt)) {
        break;
      }
      Thread.sleep(500);
    }
    JsonNode summary = healing.get();
    logAt[3] = logSizes(cluster);
    startAt[3] = System.nanoTime() / 1e9;
    reader.stop();
    // during: healer start -> healer end; after: up to REPORT_CAP_S s later
    ObjectNode out = JSON.createObjectNode();
    out.put("level", level);
    out.put("description", description);
    out.put("regions", 2 * regions);
    out.put("rows_per_region", rows);
    out.put("table_mib", mib(total));
    out.put("non_local_mib", mib(nonLocal));
    out.put("healer_exit", summary.path("exitCode").asText());
    out.put("healer_s", healerSeconds);
    out.put("blocks_moved", summary.path("blocksMoved").asLong());
    out.put("mib_moved", mib(summary.path("bytesMoved").asLong()));
    out.put("healer_hdfs_locality_after", summary.path("localityAfter").asDouble());
    putTime(out, "hdfs_locality_1_s", hdfs);
    putTime(out, "reported_read_1_s", read);
    putTime(out, "reported_idle_1_s", idle);
    out.put("report_cap_s", REPORT_CAP_S);
    String log = logSegments(cluster, logAt[1], logAt[3]);
    out.put("rnf_retries", count(log, "ReplicaNotFoundException"));
    out.put("refetch_waits", count(log, "DFS chooseDataNode: got #"));
    long errors = 0;
    for (int p = 0; p < 3; p++) {
      errors += reader.errors(p);
    }
    out.put("failed_reads", errors);
    putTime(out, "p99_before_ms", DemoReader.pct(reader.latencies(0), 99));
    putTime(out, "p99_during_ms", DemoReader.pct(reader.latencies(1), 99));
    out.put("reads_during", reader.latencies(1).length);
    OUT.printf("   healer: %s in %.1f s, %d blocks (%.1f MiB) moved; HDFS locality 1.0 after %s;"
      + " every read region reports 1.0 after %s, every idle region after %s%n",
      out.get("healer_exit").asText(), healerSeconds, out.get("blocks_moved").asLong(),
      out.get("mib_moved").asDouble(), time(out, "hdfs_locality_1_s"),
      time(out, "reported_read_1_s"), time(out, "reported_idle_1_s"));
    OUT.printf("   reader: p99 %.1f ms before, %.1f ms during; %d failed reads;"
      + " ReplicaNotFoundException retries %d, refetch waits %d%n",
      out.get("p99_before_ms").asDouble(Double.NaN),
      out.get("p99_during_ms").asDouble(Double.NaN), errors,
      out.get("rnf_retries").asLong(), out.get("refetch_waits").asLong());
    if (compact) {
      out.put("compaction_s", compaction(cluster));
      OUT.printf("   major compaction of both tables after every region moved again: HDFS"
        + " locality 1.0 after %.1f s%n", out.get("compaction_s").asDouble());
    }
    File file = new File(reportDir(), "level-" + level + "-" + rows + ".json");
    JSON.writerWithDefaultPrettyPrinter().writeValue(file, out);
    OUT.println("   figures written to " + file);
  }

  /** Moves every region again, compacts both tables, returns the seconds to HDFS locality 1. */
  private static double compaction(RealCluster cluster) throws Exception {
    moveEveryRegionToNextServer(cluster, READ);
    moveEveryRegionToNextServer(cluster, IDLE);
    cluster.waitForLocalityReports(READ);
    cluster.waitForLocalityReports(IDLE);
    Set<String> beforeRead = fileNames(cluster, READ);
    Set<String> beforeIdle = fileNames(cluster, IDLE);
    long t0 = System.nanoTime();
    cluster.admin().majorCompact(READ);
    cluster.admin().majorCompact(IDLE);
    long deadline = System.nanoTime() + 1_200_000_000_000L;
    while (!(compacted(cluster, READ, beforeRead) && compacted(cluster, IDLE, beforeIdle)
      && hdfsLocality(cluster, READ) >= 0.9999 && hdfsLocality(cluster, IDLE) >= 0.9999)) {
      if (System.nanoTime() > deadline) {
        throw new IOException("the major compactions did not reach HDFS locality 1.0 in 1200 s");
      }
      Thread.sleep(500);
    }
    return seconds(t0);
  }

  private static void mark(RealCluster cluster, int phase, DemoReader reader, long[][] logAt,
      double[] startAt) throws IOException {
    logAt[phase] = logSizes(cluster);
    startAt[phase] = System.nanoTime() / 1e9;
    reader.phase(phase);
  }

  /** A figure, null if there is none (NaN: not reached, no reads). */
  private static void putTime(ObjectNode out, String key, double value) {
    if (Double.isNaN(value)) {
      out.putNull(key);
    } else {
      out.put(key, value);
    }
  }

  private static String time(JsonNode run, String key) {
    JsonNode v = run.path(key);
    return v.isNumber() ? String.format("%.1f s", v.asDouble())
      : "never (not within " + run.path("report_cap_s").asInt() + " s after the healer)";
  }

  private static String cell(JsonNode run, String key) {
    JsonNode v = run.path(key);
    return v.isNumber() ? String.format("%.1f s", v.asDouble()) : "never";
  }

  // ---- the table ----------------------------------------------------------------------------

  private static void table() throws IOException {
    File[] files = reportDir().listFiles((d, n) -> n.startsWith("level-")
      && n.endsWith(".json"));
    if (files == null || files.length == 0) {
      throw new IOException("no level-*.json in " + reportDir());
    }
    // rows per region -> level -> run
    TreeMap<Integer, TreeMap<String, JsonNode>> runs = new TreeMap<>();
    for (File f : files) {
      JsonNode run = JSON.readTree(f);
      runs.computeIfAbsent(run.path("rows_per_region").asInt(), k -> new TreeMap<>())
        .put(run.path("level").asText(), run);
    }
    List<String> md = new ArrayList<>();
    md.add("| level | what runs | data (MiB) | non-local (MiB) | HDFS locality 1.0"
      + " | reported 1.0, read regions | reported 1.0, idle regions | RNF retries"
      + " | failed reads | p99 before / during (ms) |");
    md.add("|---|---|---|---|---|---|---|---|---|---|");
    OUT.println("== levels of adoption, real cluster (time from the healer's start; 'never':"
      + " not within " + REPORT_CAP_S + " s after the healer ended)");
    OUT.printf("   %-5s %8s %10s %12s %12s %12s %6s %7s %16s%n", "level", "MiB", "non-local",
      "HDFS 1.0", "read 1.0", "idle 1.0", "RNF", "failed", "p99 before/dur.");
    for (TreeMap<String, JsonNode> size : runs.values()) {
      for (JsonNode run : size.values()) {
        OUT.printf("   %-5s %8.1f %10.1f %12s %12s %12s %6d %7d %7.1f / %6.1f%n",
          run.path("level").asText(), run.path("table_mib").asDouble(),
          run.path("non_local_mib").asDouble(), cell(run, "hdfs_locality_1_s"),
          cell(run, "reported_read_1_s"), cell(run, "reported_idle_1_s"),
          run.path("rnf_retries").asLong(), run.path("failed_reads").asLong(),
          run.path("p99_before_ms").asDouble(Double.NaN),
          run.path("p99_during_ms").asDouble(Double.NaN));
        md.add(String.format("| %s | %s | %.1f | %.1f | %s | %s | %s | %d | %d | %.1f / %.1f |",
          run.path("level").asText(), run.path("description").asText(),
          run.path("table_mib").asDouble(), run.path("non_local_mib").asDouble(),
          cell(run, "hdfs_locality_1_s"), cell(run, "reported_read_1_s"),
          cell(run, "reported_idle_1_s"), run.path("rnf_retries").asLong(),
          run.path("failed_reads").asLong(), run.path("p99_before_ms").asDouble(Double.NaN),
          run.path("p99_during_ms").asDouble(Double.NaN)));
      }
    }
    // The healer (L1, the run that also compacted) against the compaction, size by size.
    md.add("");
    md.add("| data (MiB) | healer (L1): HDFS locality 1.0 | MiB moved | major compaction:"
      + " HDFS locality 1.0 | compaction / healer |");
    md.add("|---|---|---|---|---|");
    OUT.printf("   %-10s %22s %10s %22s %10s%n", "MiB", "healer (L1) HDFS 1.0", "moved",
      "compaction HDFS 1.0", "ratio");
    List<double[]> growth = new ArrayList<>();
    for (TreeMap<String, JsonNode> size : runs.values()) {
      JsonNode l1 = size.get("L1");
      if (l1 == null || !l1.path("compaction_s").isNumber()
        || !l1.path("hdfs_locality_1_s").isNumber()) {
        continue;
      }
      double h = l1.path("hdfs_locality_1_s").asDouble();
      double c = l1.path("compaction_s").asDouble();
      growth.add(new double[] { l1.path("table_mib").asDouble(), h, c });
      OUT.printf("   %-10.1f %20.1f s %10.1f %20.1f s %9.2fx%n", l1.path("table_mib").asDouble(),
        h, l1.path("mib_moved").asDouble(), c, c / h);
      md.add(String.format("| %.1f | %.1f s | %.1f | %.1f s | %.2fx |",
        l1.path("table_mib").asDouble(), h, l1.path("mib_moved").asDouble(), c, c / h));
    }
    if (growth.size() >= 2) {
      double[] a = growth.get(0);
      double[] b = growth.get(growth.size() - 1);
      String g = String.format("data x%.1f: the healer's time x%.2f, the compaction's x%.2f",
        b[0] / a[0], b[1] / a[1], b[2] / a[2]);
      OUT.println("   " + g);
      md.add("");
      md.add("Growth from the smaller to the larger size: " + g + ".");
    }
    md.add("");
    OUT.println("   targets:");
    TreeMap<String, JsonNode> largest = runs.lastEntry().getValue();
    Double compaction = null;
    for (JsonNode run : largest.values()) {
      if (run.path("compaction_s").isNumber()) {
        compaction = run.path("compaction_s").asDouble();
      }
    }
    for (JsonNode run : largest.values()) {
      JsonNode h = run.path("hdfs_locality_1_s");
      double faster = compaction == null || !h.isNumber() ? Double.NaN
        : compaction / h.asDouble();
      String what = String.format("%s at %.1f MiB: the healer reaches HDFS locality 1.0"
        + " %.2fx as fast as a major compaction (>= %.0fx)", run.path("level").asText(),
        run.path("table_mib").asDouble(), faster, TARGET_FASTER);
      target(what, faster >= TARGET_FASTER, compaction == null ? "no compaction measured at"
        + " this size" : "the healer's time includes its JVM start and scan, and each block it"
          + " moves (the cluster's block size, 1 MiB) costs a DataNode round trip and a check with the"
          + " NameNode; a compaction of regions this small, whose files the page cache holds, is"
          + " not throttled and takes seconds");
      md.add("- " + (faster >= TARGET_FASTER ? "met" : "missed") + ": " + what);
    }
    File mdFile = new File(reportDir(), "levels.md");
    Files.write(mdFile.toPath(), (String.join("\n", md) + "\n").getBytes(StandardCharsets.UTF_8));
    OUT.println("   table written to " + mdFile);
  }
}
