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

import com.fasterxml.jackson.databind.JsonNode;
import org.apache.hadoop.hbase.ServerName;

/**
 * The actions a demo or a benchmark takes on a cluster besides using it as a client: crash a
 * RegionServer and run the LocalityHealer. The one-JVM harness aborts a RegionServer thread and
 * runs the healer in its own JVM; the real cluster kills the RegionServer's process (SIGKILL) and
 * runs build/<line>/dist/bin/locality-healer as a process of its own.
 */
public interface ClusterControl extends ClusterAccess {

  /** What runs the cluster, for the report (e.g. "one JVM" or "real cluster"). */
  public String kind();

  /** Crashes the RegionServer of {@code host}; returns the server name it had. */
  public ServerName crashRegionServer(String host) throws Exception;

  /**
   * Runs the LocalityHealer with {@code args} to its end and returns its summary, the JSON object
   * of {@code LocalityHealerSummary#toJson()}.
   */
  public JsonNode heal(String... args) throws Exception;

  /** Blocks the running healer has moved so far, or -1 if this cluster cannot tell. */
  default long blocksMovedSoFar() {
    return -1;
  }
}
