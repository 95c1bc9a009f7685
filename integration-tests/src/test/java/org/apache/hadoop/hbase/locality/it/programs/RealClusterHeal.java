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

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collection;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hbase.ClusterMetrics.Option;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.locality.it.harness.ClusterAccess;
import org.apache.hadoop.hbase.locality.it.harness.DemoReader;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.util.Bytes;

/**
 * Steps of the healing check on the real cluster of build-scripts/cluster, each run as its own
 * process on a host of it (build-scripts/cluster java host0 ...) between the steps the script
 * takes itself (killing a RegionServer, running the healer as its own process). Uses only the
 * cluster's configuration and public client API; exits 1 with a message if a check fails.
 * <ul>
 * <li>{@code load TABLE REGIONS ROWS [STATE_FILE]}: creates and loads the table, flushes it and
 * waits until every region's HDFS locality is 1.0 (a flush writes its first replica on its own
 * host) and every region reports 1.0, or reports less only for a replica its RegionServer missed
 * when it opened the store file (see {@link #waitForLoadedLocality}); prints how many regions
 * each host holds, and writes where each region is to STATE_FILE.</li>
 * <li>{@code loaded TABLE}: that wait of {@code load} alone, on a table already loaded.</li>
 * <li>{@code reassigned TABLE DEAD_HOST STATE_FILE [LOADED_FILE]}: waits until no region of the
 * table is on DEAD_HOST and every one is open; prints reported locality per server and writes
 * where each region is to STATE_FILE. With LOADED_FILE (where {@code load} placed every region
 * of the table, before the crash) it fails at once if none was on DEAD_HOST, and names the
 * regions that were and where they went. If every region is still local (each of those regions
 * went to a host with a replica of every one of its blocks), it names the hosts of their blocks
 * and moves one of them to a RegionServer whose host lacks some (with LOADED_FILE; without it, or
 * if there is none, it fails: nothing to heal).</li>
 * <li>{@code moveall TABLE STATE_FILE}: moves every region of the table to the next live
 * RegionServer (by name) and waits until hbase:meta shows each one open there, not for the
 * RegionServers' reports (the healer then starts while they still lag); writes where each region
 * is to STATE_FILE.</li>
 * <li>{@code moveto TABLE HOST STATE_FILE}: as {@code moveall}, every region to the RegionServer
 * on HOST (those open there stay).</li>
 * <li>{@code healed TABLE ROWS STATE_FILE SECONDS}: waits at most SECONDS until every region
 * reports locality 1.0; then checks that no region moved since STATE_FILE and that every row
 * reads back with its value.</li>
 * <li>{@code hdfs-healed TABLE ROWS STATE_FILE}: what a stock cluster shows of a healed table,
 * whose RegionServers do not see the moves: every region's HDFS locality (its store files' bytes
 * with a replica on its server's host, from the NameNode's block locations) is 1.0; prints what
 * the regions report beside it; then checks that no region moved since STATE_FILE and that every
 * row reads back with its value.</li>
 * <li>{@code hdfs-locality TABLE}: prints the HDFS locality of each region of the table (as
 * {@code hdfs-healed} computes it) and how many are below 1.0; a measurement, it fails only if
 * it cannot compute them.</li>
 * <li>{@code rows TABLE ROWS}: every row reads back with its value, wherever the regions are
 * (after a restart of every daemon, say).</li>
 * <li>{@code read TABLE REGIONS ROWS STOP_FILE}: reads random rows of a table loaded with
 * {@code load} (gets and multi-gets, every value checked) until STOP_FILE exists; fails if a read
 * failed or none succeeded.</li>
 * </ul>
 */
public final class RealClusterHeal {
  private RealClusterHeal() {
  }

  public static void main(String[] args) {
    try {
      run(args);
      System.exit(0);
    } catch (IllegalArgumentException e) {
      System.err.println("error: " + e.getMessage());
      System.exit(2);
    } catch (Throwable t) {
      System.out.println("FAILED: " + t);
      t.printStackTrace();
      System.exit(1);
    }
  }

  private static void run(String[] args) throws Exception {
    if (args.length < 2) {
      throw new IllegalArgumentException("usage: RealClusterHeal"
        + " load|loaded|reassigned|moveall|moveto|healed|hdfs-healed|hdfs-locality|rows|read"
        + " TABLE ..."
        + " (see its javadoc)");
    }
    Configuration conf = HBaseConfiguration.create();
    TableName table = TableName.valueOf(args[1]);
    try (Connection conn = ConnectionFactory.createConnection(conf);
      Admin admin = conn.getAdmin()) {
      switch (args[0]) {
        case "load":
          need(args, 4, 5);
          int regions = Integer.parseInt(args[2]);
          int rows = Integer.parseInt(args[3]);
          TestTables.createAndLoad(conn, table, regions, rows);
          Map<String, Double> loc = waitForLoadedLocality(conn, admin, table, 120, 15);
          Map<String, String> loaded = placement(conn, table);
          System.out.println("loaded " + regions + " regions x " + rows + " rows; regions per"
            + " host: " + perHost(loaded) + "; reported locality per region after the flush: "
            + loc.values());
          if (args.length > 4) {
            writePlacement(loaded, args[4]);
          }
          break;
        case "loaded":
          need(args, 2);
          System.out.println("reported locality per region: "
            + waitForLoadedLocality(conn, admin, table, 120, 15).values());
          break;
        case "reassigned":
          need(args, 4, 5);
          String dead = args[2];
          Map<String, String> beforeCrash =
            args.length > 4 ? placementBefore(conn, table, args[4]) : null;
          List<String> wereOnDead = new ArrayList<>();
          if (beforeCrash != null) {
            beforeCrash.forEach((r, h) -> {
              if (h.equals(dead)) {
                wereOnDead.add(r);
              }
            });
            if (wereOnDead.isEmpty()) {
              throw new IOException("no region of " + table + " was on " + dead
                + " before the crash (regions per host: " + perHost(beforeCrash)
                + "): its crash leaves nothing to heal");
            }
          }
          long deadline = System.currentTimeMillis() + 180_000;
          Map<String, String> where;
          while (true) {
            IOException failure = null;
            where = new TreeMap<>();
            try {
              where = placement(conn, table);
              if (!where.isEmpty() && !where.containsValue(dead)
                && where.size() == admin.getRegions(table).size()) {
                break;
              }
            } catch (IOException e) {
              // e.g. hbase:meta itself was on the dead server and is not reassigned yet
              failure = e;
            }
            if (System.currentTimeMillis() > deadline) {
              throw new IOException("regions not reassigned off " + dead + ": " + where, failure);
            }
            Thread.sleep(500);
          }
          // Wait for the new servers' reports of the reassigned regions.
          Map<String, Double> after = reportedLocality(admin, table, 60);
          System.out.println("regions reassigned off " + dead + "; reported locality: "
            + after);
          if (!wereOnDead.isEmpty()) {
            StringBuilder moved = new StringBuilder();
            for (String r : wereOnDead) {
              moved.append(moved.length() == 0 ? "" : ", ").append(r).append(" to ")
                .append(where.get(r));
            }
            System.out.println(wereOnDead.size() + " regions were on " + dead + ": " + moved);
          }
          if (after.values().stream().allMatch(v -> v >= 0.9999)) {
            String hosts =
              blockHosts(conn, table, wereOnDead.isEmpty() ? where.keySet() : wereOnDead);
            if (wereOnDead.isEmpty()) {
              throw new IOException("every region is still local after the crash: nothing to"
                + " heal; hosts of the blocks of the regions reassigned: " + hosts);
            }
            // Each reassigned region went to a host that has a replica of every one of its
            // blocks (with two replicas, the second of each block is on one of two hosts of the
            // other rack, as is the region: 1 in 16 for a region of four blocks). Move one to a
            // server without them, so that the crash leaves work to heal.
            System.out.println("every region is still local after the crash; hosts of the blocks"
              + " of the regions reassigned: " + hosts);
            moveOffReplicas(conn, admin, table, wereOnDead);
            where = placement(conn, table);
          }
          writePlacement(where, args[3]);
          break;
        case "moveall":
          need(args, 3);
          moveAll(conn, admin, table, null, args[2]);
          break;
        case "moveto":
          need(args, 4);
          moveAll(conn, admin, table, args[2], args[3]);
          break;
        case "healed":
          need(args, 5);
          int expectRows = Integer.parseInt(args[2]);
          Map<String, Double> healed =
            waitForLocality(admin, table, 1.0, Integer.parseInt(args[4]));
          System.out.println("every region reports locality 1.0: " + healed.keySet().size()
            + " regions");
          checkPlacementAndRows(conn, table, args[3], expectRows);
          break;
        case "hdfs-healed":
          need(args, 4);
          ClusterAccess access = access(conn);
          List<String> below = new ArrayList<>();
          for (Map.Entry<RegionInfo, ServerName> e : access.regionsOf(table).entrySet()) {
            double hdfs = access.computedLocality(e.getKey(), e.getValue().getHostname());
            if (hdfs < 0.9999) {
              below.add(e.getKey().getEncodedName() + "=" + hdfs);
            }
          }
          if (!below.isEmpty()) {
            throw new IOException("regions whose HDFS locality is below 1.0: " + below);
          }
          System.out.println("every region's HDFS locality is 1.0; reported: "
            + reportedLocality(admin, table, 60).values());
          checkPlacementAndRows(conn, table, args[3], Integer.parseInt(args[2]));
          break;
        case "hdfs-locality":
          need(args, 2);
          ClusterAccess measured = access(conn);
          Map<String, Double> byRegion = new TreeMap<>();
          int lower = 0;
          for (Map.Entry<RegionInfo, ServerName> e : measured.regionsOf(table).entrySet()) {
            double hdfs = measured.computedLocality(e.getKey(), e.getValue().getHostname());
            byRegion.put(e.getKey().getEncodedName(), hdfs);
            lower += hdfs < 0.9999 ? 1 : 0;
          }
          System.out.printf("HDFS locality of %s: regions below 1.0: %d of %d; by region: %s%n",
            table, lower, byRegion.size(), byRegion);
          break;
        case "rows":
          need(args, 3);
          checkRows(conn, table, Integer.parseInt(args[2]));
          break;
        case "read":
          need(args, 5);
          read(conn, table, Integer.parseInt(args[2]), Integer.parseInt(args[3]),
            Paths.get(args[4]));
          break;
        default:
          throw new IllegalArgumentException("unknown step '" + args[0]
            + "': expected load, loaded, reassigned, moveall, moveto, healed, hdfs-healed,"
            + " hdfs-locality, rows or read");
      }
    }
  }

  /**
   * Moves every region of the table to the live RegionServer on {@code host}, or with a null
   * host to the next live RegionServer by name; returns once hbase:meta shows every region open
   * on its new server, and writes the placement.
   */
  private static void moveAll(Connection conn, Admin admin, TableName table, String host,
    String stateFile) throws Exception {
    List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
    Collections.sort(servers);
    if (servers.size() < 2) {
      throw new IOException("need two live RegionServers to move regions: " + servers);
    }
    ServerName onHost = null;
    if (host != null) {
      onHost = servers.stream().filter(s -> s.getHostname().equals(host)).findFirst()
        .orElseThrow(() -> new IllegalArgumentException("no live RegionServer on '" + host
          + "': " + servers));
    }
    Map<String, String> to = new TreeMap<>();
    try (RegionLocator locator = conn.getRegionLocator(table)) {
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        ServerName dest = onHost;
        if (dest == null) {
          dest = servers.get((servers.indexOf(loc.getServerName()) + 1) % servers.size());
        }
        if (!dest.equals(loc.getServerName())) {
          admin.move(loc.getRegion().getEncodedNameAsBytes(), dest);
        }
        to.put(loc.getRegion().getEncodedName(), dest.getHostname());
      }
    }
    long deadline = System.currentTimeMillis() + 120_000;
    Map<String, String> where = placement(conn, table);
    while (!where.equals(to)) {
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("regions not moved: wanted " + to + ", now " + where);
      }
      Thread.sleep(200);
      where = placement(conn, table);
    }
    System.out.println("every region moved to " + (host == null ? "another RegionServer" : host)
      + ": " + where);
    writePlacement(where, stateFile);
  }

  /**
   * Moves the first of {@code regions} that has a live RegionServer on a host with the lowest
   * HDFS locality for it (below 1.0) to that server, and waits until it reports that locality;
   * fails if every such server holds a replica of each of the regions' blocks.
   */
  private static void moveOffReplicas(Connection conn, Admin admin, TableName table,
      List<String> regions) throws Exception {
    ClusterAccess access = access(conn);
    List<ServerName> servers = new ArrayList<>(admin.getRegionServers());
    Collections.sort(servers);
    RegionInfo region = null;
    ServerName target = null;
    double lowest = 1.0;
    for (Map.Entry<RegionInfo, ServerName> e : access.regionsOf(table).entrySet()) {
      if (!regions.contains(e.getKey().getEncodedName())) {
        continue;
      }
      for (ServerName sn : servers) {
        double loc = sn.getHostname().equals(e.getValue().getHostname()) ? 1.0
          : access.computedLocality(e.getKey(), sn.getHostname());
        if (loc < lowest - 1e-4) {
          region = e.getKey();
          target = sn;
          lowest = loc;
        }
      }
    }
    if (region == null) {
      throw new IOException("every region is still local after the crash, and every live"
        + " RegionServer's host has a replica of each block of " + regions + ": nothing to heal");
    }
    admin.move(region.getEncodedNameAsBytes(), target);
    long deadline = System.currentTimeMillis() + 120_000;
    double reported = Double.NaN;
    while (true) {
      ServerName at = access.regionsOf(table).get(region);
      if (target.equals(at)) {
        reported = access.reportedLocality(region, target);
        if (reported < 0.9999) {
          break;
        }
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("moved " + region.getEncodedName() + " to " + target
          + ": after 120 s it is on " + at + ", reporting " + reported);
      }
      Thread.sleep(500);
    }
    System.out.println("moved " + region.getEncodedName() + " to " + target.getHostname()
      + ", where its HDFS locality is " + lowest + "; it reports " + reported);
  }

  /** Writes where each region is (encoded name, host; one region a line) to {@code file}. */
  private static void writePlacement(Map<String, String> where, String file) throws IOException {
    StringBuilder sb = new StringBuilder();
    where.forEach((r, s) -> sb.append(r).append(' ').append(s).append('\n'));
    Files.write(Paths.get(file), sb.toString().getBytes(StandardCharsets.UTF_8));
  }

  /** Where each region was, as written to {@code file}; empty if the file does not exist. */
  private static Map<String, String> readPlacement(String file) throws IOException {
    Map<String, String> where = new TreeMap<>();
    if (!Files.exists(Paths.get(file))) {
      return where;
    }
    for (String line : Files.readAllLines(Paths.get(file), StandardCharsets.UTF_8)) {
      String[] f = line.trim().split(" ");
      if (f.length == 2) {
        where.put(f[0], f[1]);
      }
    }
    return where;
  }

  /**
   * Where each region of the table was as {@code file} records it; fails if the file does not
   * record every region of the table (it was written for another table, or not at all).
   */
  private static Map<String, String> placementBefore(Connection conn, TableName table,
      String file) throws IOException {
    Map<String, String> before = readPlacement(file);
    Set<String> regions = new TreeSet<>();
    try (Admin admin = conn.getAdmin()) {
      for (RegionInfo r : admin.getRegions(table)) {
        regions.add(r.getEncodedName());
      }
    }
    if (regions.isEmpty() || !before.keySet().equals(regions)) {
      throw new IllegalArgumentException(file + " does not record where each region of " + table
        + " was: it records " + before.keySet() + ", the table has " + regions);
    }
    return before;
  }

  /** How many regions each host holds, by host. */
  private static Map<String, Integer> perHost(Map<String, String> where) {
    Map<String, Integer> n = new TreeMap<>();
    where.values().forEach(h -> n.merge(h, 1, Integer::sum));
    return n;
  }

  /** The hosts of each block of each region's store files, by region and its current host. */
  private static String blockHosts(Connection conn, TableName table, Collection<String> regions)
      throws IOException {
    ClusterAccess access = access(conn);
    StringBuilder sb = new StringBuilder();
    for (Map.Entry<RegionInfo, ServerName> e : access.regionsOf(table).entrySet()) {
      if (!regions.contains(e.getKey().getEncodedName())) {
        continue;
      }
      sb.append(sb.length() == 0 ? "" : "; ").append(e.getKey().getEncodedName()).append(" on ")
        .append(e.getValue().getHostname()).append(':');
      for (FileStatus f : access.storeFiles(e.getKey())) {
        for (BlockLocation b : access.fs().getFileBlockLocations(f, 0, f.getLen())) {
          sb.append(' ').append(Arrays.toString(b.getHosts()));
        }
      }
    }
    return sb.toString();
  }

  /** No region moved since the placement in {@code stateFile}; every row reads back. */
  private static void checkPlacementAndRows(Connection conn, TableName table, String stateFile,
      int expectRows) throws IOException, InterruptedException {
    Map<String, String> before = readPlacement(stateFile);
    Map<String, String> now = placement(conn, table);
    if (!now.equals(before)) {
      throw new IOException("regions moved while healing: before " + before + ", now " + now);
    }
    System.out.println("no region moved");
    checkRows(conn, table, expectRows);
  }

  /**
   * Every row reads back with its value. As a client after a restart of HBase would, it first
   * waits (five minutes at most) until every region of the table has a server and none is in
   * transition; a scan that fails even so (a region closed or opened again under it on a busy
   * machine) is printed with its causes and tried again after the same wait, three times in all.
   * A row that reads back wrong fails at once, and so does a count short of {@code expectRows}.
   */
  private static void checkRows(Connection conn, TableName table, int expectRows)
    throws IOException, InterruptedException {
    try (Admin admin = conn.getAdmin()) {
      for (int attempt = 1;; attempt++) {
        waitForRegionsOpen(admin, table, 300);
        int read;
        try {
          read = TestTables.readAllChecked(conn, table);
        } catch (IOException e) {
          if (attempt == 3 || String.valueOf(e.getMessage()).startsWith("wrong value")) {
            throw e;
          }
          System.out.println("read " + attempt + " of 3 failed: " + causes(e));
          continue;
        }
        if (read != expectRows) {
          throw new IOException("read " + read + " rows back, expected " + expectRows);
        }
        System.out.println("every row reads back with its value: " + read + " rows");
        return;
      }
    }
  }

  /** Waits until every region of {@code table} has a server and none is in transition. */
  private static void waitForRegionsOpen(Admin admin, TableName table, int seconds)
    throws IOException, InterruptedException {
    long deadline = System.nanoTime() + seconds * 1_000_000_000L;
    while (true) {
      List<String> moving = new ArrayList<>();
      admin.getClusterMetrics(EnumSet.of(Option.REGIONS_IN_TRANSITION))
        .getRegionStatesInTransition().stream()
        .filter(rs -> rs.getRegion().getTable().equals(table))
        .forEach(rs -> moving.add(rs.getRegion().getEncodedName() + " " + rs.getState()));
      if (moving.isEmpty() && admin.isTableAvailable(table)) {
        return;
      }
      if (System.nanoTime() > deadline) {
        throw new IOException("regions of " + table + " not open after " + seconds
          + " s; in transition: " + moving);
      }
      Thread.sleep(1000);
    }
  }

  /** The messages of {@code t} and its causes, one after the other. */
  private static String causes(Throwable t) {
    StringBuilder sb = new StringBuilder();
    for (Throwable c = t; c != null; c = c.getCause()) {
      sb.append(sb.length() == 0 ? "" : " <- ").append(c.getClass().getSimpleName()).append(": ")
        .append(c.getMessage() == null ? "" : c.getMessage().split("\n", 2)[0]);
    }
    return sb.toString();
  }

  private static void read(Connection conn, TableName table, int regions, int rows,
      java.nio.file.Path stop) throws Exception {
    ClusterAccess access = access(conn);
    DemoReader reader = new DemoReader(access, table, regions, rows, 1);
    reader.start();
    reader.phase(0);
    while (!Files.exists(stop)) {
      Thread.sleep(200);
    }
    reader.stop();
    double[] lat = reader.latencies(0);
    System.out.printf("reads while healing: %d, p99 %.1f ms, errors %d%n", lat.length,
      DemoReader.pct(lat, 99), reader.errors(0));
    if (reader.errors(0) > 0 || lat.length == 0) {
      throw new IOException(reader.errors(0) + " reads failed, " + lat.length + " succeeded");
    }
  }

  /** The cluster as the harness's checks see it, through this connection. */
  private static ClusterAccess access(Connection conn) {
    return new ClusterAccess() {
      @Override
      public Configuration conf() {
        return conn.getConfiguration();
      }

      @Override
      public Connection connection() {
        return conn;
      }

      @Override
      public org.apache.hadoop.fs.FileSystem fs() throws IOException {
        return org.apache.hadoop.fs.FileSystem.get(conf());
      }
    };
  }

  private static void need(String[] args, int n) {
    need(args, n, n);
  }

  private static void need(String[] args, int min, int max) {
    if (args.length < min || args.length > max) {
      throw new IllegalArgumentException(args[0] + " takes " + (min - 2)
        + (max > min ? " to " + (max - 2) : "") + " arguments after the table, got "
        + (args.length - 2));
    }
  }

  /**
   * Encoded region name to the host name of its server, from hbase:meta (asking the servers
   * would fail on a dead one the master has not yet expired); regions in transition are left out.
   */
  private static Map<String, String> placement(Connection conn, TableName table)
    throws IOException {
    Map<String, String> where = new TreeMap<>();
    try (RegionLocator locator = conn.getRegionLocator(table)) {
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        if (loc != null && loc.getServerName() != null) {
          where.put(loc.getRegion().getEncodedName(), loc.getServerName().getHostname());
        }
      }
    }
    return where;
  }

  /**
   * The locality each region of the table reports to the master (encoded name to locality),
   * once every open region of the table has a report; waits at most {@code seconds}.
   */
  private static Map<String, Double> reportedLocality(Admin admin, TableName table, int seconds)
    throws Exception {
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    while (true) {
      List<RegionInfo> regions = admin.getRegions(table);
      Map<String, Double> loc = new TreeMap<>();
      for (ServerMetrics sm : admin.getClusterMetrics(EnumSet.of(Option.LIVE_SERVERS))
        .getLiveServerMetrics().values()) {
        for (RegionMetrics rm : sm.getRegionMetrics().values()) {
          for (RegionInfo r : regions) {
            if (Bytes.equals(rm.getRegionName(), r.getRegionName())
              && rm.getStoreFileCount() > 0) {
              loc.put(r.getEncodedName(), (double) rm.getDataLocality());
            }
          }
        }
      }
      if (loc.size() == regions.size()) {
        return loc;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("only " + loc.size() + " of " + regions.size()
          + " regions reported their store files");
      }
      Thread.sleep(500);
    }
  }

  /**
   * Waits at most {@code seconds} until every region of a freshly flushed table has HDFS locality
   * 1.0 (its store files' bytes with a replica on its server's host, from the NameNode) and
   * reports 1.0; returns the reports. A region may report less for good although HDFS gives 1.0:
   * the local DataNode, first in the write pipeline, finalizes a file's last block after the
   * remote one, and the writer may close the file (the NameNode needs one replica of the last
   * block) and the RegionServer open it and compute its block distribution before the NameNode
   * has processed the local DataNode's report of that replica. A RegionServer that derives the
   * distribution from its input stream and refreshes the stream's block locations (the series'
   * keys on) soon reports 1.0; a stock one keeps the distribution it computed until the file is
   * reopened. So once HDFS gives 1.0 for every region, the reports get {@code settleSeconds}
   * more; the regions still below then are named, and accepted.
   */
  private static Map<String, Double> waitForLoadedLocality(Connection conn, Admin admin,
    TableName table, int seconds, int settleSeconds) throws Exception {
    ClusterAccess access = access(conn);
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    long hdfsLocalSince = 0;
    while (true) {
      Map<String, Double> loc = reportedLocality(admin, table, seconds);
      List<String> below = new ArrayList<>();
      loc.forEach((r, v) -> {
        if (v < 1.0 - 1e-4) {
          below.add(r + "=" + v);
        }
      });
      if (below.isEmpty()) {
        return loc;
      }
      List<String> hdfsBelow = new ArrayList<>();
      for (Map.Entry<RegionInfo, ServerName> e : access.regionsOf(table).entrySet()) {
        double hdfs = access.computedLocality(e.getKey(), e.getValue().getHostname());
        if (hdfs < 1.0 - 1e-4) {
          hdfsBelow.add(e.getKey().getEncodedName() + "=" + hdfs);
        }
      }
      long now = System.currentTimeMillis();
      if (hdfsBelow.isEmpty()) {
        if (hdfsLocalSince == 0) {
          hdfsLocalSince = now;
        } else if (now - hdfsLocalSince > settleSeconds * 1000L) {
          System.out.println("every region's HDFS locality is 1.0; these report less, their"
            + " RegionServers having opened a store file before the NameNode knew of its local"
            + " replica of the last block: " + below);
          return loc;
        }
      } else {
        hdfsLocalSince = 0;
      }
      if (now > deadline) {
        throw new IOException("after " + seconds + " s, regions still below 1.0: reported "
          + below + ", HDFS locality " + (hdfsBelow.isEmpty() ? "1.0 for every region"
            : hdfsBelow));
      }
      Thread.sleep(1000);
    }
  }

  /** Waits until every region of the table reports at least {@code min}; returns the reports. */
  private static Map<String, Double> waitForLocality(Admin admin, TableName table, double min,
    int seconds) throws Exception {
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    Map<String, Double> loc;
    while (true) {
      loc = reportedLocality(admin, table, seconds);
      List<String> below = new ArrayList<>();
      loc.forEach((r, v) -> {
        if (v < min - 1e-4) {
          below.add(r + "=" + v);
        }
      });
      if (below.isEmpty()) {
        return loc;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("after " + seconds + " s, regions still below " + min + ": "
          + below);
      }
      Thread.sleep(1000);
    }
  }
}
