#!/usr/bin/env python3
# Licensed to the Apache Software Foundation (ASF) under one or more contributor license
# agreements; and to You under the Apache License, Version 2.0.
"""The formatting rules HBase's precommit enforces (spotless and checkstyle), for Java files.

usage: hbase_style.py FILE[=PRISTINE]...

Checks each file for: tabs, trailing whitespace, lines over 100 columns (package, import and
URL lines excepted, as in HBase's checkstyle), the import layout spotless writes (static imports,
then the others, then org.apache.hbase.thirdparty, then org.apache.hadoop.hbase.shaded, each
group in ASCII order, one blank line between the groups),
duplicate imports and unused imports (a simple name used nowhere else in the file, javadoc
included). A file given as FILE=PRISTINE (an upstream file the series modifies) is held only to
what the series changed: a finding on a line PRISTINE already has, with the same finding there,
is upstream's. Prints "FILE:LINE: problem" per finding and exits 1 if there is any.
"""
import re
import sys

MAX_COLUMNS = 100
# Lines HBase's checkstyle lets run past the limit (its LineLength ignorePattern).
LONG_OK = re.compile(r'^package |^import |a href|href|http://|https://|ftp://')
IMPORT = re.compile(r'^import\s+(static\s+)?([\w.]+(?:\.\*)?)\s*;\s*$')


# HBase's spotless import order after the static imports: every other import, then the shaded
# third-party packages, then HBase's own shaded (protobuf) classes; a blank line between groups.
GROUPS = ['', 'org.apache.hbase.thirdparty.', 'org.apache.hadoop.hbase.shaded.']


def group_of(static, name):
    """0 for a static import, else 1 + the index of the last group of GROUPS it belongs to."""
    if static:
        return 0
    best = 0
    for i, prefix in enumerate(GROUPS):
        if name.startswith(prefix):
            best = i
    return 1 + best


def strip_comments_and_strings(text):
    """The code without string literals and line comments (javadoc is kept: it uses names)."""
    text = re.sub(r'"(?:\\.|[^"\\\n])*"', '""', text)
    text = re.sub(r"'(?:\\.|[^'\\\n])'", "''", text)
    return re.sub(r'//[^\n]*', '', text)


def check(path):
    problems = []
    with open(path, encoding='utf-8') as f:
        lines = f.read().split('\n')
    imports = []  # (line number, static, name)
    for n, line in enumerate(lines, 1):
        if '\t' in line:
            problems.append((n, 'tab character'))
        if line != line.rstrip():
            problems.append((n, 'trailing whitespace'))
        m = IMPORT.match(line)
        if m:
            imports.append((n, bool(m.group(1)), m.group(2)))
        elif len(line) > MAX_COLUMNS and not LONG_OK.search(line):
            problems.append((n, 'line longer than %d columns (%d)' % (MAX_COLUMNS, len(line))))
    if imports:
        first, last = imports[0][0], imports[-1][0]
        expected = []
        for group in range(len(GROUPS) + 1):
            names = sorted(i[2] for i in imports if group_of(i[1], i[2]) == group)
            if names and expected:
                expected.append('')
            expected += ['import %s%s;' % ('static ' if group == 0 else '', n) for n in names]
        actual = [l.strip() for l in lines[first - 1:last]]
        # duplicates first: they also break the order
        seen = set()
        for n, static, name in imports:
            if (static, name) in seen:
                problems.append((n, 'duplicate import %s' % name))
            seen.add((static, name))
        if not [p for p in problems if p[1].startswith('duplicate')] and actual != expected:
            problems.append((first, 'imports not in spotless order (static, others, hbase'
                             ' thirdparty, hbase shaded; each group sorted, one blank line'
                             ' between)'))
        body = strip_comments_and_strings('\n'.join(lines[last:]))
        for n, static, name in imports:
            if name.endswith('.*'):
                continue
            simple = name.rsplit('.', 1)[-1]
            if not re.search(r'(?<![\w$])' + re.escape(simple) + r'(?![\w$])', body):
                problems.append((n, 'unused import %s' % name))
    return problems


def main(args):
    bad = 0
    for arg in args:
        path, _, baseline = arg.partition('=')
        problems = check(path)
        if baseline:
            # a file the series modifies: only what the series brings counts
            with open(baseline, encoding='utf-8') as f:
                old_lines = set(f.read().split('\n'))
            old_problems = set(p for _, p in check(baseline))
            with open(path, encoding='utf-8') as f:
                new_lines = f.read().split('\n')
            problems = [(n, p) for n, p in problems
                        if new_lines[n - 1] not in old_lines or p not in old_problems
                        and not p.startswith('line longer')]
        for n, problem in problems:
            print('%s:%d: %s' % (path, n, problem))
            bad += 1
    return 1 if bad else 0


if __name__ == '__main__':
    if len(sys.argv) < 2:
        sys.stderr.write(__doc__)
        sys.exit(2)
    sys.exit(main(sys.argv[1:]))
