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
package org.apache.hadoop.hdfs;

/**
 * The harness runs every DataNode and RegionServer in one JVM on 127.0.0.1, so to an HDFS client
 * every replica is on "this host". The harness gives each RegionServer an HDFS client context of
 * its own and tells that context's LocatedBlocksRefresher (HDFS-16262) which DataNode shares the
 * RegionServer's host name, so the refresher decides "local" as it would on a real cluster. Lives
 * in org.apache.hadoop.hdfs for the refresher's package-private test hook.
 */
public final class HarnessLocality {
  private HarnessLocality() {
  }

  /**
   * Makes the refresher of {@code fs}'s client context treat the DataNode named
   * {@code hostName} as the only local one.
   * @return false if the client has no refresher (dfs.client.refresh.read-block-locations.ms 0)
   */
  public static boolean treatAsLocalHost(DistributedFileSystem fs, String hostName) {
    LocatedBlocksRefresher refresher = fs.getClient().getLocatedBlockRefresher();
    if (refresher == null) {
      return false;
    }
    refresher.setLocalNodeTester(dn -> hostName.equalsIgnoreCase(dn.getHostName()));
    return true;
  }
}
