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
import java.io.FileInputStream;
import java.io.InputStream;
import java.util.Arrays;
import java.util.HashSet;
import java.util.Set;
import java.util.concurrent.atomic.AtomicInteger;
import java.util.regex.Pattern;

import org.codehaus.mojo.animal_sniffer.ClassListBuilder;
import org.codehaus.mojo.animal_sniffer.SignatureChecker;
import org.codehaus.mojo.animal_sniffer.logging.Logger;

/**
 * Fails when compiled classes use a JDK API that Java 8 does not have. This is what
 * animal-sniffer-maven-plugin's check goal does, run on a directory of classes outside a Maven
 * project. Usage: {@code java -cp animal-sniffer.jar:asm.jar Java8ApiCheck.java SIGNATURE
 * CLASSES_DIR CLASSPATH_FILE}. References to classes of the classpath are not checked; JDK 8's
 * sun.* and com.sun.* internals are allowed, as in Hadoop's and HBase's own builds. Calls of the
 * signature-polymorphic {@code MethodHandle#invoke} and {@code #invokeExact} are allowed whatever
 * their descriptor (the signature lists them as {@code (Object[])Object} only; Java 8 links any).
 */
public class Java8ApiCheck {
  /** An "Undefined reference" that is a call of a signature-polymorphic method of Java 8. */
  private static final Pattern POLYMORPHIC = Pattern.compile(
      ".*Undefined reference: \\S+ java\\.lang\\.invoke\\.MethodHandle\\.(invoke|invokeExact)\\(.*");

  public static void main(String[] args) throws Exception {
    if (args.length != 3) {
      System.err.println("usage: Java8ApiCheck SIGNATURE CLASSES_DIR CLASSPATH_FILE");
      System.exit(2);
    }
    AtomicInteger errors = new AtomicInteger();
    Logger log = new Logger() {
      @Override public void info(String m) { }
      @Override public void info(String m, Throwable t) { }
      @Override public void debug(String m) { }
      @Override public void debug(String m, Throwable t) { }
      @Override public void warn(String m) { System.err.println("warning: " + m); }
      @Override public void warn(String m, Throwable t) { System.err.println("warning: " + m); }
      @Override public void error(String m) { error(m, null); }
      @Override public void error(String m, Throwable t) {
        if (POLYMORPHIC.matcher(m).matches()) {
          return;
        }
        errors.incrementAndGet();
        System.err.println("error: " + m);
      }
    };
    File classes = new File(args[1]);
    ClassListBuilder known = new ClassListBuilder(log);
    known.process(classes);
    String cp = new String(java.nio.file.Files.readAllBytes(new File(args[2]).toPath())).trim();
    for (String element : cp.split(File.pathSeparator)) {
      File f = new File(element);
      if (!element.isEmpty() && f.exists() && !f.equals(classes)) {
        known.process(f);
      }
    }
    Set<String> ignored = new HashSet<>(known.getPackages());
    ignored.addAll(Arrays.asList("sun/*", "com/sun/*"));
    try (InputStream sig = new FileInputStream(args[0])) {
      SignatureChecker checker = new SignatureChecker(sig, ignored, log);
      checker.setSourcePath(new java.util.ArrayList<>());
      checker.setAnnotationTypes(Arrays.asList(SignatureChecker.ANNOTATION_FQN,
          SignatureChecker.PREVIOUS_ANNOTATION_FQN));
      checker.process(classes);
      if (checker.isSignatureBroken() && errors.get() > 0) {
        System.err.println("error: " + classes + " uses APIs that Java 8 does not have");
        System.exit(1);
      }
    }
  }
}
