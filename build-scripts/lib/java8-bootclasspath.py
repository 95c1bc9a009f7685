#!/usr/bin/env python3
# Licensed to the Apache Software Foundation (ASF) under one or more contributor license
# agreements. See the NOTICE file distributed with this work for additional information
# regarding copyright ownership. The ASF licenses this file to you under the Apache License,
# Version 2.0 (the "License"); you may not use this file except in compliance with the License.
# You may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0
"""Write a Java 8 boot class path jar for javac -source 8 -target 8 -bootclasspath.

usage: java8-bootclasspath.py JAVA_HOME INTERNALS_DIR OUT_JAR

Compiling with a JDK 17 against its own class library links, for example, ByteBuffer.flip() to
the covariant override Java 9 added, which fails on a Java 8 JVM (NoSuchMethodError), and
--release 8 rejects the JDK internals (sun.misc.Unsafe, ...) that Hadoop and HBase use. This jar
holds the Java 8 API as JDK 17 itself records it for --release 8 (lib/ct.sym, the entries of
release '8'), plus the sun.* and com.sun.* internals of the JDK (INTERNALS_DIR, a
'jimage extract' of the modules), which Java 8 had too.
"""
import os
import sys
import zipfile


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    java_home, internals, out = sys.argv[1:]
    seen = set()
    with zipfile.ZipFile(out + ".tmp", "w", zipfile.ZIP_STORED) as jar:
        with zipfile.ZipFile(os.path.join(java_home, "lib", "ct.sym")) as ct:
            for name in ct.namelist():
                parts = name.split("/", 2)
                if len(parts) < 3 or "8" not in parts[0] or not name.endswith(".sig"):
                    continue
                cls = parts[2][:-len(".sig")] + ".class"
                if cls not in seen:
                    seen.add(cls)
                    jar.writestr(cls, ct.read(name))
        n_api = len(seen)
        for module in sorted(os.listdir(internals)):
            root = os.path.join(internals, module)
            for d, _, files in os.walk(root):
                for f in files:
                    rel = os.path.relpath(os.path.join(d, f), root)
                    if f.endswith(".class") and rel.startswith(("sun/", "com/sun/")) \
                            and rel not in seen:
                        seen.add(rel)
                        jar.write(os.path.join(d, f), rel)
    os.replace(out + ".tmp", out)
    # The path relative to the working directory (the project's, when the build runs it).
    print("%s: %d Java 8 API classes, %d JDK internals"
          % (os.path.relpath(out), n_api, len(seen) - n_api))


if __name__ == "__main__":
    main()
