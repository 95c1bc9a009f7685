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
import static org.junit.Assert.assertNotNull;
import static org.junit.Assert.assertTrue;

import java.lang.management.ManagementFactory;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.util.ArrayList;
import java.util.List;
import javax.management.MBeanAttributeInfo;
import javax.management.MBeanServer;
import javax.management.ObjectName;
import javax.management.RuntimeErrorException;
import javax.management.RuntimeMBeanException;
import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.hbase.HBaseClassTestRule;
import org.apache.hadoop.hbase.testclassification.IntegrationTests;
import org.apache.hadoop.hbase.testclassification.SmallTests;
import org.apache.hadoop.hdfs.server.namenode.metrics.FSNamesystemMBean;
import org.junit.Assume;
import org.junit.ClassRule;
import org.junit.Test;
import org.junit.experimental.categories.Category;
import org.mockito.Mockito;

/**
 * The series changes interfaces of hadoop-hdfs (HDFS-16261 adds an attribute to
 * FSNamesystemMBean) that modules the line does not rebuild implement: the Router of the stock
 * hadoop-hdfs-rbf jar serves the NameNode beans through its NamenodeBeanMetrics. A vendor who
 * rebuilds only hadoop-hdfs keeps that jar, so every method of the rebuilt interfaces must have
 * an implementation in the stock class, and every attribute of its beans must read without an
 * AbstractMethodError.
 */
@Category({ IntegrationTests.class, SmallTests.class })
public class TestStockRouterBeans {
  @ClassRule
  public static final HBaseClassTestRule CLASS_RULE =
    HBaseClassTestRule.forClass(TestStockRouterBeans.class);

  private static final String BEAN_METRICS =
    "org.apache.hadoop.hdfs.server.federation.metrics.NamenodeBeanMetrics";
  private static final String ROUTER = "org.apache.hadoop.hdfs.server.federation.router.Router";

  /** The stock Router's bean class, or a skip where the line has no stock jar of it. */
  private static Class<?> stockBeanMetrics() {
    Class<?> c = null;
    try {
      c = Class.forName(BEAN_METRICS);
    } catch (ClassNotFoundException e) {
      // lh-2.4: hadoop-hdfs-rbf 3.3.4 is not served by the Maven repository this project uses
    }
    Assume.assumeTrue("no stock hadoop-hdfs-rbf on the class path of this line", c != null);
    String jar = c.getProtectionDomain().getCodeSource().getLocation().getPath();
    assertTrue(jar + " is not a stock hadoop-hdfs-rbf jar",
      jar.matches(".*/hadoop-hdfs-rbf-[0-9.]+\\.jar"));
    return c;
  }

  @Test
  public void testRebuiltInterfacesStayImplementedByTheStockRouter() throws Exception {
    Class<?> impl = stockBeanMetrics();
    // the rebuilt interface, with the series' attribute
    assertNotNull(FSNamesystemMBean.class.getMethod("getPendingDeletionReplacedBlocks"));
    List<String> unimplemented = new ArrayList<>();
    for (Class<?> iface : impl.getInterfaces()) {
      for (Method m : iface.getMethods()) {
        Method found = impl.getMethod(m.getName(), m.getParameterTypes());
        if (Modifier.isAbstract(found.getModifiers())) {
          unimplemented.add(iface.getSimpleName() + "#" + m.getName());
        }
      }
    }
    assertEquals("methods of the rebuilt interfaces the stock " + impl.getSimpleName()
      + " does not implement (AbstractMethodError when called)", "[]", unimplemented.toString());
  }

  @Test
  public void testEveryAttributeOfTheStockRouterBeansReads() throws Exception {
    Class<?> impl = stockBeanMetrics();
    Class<?> routerClass = Class.forName(ROUTER);
    Object router = Mockito.mock(routerClass);
    Mockito.when(routerClass.getMethod("getConfig").invoke(router))
      .thenReturn(new Configuration());
    Object beans = impl.getConstructor(routerClass).newInstance(router);
    MBeanServer server = ManagementFactory.getPlatformMBeanServer();
    List<String> errors = new ArrayList<>();
    int read = 0;
    try {
      for (String name : new String[] { "FSNamesystem", "FSNamesystemState", "NameNodeInfo",
        "NameNodeStatus" }) {
        ObjectName bean = new ObjectName("Hadoop:service=NameNode,name=" + name);
        for (MBeanAttributeInfo a : server.getMBeanInfo(bean).getAttributes()) {
          try {
            server.getAttribute(bean, a.getName());
          } catch (RuntimeErrorException e) {
            // an Error from the implementation: AbstractMethodError for a missing method
            errors.add(name + "." + a.getName() + ": " + e.getTargetError());
          } catch (RuntimeMBeanException e) {
            // the Router is a mock: an attribute that asks it for more fails with an exception
          }
          read++;
        }
      }
      assertEquals(0L, server.getAttribute(
        new ObjectName("Hadoop:service=NameNode,name=FSNamesystemState"),
        "PendingDeletionReplacedBlocks"));
    } finally {
      impl.getMethod("close").invoke(beans);
    }
    assertTrue("read " + read + " attributes", read > 50);
    assertEquals("attributes that fail with an Error", "[]", errors.toString());
  }
}
