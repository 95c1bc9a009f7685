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

import java.io.File;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.util.Properties;

import org.apache.hadoop.minikdc.MiniKdc;

/**
 * The KDC of the secure cluster of build-scripts/cluster: Apache Kerby's KDC as Hadoop's MiniKdc
 * runs it (as upstream's own tests do), listening on HOST:PORT over TCP, with a keytab for each
 * set of principals named on the command line. When every keytab is written it writes
 * WORKDIR/ready (the realm), then serves until it is killed.
 *
 * <pre>usage: ClusterKdc WORKDIR HOST PORT KEYTAB=PRINCIPAL[,PRINCIPAL...]...</pre>
 *
 * A principal is written without its realm (hdfs/host1, HTTP/host1, hdfs); the realm is
 * MiniKdc's, EXAMPLE.COM.
 */
public final class ClusterKdc {
  private ClusterKdc() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 4) {
      System.err.println("usage: ClusterKdc WORKDIR HOST PORT KEYTAB=PRINCIPAL[,PRINCIPAL...]...");
      System.exit(2);
    }
    File work = new File(args[0]);
    if (!work.isDirectory() && !work.mkdirs()) {
      throw new IllegalArgumentException("cannot create the KDC's directory " + work);
    }
    File ready = new File(work, "ready");
    Files.deleteIfExists(ready.toPath());
    Properties conf = MiniKdc.createConf();
    conf.setProperty(MiniKdc.KDC_BIND_ADDRESS, args[1]);
    conf.setProperty(MiniKdc.KDC_PORT, args[2]);
    MiniKdc kdc = new MiniKdc(conf, work);
    kdc.start();
    for (int i = 3; i < args.length; i++) {
      int eq = args[i].indexOf('=');
      if (eq <= 0 || eq == args[i].length() - 1) {
        throw new IllegalArgumentException("'" + args[i] + "': expected KEYTAB=PRINCIPAL,...");
      }
      File keytab = new File(args[i].substring(0, eq));
      File dir = keytab.getParentFile();
      if (dir != null && !dir.isDirectory() && !dir.mkdirs()) {
        throw new IllegalArgumentException("cannot create " + dir);
      }
      kdc.createPrincipal(keytab, args[i].substring(eq + 1).split(","));
    }
    Files.write(ready.toPath(),
      kdc.getRealm().getBytes(StandardCharsets.UTF_8));
    System.out.println("KDC of realm " + kdc.getRealm() + " serving at " + kdc.getHost() + ":"
      + kdc.getPort());
    Thread.currentThread().join();
  }
}
