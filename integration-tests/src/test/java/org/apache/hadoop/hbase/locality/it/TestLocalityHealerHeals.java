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

import static org.junit.Assert.assertEquals;
import static org.junit.Assert.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.util.ArrayList;
import java.util.HashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HRegionLocation;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.locality.LocalityHealer;
import org.apache.hadoop.hbase.locality.LocalityHealerSummary;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.Test;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBASE-26250 end to end, on the multi-host harness with two racks: locality is broken the two
 * ways production breaks it (regions moved to other servers; a RegionServer restarted, its
 * regions reassigned), then {@code LocalityHealer --once} must bring every region's reported
 * locality to 1.0 by moving exactly the non-local bytes, leave HDFS healthy (fsck: nothing
 * missing, under-, over- or mis-replicated), keep every row readable and move no region.
 */
public class TestLocalityHealerHeals {
  private static final Logger LOG = LoggerFactory.getLogger(TestLocalityHealerHeals.class);
  private static final TableName TABLE = TableName.valueOf("healer");
  private static final int REGIONS = 6;
  private static final int ROWS_PER_REGION = 1500;
  /** Small HDFS blocks, so that every store file has several. */
  private static final long BLOCK_SIZE = 256 * 1024;
  /** host1 and host2 on one rack, host3 and host4 on the other. */
  private static final String[] RACKS = { "/r1", "/r1", "/r2", "/r2" };
  private static MultiHostCluster cluster;

  @BeforeClass
  public static void setUp() throws Exception {
    Configuration conf = HBaseConfiguration.create();
    conf.setLong("dfs.blocksize", BLOCK_SIZE);
    conf.setLong("dfs.namenode.fs-limits.min-block-size", 64 * 1024);
    // The whole series on: reported locality follows moves (HBASE-26304), the RegionServers'
    // streams learn new locations in the background (HDFS-16262).
    conf.setBoolean("hbase.locality.inputstream.derive.enabled", true);
    conf.setLong("hbase.locality.inputstream.derive.cache.period", 2000);
    conf.setLong("dfs.client.refresh.read-block-locations.ms", 1000);
    conf.setInt("dfs.client.retry.window.base", 50);
    conf.setInt("dfs.client.retry.window.multiplier", 2);
    conf.setInt("dfs.client.retry.window.max", 10_000);
    conf.setInt("hbase.balancer.statusPeriod", 1000);
    cluster = MultiHostCluster.start(conf, 4, 3, 2, RACKS);
    TestTables.createAndLoad(cluster, TABLE, REGIONS, ROWS_PER_REGION);
  }

  @AfterClass
  public static void tearDown() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void testHealsMovedRegionsAndARestartedRegionServer() throws Exception {
    cluster.waitForLocalityReports(TABLE);

    // 1. The balancer (or an operator) moved every region to another server.
    List<ServerName> servers = new ArrayList<>(cluster.admin().getRegionServers());
    Map<RegionInfo, ServerName> placed = cluster.regionsOf(TABLE);
    for (Map.Entry<RegionInfo, ServerName> e : placed.entrySet()) {
      ServerName to = servers.get((servers.indexOf(e.getValue()) + 1) % servers.size());
      cluster.admin().move(e.getKey().getEncodedNameAsBytes(), to);
    }
    cluster.util().waitFor(60_000, 500, () -> {
      Map<RegionInfo, ServerName> now = cluster.regionsOf(TABLE);
      for (Map.Entry<RegionInfo, ServerName> e : placed.entrySet()) {
        if (e.getValue().equals(now.get(e.getKey()))) {
          return false;
        }
      }
      return now.size() == REGIONS;
    });
    healAndCheck("regions moved");

    // 2. A RegionServer restarts: its regions were reassigned while it was down.
    RegionServerThread victim = null;
    for (RegionServerThread t : cluster.util().getMiniHBaseCluster().getLiveRegionServerThreads()) {
      if (t.getRegionServer().getServerName().getHostname().equals(MultiHostCluster.host(3))) {
        victim = t;
      }
    }
    assertTrue("no RegionServer on " + MultiHostCluster.host(3), victim != null);
    ServerName dead = victim.getRegionServer().getServerName();
    victim.getRegionServer().abort("TestLocalityHealerHeals: restart");
    cluster.util().waitFor(180_000, 500, () -> {
      Map<RegionInfo, ServerName> now = cluster.regionsOf(TABLE);
      return now.size() == REGIONS && !now.containsValue(dead)
        && !cluster.admin().getRegionServers().contains(dead);
    });
    ServerName back = cluster.startRegionServer(MultiHostCluster.host(3));
    LOG.info("{} restarted as {}", dead, back);
    healAndCheck("RegionServer restarted");
  }

  private void healAndCheck(String phase) throws Exception {
    cluster.waitForLocalityReports(TABLE);
    // Reads reach every store file's stream (and register it with the location refresher).
    Thread.sleep(1500);
    assertEquals(REGIONS * ROWS_PER_REGION, TestTables.readAllChecked(cluster, TABLE));

    Map<RegionInfo, ServerName> before = cluster.regionsOf(TABLE);
    Map<RegionInfo, Long> seqNums = new HashMap<>();
    long nonLocal = 0;
    long total = 0;
    for (Map.Entry<RegionInfo, ServerName> e : before.entrySet()) {
      long[] bytes = cluster.localBytes(e.getKey(), e.getValue().getHostname());
      nonLocal += bytes[1] - bytes[0];
      total += bytes[1];
      seqNums.put(e.getKey(), openSeqNum(e.getKey()));
    }
    LOG.info("{}: {} of {} bytes non-local before healing", phase, nonLocal, total);
    assertTrue(phase + ": locality is not broken, nothing to test", nonLocal > 0);

    LocalityHealerSummary summary = LocalityHealer.heal(
      new Configuration(cluster.util().getConfiguration()), "--once", "--table",
      TABLE.getNameAsString(), "--threshold", "1.0", "--grace", "6", "--max-passes", "3");
    LOG.info("{}: healer summary\n{}", phase, summary.toTable());
    assertEquals(phase + ": " + summary.getMessage(), LocalityHealer.ExitCode.SUCCESS,
      summary.getExitCode());
    assertTrue(phase + ": moved " + summary.getBytesMoved() + " bytes for " + nonLocal
      + " non-local bytes", Math.abs(summary.getBytesMoved() - nonLocal) <= BLOCK_SIZE);

    // Every region reports locality 1.0, without having moved or reopened.
    cluster.util().waitFor(120_000, 1000, () -> {
      for (Map.Entry<RegionInfo, ServerName> e : before.entrySet()) {
        if (cluster.reportedLocality(e.getKey(), e.getValue()) < 1.0) {
          return false;
        }
      }
      return true;
    });
    for (Map.Entry<RegionInfo, ServerName> e : before.entrySet()) {
      assertEquals(1.0, cluster.computedLocality(e.getKey(), e.getValue().getHostname()), 0.0);
      assertEquals(phase + ": open seqNum of " + e.getKey().getEncodedName(),
        (long) seqNums.get(e.getKey()), openSeqNum(e.getKey()));
    }
    assertEquals(phase + ": a region moved", before, cluster.regionsOf(TABLE));

    // HDFS is healthy once the replaced replicas are gone.
    cluster.util().waitFor(60_000, 1000, () -> fsckClean(false));
    fsckClean(true);
    assertEquals(REGIONS * ROWS_PER_REGION, TestTables.readAllChecked(cluster, TABLE));
  }

  private static final Pattern FSCK_COUNT = Pattern.compile(
    "(Missing blocks|Under-replicated blocks|Over-replicated blocks|Mis-replicated blocks"
      + "|Corrupt blocks):\\s+(\\d+)");

  /** Runs fsck on / and returns whether it is healthy with no badly replicated block. */
  private static boolean fsckClean(boolean assertClean) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int rc;
    Configuration conf = new Configuration(cluster.util().getDFSCluster().getConfiguration(0));
    // A FileSystem of its own: the cached one's NameNode proxy is wrapped by HBase's HFileSystem,
    // which fsck's NameNode address lookup cannot unwrap.
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    try (PrintStream out = new PrintStream(bytes, true, "UTF-8")) {
      rc = new DFSck(conf, out).run(new String[] { "/" });
    }
    String report = bytes.toString("UTF-8");
    boolean clean = rc == 0 && report.contains("is HEALTHY");
    Matcher m = FSCK_COUNT.matcher(report);
    int counts = 0;
    while (m.find()) {
      counts++;
      clean &= Long.parseLong(m.group(2)) == 0;
    }
    clean &= counts >= 4;
    if (assertClean) {
      assertTrue("fsck is not clean:\n" + report, clean);
    }
    return clean;
  }

  /** The open sequence number hbase:meta records for the region (it changes on every reopen). */
  private static long openSeqNum(RegionInfo region) throws Exception {
    try (RegionLocator locator =
      cluster.util().getConnection().getRegionLocator(region.getTable())) {
      HRegionLocation loc = locator.getRegionLocation(region.getStartKey(), true);
      return loc.getSeqNum();
    }
  }
}
