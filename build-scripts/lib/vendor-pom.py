#!/usr/bin/env python3
# Licensed to the Apache Software Foundation (ASF) under one or more contributor license
# agreements. See the NOTICE file distributed with this work for additional information
# regarding copyright ownership. The ASF licenses this file to you under the Apache License,
# Version 2.0 (the "License"); you may not use this file except in compliance with the License.
# You may obtain a copy of the License at http://www.apache.org/licenses/LICENSE-2.0
"""Turn upstream's effective POM of a module into the POM of its vendor build.

usage: vendor-pom.py EFFECTIVE_POM OUT_POM VENDOR_VERSION G:A:UPSTREAM_VERSION:VENDOR_VERSION...

The effective POM (mvn help:effective-pom, with the same profiles as the build) has every
version resolved, so the result needs no parent. The module's own version and every dependency
on a rebuilt module (the G:A:UPSTREAM_VERSION:VENDOR_VERSION arguments) get their vendor
version;
build, reporting and profile sections, which only matter to upstream's own build, are dropped.
"""
import sys
import xml.etree.ElementTree as ET

NS = "http://maven.apache.org/POM/4.0.0"
Q = "{%s}" % NS


def main():
    if len(sys.argv) < 4:
        sys.exit(__doc__)
    src, out, vendor = sys.argv[1:4]
    rebuilt = {tuple(a.split(":")[:2]): a.split(":")[2:4] for a in sys.argv[4:]}
    ET.register_namespace("", NS)
    tree = ET.parse(src)
    root = tree.getroot()
    if root.tag != Q + "project":
        # A multi-module effective POM wraps projects; take the only one.
        projects = root.findall(Q + "project")
        if len(projects) != 1:
            sys.exit("error: %s: expected one project, found %d" % (src, len(projects)))
        root = projects[0]
    for tag in ("parent", "build", "reporting", "profiles", "distributionManagement",
                "repositories", "pluginRepositories", "properties"):
        for e in root.findall(Q + tag):
            root.remove(e)
    root.find(Q + "version").text = vendor
    for dep in root.iter(Q + "dependency"):
        key = (dep.findtext(Q + "groupId"), dep.findtext(Q + "artifactId"))
        version = dep.find(Q + "version")
        if key in rebuilt and version is not None and version.text == rebuilt[key][0]:
            version.text = rebuilt[key][1]
    ET.ElementTree(root).write(out, encoding="UTF-8", xml_declaration=True)


if __name__ == "__main__":
    main()
