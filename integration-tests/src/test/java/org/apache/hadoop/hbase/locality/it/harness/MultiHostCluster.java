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
import com.fasterxml.jackson.databind.ObjectMapper;
import java.io.ByteArrayOutputStream;
import java.io.Closeable;
import java.io.IOException;
import java.io.PrintStream;
import java.net.InetAddress;
import java.net.UnknownHostException;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FSDataInputStream;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.hbase.HBaseTestingUtility;
import org.apache.hadoop.hbase.MiniHBaseCluster;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.StartMiniClusterOption;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Admin;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.client.RegionLocator;
import org.apache.hadoop.hbase.fs.HFileSystem;
import org.apache.hadoop.hbase.io.FSDataInputStreamWrapper;
import org.apache.hadoop.hbase.io.hfile.HFileReaderImpl;
import org.apache.hadoop.hbase.locality.LocalityHealer;
import org.apache.hadoop.hbase.regionserver.HRegion;
import org.apache.hadoop.hbase.regionserver.HRegionServer;
import org.apache.hadoop.hbase.regionserver.HStore;
import org.apache.hadoop.hbase.regionserver.HStoreFile;
import org.apache.hadoop.hbase.util.CommonFSUtils;
import org.apache.hadoop.hbase.util.JVMClusterUtil;
import org.apache.hadoop.hdfs.DistributedFileSystem;
import org.apache.hadoop.hdfs.HarnessLocality;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.client.HdfsDataInputStream;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.tools.DFSck;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * A minicluster in one JVM where locality is real: DataNode i runs as host name {@code host<i>}
 * and RegionServer i as the same {@code host<i>}, so a RegionServer and "its" DataNode share a
 * host name and every other DataNode is remote to it. The JVM must resolve the made-up names
 * (-Djdk.net.hosts.file, written by src/test/scripts/write-hosts-file).
 */
public final class MultiHostCluster implements ClusterControl, Closeable {
  private static final Logger LOG = LoggerFactory.getLogger(MultiHostCluster.class);
  private static final ObjectMapper JSON = new ObjectMapper();
  /** Key HBase 2.4 uses for the host name a RegionServer registers under. */
  static final String RS_HOSTNAME_KEY = "hbase.unsafe.regionserver.hostname";

  private final HBaseTestingUtility util;
  private final String[] dataNodeHosts;

  private MultiHostCluster(HBaseTestingUtility util, String[] dataNodeHosts) {
    this.util = util;
    this.dataNodeHosts = dataNodeHosts;
  }

  /** The host name of DataNode / RegionServer number {@code i}, counting from 1. */
  public static String host(int i) {
    return "host" + i;
  }

  /**
   * Starts ZooKeeper, {@code dataNodes} DataNodes (host1..hostN) and {@code regionServers}
   * RegionServers (host1..hostM, M &lt;= N), with HDFS replication {@code replication}.
   */
  public static MultiHostCluster start(Configuration conf, int dataNodes, int regionServers,
      int replication) throws Exception {
    return start(conf, dataNodes, regionServers, replication, null);
  }

  /**
   * As {@link #start(Configuration, int, int, int)}, with DataNode i on rack {@code racks[i-1]}
   * (e.g. "/r1"), or every DataNode on the default rack if {@code racks} is null.
   */
  public static MultiHostCluster start(Configuration conf, int dataNodes, int regionServers,
      int replication, String[] racks) throws Exception {
    if (racks != null && racks.length != dataNodes) {
      throw new IllegalArgumentException(racks.length + " racks for " + dataNodes + " DataNodes");
    }
    if (regionServers > dataNodes) {
      throw new IllegalArgumentException("regionServers (" + regionServers
        + ") must not exceed dataNodes (" + dataNodes + "): each RegionServer shares a host");
    }
    String[] hosts = new String[dataNodes];
    for (int i = 0; i < dataNodes; i++) {
      hosts[i] = host(i + 1);
      try {
        InetAddress.getByName(hosts[i]);
      } catch (UnknownHostException e) {
        throw new IllegalStateException("host name " + hosts[i] + " does not resolve: run the JVM"
          + " with -Djdk.net.hosts.file=<file from src/test/scripts/write-hosts-file>", e);
      }
    }
    HBaseTestingUtility util = new HBaseTestingUtility(conf);
    Configuration c = util.getConfiguration();
    c.setInt("dfs.replication", replication);
    c.setInt("hbase.regionserver.msginterval", 1000);
    c.setInt("hbase.master.wait.on.regionservers.mintostart", 1);
    // No balancer runs unless a test asks for one: regions stay where tests put them.
    c.setBoolean("hbase.balancer.tablesOnMaster", false);
    c.setInt("hbase.balancer.period", Integer.MAX_VALUE);
    MultiHostCluster cluster = new MultiHostCluster(util, hosts);
    try {
      if (racks == null) {
        util.startMiniDFSCluster(hosts);
      } else {
        util.startMiniDFSCluster(dataNodes, racks, hosts);
      }
      c.set(RS_HOSTNAME_KEY, host(1));
      c.set(HdfsClientConfigKeys.DFS_CLIENT_CONTEXT, clientContext(host(1)));
      util.startMiniCluster(StartMiniClusterOption.builder().numRegionServers(1)
        .numDataNodes(dataNodes).dataNodeHosts(hosts).build());
      cluster.installLocality(util.getMiniHBaseCluster().getRegionServer(0));
      for (int i = 2; i <= regionServers; i++) {
        cluster.startRegionServer(host(i));
      }
      util.getAdmin().balancerSwitch(false, true);
      LOG.info("multi-host cluster up: DataNodes {} and RegionServers {}", Arrays.toString(hosts),
        util.getAdmin().getRegionServers());
      return cluster;
    } catch (Exception | Error e) {
      cluster.close();
      throw e;
    }
  }

  /** Starts one more RegionServer under {@code hostName} and waits until the master has it. */
  public ServerName startRegionServer(String hostName) throws Exception {
    MiniHBaseCluster hbase = util.getMiniHBaseCluster();
    hbase.getConfiguration().set(RS_HOSTNAME_KEY, hostName);
    hbase.getConfiguration().set(HdfsClientConfigKeys.DFS_CLIENT_CONTEXT,
      clientContext(hostName));
    int before = util.getAdmin().getRegionServers().size();
    HRegionServer rs = hbase.startRegionServer().getRegionServer();
    util.waitFor(60_000, () -> util.getAdmin().getRegionServers().size() > before);
    installLocality(rs);
    return rs.getServerName();
  }

  /** The HDFS client context of the RegionServer on {@code hostName}: one per host. */
  private static String clientContext(String hostName) {
    return "lh-" + hostName;
  }

  /**
   * Tells the HDFS block location refresher of the RegionServer's client context (if the
   * refresher is on) that only the DataNode sharing its host name is local.
   */
  private void installLocality(HRegionServer rs) throws Exception {
    util.waitFor(60_000, () -> rs.getFileSystem() != null);
    FileSystem fs = rs.getFileSystem();
    if (fs instanceof HFileSystem) {
      fs = ((HFileSystem) fs).getBackingFs();
    }
    if (fs instanceof DistributedFileSystem) {
      String host = rs.getServerName().getHostname();
      if (HarnessLocality.treatAsLocalHost((DistributedFileSystem) fs, host)) {
        LOG.info("HDFS block location refresher of {} treats DataNode {} as local", host, host);
      }
    }
  }

  public HBaseTestingUtility util() {
    return util;
  }

  @Override
  public Admin admin() throws IOException {
    return util.getAdmin();
  }

  @Override
  public String kind() {
    return "one JVM";
  }

  /** Aborts the RegionServer thread of {@code host}, the way a crash loses it. */
  @Override
  public ServerName crashRegionServer(String host) throws Exception {
    JVMClusterUtil.RegionServerThread victim = util.getMiniHBaseCluster()
      .getLiveRegionServerThreads().stream()
      .filter(t -> t.getRegionServer().getServerName().getHostname().equals(host))
      .findFirst().orElseThrow(() -> new IllegalStateException("no RegionServer on " + host));
    ServerName dead = victim.getRegionServer().getServerName();
    victim.getRegionServer().abort("simulated crash of " + host);
    return dead;
  }

  /** Runs the LocalityHealer in this JVM on a copy of the cluster's configuration. */
  @Override
  public JsonNode heal(String... args) throws Exception {
    return JSON.readTree(LocalityHealer.heal(new Configuration(conf()), args).toJson());
  }

  @Override
  public Configuration conf() {
    return util.getConfiguration();
  }

  @Override
  public Connection connection() throws IOException {
    return util.getConnection();
  }

  /**
   * The harness's FileSystem. Not {@code util.getTestFileSystem()}: that creates an HFileSystem
   * per call, and each one wraps the cached HDFS client's NameNode proxy in one more reordering
   * proxy, so polling it nests proxies until calls overflow the stack.
   */
  @Override
  public FileSystem fs() throws IOException {
    return dfs();
  }

  /** The HDFS client under the harness's FileSystem (HBase may wrap it in an HFileSystem). */
  public DistributedFileSystem dfs() throws IOException {
    return util.getDFSCluster().getFileSystem();
  }

  public String[] dataNodeHosts() {
    return dataNodeHosts.clone();
  }

  /**
   * The replica each block of a region's store files is read from first by its RegionServer: the
   * first location cached in the store file's open pread stream, by block id. A harness in one
   * JVM has every DataNode on 127.0.0.1, so to the RegionServer's HDFS client every replica is
   * local; what makes that client notice a move here is a read that meets the moved replica gone.
   */
  public Map<Long, DatanodeInfo> firstReadReplicas(RegionInfo region, ServerName sn)
      throws IOException {
    HRegionServer rs = util.getMiniHBaseCluster().getRegionServer(sn);
    HRegion r = rs.getRegion(region.getEncodedName());
    Map<Long, DatanodeInfo> out = new TreeMap<>();
    for (HStore store : r.getStores()) {
      for (HStoreFile sf : store.getStorefiles()) {
        FSDataInputStreamWrapper w = ((HFileReaderImpl) sf.getReader().getHFileReader())
          .getContext().getInputStreamWrapper();
        FSDataInputStream in = w.getStream(w.shouldUseHBaseChecksum());
        if (in instanceof HdfsDataInputStream) {
          for (LocatedBlock lb : ((HdfsDataInputStream) in).getAllBlocks()) {
            out.put(lb.getBlock().getBlockId(), lb.getLocations()[0]);
          }
        }
      }
    }
    return out;
  }

  /** The open sequence number hbase:meta records for the region (it changes on every reopen). */
  public long openSeqNum(RegionInfo region) throws IOException {
    try (RegionLocator locator = util.getConnection().getRegionLocator(region.getTable())) {
      return locator.getRegionLocation(region.getStartKey(), true).getSeqNum();
    }
  }

  /** Bytes of the table's store files without a replica on the host of their RegionServer. */
  public long nonLocalBytes(TableName table) throws IOException {
    long nonLocal = 0;
    for (Map.Entry<RegionInfo, ServerName> e : regionsOf(table).entrySet()) {
      long[] bytes = localBytes(e.getKey(), e.getValue().getHostname());
      nonLocal += bytes[1] - bytes[0];
    }
    return nonLocal;
  }

  /**
   * Moves the region to another RegionServer whose host lacks a replica of some of its store file
   * blocks, waits until it is open there and returns that server; returns null, moving nothing, if
   * every other RegionServer's host has a replica of every block. With replication 2 and 3
   * RegionServer hosts there always is such a server for a region that is local where it is.
   */
  public ServerName moveRegionToNonLocalServer(RegionInfo region) throws Exception {
    ServerName current = regionsOf(region.getTable()).get(region);
    for (ServerName sn : admin().getRegionServers()) {
      if (!sn.equals(current) && computedLocality(region, sn.getHostname()) < 1.0) {
        LOG.info("moving {} from {} to {}, where it is not local", region.getEncodedName(),
          current, sn);
        admin().move(region.getEncodedNameAsBytes(), sn);
        util.waitFor(60_000, 500, () -> sn.equals(regionsOf(region.getTable()).get(region)));
        return sn;
      }
    }
    return null;
  }

  /**
   * Waits until the NameNode holds no excess replica and no replica waiting to be deleted: the
   * sources of earlier moves are gone from the block locations, so that a region opened now
   * computes the locality HDFS keeps.
   */
  public void waitForReplicasSettled() throws Exception {
    org.apache.hadoop.hdfs.server.namenode.FSNamesystem fsn =
      util.getDFSCluster().getNamesystem();
    util.waitFor(60_000, 200,
      () -> fsn.getExcessBlocks() == 0 && fsn.getPendingDeletionBlocks() == 0);
  }

  /**
   * Moves every region of the table to the next RegionServer (as the balancer or an operator
   * would) and waits until all of them are open there.
   */
  public void moveEveryRegionToNextServer(TableName table) throws Exception {
    List<ServerName> servers = new ArrayList<>(admin().getRegionServers());
    Map<RegionInfo, ServerName> placed = regionsOf(table);
    for (Map.Entry<RegionInfo, ServerName> e : placed.entrySet()) {
      ServerName to = servers.get((servers.indexOf(e.getValue()) + 1) % servers.size());
      admin().move(e.getKey().getEncodedNameAsBytes(), to);
    }
    util.waitFor(60_000, 500, () -> {
      Map<RegionInfo, ServerName> now = regionsOf(table);
      for (Map.Entry<RegionInfo, ServerName> e : placed.entrySet()) {
        if (e.getValue().equals(now.get(e.getKey()))) {
          return false;
        }
      }
      return now.size() == placed.size();
    });
  }

  private static final Pattern FSCK_COUNT = Pattern.compile(
    "(Missing blocks|Under-replicated blocks|Over-replicated blocks|Mis-replicated blocks"
      + "|Corrupt blocks):\\s+(\\d+)");

  /**
   * Runs fsck on / and returns whether HDFS is healthy with no missing, corrupt, under-, over- or
   * mis-replicated block; with {@code assertClean}, fails with the report when it is not.
   */
  public boolean fsckClean(boolean assertClean) throws Exception {
    return fsckClean("/", assertClean);
  }

  /** The directory of a table's regions on HDFS, as a path fsck takes. */
  public String tableDir(TableName table) throws IOException {
    return CommonFSUtils.getTableDir(CommonFSUtils.getRootDir(util.getConfiguration()), table)
      .toUri().getPath();
  }

  /** As {@link #fsckClean(boolean)}, for the files under {@code path} only. */
  public boolean fsckClean(String path, boolean assertClean) throws Exception {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    int rc;
    Configuration conf = new Configuration(util.getDFSCluster().getConfiguration(0));
    // A FileSystem of its own: the cached one's NameNode proxy is wrapped by HBase's HFileSystem,
    // which fsck's NameNode address lookup cannot unwrap.
    conf.setBoolean("fs.hdfs.impl.disable.cache", true);
    try (PrintStream out = new PrintStream(bytes, true, "UTF-8")) {
      rc = new DFSck(conf, out).run(new String[] { path });
    }
    String report = bytes.toString("UTF-8");
    boolean clean = rc == 0 && report.contains("is HEALTHY");
    Matcher m = FSCK_COUNT.matcher(report);
    int counts = 0;
    while (m.find()) {
      counts++;
      clean &= Long.parseLong(m.group(2)) == 0;
    }
    clean &= counts >= 4;
    if (assertClean && !clean) {
      throw new AssertionError("fsck is not clean:\n" + report);
    }
    if (!clean) {
      StringBuilder problems = new StringBuilder();
      for (String line : report.split("\n")) {
        if (line.matches(".*(Status:|blocks:|Under replicated|Replica placement policy|"
          + "over-replicated|MISSING|CORRUPT).*") && problems.length() < 4000) {
          problems.append("\n  ").append(line.trim());
        }
      }
      if (problems.length() == 0) {
        problems.append(" exit code ").append(rc).append(", report:\n")
          .append(report, 0, Math.min(report.length(), 2000));
      }
      LOG.info("fsck of {} not clean yet:{}", path, problems);
    }
    return clean;
  }

  @Override
  public void close() throws IOException {
    try {
      util.shutdownMiniCluster();
    } catch (Exception e) {
      throw new IOException("minicluster shutdown failed", e);
    }
  }
}
