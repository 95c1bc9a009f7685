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
import static org.junit.Assert.assertNotEquals;
import static org.junit.Assert.assertTrue;
import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Paths;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.EnumSet;
import java.util.HashSet;
import java.util.List;
import java.util.Set;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;
import java.util.concurrent.TimeUnit;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileStatus;
import org.apache.hadoop.fs.LocatedFileStatus;
import org.apache.hadoop.fs.Path;
import org.apache.hadoop.fs.RemoteIterator;
import org.apache.hadoop.hbase.HBaseClassTestRule;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.CompactionState;
import org.apache.hadoop.hbase.client.RegionInfo;
import org.apache.hadoop.hbase.locality.ExitCode;
import org.apache.hadoop.hbase.locality.LocalityHealer;
import org.apache.hadoop.hbase.locality.LocalityHealerSummary;
import org.apache.hadoop.hbase.locality.engine.PassResult.Count;
import org.apache.hadoop.hbase.locality.it.harness.HealChecks;
import org.apache.hadoop.hbase.locality.it.harness.MultiHostCluster;
import org.apache.hadoop.hbase.locality.it.harness.TestTables;
import org.apache.hadoop.hbase.testclassification.IntegrationTests;
import org.apache.hadoop.hbase.testclassification.LargeTests;
import org.apache.hadoop.hdfs.DFSConfigKeys;
import org.apache.hadoop.hdfs.MiniDFSCluster;
import org.apache.hadoop.hdfs.MiniDFSCluster.DataNodeProperties;
import org.apache.hadoop.hdfs.client.HdfsClientConfigKeys;
import org.apache.hadoop.hdfs.protocol.DatanodeInfo;
import org.apache.hadoop.hdfs.protocol.HdfsConstants;
import org.apache.hadoop.hdfs.protocol.HdfsConstants.DatanodeReportType;
import org.apache.hadoop.hdfs.protocol.LocatedBlock;
import org.apache.hadoop.hdfs.server.namenode.NameNodeAdapter;
import org.apache.hadoop.util.Time;
import org.junit.AfterClass;
import org.junit.BeforeClass;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * HBASE-26250 faults, on the multi-host harness with two racks: the LocalityHealer is hit
 * mid-run by a DataNode dying, by being killed itself (kill -9 of its process) and by a major
 * compaction rewriting the files it is moving. In each case no row is lost, and running the
 * healer again converges: every region reports locality 1.0, no region moved, fsck of the
 * table's files is clean and every row reads back with its value. (fsck covers the table only:
 * after the DataNode is lost, blocks of the write-ahead logs, which the healer never touches,
 * can stay under-replicated while HDFS repairs them, e.g. when the one DataNode left in the
 * rack holds a stale replica of them.)
 * <p>
 * Block moves are slow here (a balancer bandwidth of 256 KB/s per DataNode, one block a second),
 * so that the fault surely hits a run in progress: each test injects it once the first block of
 * the run has landed and checks that non-local blocks were still left. The bandwidth is the
 * DataNodes' configuration from the start: a DataNode lowering it at run time (dfsadmin
 * -setBalancerBandwidth) keeps the bytes its throttler had already granted at the old rate (up
 * to half a second's worth, 50 MB at the default), so moves after such a change are not slowed.
 */
@Category({ IntegrationTests.class, LargeTests.class })
public class TestLocalityHealerFaults {
  @ClassRule
  public static final HBaseClassTestRule CLASS_RULE =
    HBaseClassTestRule.forClass(TestLocalityHealerFaults.class);

  private static final Logger LOG = LoggerFactory.getLogger(TestLocalityHealerFaults.class);
  private static final int REGIONS = 4;
  private static final int ROWS_PER_REGION = 1500;
  private static final int ROWS = REGIONS * ROWS_PER_REGION;
  /** Small HDFS blocks, so that every store file has several. */
  private static final long BLOCK_SIZE = 256 * 1024;
  /** Reruns of --once a convergence check allows, while they end PARTIAL. */
  private static final int MAX_RERUNS = 3;
  /** host1 and host2 on one rack, host3 and host4 (a DataNode only) on the other. */
  private static final String[] RACKS = { "/r1", "/r1", "/r2", "/r2" };
  /** Balancer bandwidth per DataNode: a block move takes about a second. */
  private static final long BANDWIDTH = 256 * 1024;
  private static MultiHostCluster cluster;
  private static ExecutorService executor;

  @BeforeClass
  public static void setUp() throws Exception {
    Configuration conf = HealChecks.healerTestConf(BLOCK_SIZE);
    // A dead DataNode is noticed in 2 x 3 s + 10 x 1 s and its replicas re-created soon after.
    conf.setLong(DFSConfigKeys.DFS_HEARTBEAT_INTERVAL_KEY, 1);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_HEARTBEAT_RECHECK_INTERVAL_KEY, 3000);
    conf.setInt(DFSConfigKeys.DFS_NAMENODE_REDUNDANCY_INTERVAL_SECONDS_KEY, 1);
    conf.setLong(DFSConfigKeys.DFS_DATANODE_BALANCE_BANDWIDTHPERSEC_KEY, BANDWIDTH);
    cluster = MultiHostCluster.start(conf, 4, 3, 2, RACKS);
    executor = Executors.newCachedThreadPool();
  }

  @AfterClass
  public static void tearDown() throws Exception {
    if (executor != null) {
      executor.shutdownNow();
    }
    if (cluster != null) {
      cluster.close();
    }
  }

  /**
   * Creates and loads the table, moves every region to another server and reads every row (so
   * the RegionServers' streams are open); returns the non-local bytes. Which blocks a move leaves
   * non-local is chance (the writer's first replica lands on any DataNode of the harness), so if
   * too few are, the regions move on once more.
   */
  private static long breakLocality(TableName table) throws Exception {
    TestTables.createAndLoad(cluster, table, REGIONS, ROWS_PER_REGION);
    cluster.waitForLocalityReports(table);
    long nonLocal = 0;
    for (int i = 0; i < 2 && nonLocal <= 4 * BLOCK_SIZE; i++) {
      cluster.moveEveryRegionToNextServer(table);
      nonLocal = cluster.nonLocalBytes(table);
      LOG.info("{}: {} bytes non-local after moving every region", table, nonLocal);
    }
    cluster.waitForLocalityReports(table);
    assertEquals(ROWS, TestTables.readAllChecked(cluster, table));
    nonLocal = cluster.nonLocalBytes(table);
    assertTrue(table + ": locality is not broken, nothing to test", nonLocal > 4 * BLOCK_SIZE);
    return nonLocal;
  }

  /**
   * Arguments of every healer run here. One move in flight per DataNode: a DataNode finishes a
   * move it started even when the healer is gone, so with many moves in flight a fault could only
   * hit the end of a run.
   */
  private static String[] healerArgs(TableName table) {
    return new String[] { "--once", "--table", table.getNameAsString(), "--threshold", "1.0",
      "--grace", "6", "--max-passes", "3", "--concurrency", "1" };
  }

  private static Future<LocalityHealerSummary> startHealer(TableName table) {
    Configuration conf = new Configuration(cluster.util().getConfiguration());
    return executor.submit(() -> LocalityHealer.heal(conf, healerArgs(table)));
  }

  /**
   * Waits until the first block of a healer run has landed (fewer non-local bytes); fails with
   * the run's message if the run ended before that.
   */
  private static void waitForFirstMove(TableName table, long nonLocalBefore,
    Future<LocalityHealerSummary> run) throws Exception {
    cluster.util().waitFor(120_000, 100,
      () -> run.isDone() || cluster.nonLocalBytes(table) < nonLocalBefore);
    if (run.isDone() && cluster.nonLocalBytes(table) >= nonLocalBefore) {
      LocalityHealerSummary s = run.get();
      throw new AssertionError("the healer run ended before its first move: " + s.getExitCode()
        + ": " + s.getMessage());
    }
  }

  /**
   * Runs the healer again on an unchanged cluster and checks it converges: SUCCESS (or nothing
   * to do when nothing is non-local), at most the non-local bytes moved, and the table healed.
   * A rerun that ends PARTIAL is run again, up to {@link #MAX_RERUNS} runs in all.
   */
  private static void rerunConverges(String phase, TableName table) throws Exception {
    rerunConverges(phase, table, () -> {
    });
  }

  /** As {@link #rerunConverges(String, TableName)}, running {@code afterRerun} once it ends. */
  private static void rerunConverges(String phase, TableName table, Runnable afterRerun)
    throws Exception {
    HealChecks before = HealChecks.before(cluster, table).fsckTableOnly();
    ExitCode expected = before.nonLocalBytes() > 0 ? ExitCode.SUCCESS : ExitCode.NOTHING_TO_DO;
    LocalityHealerSummary rerun;
    long moved = 0;
    int runs = 0;
    try {
      // A pass that leaves blocks behind (a move that failed or timed out on a loaded machine)
      // ends a --once run PARTIAL; the operator, or the healer as a service, runs again. So a
      // PARTIAL rerun is followed by at most MAX_RERUNS - 1 more; what they move in all stays
      // within the non-local bytes, and the last one must succeed.
      do {
        rerun = LocalityHealer.heal(new Configuration(cluster.util().getConfiguration()),
          healerArgs(table));
        moved += rerun.get(Count.BYTES_MOVED);
        runs++;
        LOG.info("{}: rerun {} with {} non-local bytes left before the first\n{}", phase, runs,
          before.nonLocalBytes(), rerun.toTable());
      } while (expected == ExitCode.SUCCESS && rerun.getExitCode() == ExitCode.PARTIAL
        && runs < MAX_RERUNS);
    } finally {
      afterRerun.run();
    }
    // After a partial rerun, the next may find that it moved all that was left.
    ExitCode got = rerun.getExitCode();
    assertTrue(phase + ": rerun " + runs + ": expected " + expected + " but was " + got + ": "
      + rerun.getMessage(), got == expected || (runs > 1 && got == ExitCode.NOTHING_TO_DO));
    assertTrue(phase + ": " + runs + " rerun(s) moved " + moved + " bytes for "
      + before.nonLocalBytes() + " non-local bytes",
      moved <= before.nonLocalBytes() + BLOCK_SIZE);
    before.assertHealed(phase, ROWS);
  }

  @Test
  public void testHealerKilledMidRunAndRerun() throws Exception {
    TableName table = TableName.valueOf("killed");
    long nonLocal = breakLocality(table);

    File logDir = new File(cluster.util().getDataTestDir("killed-healer").toString());
    Process healer = startHealerProcess(logDir, healerArgs(table));
    try {
      cluster.util().waitFor(120_000, 100,
        () -> !healer.isAlive() || cluster.nonLocalBytes(table) < nonLocal);
      assertTrue("the healer process ended before the first move:\n" + tail(logDir),
        healer.isAlive());
      healer.destroyForcibly();
      assertTrue(healer.waitFor(60, TimeUnit.SECONDS));
    } finally {
      healer.destroyForcibly();
    }
    LOG.info("healer process killed, exit value {}; its log:\n{}", healer.exitValue(),
      tail(logDir));
    assertNotEquals("the healer finished before it was killed", 0, healer.exitValue());
    // Moves the DataNodes had started end on their own (a move takes about a second): wait until
    // the non-local bytes stop changing. No row is lost and work is left.
    long[] last = { -1 };
    cluster.util().waitFor(60_000, 2500, () -> {
      long now = cluster.nonLocalBytes(table);
      boolean settled = now == last[0];
      last[0] = now;
      return settled;
    });
    assertEquals(ROWS, TestTables.readAllChecked(cluster, table));
    long left = cluster.nonLocalBytes(table);
    LOG.info("{} of {} non-local bytes left after the kill", left, nonLocal);
    assertTrue("killed too late: nothing left to heal", left > 0);

    // The killed healer's lock file still has a valid HDFS lease: a rerun is refused.
    LocalityHealerSummary refused = LocalityHealer.heal(
      new Configuration(cluster.util().getConfiguration()), healerArgs(table));
    assertEquals(refused.getMessage(), ExitCode.ALREADY_RUNNING, refused.getExitCode());
    assertEquals(0, refused.get(Count.BYTES_MOVED));

    // Once the lease expires (after a minute by default; at once here), the rerun finishes the
    // job.
    MiniDFSCluster dfs = cluster.util().getDFSCluster();
    long hardLimitMs = HdfsClientConfigKeys.DFS_LEASE_HARDLIMIT_DEFAULT * 1000;
    dfs.setLeasePeriod(500, hardLimitMs);
    // Wait until the killed healer's lease on its lock file is past that soft limit.
    String lock = cluster.util().getConfiguration().get(LocalityHealer.LOCK_PATH_KEY,
      LocalityHealer.DEFAULT_LOCK_PATH);
    cluster.util().waitFor(60_000, 100, () -> Time.monotonicNow()
      - NameNodeAdapter.getLeaseRenewalTime(dfs.getNameNode(), lock) > 500);
    rerunConverges("healer killed", table,
      () -> dfs.setLeasePeriod(HdfsConstants.LEASE_SOFTLIMIT_PERIOD, hardLimitMs));
  }

  @Test
  public void testDataNodeKilledMidRun() throws Exception {
    TableName table = TableName.valueOf("dnkilled");
    long nonLocal = breakLocality(table);
    MiniDFSCluster dfs = cluster.util().getDFSCluster();
    // host4 runs a DataNode only: it holds replicas the healer moves away, and no region needs it.
    int victim = -1;
    for (int i = 0; i < dfs.getDataNodes().size(); i++) {
      if (dfs.getDataNodes().get(i).getDatanodeId().getHostName()
        .equals(MultiHostCluster.host(4))) {
        victim = i;
      }
    }
    assertTrue("no DataNode on " + MultiHostCluster.host(4), victim >= 0);

    Future<LocalityHealerSummary> run = startHealer(table);
    waitForFirstMove(table, nonLocal, run);
    DataNodeProperties stopped = dfs.stopDataNode(victim);
    String deadUuid = stopped.getDatanode().getDatanodeUuid();
    LOG.info("stopped DataNode {} mid-run", MultiHostCluster.host(4));
    try {
      LocalityHealerSummary s = run.get(5, TimeUnit.MINUTES);
      LOG.info("healer run with a DataNode killed:\n{}", s.toTable());
      assertTrue(s.getMessage(),
        EnumSet.of(ExitCode.SUCCESS, ExitCode.PARTIAL).contains(s.getExitCode()));
      assertTrue(s.get(Count.BLOCKS_MOVED) > 0);
      assertEquals(ROWS, TestTables.readAllChecked(cluster, table));

      // The NameNode declares the DataNode dead and re-creates its replicas elsewhere.
      cluster.util().waitFor(120_000, 500, () -> {
        for (DatanodeInfo dn : cluster.dfs().getClient().datanodeReport(DatanodeReportType.DEAD)) {
          if (dn.getDatanodeUuid().equals(deadUuid)) {
            return true;
          }
        }
        return false;
      });
      // The report calls a DataNode dead as soon as its heartbeats are overdue; the NameNode
      // drops its replicas only at its next heartbeat check. Until then the block locations
      // still list them (and fsck counts them), and a rerun skips those blocks as
      // unhealthy_replica.
      String tableDir = cluster.tableDir(table);
      cluster.util().waitFor(120_000, 500,
        () -> replicasOn(tableDir, deadUuid) == 0);
      cluster.util().waitFor(120_000, 1000, () -> cluster.fsckClean(tableDir, false));
      assertEquals(ROWS, TestTables.readAllChecked(cluster, table));
      rerunConverges("DataNode killed", table);
    } finally {
      // Back to four DataNodes for the other tests.
      dfs.restartDataNode(stopped, true);
      dfs.waitActive();
    }
  }

  /** The replicas the NameNode lists on a DataNode, over the files below {@code dir}. */
  private static int replicasOn(String dir, String dataNodeUuid) throws IOException {
    int n = 0;
    RemoteIterator<LocatedFileStatus> files = cluster.dfs().listFiles(new Path(dir), true);
    while (files.hasNext()) {
      LocatedFileStatus f = files.next();
      for (LocatedBlock b : cluster.dfs().getClient()
        .getLocatedBlocks(f.getPath().toUri().getPath(), 0, f.getLen()).getLocatedBlocks()) {
        for (DatanodeInfo dn : b.getLocations()) {
          if (dn.getDatanodeUuid().equals(dataNodeUuid)) {
            n++;
          }
        }
      }
    }
    return n;
  }

  @Test
  public void testMajorCompactionRacingTheHealer() throws Exception {
    TableName table = TableName.valueOf("compacted");
    long nonLocal = breakLocality(table);
    List<RegionInfo> regions = new ArrayList<>(cluster.regionsOf(table).keySet());
    Set<Path> oldFiles = new HashSet<>();
    for (RegionInfo r : regions) {
      for (FileStatus f : cluster.storeFiles(r)) {
        oldFiles.add(f.getPath());
      }
    }

    Future<LocalityHealerSummary> run = startHealer(table);
    waitForFirstMove(table, nonLocal, run);
    cluster.admin().majorCompact(table);
    LOG.info("major compaction of {} requested mid-run", table);
    LocalityHealerSummary s = run.get(5, TimeUnit.MINUTES);
    LOG.info("healer run raced by a major compaction:\n{}", s.toTable());
    assertTrue(s.getMessage(),
      EnumSet.of(ExitCode.SUCCESS, ExitCode.PARTIAL).contains(s.getExitCode()));
    assertTrue(s.get(Count.BLOCKS_MOVED) > 0);

    // The compaction rewrites every region into one new file, and no row is lost.
    cluster.util().waitFor(300_000, 1000, () -> {
      if (cluster.admin().getCompactionState(table) != CompactionState.NONE) {
        return false;
      }
      for (RegionInfo r : regions) {
        List<FileStatus> files = cluster.storeFiles(r);
        if (files.size() != 1 || oldFiles.contains(files.get(0).getPath())) {
          return false;
        }
      }
      return true;
    });
    assertEquals(ROWS, TestTables.readAllChecked(cluster, table));
    cluster.waitForLocalityReports(table);
    rerunConverges("major compaction", table);
  }

  /**
   * Starts {@code LocalityHealer} in a JVM of its own, configured like the harness (its
   * configuration written as hbase-site.xml first on the class path), with its output and log
   * in {@code logDir}.
   */
  private static Process startHealerProcess(File logDir, String... args) throws IOException {
    if (!logDir.isDirectory() && !logDir.mkdirs()) {
      throw new IOException("cannot create " + logDir);
    }
    File confDir = new File(cluster.util().getDataTestDir("healer-conf").toString());
    if (!confDir.isDirectory() && !confDir.mkdirs()) {
      throw new IOException("cannot create " + confDir);
    }
    try (OutputStream out = new FileOutputStream(new File(confDir, "hbase-site.xml"))) {
      cluster.util().getConfiguration().writeXml(out);
    }
    List<String> cmd = new ArrayList<>();
    cmd.add(Paths.get(System.getProperty("java.home"), "bin", "java").toString());
    for (String arg : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (!arg.startsWith("-agentlib") && !arg.startsWith("-javaagent")) {
        cmd.add(arg);
      }
    }
    cmd.add("-Dlh.log.dir=" + logDir);
    cmd.add("-cp");
    cmd.add(confDir + File.pathSeparator + System.getProperty("java.class.path"));
    cmd.add(LocalityHealer.class.getName());
    cmd.addAll(Arrays.asList(args));
    LOG.info("starting {}", cmd);
    return new ProcessBuilder(cmd).redirectErrorStream(true)
      .redirectOutput(new File(logDir, "stdout.log")).start();
  }

  /** The last lines of the healer process's output and log. */
  private static String tail(File logDir) throws IOException {
    StringBuilder sb = new StringBuilder();
    for (String name : new String[] { "stdout.log", "cluster.log" }) {
      File f = new File(logDir, name);
      if (f.isFile()) {
        List<String> lines = Files.readAllLines(f.toPath(), StandardCharsets.UTF_8);
        sb.append("--- ").append(f).append('\n').append(String.join("\n",
          lines.subList(Math.max(0, lines.size() - 30), lines.size()))).append('\n');
      }
    }
    return sb.toString();
  }
}
