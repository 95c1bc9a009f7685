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
import static org.junit.Assert.assertFalse;
import static org.junit.Assert.assertTrue;

import java.io.File;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseClassTestRule;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.ExitCode;
import org.apache.hadoop.hbase.locality.LocalityHealer;
import org.apache.hadoop.hbase.locality.LocalityHealerSummary;
import org.apache.hadoop.hbase.locality.engine.PassResult.Count;
import org.apache.hadoop.hbase.locality.it.harness.HealChecks;
import org.apache.hadoop.hbase.locality.it.harness.HealerJarProcess;
import org.apache.hadoop.hbase.locality.it.harness.MultiHostCluster;
import org.apache.hadoop.hbase.locality.it.harness.SeriesConf;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.testclassification.IntegrationTests;
import org.apache.hadoop.hbase.testclassification.LargeTests;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The healer on a stock cluster: every key of the series at upstream's default, so the
 * RegionServers compute a store file's block distribution when they open it and never again, and
 * report a healed region as non-local until it is reopened. The healer must still judge its work
 * by HDFS: {@code --once} heals every region, exits 0 and says HDFS locality 1.0 (the reported
 * locality, shown beside it, stays where it was), and a second {@code --once} plans nothing and
 * exits 0.
 */
@Category({ IntegrationTests.class, LargeTests.class })
public class TestLocalityHealerOnStockCluster {
  @ClassRule
  public static final HBaseClassTestRule CLASS_RULE =
    HBaseClassTestRule.forClass(TestLocalityHealerOnStockCluster.class);

  private static final Logger LOG =
    LoggerFactory.getLogger(TestLocalityHealerOnStockCluster.class);
  private static final TableName TABLE = TableName.valueOf("stock");
  private static final int REGIONS = 6;
  private static final int ROWS_PER_REGION = 1500;
  private static final long BLOCK_SIZE = 256 * 1024;
  private static MultiHostCluster cluster;

  @BeforeClass
  public static void setUp() throws Exception {
    Configuration conf = SeriesConf.seriesOff(HBaseConfiguration.create());
    conf.setLong("dfs.blocksize", BLOCK_SIZE);
    conf.setLong("dfs.namenode.fs-limits.min-block-size", 64 * 1024);
    cluster = MultiHostCluster.start(conf, 4, 3, 2);
    TestTables.createAndLoad(cluster, TABLE, REGIONS, ROWS_PER_REGION);
  }

  @AfterClass
  public static void tearDown() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void testOnceHealsAndTheNextRunPlansNothing() throws Exception {
    // Not waiting for the reports first: after the other test's healing they never catch up on
    // a stock cluster. Moving the regions reopens them, so they then report HDFS's locality,
    // once the replicas the other test moved away from are deleted.
    cluster.waitForReplicasSettled();
    cluster.moveEveryRegionToNextServer(TABLE);
    cluster.waitForLocalityReports(TABLE);
    HealChecks before = HealChecks.before(cluster, TABLE);
    long nonLocal = before.nonLocalBytes();
    assertTrue("locality is not broken, nothing to test", nonLocal > 0);

    LocalityHealerSummary first = heal();
    LOG.info("first run\n{}", first.toTable());
    assertEquals(first.getMessage(), ExitCode.SUCCESS, first.getExitCode());
    assertEquals(0, first.getExitCode().getCode());
    assertTrue(
      "moved " + first.get(Count.BYTES_MOVED) + " bytes for " + nonLocal + " non-local bytes",
      Math.abs(first.get(Count.BYTES_MOVED) - nonLocal) <= BLOCK_SIZE);
    assertEquals(first.toTable(), 1.0f, first.getLocalityAfter(), 0f);
    assertTrue(first.toTable(), first.getLocalityBefore() < 1.0f);
    // a stock RegionServer does not see the moves: what it reports stays below 1.0
    assertTrue(first.toTable(), first.getReportedLocalityAfter() < 1.0f);
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      assertEquals("HDFS locality of " + e.getKey().getEncodedName(), 1.0,
        cluster.computedLocality(e.getKey(), e.getValue().getHostname()), 0.0);
    }

    LocalityHealerSummary second = heal();
    LOG.info("second run\n{}", second.toTable());
    assertEquals(second.getMessage(), ExitCode.NOTHING_TO_DO, second.getExitCode());
    assertEquals(0, second.getExitCode().getCode());
    assertEquals(0, second.get(Count.BLOCKS_PLANNED));
    assertEquals(0, second.getRegionsBelowThreshold());
    assertEquals(second.toTable(), 1.0f, second.getLocalityAfter(), 0f);
    assertEquals(REGIONS * ROWS_PER_REGION, TestTables.readAllChecked(cluster, TABLE));
  }

  /**
   * The healer's jar alone, as an operator adds it to a stock installation: a JVM of its own whose
   * class path is the cluster's client configuration, upstream's own Hadoop 3.4.2 and HBase 2.6.4
   * jars (line lh-2.6; on lh-2.4, whose upstream HBase jars are built for Hadoop 2, the line's
   * rebuilt jars) and the healer's jar. {@code --once} heals every region and exits 0 with HDFS
   * locality 1.0 in its summary; a second {@code --once} plans nothing and exits 0.
   */
  @Test
  public void testHealerJarAloneOnUpstreamJars() throws Exception {
    // Not waiting for the reports first: after the other test's healing they never catch up on
    // a stock cluster. Moving the regions reopens them, so they then report HDFS's locality,
    // once the replicas the other test moved away from are deleted.
    cluster.waitForReplicasSettled();
    cluster.moveEveryRegionToNextServer(TABLE);
    cluster.waitForLocalityReports(TABLE);
    assertTrue("locality is not broken, nothing to test",
      HealChecks.before(cluster, TABLE).nonLocalBytes() > 0);
    boolean upstream = "lh-2.6".equals(System.getProperty("lh.line"));
    // kept after the test (its logs and summaries), beside the cluster's logs
    File dir = new File(System.getProperty("lh.log.dir", "target"),
      "healer-jar-" + System.currentTimeMillis());
    HealerJarProcess healer =
      new HealerJarProcess(new Configuration(cluster.util().getConfiguration()), dir, upstream);
    LOG.info("the healer's class path (upstream jars: {}): {}", upstream, healer.classPath());
    if (upstream) {
      for (String e : healer.classPath()) {
        assertTrue("a rebuilt jar on the healer's class path: " + e, !e.contains("-lh-")
          || e.contains("/hbase-locality-healer/"));
      }
    }
    String[] args = { "--once", "--table", TABLE.getNameAsString(), "--threshold", "1.0",
      "--grace", "2", "--max-passes", "3" };
    HealerJarProcess.Result first = healer.run(args);
    LOG.info("first run: {}", first);
    assertEquals(first.toString(), 0, first.exitCode);
    assertEquals(first.toString(), "SUCCESS", first.summary.get("exitCode").getAsString());
    assertEquals(first.toString(), 1.0, first.summary.get("localityAfter").getAsDouble(), 0.0);
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      assertEquals("HDFS locality of " + e.getKey().getEncodedName(), 1.0,
        cluster.computedLocality(e.getKey(), e.getValue().getHostname()), 0.0);
    }
    HealerJarProcess.Result second = healer.run(args);
    LOG.info("second run: {}", second);
    assertEquals(second.toString(), 0, second.exitCode);
    assertEquals(second.toString(), "NOTHING_TO_DO", second.summary.get("exitCode").getAsString());
    assertEquals(second.toString(), 0, second.summary.get("blocksPlanned").getAsLong());
    assertEquals(REGIONS * ROWS_PER_REGION, TestTables.readAllChecked(cluster, TABLE));

    // a daemon stopped by SIGTERM, as a service manager stops it, writes its summary and
    // releases the lock at once (not a lease later)
    // the end of the first pass (its progress lines start the same, without "below")
    HealerJarProcess.Result stopped =
      healer.runUntilThenTerminate("LocalityHealer pass 1: regions below", "--table",
        TABLE.getNameAsString(), "--threshold", "1.0", "--interval", "3600");
    LOG.info("daemon stopped by SIGTERM: {}", stopped);
    assertEquals(stopped.toString(), 128 + 15, stopped.exitCode);
    assertTrue(stopped.toString(), stopped.summary != null);
    assertTrue(stopped.toString(),
      stopped.summary.get("message").getAsString().contains("SIGTERM"));
    assertEquals(stopped.toString(), "SUCCESS", stopped.summary.get("exitCode").getAsString());
    assertEquals(stopped.toString(), 1, stopped.summary.get("passes").getAsInt());
    FileSystem fs = FileSystem.get(cluster.util().getConfiguration());
    assertFalse("the lock is still there after a SIGTERM",
      fs.exists(new Path(LocalityHealer.DEFAULT_LOCK_PATH)));
  }

  private static LocalityHealerSummary heal() throws Exception {
    return LocalityHealer.heal(new Configuration(cluster.util().getConfiguration()), "--once",
      "--table", TABLE.getNameAsString(), "--threshold", "1.0", "--grace", "2", "--max-passes",
      "3");
  }
}
