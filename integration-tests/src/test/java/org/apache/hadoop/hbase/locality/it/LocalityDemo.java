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
import java.io.PrintStream;
import java.util.Map;
import java.util.TreeMap;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.util.JVMClusterUtil;

/**
 * The demo of build-scripts/demo: starts the multi-host patched cluster, loads a table, shows
 * locality per RegionServer, crashes a RegionServer the way production loses one (its regions
 * are reassigned to the others while their blocks stay where they were) and shows locality again.
 */
public final class LocalityDemo {
  private static final TableName TABLE = TableName.valueOf("demo");
  private static final PrintStream OUT = System.out;

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

  private static void run(String[] args) throws Exception {
    int regions = args.length > 0 ? Integer.parseInt(args[0]) : 9;
    int rowsPerRegion = args.length > 1 ? Integer.parseInt(args[1]) : 3000;
    long start = System.nanoTime();
    OUT.println("Starting a minicluster: 4 DataNodes (host1..host4), 3 RegionServers"
      + " (host1..host3), HDFS replication 2");
    // In one JVM the NameNode cannot tell which DataNode is the writer's own (all are 127.0.0.1),
    // so the first replica of a new block lands on a random DataNode and locality after the load
    // is partial, unlike a real cluster's ~100%.
    try (MultiHostCluster cluster = MultiHostCluster.start(HBaseConfiguration.create(), 4, 3, 2)) {
      OUT.printf("Cluster up in %.1f s. Loading %d regions x %d rows of 1 KiB and flushing...%n",
        (System.nanoTime() - start) / 1e9, regions, rowsPerRegion);
      TestTables.createAndLoad(cluster, TABLE, regions, rowsPerRegion);
      cluster.waitForLocalityReports(TABLE);
      table(cluster, "after load");

      JVMClusterUtil.RegionServerThread victim = cluster.util().getMiniHBaseCluster()
        .getLiveRegionServerThreads().stream()
        .filter(t -> t.getRegionServer().getServerName().getHostname().equals("host3"))
        .findFirst().orElseThrow(() -> new IllegalStateException("no RegionServer on host3"));
      ServerName dead = victim.getRegionServer().getServerName();
      OUT.println("\nCrashing RegionServer " + dead + "; the master reassigns its regions...");
      victim.getRegionServer().abort("LocalityDemo: simulated crash");
      cluster.util().waitFor(180_000, 500, () -> {
        Map<RegionInfo, ServerName> now = cluster.regionsOf(TABLE);
        return now.size() == regions && !now.containsValue(dead)
          && !cluster.admin().getRegionServers().contains(dead);
      });
      cluster.waitForLocalityReports(TABLE);
      table(cluster, "after the crash of host3");
      OUT.printf("%nDemo finished in %.1f s. Shutting the cluster down.%n",
        (System.nanoTime() - start) / 1e9);
      // The master prints thread dumps to stdout while it stops: keep them off the report.
      System.setOut(new PrintStream(new ByteArrayOutputStream()));
    }
  }

  private static void table(MultiHostCluster cluster, String title) throws Exception {
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
    long local = 0;
    long total = 0;
    for (Map.Entry<String, long[]> e : byHost.entrySet()) {
      long[] a = e.getValue();
      local += a[1];
      total += a[2];
      OUT.printf("  %-12s %8d %12.1f %12.1f %9.1f%% %9.1f%%%n", e.getKey(), a[0], a[1] / 1048576.0,
        a[2] / 1048576.0, 100.0 * a[1] / Math.max(1, a[2]),
        100.0 * reported.get(e.getKey()) / Math.max(1, a[2]));
    }
    OUT.printf("  %-12s %8s %12.1f %12.1f %9.1f%%%n", "cluster", "", local / 1048576.0,
      total / 1048576.0, 100.0 * local / Math.max(1, total));
  }
}
