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

import java.io.File;
import java.io.FileOutputStream;
import java.io.IOException;
import java.io.OutputStream;
import java.lang.management.ManagementFactory;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.apache.hadoop.conf.Configuration;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

import org.apache.hbase.thirdparty.com.google.gson.JsonObject;
import org.apache.hbase.thirdparty.com.google.gson.JsonParser;

/**
 * Runs the LocalityHealer as an operator adds it to an installed cluster: a JVM of its own, whose
 * class path is the cluster's client configuration, the healer's jar and the jars of the
 * installation. With {@code upstreamJars} every jar the line rebuilds (a vendor version,
 * {@code <version>-lh-<line>} in the local Maven repository) is replaced by upstream's own jar of
 * that version from the same repository, so the healer's jar must link against upstream's
 * Hadoop and HBase as they are released.
 */
public final class HealerJarProcess {
  private static final Logger LOG = LoggerFactory.getLogger(HealerJarProcess.class);
  /** A rebuilt artifact in the local Maven repository: .../artifact/version-lh-x.y/file. */
  private static final Pattern VENDOR =
    Pattern.compile("(.*)/([^/]+)/([^/]+)(-lh-[0-9.]+)/\\2-\\3\\4(-tests)?\\.jar");
  private static final String HEALER = "hbase-locality-healer";

  /** Exit code and JSON summary of one run. */
  public static final class Result {
    public final int exitCode;
    public final JsonObject summary;
    public final File log;

    Result(int exitCode, JsonObject summary, File log) {
      this.exitCode = exitCode;
      this.summary = summary;
      this.log = log;
    }

    @Override
    public String toString() {
      return "exit " + exitCode + ", summary " + summary + " (log " + log + ")";
    }
  }

  private final File dir;
  private final List<String> classPath;
  private int runs;

  /**
   * @param conf the cluster's client configuration, written to {@code dir}/conf/hbase-site.xml
   * @param dir a directory for the configuration, logs and summaries
   * @param upstreamJars whether to replace every rebuilt jar by upstream's own
   */
  public HealerJarProcess(Configuration conf, File dir, boolean upstreamJars) throws IOException {
    this.dir = dir;
    File confDir = new File(dir, "conf");
    if (!confDir.isDirectory() && !confDir.mkdirs()) {
      throw new IOException("cannot make " + confDir);
    }
    try (OutputStream out = new FileOutputStream(new File(confDir, "hbase-site.xml"))) {
      conf.writeXml(out);
    }
    // the healer's log at INFO on its output, with log4j 2 (HBase 2.5+) or log4j 1 (HBase 2.4)
    Files.write(new File(confDir, "log4j2.properties").toPath(),
      ("appender.console.type=Console\nappender.console.name=console\n"
        + "appender.console.layout.type=PatternLayout\n"
        + "appender.console.layout.pattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n\n"
        + "rootLogger.level=INFO\nrootLogger.appenderRef.console.ref=console\n")
          .getBytes(StandardCharsets.UTF_8));
    Files.write(new File(confDir, "log4j.properties").toPath(),
      ("log4j.rootLogger=INFO,console\n"
        + "log4j.appender.console=org.apache.log4j.ConsoleAppender\n"
        + "log4j.appender.console.layout=org.apache.log4j.PatternLayout\n"
        + "log4j.appender.console.layout.ConversionPattern=%d{ISO8601} %-5p [%t] %c{2}: %m%n\n")
          .getBytes(StandardCharsets.UTF_8));
    classPath = new ArrayList<>();
    classPath.add(confDir.getAbsolutePath());
    for (String e : System.getProperty("java.class.path").split(File.pathSeparator)) {
      Matcher m = VENDOR.matcher(e.replace(File.separatorChar, '/'));
      if (m.matches() && m.group(2).equals(HEALER)) {
        if (m.group(5) == null) {
          classPath.add(e);
        }
      } else if (m.matches() && upstreamJars) {
        File theirs = new File(m.group(1) + "/" + m.group(2) + "/" + m.group(3) + "/" + m.group(2)
          + "-" + m.group(3) + (m.group(5) == null ? "" : m.group(5)) + ".jar");
        if (!theirs.isFile()) {
          throw new IOException("no upstream jar " + theirs + " for " + e
            + " (build-scripts/build downloads it for the distribution's MANIFEST.tsv)");
        }
        classPath.add(theirs.getPath());
      } else if (!e.contains("/target/") || e.endsWith(".jar")) {
        // not this project's own test classes: the healer's JVM gets installed jars only
        classPath.add(e);
      }
    }
    if (!classPath.stream().anyMatch(e -> e.contains("/" + HEALER + "/"))) {
      throw new IOException("the healer's jar (" + HEALER + ") is not on the class path");
    }
  }

  /** The class path of the healer's JVM. */
  public List<String> classPath() {
    return classPath;
  }

  /** Runs the healer with the given options and {@code --json}; waits at most ten minutes. */
  public Result run(String... args) throws IOException, InterruptedException {
    runs++;
    File json = new File(dir, "summary-" + runs + ".json");
    File log = new File(dir, "healer-" + runs + ".log");
    Process p = start(json, log, args);
    if (!p.waitFor(10, TimeUnit.MINUTES)) {
      p.destroyForcibly();
      throw new IOException("the healer did not end within ten minutes, see " + log);
    }
    return result(p, json, log);
  }

  /**
   * Starts the healer with the given options and {@code --json}, waits (at most ten minutes)
   * until its log has the line, sends it a SIGTERM ({@link Process#destroy}, as {@code kill}
   * does) and waits at most a minute for it to end.
   */
  public Result runUntilThenTerminate(String logLine, String... args)
    throws IOException, InterruptedException {
    runs++;
    File json = new File(dir, "summary-" + runs + ".json");
    File log = new File(dir, "healer-" + runs + ".log");
    Process p = start(json, log, args);
    try {
      long deadline = System.nanoTime() + TimeUnit.MINUTES.toNanos(10);
      while (!new String(Files.readAllBytes(log.toPath()), StandardCharsets.UTF_8)
        .contains(logLine)) {
        if (!p.isAlive() || System.nanoTime() > deadline) {
          throw new IOException("no '" + logLine + "' in " + log + " (the healer "
            + (p.isAlive() ? "still runs)" : "ended with " + p.exitValue() + ")"));
        }
        Thread.sleep(200);
      }
      p.destroy();
      if (!p.waitFor(1, TimeUnit.MINUTES)) {
        throw new IOException("the healer did not end within a minute of a SIGTERM, see " + log);
      }
    } finally {
      p.destroyForcibly();
    }
    return result(p, json, log);
  }

  private Result result(Process p, File json, File log) throws IOException {
    JsonObject summary = json.isFile()
      ? JsonParser.parseString(new String(Files.readAllBytes(json.toPath()),
        StandardCharsets.UTF_8)).getAsJsonObject()
      : null;
    return new Result(p.exitValue(), summary, log);
  }

  private Process start(File json, File log, String... args) throws IOException {
    List<String> cmd = new ArrayList<>();
    cmd.add(System.getProperty("java.home") + "/bin/java");
    for (String a : ManagementFactory.getRuntimeMXBean().getInputArguments()) {
      if (a.startsWith("--add-") || a.startsWith("-Djdk.net.hosts.file=")
        || a.startsWith("-Djava.net.preferIPv4Stack=")
        || a.startsWith("-Dorg.apache.hbase.thirdparty.")) {
        cmd.add(a);
      }
    }
    cmd.add("-Xmx512m");
    cmd.add("-cp");
    cmd.add(String.join(File.pathSeparator, classPath));
    cmd.add("org.apache.hadoop.hbase.locality.LocalityHealer");
    for (String a : args) {
      cmd.add(a);
    }
    cmd.add("--json");
    cmd.add(json.getAbsolutePath());
    LOG.info("running the healer's jar in a JVM of its own: {} ... {} (log {})", cmd.get(0),
      cmd.subList(cmd.indexOf("org.apache.hadoop.hbase.locality.LocalityHealer"), cmd.size()),
      log);
    return new ProcessBuilder(cmd).redirectErrorStream(true).redirectOutput(log).start();
  }
}
