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
import org.apache.hadoop.hbase.HBaseClassTestRule;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.it.harness.MultiHostCluster;
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
 * Locality on the multi-host harness is real: per-region locality reported by the RegionServers
 * equals the fraction of the region's HFile bytes that have a replica on the serving host, as
 * computed independently from HDFS block locations, and it drops below 1.0 when a region moves
 * away from its blocks.
 */
@Category({ IntegrationTests.class, LargeTests.class })
public class TestRealLocality {
  @ClassRule
  public static final HBaseClassTestRule CLASS_RULE =
    HBaseClassTestRule.forClass(TestRealLocality.class);

  private static final Logger LOG = LoggerFactory.getLogger(TestRealLocality.class);
  private static final TableName TABLE = TableName.valueOf("locality_it");
  private static MultiHostCluster cluster;

  @BeforeClass
  public static void setUp() throws Exception {
    // Replication 2 on 4 DataNodes: every block misses at least one of the 3 RegionServer hosts.
    cluster = MultiHostCluster.start(HBaseConfiguration.create(), 4, 3, 2);
    TestTables.createAndLoad(cluster, TABLE, 6, 2000);
  }

  @AfterClass
  public static void tearDown() throws Exception {
    if (cluster != null) {
      cluster.close();
    }
  }

  @Test
  public void testReportedLocalityMatchesBlockLocations() throws Exception {
    assertReportedMatchesComputed();

    // Move one region to a RegionServer whose host holds none of (or only some of) its blocks.
    // A region that is not local where it is may have both replicas on the other RegionServers'
    // hosts, so try the regions in turn.
    RegionInfo moved = null;
    ServerName target = null;
    for (RegionInfo region : cluster.regionsOf(TABLE).keySet()) {
      target = cluster.moveRegionToNonLocalServer(region);
      if (target != null) {
        moved = region;
        break;
      }
    }
    assertNotNull("no region can move to a RegionServer where it is not local", target);

    assertReportedMatchesComputed();
    double after = cluster.reportedLocality(moved, target);
    assertTrue("locality of the moved region should be below 1.0 but is " + after, after < 1.0);
  }

  /** Waits (generously) until every region's reported locality equals the computed one. */
  private void assertReportedMatchesComputed() throws Exception {
    cluster.waitForLocalityReports(TABLE);
    for (Map.Entry<RegionInfo, ServerName> e : cluster.regionsOf(TABLE).entrySet()) {
      double computed = cluster.computedLocality(e.getKey(), e.getValue().getHostname());
      double reported = cluster.reportedLocality(e.getKey(), e.getValue());
      LOG.info("region {} on {}: reported {} computed {}", e.getKey().getEncodedName(),
        e.getValue().getHostname(), reported, computed);
      assertEquals(e.getKey().getEncodedName(), computed, reported, 1e-4);
      assertTrue(cluster.localBytes(e.getKey(), e.getValue().getHostname())[1] > 0);
    }
  }
}
