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
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.util.Properties;

/**
 * The default topology of both multi-host clusters, from the resource {@value #RESOURCE}
 * (integration-tests/src/test/resources), which build-scripts/cluster reads too: how many
 * DataNode hosts run a RegionServer, how many a DataNode only, and the racks.
 */
public final class Topology {
  /** The resource holding the topology. */
  public static final String RESOURCE = "topology.properties";

  private final int regionServers;
  private final int dataNodeOnlyHosts;
  private final String[] rackNames;

  private Topology(Properties p) {
    regionServers = Integer.parseInt(p.getProperty("region.servers").trim());
    dataNodeOnlyHosts = Integer.parseInt(p.getProperty("datanode.only.hosts").trim());
    rackNames = p.getProperty("racks").trim().split("\\s+");
    if (regionServers < 1 || dataNodeOnlyHosts < 0 || rackNames.length != 2) {
      throw new IllegalStateException(RESOURCE + ": expected region.servers >= 1,"
        + " datanode.only.hosts >= 0 and two racks, got " + p);
    }
  }

  /** The default topology. */
  public static Topology load() {
    Properties p = new Properties();
    try (InputStream in = Topology.class.getClassLoader().getResourceAsStream(RESOURCE)) {
      if (in == null) {
        throw new IllegalStateException(RESOURCE + " is not on the classpath");
      }
      p.load(in);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return new Topology(p);
  }

  /** Hosts running a DataNode and a RegionServer (host1..hostN). */
  public int regionServers() {
    return regionServers;
  }

  /** Hosts running a DataNode: the RegionServer hosts and the DataNode-only ones. */
  public int dataNodes() {
    return regionServers + dataNodeOnlyHosts;
  }

  /** The rack of each DataNode host in order: the first half (rounded up) on the first rack. */
  public String[] racks() {
    int n = dataNodes();
    String[] racks = new String[n];
    for (int i = 0; i < n; i++) {
      racks[i] = i < (n + 1) / 2 ? rackNames[0] : rackNames[1];
    }
    return racks;
  }
}
