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
import java.io.File;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.fs.FileSystem;
import org.apache.hadoop.hbase.HBaseConfiguration;
import org.apache.hadoop.hbase.ServerName;
import org.apache.hadoop.hbase.client.Connection;
import org.apache.hadoop.hbase.client.ConnectionFactory;
import org.apache.hadoop.hdfs.HdfsConfiguration;

/**
 * The real multi-host cluster of build-scripts/cluster, seen from a program running on one of
 * its hosts ({@code build-scripts/cluster java host0 CLASS}): the configuration is the cluster's
 * (its conf directory is on the classpath), a RegionServer crash is a SIGKILL of its process
 * ({@code cluster kill}) and the healer is build/<line>/dist/bin/locality-healer as its own
 * process ({@code cluster healer}). The path of build-scripts/cluster comes from the system
 * property {@code lh.cluster.script}, the cluster's directory (build/<line>/cluster) from
 * {@code lh.cluster.dir}.
 */
public final class RealCluster implements ClusterControl, AutoCloseable {
  private static final ObjectMapper JSON = new ObjectMapper();
  private final Configuration conf;
  private final File script;
  private final File clusterDir;
  private final File healerLog;
  private Connection connection;
  private volatile long movesAtStart = -1;

  /** The cluster the program runs in; fails if it was not started by build-scripts/cluster. */
  public RealCluster() {
    String s = System.getProperty("lh.cluster.script");
    if (s == null || !new File(s).canExecute()) {
      throw new IllegalStateException("system property lh.cluster.script must name"
        + " build-scripts/cluster (run this through build-scripts/cluster java host0 ...); got "
        + s);
    }
    script = new File(s);
    String d = System.getProperty("lh.cluster.dir");
    if (d == null || !new File(d, "state/hosts").isFile()) {
      throw new IllegalStateException("system property lh.cluster.dir must name the directory"
        + " of a running cluster of build-scripts/cluster (build/<line>/cluster); got " + d);
    }
    clusterDir = new File(d);
    // hdfs-site.xml too (block size, replication, balancer bandwidth), as an HDFS client reads it.
    HdfsConfiguration.init();
    conf = HBaseConfiguration.create();
    healerLog = new File(clusterDir, "logs/host0-healer.log");
  }

  @Override
  public String kind() {
    return "real cluster";
  }

  @Override
  public Configuration conf() {
    return conf;
  }

  @Override
  public synchronized Connection connection() throws IOException {
    if (connection == null) {
      connection = ConnectionFactory.createConnection(conf);
    }
    return connection;
  }

  @Override
  public FileSystem fs() throws IOException {
    return FileSystem.get(conf);
  }

  /** Runs build-scripts/cluster with {@code args}; returns its output, fails on non-zero exit. */
  public String cluster(String... args) throws IOException, InterruptedException {
    List<String> cmd = new ArrayList<>();
    cmd.add(script.getPath());
    cmd.addAll(Arrays.asList(args));
    File out = File.createTempFile("cluster", ".out");
    try {
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(out).start();
      if (!p.waitFor(30, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException("build-scripts/cluster " + String.join(" ", args)
          + " did not end in 30 minutes");
      }
      String text = new String(Files.readAllBytes(out.toPath()), StandardCharsets.UTF_8);
      if (p.exitValue() != 0) {
        throw new IOException("build-scripts/cluster " + String.join(" ", args) + " exited "
          + p.exitValue() + ": " + text.trim());
      }
      return text;
    } finally {
      out.delete();
    }
  }

  @Override
  public ServerName crashRegionServer(String host) throws Exception {
    ServerName victim = admin().getRegionServers().stream()
      .filter(sn -> sn.getHostname().equals(host)).findFirst()
      .orElseThrow(() -> new IllegalStateException("no live RegionServer on " + host));
    cluster("kill", host, "regionserver");
    return victim;
  }

  @Override
  public JsonNode heal(String... args) throws Exception {
    File json = File.createTempFile("healer", ".json");
    try {
      movesAtStart = movesLanded();
      List<String> a = new ArrayList<>();
      a.add("healer");
      a.addAll(Arrays.asList(args));
      a.add("--json");
      a.add(json.getPath());
      List<String> cmd = new ArrayList<>();
      cmd.add(script.getPath());
      cmd.addAll(a);
      Process p = new ProcessBuilder(cmd).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!p.waitFor(30, TimeUnit.MINUTES)) {
        p.destroyForcibly();
        throw new IOException("the LocalityHealer did not end in 30 minutes");
      }
      if (json.length() == 0) {
        throw new IOException("the LocalityHealer exited " + p.exitValue() + " without a"
          + " summary; see " + healerLog);
      }
      return JSON.readTree(json);
    } finally {
      json.delete();
      movesAtStart = -1;
    }
  }

  @Override
  public long blocksMovedSoFar() {
    long start = movesAtStart;
    return start < 0 ? -1 : movesLanded() - start;
  }

  /** Moves the healer's log records as done ("Successfully moved"), over every run so far. */
  public long movesLanded() {
    return healerLogLines(MOVED).size();
  }

  private static final Pattern MOVED = Pattern.compile(
    "^(\\S+ \\S+) .*Successfully moved .* with size=(\\d+) from ([^:/\\s]+)\\S* to ([^:/\\s]+)");

  /**
   * The healer log's records matching {@code p} (its groups), in order: e.g. the time, size and
   * target host of each move done.
   */
  public List<String[]> healerLogLines(Pattern p) {
    return logLines(healerLog, p);
  }

  /**
   * The log of the healer run as a service ({@code cluster healer-daemon}, the output of
   * dist/bin/locality-healer-daemon), appended to by every run.
   */
  public File healerDaemonLog() {
    return new File(healerLog.getParentFile(),
      "locality-healer-" + System.getProperty("user.name") + ".out");
  }

  /** A log's records matching {@code p} (its groups), in order; none if it is absent. */
  public static List<String[]> logLines(File log, Pattern p) {
    List<String[]> out = new ArrayList<>();
    if (!log.exists()) {
      return out;
    }
    try {
      for (String line : Files.readAllLines(log.toPath(), StandardCharsets.UTF_8)) {
        Matcher m = p.matcher(line);
        if (m.find()) {
          String[] g = new String[m.groupCount()];
          for (int i = 0; i < g.length; i++) {
            g[i] = m.group(i + 1);
          }
          out.add(g);
        }
      }
    } catch (IOException e) {
      // a log being rotated or written: count what could be read
    }
    return out;
  }

  /** The moves of the healer log ("Successfully moved"): time, size, source, target each. */
  public List<String[]> movesDone() {
    return healerLogLines(MOVED);
  }

  private static final Pattern STARTED = Pattern.compile("^(\\S+ \\S+) .*Start moving ");

  /** The times the healer log records a move started ("Start moving"). */
  public List<String[]> movesStarted() {
    return healerLogLines(STARTED);
  }

  /** The project's directory (the parent of build-scripts/). */
  public File projectDir() {
    return script.getParentFile().getParentFile();
  }

  /** The hosts of the cluster running {@code role}, from build/<line>/cluster/state/hosts. */
  public List<String> hostsWith(String role) throws IOException {
    List<String> out = new ArrayList<>();
    for (String line : Files.readAllLines(new File(clusterDir, "state/hosts")
      .toPath(), StandardCharsets.UTF_8)) {
      String[] f = line.trim().split("\\s+");
      if (Arrays.asList(f).subList(2, f.length).contains(role)) {
        out.add(f[0]);
      }
    }
    return out;
  }

  /** The log of a daemon, build/<line>/cluster/logs/HOST-ROLE.log. */
  public File log(String host, String role) {
    return new File(clusterDir, "logs/" + host + "-" + role + ".log");
  }

  /** The pid of a daemon, or -1 if it is not running. */
  public long pid(String host, String role) {
    File f = new File(clusterDir, "state/" + host + "-" + role + ".pid");
    try {
      return Long.parseLong(new String(Files.readAllBytes(f.toPath()),
        StandardCharsets.UTF_8).trim());
    } catch (IOException | NumberFormatException e) {
      return -1;
    }
  }

  @Override
  public synchronized void close() throws IOException {
    if (connection != null) {
      connection.close();
      connection = null;
    }
  }
}
