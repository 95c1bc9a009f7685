#!/usr/bin/env python3
# Licensed to the Apache Software Foundation (ASF) under one or more contributor license
# agreements. See the NOTICE file distributed with this work for additional information regarding
# copyright ownership. The ASF licenses this file to you under the Apache License, Version 2.0
# (the "License"); you may not use this file except in compliance with the License. You may obtain
# a copy of the License at http://www.apache.org/licenses/LICENSE-2.0
"""normalize-jar.py EPOCH JAR...: rewrites each jar (a zip) so that it depends on its entries'
names and bytes only: entries in a stable order (META-INF/ and META-INF/MANIFEST.MF first, as
the jar tool writes them, then the others sorted by name), every time stamp EPOCH (seconds since
1970, UTC; the build passes the time of the commit that last changed its inputs), fixed
permissions, no extra fields, deflated at one level. Two builds of the same commit then give
byte-identical jars. Each jar is written aside and moved over the original only when complete.
"""
import os
import sys
import time
import zipfile


def normalize(path, epoch):
    stamp = time.gmtime(max(epoch, 315532800))[:6]  # a zip's time stamps begin in 1980
    with zipfile.ZipFile(path) as src:
        infos = src.infolist()
        names = [i.filename for i in infos]
        if len(set(names)) != len(names):
            sys.exit("error: %s has duplicate entries" % path)
        first = [n for n in ("META-INF/", "META-INF/MANIFEST.MF") if n in names]
        order = first + sorted(n for n in names if n not in first)
        tmp = path + ".normalizing"
        with zipfile.ZipFile(tmp, "w") as dst:
            for name in order:
                info = zipfile.ZipInfo(name, date_time=stamp)
                info.create_system = 3
                if name.endswith("/"):
                    info.external_attr = (0o40755 << 16) | 0x10
                    info.compress_type = zipfile.ZIP_STORED
                    dst.writestr(info, b"")
                else:
                    info.external_attr = 0o100644 << 16
                    info.compress_type = zipfile.ZIP_DEFLATED
                    dst.writestr(info, src.read(name), compresslevel=6)
    os.replace(tmp, path)


def main(argv):
    if len(argv) < 3 or not argv[1].isdigit():
        sys.exit("usage: normalize-jar.py EPOCH JAR...")
    for path in argv[2:]:
        try:
            normalize(path, int(argv[1]))
        except (OSError, zipfile.BadZipFile) as e:
            sys.exit("error: cannot normalize %s: %s" % (path, e))


if __name__ == "__main__":
    main(sys.argv)
