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

import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.apache.hadoop.conf.Configuration;

/**
 * The one definition of "the series on": the properties of the resource {@value #RESOURCE}
 * (integration-tests/src/test/resources), which the one-JVM harness applies here and
 * build-scripts/cluster copies into the real cluster's hdfs-site.xml and hbase-site.xml.
 */
public final class SeriesConf {
  /** The resource holding the series-on properties. */
  public static final String RESOURCE = "series-on.xml";

  private SeriesConf() {
  }

  /** The series-on properties, in the order of the resource. */
  public static List<Map.Entry<String, String>> properties() {
    Configuration c = new Configuration(false);
    c.addResource(RESOURCE);
    List<Map.Entry<String, String>> out = new ArrayList<>();
    for (Map.Entry<String, String> e : c) {
      out.add(e);
    }
    if (out.isEmpty()) {
      throw new IllegalStateException(RESOURCE + " is not on the classpath or empty");
    }
    return out;
  }

  /** Switches every patch of the series on in {@code conf}; returns it. */
  public static Configuration seriesOn(Configuration conf) {
    for (Map.Entry<String, String> e : properties()) {
      conf.set(e.getKey(), e.getValue(), SeriesConf.RESOURCE);
    }
    return conf;
  }

  /**
   * Switches every patch of the series off in {@code conf} (each series-on property back to its
   * default, which is upstream's behaviour); returns it.
   */
  public static Configuration seriesOff(Configuration conf) {
    for (Map.Entry<String, String> e : properties()) {
      conf.unset(e.getKey());
    }
    return conf;
  }
}
