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

import java.io.IOException;
import java.net.InetAddress;
import java.util.ArrayList;
import java.util.List;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.BlockLocation;
import org.apache.hadoop.fs.FSDataOutputStream;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;

/**
 * Runs on one host of the real cluster (build-scripts/cluster java HOST ...), with no test hook:
 * checks that this host's HDFS client treats exactly the DataNode on its own host as local
 * (HDFS-16262's refresher decides by the DataNode's address), that a file this host writes gets
 * its first replica on this host, and that the NameNode sorts this host's DataNode first when
 * this host asks for the file's block locations. Prints one line per check and exits 1 if one
 * fails (2 on bad arguments).
 */
public final class RealClusterLocalityCheck {
  private RealClusterLocalityCheck() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length != 1) {
      System.err.println("usage: RealClusterLocalityCheck SCRATCH_DIR (on HDFS)");
      System.exit(2);
    }
    String me = InetAddress.getLocalHost().getHostName();
    Configuration conf = new Configuration();
    List<String> failures = new ArrayList<>();
    try (DistributedFileSystem fs = (DistributedFileSystem) FileSystem.newInstance(conf)) {
      LocatedBlocksRefresher refresher = fs.getClient().getLocatedBlockRefresher();
      if (refresher == null) {
        failures.add(me + ": no block location refresher (is the series on?)");
      } else {
        int local = 0;
        for (DatanodeInfo dn : fs.getClient().datanodeReport(DatanodeReportType.LIVE)) {
          boolean isLocal = refresher.isLocalNode(dn, false);
          boolean own = me.equalsIgnoreCase(dn.getHostName());
          local += isLocal ? 1 : 0;
          if (isLocal != own) {
            failures.add(me + ": refresher says DataNode " + dn.getHostName() + " ("
              + dn.getXferAddr() + ") is " + (isLocal ? "" : "not ") + "local");
          }
        }
        System.out.println(me + ": the HDFS client treats " + local
          + " DataNode(s) as local" + (local == 1 ? " (its own host's)" : ""));
      }
      Path file = new Path(args[0], me + "-" + System.nanoTime());
      byte[] data = new byte[3 * 1024 * 1024];
      try (FSDataOutputStream out = fs.create(file, true)) {
        out.write(data);
      }
      try {
        // close() returns once each block has its minimal replication: the other replicas are
        // known to the NameNode only when their DataNodes' incremental reports arrive.
        short replication = fs.getFileStatus(file).getReplication();
        long deadline = System.currentTimeMillis() + 60_000;
        BlockLocation[] blocks = fs.getFileBlockLocations(file, 0, data.length);
        while (!allReplicasKnown(blocks, replication)
          && System.currentTimeMillis() < deadline) {
          Thread.sleep(200);
          blocks = fs.getFileBlockLocations(file, 0, data.length);
        }
        int firstHere = 0;
        for (BlockLocation b : blocks) {
          // The NameNode sorts by distance to the caller: this host's DataNode first.
          if (b.getHosts().length > 0 && b.getHosts()[0].equalsIgnoreCase(me)) {
            firstHere++;
          }
          boolean anyHere = false;
          for (String h : b.getHosts()) {
            anyHere |= h.equalsIgnoreCase(me);
          }
          if (!anyHere) {
            failures.add(me + ": a block written here has no replica here: "
              + String.join(",", b.getHosts()));
          }
        }
        System.out.println(me + ": " + blocks.length + " blocks written here, "
          + firstHere + " with this host's DataNode sorted first");
        if (firstHere != blocks.length) {
          failures.add(me + ": only " + firstHere + " of " + blocks.length
            + " blocks list this host first");
        }
      } finally {
        fs.delete(file, false);
      }
    } catch (IOException e) {
      failures.add(me + ": " + e);
    }
    for (String f : failures) {
      System.out.println("FAILED " + f);
    }
    System.exit(failures.isEmpty() ? 0 : 1);
  }

  private static boolean allReplicasKnown(BlockLocation[] blocks, short replication)
    throws IOException {
    for (BlockLocation b : blocks) {
      if (b.getHosts().length < replication) {
        return false;
      }
    }
    return true;
  }
}
