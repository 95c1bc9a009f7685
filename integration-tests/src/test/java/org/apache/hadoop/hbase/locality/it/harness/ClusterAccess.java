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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.ClusterMetrics.Option;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.RegionMetrics;
import org.apache.hadoop.hbase.ServerMetrics;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.util.CommonFSUtils;

/**
 * What the workloads and checks of the demo, the benchmarks and the tests need from a cluster,
 * through the public client API only, so that they run the same on the one-JVM harness
 * ({@link MultiHostCluster}) and on the real cluster of build-scripts/cluster
 * ({@link RealCluster}): where each region is served, the locality it reports and the locality
 * HDFS gives it.
 */
public interface ClusterAccess {

  /** The configuration clients of this cluster use. */
  public Configuration conf();

  /** A connection shared by the callers (not to be closed by them). */
  public Connection connection() throws IOException;

  /** The HDFS the cluster's HBase root directory is on. */
  public FileSystem fs() throws IOException;

  default Admin admin() throws IOException {
    return connection().getAdmin();
  }

  /** The store files (every column family) of a region, from its directory on HDFS. */
  default List<FileStatus> storeFiles(RegionInfo region) throws IOException {
    Path tableDir = CommonFSUtils.getTableDir(CommonFSUtils.getRootDir(conf()),
      region.getTable());
    Path regionDir = new Path(tableDir, region.getEncodedName());
    List<FileStatus> files = new ArrayList<>();
    for (FileStatus family : fs().listStatus(regionDir)) {
      String name = family.getPath().getName();
      if (!family.isDirectory() || name.startsWith(".") || name.equals("recovered.edits")) {
        continue;
      }
      for (FileStatus f : fs().listStatus(family.getPath())) {
        if (f.isFile()) {
          files.add(f);
        }
      }
    }
    return files;
  }

  /** Bytes of the region's store files: [0] with a replica on {@code host}, [1] in all. */
  default long[] localBytes(RegionInfo region, String host) throws IOException {
    long local = 0;
    long total = 0;
    for (FileStatus f : storeFiles(region)) {
      for (BlockLocation b : fs().getFileBlockLocations(f, 0, f.getLen())) {
        total += b.getLength();
        if (Arrays.asList(b.getHosts()).contains(host)) {
          local += b.getLength();
        }
      }
    }
    return new long[] { local, total };
  }

  /**
   * Locality of a region on a host computed from HDFS alone, as HBase defines it: the fraction of
   * the region's store file bytes that have a replica on the host (0 for a region without data).
   */
  default double computedLocality(RegionInfo region, String host) throws IOException {
    long[] b = localBytes(region, host);
    return b[1] == 0 ? 0.0 : (double) b[0] / b[1];
  }

  /** The open regions of a table by the server hosting them, as hbase:meta records them. */
  default Map<RegionInfo, ServerName> regionsOf(TableName table) throws IOException {
    Map<RegionInfo, ServerName> out = new TreeMap<>(RegionInfo.COMPARATOR);
    try (RegionLocator locator = connection().getRegionLocator(table)) {
      for (HRegionLocation loc : locator.getAllRegionLocations()) {
        if (loc != null && loc.getServerName() != null && !loc.getRegion().isOffline()
          && !loc.getRegion().isSplitParent()) {
          out.put(loc.getRegion(), loc.getServerName());
        }
      }
    }
    return out;
  }

  /** Locality the hosting RegionServer reports for a region, or NaN if it reports none. */
  default double reportedLocality(RegionInfo region, ServerName sn) throws IOException {
    for (RegionMetrics m : admin().getRegionMetrics(sn, region.getTable())) {
      if (Arrays.equals(m.getRegionName(), region.getRegionName())) {
        return m.getDataLocality();
      }
    }
    return Double.NaN;
  }

  /**
   * The locality each region of {@code table} reports, by encoded region name, from the
   * master's last reports of the live servers (a crashed server is never asked, so a caller
   * polling this does not stall while its regions are reassigned).
   */
  default Map<String, Double> reportedLocalities(TableName table) throws IOException {
    Map<String, Double> out = new TreeMap<>();
    for (ServerMetrics sm : admin().getClusterMetrics(EnumSet.of(Option.LIVE_SERVERS))
      .getLiveServerMetrics().values()) {
      for (RegionMetrics rm : sm.getRegionMetrics().values()) {
        if (RegionInfo.getTable(rm.getRegionName()).equals(table)) {
          out.put(RegionInfo.encodeRegionName(rm.getRegionName()),
            (double) rm.getDataLocality());
        }
      }
    }
    return out;
  }

  /**
   * Waits (60 s at most) until the locality every region of {@code table} reports equals the one
   * computed from its block locations, i.e. until the RegionServers' reports have caught up: the
   * region's own server says so, and so does the master's last report of that server, which is
   * what the LocalityHealer and the balancer read (it lags behind by up to a report interval,
   * e.g. for a region that has just been opened on another server).
   */
  default void waitForLocalityReports(TableName table) throws Exception {
    long deadline = System.currentTimeMillis() + 60_000;
    String behind = "";
    while (System.currentTimeMillis() < deadline) {
      behind = "";
      Map<String, Double> atMaster = reportedLocalities(table);
      for (Map.Entry<RegionInfo, ServerName> e : regionsOf(table).entrySet()) {
        double reported = reportedLocality(e.getKey(), e.getValue());
        double computed = computedLocality(e.getKey(), e.getValue().getHostname());
        Double master = atMaster.get(e.getKey().getEncodedName());
        if (Double.isNaN(reported) || Math.abs(reported - computed) > 1e-4) {
          behind = e.getKey().getEncodedName() + " reports " + reported + ", HDFS gives "
            + computed;
          break;
        }
        if (master == null || Math.abs(master - computed) > 1e-4) {
          behind = e.getKey().getEncodedName() + " reports " + reported
            + ", the master's last report of it " + master + ", HDFS gives " + computed;
          break;
        }
      }
      if (behind.isEmpty()) {
        return;
      }
      Thread.sleep(500);
    }
    throw new IOException("locality reports of " + table + " did not catch up in 60 s: "
      + behind);
  }
}
