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
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseClassTestRule;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.HDFSBlocksDistribution;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.ResultScanner;
import org.apache.hadoop.hbase.client.Scan;
import org.apache.hadoop.hbase.client.Table;
import org.apache.hadoop.hbase.locality.it.harness.BlockMoves;
import org.apache.hadoop.hbase.locality.it.harness.MultiHostCluster;
import org.apache.hadoop.hbase.locality.it.harness.SeriesConf;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.master.HMaster;
import org.apache.hadoop.hbase.master.balancer.BalancerAccess;
import org.apache.hadoop.hbase.testclassification.IntegrationTests;
import org.apache.hadoop.hbase.testclassification.LargeTests;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBASE-26304 end to end: block replicas of a live region are moved onto its RegionServer's host
 * at the HDFS level (replaceBlock, as a healer or the HDFS balancer does); the region's reported
 * locality and the master's cached block distribution must follow without the region reopening.
 */
@Category({ IntegrationTests.class, LargeTests.class })
public class TestLocalityFollowsBlockMoves {
  @ClassRule
  public static final HBaseClassTestRule CLASS_RULE =
    HBaseClassTestRule.forClass(TestLocalityFollowsBlockMoves.class);

  private static final Logger LOG = LoggerFactory.getLogger(TestLocalityFollowsBlockMoves.class);
  private static final TableName TABLE = TableName.valueOf("follows_moves");
  private static final int CACHE_PERIOD_MS = 2000;
  private static MultiHostCluster cluster;

  @BeforeClass
  public static void setUp() throws Exception {
    // The series on; the pread stream of a store file must learn the new locations
    // (HDFS-16262's refresher), here every second.
    Configuration conf = SeriesConf.seriesOn(HBaseConfiguration.create());
    conf.setLong("hbase.locality.inputstream.derive.cache.period", CACHE_PERIOD_MS);
    conf.setLong("dfs.client.refresh.read-block-locations.ms", 1000);
    // The master hands fresh ClusterMetrics to the balancer every second.
    conf.setInt("hbase.balancer.statusPeriod", 1000);
    cluster = MultiHostCluster.start(conf, 4, 3, 2);
    TestTables.createAndLoad(cluster, TABLE, 6, 2000);
  }

  @AfterClass
  public static void tearDown() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void testReportedLocalityFollowsReplicaMoves() throws Exception {
    RegionInfo region = cluster.regionsOf(TABLE).keySet().iterator().next();
    ServerName server = makeNonLocal(region);
    cluster.waitForLocalityReports(TABLE);
    double before = cluster.reportedLocality(region, server);
    long seqNum = cluster.openSeqNum(region);
    HMaster master = cluster.util().getMiniHBaseCluster().getMaster();
    float finderBefore = BalancerAccess.cachedDistribution(master, region)
      .getBlockLocalityIndex(server.getHostname());
    LOG.info("region {} on {}: reported locality {}, master's {}, open seqNum {}",
      region.getEncodedName(), server, before, finderBefore, seqNum);
    assertTrue("reported locality before the move should be below 1.0: " + before, before < 1.0);

    // Move the replica the RegionServer reads first, so that its next read finds it gone.
    Map<Long, DatanodeInfo> firstRead = cluster.firstReadReplicas(region, server);
    long moved = BlockMoves.makeLocal(cluster.dfs(),
      cluster.storeFiles(region), server.getHostname(), lb -> {
        DatanodeInfo dn = firstRead.get(lb.getBlock().getBlockId());
        return dn != null ? dn : lb.getLocations()[0];
      });
    assertTrue("some bytes must have moved", moved > 0);
    assertEquals(1.0, cluster.computedLocality(region, server.getHostname()), 1e-9);

    final RegionInfo r = region;
    final ServerName sn = server;
    // In one JVM every DataNode is on 127.0.0.1, so the client's refresher sees every replica as
    // local; what makes it refresh here is the replica removed from the move's source: the
    // next read meets it gone and marks that DataNode dead. Reads go to HDFS (no block cache)
    // until the reported locality follows: cache period + refresher interval + report interval.
    cluster.util().waitFor(120_000, 500, () -> {
      readRegion(r);
      return cluster.reportedLocality(r, sn) >= 1.0 - 1e-9;
    });
    cluster.util().waitFor(60_000, 500, () -> {
      HDFSBlocksDistribution d = BalancerAccess.cachedDistribution(master, r);
      return d.getBlockLocalityIndex(sn.getHostname()) >= 1.0f - 1e-6f;
    });
    assertEquals("the region must not have moved", server, cluster.regionsOf(TABLE).get(region));
    assertEquals("the region must not have reopened", seqNum, cluster.openSeqNum(region));
  }

  /**
   * Returns the server of the region, first moving the region to a RegionServer whose host lacks
   * a replica of its data if all of its data is local where it is. Where a writer's first replica
   * lands is up to the NameNode (every DataNode of the harness is on 127.0.0.1), so a freshly
   * written region may or may not be local.
   */
  private static ServerName makeNonLocal(RegionInfo region) throws Exception {
    ServerName current = cluster.regionsOf(TABLE).get(region);
    if (cluster.computedLocality(region, current.getHostname()) < 1.0) {
      return current;
    }
    ServerName moved = cluster.moveRegionToNonLocalServer(region);
    assertNotNull("local on " + current + " but no other RegionServer lacks a replica", moved);
    return moved;
  }

  /** Reads every row of the region from HDFS, bypassing the block cache. */
  private static void readRegion(RegionInfo region) throws Exception {
    Scan scan = new Scan().withStartRow(region.getStartKey()).withStopRow(region.getEndKey())
      .setCacheBlocks(false);
    try (Table t = cluster.util().getConnection().getTable(region.getTable());
      ResultScanner scanner = t.getScanner(scan)) {
      for (Result res : scanner) {
        assertTrue(!res.isEmpty());
      }
    }
  }
}
