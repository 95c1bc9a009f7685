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

import java.io.DataInputStream;
import java.io.DataOutputStream;
import java.io.IOException;
import java.net.Socket;
import java.util.List;
import java.util.function.Function;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.StorageType;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.ExtendedBlock;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.protocol.datatransfer.Sender;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.BlockOpResponseProto;
import org.apache.hadoop.hdfs.protocol.proto.DataTransferProtos.Status;
import org.apache.hadoop.hdfs.security.token.block.BlockTokenSecretManager;
import org.apache.hadoop.net.NetUtils;

/**
 * Moves block replicas between DataNodes the way the HDFS balancer and mover do: a replaceBlock
 * request to the target DataNode, which copies the block from a proxy holder and then reports it
 * to the NameNode with the source as delete hint.
 */
public final class BlockMoves {
  private BlockMoves() {
  }

  /**
   * Moves the replica of {@code block} on {@code source} to {@code target}, copying it from
   * {@code proxy}; returns when the target has the block (the NameNode invalidates the source's
   * replica afterwards, on a heartbeat of the source).
   */
  public static void replaceBlock(ExtendedBlock block, DatanodeInfo source, DatanodeInfo proxy,
      DatanodeInfo target) throws IOException {
    try (Socket sock = new Socket()) {
      sock.connect(NetUtils.createSocketAddr(target.getXferAddr()), HdfsConstants.READ_TIMEOUT);
      sock.setKeepAlive(true);
      DataOutputStream out = new DataOutputStream(sock.getOutputStream());
      new Sender(out).replaceBlock(block, StorageType.DEFAULT,
        BlockTokenSecretManager.DUMMY_TOKEN, source.getDatanodeUuid(), proxy, null);
      out.flush();
      DataInputStream in = new DataInputStream(sock.getInputStream());
      BlockOpResponseProto reply = BlockOpResponseProto.parseDelimitedFrom(in);
      while (reply != null && reply.getStatus() == Status.IN_PROGRESS) {
        reply = BlockOpResponseProto.parseDelimitedFrom(in);
      }
      if (reply == null || reply.getStatus() != Status.SUCCESS) {
        throw new IOException("replaceBlock of " + block + " from " + source + " to " + target
          + " failed: " + (reply == null ? "no reply" : reply.getStatus() + " "
            + reply.getMessage()));
      }
    }
  }

  /**
   * Gives every block of {@code files} a replica on the DataNode of {@code host} by moving one
   * existing replica there (the first holder is source and proxy), the way a healer would.
   * Returns the bytes moved.
   */
  public static long makeLocal(DistributedFileSystem dfs, List<FileStatus> files, String host)
      throws IOException {
    return makeLocal(dfs, files, host, lb -> lb.getLocations()[0]);
  }

  /**
   * As {@link #makeLocal(DistributedFileSystem, List, String)}, with the source replica of each
   * moved block chosen by {@code source}.
   */
  public static long makeLocal(DistributedFileSystem dfs, List<FileStatus> files, String host,
      Function<LocatedBlock, DatanodeInfo> source) throws IOException {
    DatanodeInfo target = null;
    for (DatanodeInfo dn : dfs.getDataNodeStats()) {
      if (dn.getHostName().equals(host)) {
        target = dn;
      }
    }
    if (target == null) {
      throw new IOException("no live DataNode on host " + host);
    }
    long moved = 0;
    for (FileStatus f : files) {
      String path = f.getPath().toUri().getPath();
      for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(path, 0, f.getLen())
        .getLocatedBlocks()) {
        boolean local = false;
        for (DatanodeInfo dn : lb.getLocations()) {
          local |= dn.getHostName().equals(host);
        }
        if (!local) {
          DatanodeInfo from = source.apply(lb);
          replaceBlock(lb.getBlock(), from, from, target);
          moved += lb.getBlockSize();
        }
      }
    }
    return moved;
  }
}
