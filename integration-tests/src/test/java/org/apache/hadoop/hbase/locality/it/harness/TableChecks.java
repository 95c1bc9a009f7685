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
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;

/**
 * Table-wide checks the demo and the benchmarks share, on either cluster: locality from HDFS and
 * as reported, store file sets before and after a major compaction, and the wait for a crashed
 * server's regions to be reassigned.
 */
public final class TableChecks {
  private TableChecks() {
  }

  /** [0] local bytes, [1] all bytes of a table's store files. */
  public static long[] tableBytes(ClusterAccess cluster, TableName table) throws IOException {
    long[] out = new long[2];
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(table).entrySet()) {
      long[] b = cluster.localBytes(e.getKey(), e.getValue().getHostname());
      out[0] += b[0];
      out[1] += b[1];
    }
    return out;
  }

  /** The table's locality computed from HDFS (local bytes over all bytes). */
  public static double hdfsLocality(ClusterAccess cluster, TableName table) throws IOException {
    long[] b = tableBytes(cluster, table);
    return (double) b[0] / Math.max(1, b[1]);
  }

  /** The lowest locality a region of the table reports (0 for a region reporting none). */
  public static double minReported(ClusterAccess cluster, TableName table) throws IOException {
    double min = 1;
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(table).entrySet()) {
      double r = cluster.reportedLocality(e.getKey(), e.getValue());
      min = Double.isNaN(r) ? 0 : Math.min(min, r);
    }
    return min;
  }

  /** The paths of the table's store files. */
  public static Set<String> fileNames(ClusterAccess cluster, TableName table)
      throws IOException {
    Set<String> names = new HashSet<>();
    for (RegionInfo r : cluster.regionsOf(table).keySet()) {
      for (FileStatus f : cluster.storeFiles(r)) {
        names.add(f.getPath().toString());
      }
    }
    return names;
  }

  /** Every region has one store file and none of {@code before} is left. */
  public static boolean compacted(ClusterAccess cluster, TableName table, Set<String> before)
      throws IOException {
    for (RegionInfo r : cluster.regionsOf(table).keySet()) {
      List<FileStatus> files = cluster.storeFiles(r);
      if (files.size() != 1 || before.contains(files.get(0).getPath().toString())) {
        return false;
      }
    }
    return true;
  }

  /**
   * Waits at most {@code seconds} until the master no longer lists {@code dead} and every table
   * has {@code regions} regions open elsewhere. Lookups that fail meanwhile (e.g. hbase:meta was
   * on the dead server and is not reassigned yet) are retried.
   */
  public static void waitReassigned(ClusterAccess cluster, ServerName dead, int regions,
      int seconds, TableName... tables) throws Exception {
    long deadline = System.currentTimeMillis() + seconds * 1000L;
    while (true) {
      IOException failure = null;
      try {
        boolean done = !cluster.admin().getRegionServers().contains(dead);
        for (TableName t : tables) {
          Map<RegionInfo, ServerName> now = cluster.regionsOf(t);
          done &= now.size() == regions && !now.containsValue(dead);
        }
        if (done) {
          return;
        }
      } catch (IOException e) {
        failure = e;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("the regions of " + dead + " were not reassigned in " + seconds
          + " s", failure);
      }
      Thread.sleep(500);
    }
  }
}
