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
import java.io.InterruptedIOException;
import java.net.Socket;
import java.util.HashMap;
import java.util.HashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Function;
import java.util.function.Predicate;
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

  /** How long {@link #makeLocal} waits for the NameNode to learn of the moved replicas. */
  private static final long NAMENODE_WAIT_MS = 60_000;

  /**
   * Gives every block of {@code files} a replica on the DataNode of {@code host} by moving one
   * existing replica there (the first holder is source and proxy), the way a healer would.
   * Returns the bytes moved, once the NameNode lists a replica on {@code host} for every moved
   * block: a DataNode reports a replica it received in an incremental block report, which can
   * come after replaceBlock has returned.
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
    return makeLocal(dfs, files, host, source, lb -> true);
  }

  /**
   * As {@link #makeLocal(DistributedFileSystem, List, String, Function)}, for the blocks
   * {@code which} accepts only (asked in file and block order, for blocks not yet local).
   */
  public static long makeLocal(DistributedFileSystem dfs, List<FileStatus> files, String host,
      Function<LocatedBlock, DatanodeInfo> source, Predicate<LocatedBlock> which)
      throws IOException {
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
    Map<String, Set<Long>> movedBlocks = new HashMap<>();
    for (FileStatus f : files) {
      String path = f.getPath().toUri().getPath();
      for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(path, 0, f.getLen())
        .getLocatedBlocks()) {
        boolean local = false;
        for (DatanodeInfo dn : lb.getLocations()) {
          local |= dn.getHostName().equals(host);
        }
        if (!local && which.test(lb)) {
          DatanodeInfo from = source.apply(lb);
          replaceBlock(lb.getBlock(), from, from, target);
          moved += lb.getBlockSize();
          movedBlocks.computeIfAbsent(path, p -> new HashSet<>()).add(lb.getBlock().getBlockId());
        }
      }
    }
    waitUntilKnown(dfs, movedBlocks, host);
    return moved;
  }

  /**
   * Waits until the NameNode lists a replica on {@code host} for each block, by file path.
   * @throws IOException naming the blocks still without one after {@link #NAMENODE_WAIT_MS}
   */
  private static void waitUntilKnown(DistributedFileSystem dfs, Map<String, Set<Long>> blocks,
      String host) throws IOException {
    long deadline = System.currentTimeMillis() + NAMENODE_WAIT_MS;
    Map<String, Set<Long>> missing = blocks;
    while (true) {
      Map<String, Set<Long>> stillMissing = new HashMap<>();
      for (Map.Entry<String, Set<Long>> e : missing.entrySet()) {
        for (LocatedBlock lb : dfs.getClient().getLocatedBlocks(e.getKey(), 0, Long.MAX_VALUE)
          .getLocatedBlocks()) {
          if (!e.getValue().contains(lb.getBlock().getBlockId())) {
            continue;
          }
          boolean known = false;
          for (DatanodeInfo dn : lb.getLocations()) {
            known |= dn.getHostName().equals(host);
          }
          if (!known) {
            stillMissing.computeIfAbsent(e.getKey(), p -> new HashSet<>())
              .add(lb.getBlock().getBlockId());
          }
        }
      }
      if (stillMissing.isEmpty()) {
        return;
      }
      if (System.currentTimeMillis() > deadline) {
        throw new IOException("after " + NAMENODE_WAIT_MS + " ms the NameNode still lists no"
          + " replica on " + host + " of the moved blocks " + stillMissing);
      }
      missing = stillMissing;
      try {
        Thread.sleep(100);
      } catch (InterruptedException e) {
        Thread.currentThread().interrupt();
        throw new InterruptedIOException("interrupted waiting for the NameNode");
      }
    }
  }
}
