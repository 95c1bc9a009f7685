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

import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.security.PrivilegedExceptionAction;
import java.util.Arrays;

import org.apache.hadoop.conf.Configuration;
import org.apache.hadoop.security.UserGroupInformation;

/**
 * Runs a Java program's main method as a Kerberos principal logged in from a keytab: how the
 * tools of build-scripts/cluster (dfsadmin, fsck, the test programs) run on its secure cluster,
 * where this machine has no kinit. The login uses the configuration on the class path
 * (core-site.xml says hadoop.security.authentication=kerberos).
 *
 * <pre>usage: AsPrincipal PRINCIPAL KEYTAB CLASS [ARG...]</pre>
 */
public final class AsPrincipal {
  private AsPrincipal() {
  }

  public static void main(String[] args) throws Exception {
    if (args.length < 3) {
      System.err.println("usage: AsPrincipal PRINCIPAL KEYTAB CLASS [ARG...]");
      System.exit(2);
    }
    UserGroupInformation.setConfiguration(new Configuration());
    UserGroupInformation.loginUserFromKeytab(args[0], args[1]);
    Method main = Class.forName(args[2]).getMethod("main", String[].class);
    String[] rest = Arrays.copyOfRange(args, 3, args.length);
    UserGroupInformation.getLoginUser().doAs((PrivilegedExceptionAction<Void>) () -> {
      try {
        main.invoke(null, (Object) rest);
      } catch (InvocationTargetException e) {
        // The program's own exception, as if it had been run directly.
        throw e.getCause() instanceof Exception ? (Exception) e.getCause() : e;
      }
      return null;
    });
  }
}
