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
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseClassTestRule;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.ExitCode;
import org.apache.hadoop.hbase.locality.LocalityHealer;
import org.apache.hadoop.hbase.locality.LocalityHealerSummary;
import org.apache.hadoop.hbase.locality.engine.PassResult.Count;
import org.apache.hadoop.hbase.locality.it.harness.HealChecks;
import org.apache.hadoop.hbase.locality.it.harness.MultiHostCluster;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.testclassification.IntegrationTests;
import org.apache.hadoop.hbase.testclassification.LargeTests;
import org.apache.hadoop.hbase.util.JVMClusterUtil.RegionServerThread;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBASE-26250 end to end, on the multi-host harness with two racks: locality is broken the two
 * ways production breaks it (regions moved to other servers; a RegionServer restarted, its
 * regions reassigned), then {@code LocalityHealer --once} must bring every region's reported
 * locality to 1.0 by moving exactly the non-local bytes, leave HDFS healthy (fsck: nothing
 * missing, under-, over- or mis-replicated), keep every row readable and move no region.
 */
@Category({ IntegrationTests.class, LargeTests.class })
public class TestLocalityHealerHeals {
  @ClassRule
  public static final HBaseClassTestRule CLASS_RULE =
    HBaseClassTestRule.forClass(TestLocalityHealerHeals.class);

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
    Configuration conf = HealChecks.healerTestConf(BLOCK_SIZE);
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
    cluster.moveEveryRegionToNextServer(TABLE);
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
    // Streams register with the location refresher when they are opened (HDFS-16262).
    assertEquals(REGIONS * ROWS_PER_REGION, TestTables.readAllChecked(cluster, TABLE));

    HealChecks before = HealChecks.before(cluster, TABLE);
    long nonLocal = before.nonLocalBytes();
    LOG.info("{}: {} of {} bytes non-local before healing", phase, nonLocal, before.totalBytes());
    assertTrue(phase + ": locality is not broken, nothing to test", nonLocal > 0);

    LocalityHealerSummary summary = LocalityHealer.heal(
      new Configuration(cluster.util().getConfiguration()), "--once", "--table",
      TABLE.getNameAsString(), "--threshold", "1.0", "--grace", "6", "--max-passes", "3");
    LOG.info("{}: healer summary\n{}", phase, summary.toTable());
    assertEquals(phase + ": " + summary.getMessage(), ExitCode.SUCCESS,
      summary.getExitCode());
    assertTrue(phase + ": moved " + summary.get(Count.BYTES_MOVED) + " bytes for " + nonLocal
      + " non-local bytes", Math.abs(summary.get(Count.BYTES_MOVED) - nonLocal) <= BLOCK_SIZE);

    // Every region reports locality 1.0, without having moved or reopened; fsck is clean once
    // the replaced replicas are gone; every row reads back.
    before.assertHealed(phase, REGIONS * ROWS_PER_REGION);
  }
}
