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
import java.util.ArrayList;
import java.util.Arrays;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.Random;
import java.util.TreeMap;
import java.util.concurrent.atomic.AtomicBoolean;
import java.util.concurrent.atomic.AtomicLong;
import java.util.function.Function;
import org.apache.hadoop.hbase.TableName;
import org.apache.hadoop.hbase.client.Get;
import org.apache.hadoop.hbase.client.Result;
import org.apache.hadoop.hbase.client.Table;

/**
 * Random gets and multi-gets (10 rows) of a table loaded by {@link TestTables}, on a thread of its
 * own, bypassing the block cache so that every read reaches HDFS; every value is checked.
 * Latencies and errors are counted per phase; reads before the first {@link #phase(int)} call
 * warm the client up and are not counted.
 */
public final class DemoReader implements Runnable {
  private final ClusterAccess cluster;
  private final TableName table;
  private final int regions;
  private final int rows;
  private final Function<byte[], byte[]> expected;
  private final AtomicBoolean stop = new AtomicBoolean();
  private final AtomicLong completed = new AtomicLong();
  private final List<List<double[]>> samples = new ArrayList<>();
  private final long[] errors;
  /** The phase reads are counted in; -1 while the client warms up. */
  private volatile int phase = -1;
  private Thread thread;

  /** A reader of {@code table} (loaded by TestTables) counting reads in {@code phases}. */
  public DemoReader(ClusterAccess cluster, TableName table, int regions, int rows,
      int phases) {
    this(cluster, table, regions, rows, phases, row -> TestTables.value(row, 1024));
  }

  /**
   * A reader of {@code table}, whose rows are those of {@link TestTables#row(int, int)} with the
   * value {@code expected} gives for each row, counting reads in {@code phases}.
   */
  public DemoReader(ClusterAccess cluster, TableName table, int regions, int rows, int phases,
      Function<byte[], byte[]> expected) {
    this.expected = expected;
    this.cluster = cluster;
    this.table = table;
    this.regions = regions;
    this.rows = rows;
    this.errors = new long[phases];
    for (int i = 0; i < phases; i++) {
      samples.add(Collections.synchronizedList(new ArrayList<>()));
    }
  }

  public void start() {
    thread = new Thread(this, "demo-reader");
    thread.setDaemon(true);
    thread.start();
  }

  public void stop() throws InterruptedException {
    stop.set(true);
    thread.join(60_000);
  }

  @Override
  public void run() {
    Random rnd = new Random(26250);
    try (Table t = cluster.connection().getTable(table)) {
      long n = 0;
      while (!stop.get()) {
        int p = phase;
        long start = System.nanoTime();
        if (p < 0) {
          warmUp(t, rnd);
          continue;
        }
        try {
          if (++n % 5 == 0) {
            List<Get> gets = new ArrayList<>();
            for (int i = 0; i < 10; i++) {
              gets.add(get(rnd));
            }
            for (Result r : t.get(gets)) {
              check(r);
            }
          } else {
            check(t.get(get(rnd)));
          }
          long end = System.nanoTime();
          samples.get(p).add(new double[] { end / 1e9, (end - start) / 1e6 });
          completed.incrementAndGet();
        } catch (IOException | RuntimeException e) {
          errors[p]++;
        }
      }
    } catch (IOException e) {
      errors[Math.max(0, phase)]++;
    }
  }

  /** A Get of a random row that reads from HDFS: the block cache is bypassed. */
  private Get get(Random rnd) {
    return new Get(TestTables.row(rnd.nextInt(regions), rnd.nextInt(rows))).setCacheBlocks(false);
  }

  private void warmUp(Table t, Random rnd) {
    try {
      t.get(get(rnd));
    } catch (IOException | RuntimeException e) {
      // not counted
    }
  }

  private void check(Result r) {
    if (r.isEmpty() || !Arrays.equals(expected.apply(r.getRow()),
      r.getValue(TestTables.FAMILY, TestTables.QUALIFIER))) {
      throw new IllegalStateException("wrong value read");
    }
  }

  /** Reads completed since the first phase began, in every phase. */
  public long completed() {
    return completed.get();
  }

  /** Errors counted in phase {@code p}. */
  public long errors(int p) {
    return errors[p];
  }

  /** Reads completed in phase {@code p}. */
  public int reads(int p) {
    return samples.get(p).size();
  }

  /** Sets the phase the next reads count in. */
  public void phase(int p) {
    phase = p;
  }

  /** Sorted latencies (ms) of the reads of phase {@code p}. */
  public double[] latencies(int p) {
    List<double[]> s;
    synchronized (samples.get(p)) {
      s = new ArrayList<>(samples.get(p));
    }
    double[] out = new double[s.size()];
    for (int i = 0; i < out.length; i++) {
      out[i] = s.get(i)[1];
    }
    Arrays.sort(out);
    return out;
  }

  /** p99 latency (ms) per 1-s bucket of completion time, in seconds since {@code t0}. */
  public List<double[]> p99PerSecond(double t0) {
    TreeMap<Integer, List<Double>> buckets = new TreeMap<>();
    for (List<double[]> s : samples) {
      synchronized (s) {
        for (double[] x : s) {
          buckets.computeIfAbsent((int) (x[0] - t0), k -> new ArrayList<>()).add(x[1]);
        }
      }
    }
    List<double[]> out = new ArrayList<>();
    for (Map.Entry<Integer, List<Double>> e : buckets.entrySet()) {
      double[] v = e.getValue().stream().mapToDouble(Double::doubleValue).sorted().toArray();
      out.add(new double[] { e.getKey() + 0.5, pct(v, 99) });
    }
    return out;
  }

  /** The p-th percentile of sorted values (p = 100: the maximum), NaN if there are none. */
  public static double pct(double[] sorted, int p) {
    if (sorted.length == 0) {
      return Double.NaN;
    }
    return sorted[Math.min(sorted.length - 1,
      Math.max(0, (int) Math.ceil(p / 100.0 * sorted.length) - 1))];
  }
}
