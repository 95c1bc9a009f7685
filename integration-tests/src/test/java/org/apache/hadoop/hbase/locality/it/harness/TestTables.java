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
package org.apache.hadoop.hbase.locality.it.harness;

import java.io.IOException;
import java.io.InterruptedIOException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import org.apache.hadoop.hbase.ClusterMetrics;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.ColumnFamilyDescriptorBuilder;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.Put;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.client.TableDescriptorBuilder;
import org.apache.hadoop.hbase.util.Bytes;

/** Creates and loads the pre-split test tables of the harness. */
public final class TestTables {
  public static final byte[] FAMILY = Bytes.toBytes("f");
  public static final byte[] QUALIFIER = Bytes.toBytes("q");

  private TestTables() {
  }

  /** The row key of row {@code i} of region {@code r}: regions split on "r%02d". */
  public static byte[] row(int r, int i) {
    return Bytes.toBytes(String.format("r%02d-%08d", r, i));
  }

  /** A value derived from the row, so that any row can be checked after reading it back. */
  public static byte[] value(byte[] row, int size) {
    byte[] v = new byte[size];
    long seed = Bytes.hashCode(row);
    for (int i = 0; i < size; i++) {
      seed = seed * 6364136223846793005L + 1442695040888963407L;
      v[i] = (byte) (seed >>> 56);
    }
    return v;
  }

  /** The words of {@link #compressibleValue(byte[], int)}: 256 of 8 to 15 letters. */
  private static final byte[][] WORDS = new byte[256][];

  static {
    Random rnd = new Random(26250);
    for (int i = 0; i < WORDS.length; i++) {
      WORDS[i] = new byte[8 + rnd.nextInt(8)];
      for (int j = 0; j < WORDS[i].length; j++) {
        WORDS[i][j] = (byte) ('a' + rnd.nextInt(26));
      }
    }
  }

  /**
   * A value derived from the row that compresses about as production values do: words of a
   * small vocabulary separated by spaces, one run in sixteen of 8 random bytes instead (Snappy
   * makes 64 KiB of such values about 3 times smaller).
   */
  public static byte[] compressibleValue(byte[] row, int size) {
    byte[] v = new byte[size];
    long seed = Bytes.hashCode(row);
    int i = 0;
    while (i < size) {
      seed = seed * 6364136223846793005L + 1442695040888963407L;
      int x = (int) (seed >>> 33);
      if ((x & 0xff) < 16) {
        for (int k = 0; k < 8 && i < size; k++) {
          v[i++] = (byte) (seed >>> (8 * k));
        }
      } else {
        byte[] w = WORDS[(x >>> 8) % WORDS.length];
        for (int k = 0; k < w.length && i < size; k++) {
          v[i++] = w[k];
        }
        if (i < size) {
          v[i++] = ' ';
        }
      }
    }
    return v;
  }

  /** Creates {@code table} with {@code regions} regions, loads and flushes it. */
  public static void createAndLoad(ClusterAccess cluster, TableName table, int regions,
      int rowsPerRegion) throws Exception {
    createAndLoad(cluster.connection(), table, regions, rowsPerRegion);
  }

  /**
   * Creates {@code table} with {@code regions} regions, loads and flushes it, through any
   * connection (the one-JVM harness's or a real cluster's).
   */
  public static void createAndLoad(Connection conn, TableName table, int regions,
      int rowsPerRegion) throws Exception {
    createAndLoad(conn, table, regions, rowsPerRegion, (short) 0);
  }

  /**
   * As {@link #createAndLoad(Connection, TableName, int, int)}, with the store files written with
   * {@code dfsReplication} replicas (0: the cluster's dfs.replication).
   */
  public static void createAndLoad(Connection conn, TableName table, int regions,
      int rowsPerRegion, short dfsReplication) throws Exception {
    byte[][] splits = new byte[regions - 1][];
    for (int r = 1; r < regions; r++) {
      splits[r - 1] = Bytes.toBytes(String.format("r%02d", r));
    }
    // createTable waits until every region is open.
    try (Admin admin = conn.getAdmin()) {
      admin.createTable(TableDescriptorBuilder.newBuilder(table)
        .setColumnFamily(ColumnFamilyDescriptorBuilder.newBuilder(FAMILY)
          .setDFSReplication(dfsReplication).build()).build(), splits);
    }
    spreadRegions(conn, table);
    try (Table t = conn.getTable(table)) {
      for (int r = 0; r < regions; r++) {
        List<Put> puts = new ArrayList<>();
        for (int i = 0; i < rowsPerRegion; i++) {
          byte[] row = row(r, i);
          puts.add(new Put(row).addColumn(FAMILY, QUALIFIER, value(row, 1024)));
          if (puts.size() == 500) {
            put(t, puts);
          }
        }
        put(t, puts);
      }
    }
    try (Admin admin = conn.getAdmin()) {
      admin.flush(table);
    }
  }

  /**
   * Reads every row of {@code table} with positional reads from HDFS (block cache bypassed) and
   * checks each value; returns the number of rows.
   */
  public static int readAllChecked(ClusterAccess cluster, TableName table) throws IOException {
    return readAllChecked(cluster.connection(), table);
  }

  /** As {@link #readAllChecked(ClusterAccess, TableName)}, through any connection. */
  public static int readAllChecked(Connection conn, TableName table) throws IOException {
    int rows = 0;
    Scan scan = new Scan().setCacheBlocks(false).setReadType(Scan.ReadType.PREAD);
    try (Table t = conn.getTable(table);
      ResultScanner scanner = t.getScanner(scan)) {
      for (Result r : scanner) {
        if (!Arrays.equals(value(r.getRow(), 1024), r.getValue(FAMILY, QUALIFIER))) {
          throw new IOException("wrong value in row " + Bytes.toStringBinary(r.getRow()));
        }
        rows++;
      }
    }
    return rows;
  }

  /**
   * Spreads the regions of {@code table} evenly over the live RegionServers, moving as few as
   * needed. HBase 2.4 assigns a new table's regions round robin; HBase 2.6 may open them all on
   * the first RegionServer that registered, and the tests need regions on every server.
   */
  public static void spreadRegions(Connection conn, TableName table) throws IOException {
    try (Admin admin = conn.getAdmin(); RegionLocator locator = conn.getRegionLocator(table)) {
      Map<ServerName, List<byte[]>> byServer = new TreeMap<>();
      for (ServerName sn : admin.getClusterMetrics(EnumSet.of(ClusterMetrics.Option.LIVE_SERVERS))
        .getLiveServerMetrics().keySet()) {
        byServer.put(sn, new ArrayList<>());
      }
      if (byServer.size() < 2) {
        return;
      }
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        if (loc.getRegion().getReplicaId() == 0 && byServer.containsKey(loc.getServerName())) {
          byServer.get(loc.getServerName()).add(loc.getRegion().getEncodedNameAsBytes());
        }
      }
      Map<String, ServerName> moved = new HashMap<>();
      while (true) {
        ServerName most = null;
        ServerName least = null;
        for (Map.Entry<ServerName, List<byte[]>> e : byServer.entrySet()) {
          if (most == null || e.getValue().size() > byServer.get(most).size()) {
            most = e.getKey();
          }
          if (least == null || e.getValue().size() < byServer.get(least).size()) {
            least = e.getKey();
          }
        }
        if (byServer.get(most).size() - byServer.get(least).size() <= 1) {
          break;
        }
        byte[] region = byServer.get(most).remove(byServer.get(most).size() - 1);
        byServer.get(least).add(region);
        admin.move(region, least);
        moved.put(Bytes.toString(region), least);
      }
      // Wait until the moves are visible to clients.
      long deadline = System.currentTimeMillis() + 120_000;
      while (!moved.isEmpty()) {
        for (HRegionLocation loc : locator.getAllRegionLocations()) {
          String region = loc.getRegion().getEncodedName();
          if (loc.getServerName() != null && loc.getServerName().equals(moved.get(region))) {
            moved.remove(region);
          }
        }
        if (moved.isEmpty()) {
          break;
        }
        if (System.currentTimeMillis() > deadline) {
          throw new IOException("regions of " + table + " not moved within 120 s: " + moved);
        }
        try {
          Thread.sleep(100);
        } catch (InterruptedException e) {
          Thread.currentThread().interrupt();
          throw new InterruptedIOException("interrupted while spreading " + table);
        }
      }
    }
  }

  private static void put(Table t, List<Put> puts) throws IOException {
    t.put(puts);
    puts.clear();
  }
}
