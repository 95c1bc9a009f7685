# Shared functions of the build scripts. Sourced, never run.
# shellcheck shell=bash

TOP=$(cd "$(dirname "${BASH_SOURCE[0]}")/../.." && pwd)
BUILD_ROOT="$TOP/build"
# shellcheck source=../versions
. "$TOP/build-scripts/versions"
HADOOP_GROUP=org.apache.hadoop
HBASE_GROUP=org.apache.hbase

# Maven, batch mode, failing on checksum mismatches; MVN is the quiet variant.
MVN_LOUD=(mvn -B -C -Dstyle.color=never)
MVN=("${MVN_LOUD[@]}" -q)
# The local repository, asked of Maven once per run of a script and the scripts it runs.
if [ -n "${LH_M2_REPO:-}" ] && [ -d "$LH_M2_REPO" ]; then
  M2_REPO=$LH_M2_REPO
else
  M2_REPO=$(mvn -B -q help:evaluate -Dexpression=settings.localRepository -DforceStdout \
    2>/dev/null || echo "$HOME/.m2/repository")
  [ -d "$M2_REPO" ] || M2_REPO="$HOME/.m2/repository"
fi
export LH_M2_REPO=$M2_REPO

# JVM flags every JDK 17 process of the rebuilt stack needs (tests, minicluster, launchers).
JVM_FLAGS="--add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/java.nio=ALL-UNNAMED \
--add-opens java.base/sun.nio.ch=ALL-UNNAMED --add-opens java.base/java.lang.reflect=ALL-UNNAMED \
--add-opens java.base/java.util=ALL-UNNAMED --add-opens java.base/java.util.concurrent=ALL-UNNAMED \
--add-opens java.base/java.io=ALL-UNNAMED --add-opens java.base/java.net=ALL-UNNAMED \
--add-opens java.base/jdk.internal.misc=ALL-UNNAMED --add-opens java.base/java.lang.invoke=ALL-UNNAMED \
--add-exports java.base/jdk.internal.misc=ALL-UNNAMED --add-exports java.base/sun.nio.ch=ALL-UNNAMED \
-Dorg.apache.hbase.thirdparty.io.netty.tryReflectionSetAccessible=true"
# JVM flags of the test JVMs only (Surefire forks, the real cluster's daemons in the tests, the
# Maven processes of the test stages), never of what an operator runs, nor of the benchmarks: JVMs that live seconds to minutes on a
# machine of 2 cores spend more CPU in the C2 compiler than its code saves them (a mini cluster
# test class: 46 s of CPU with C2, 24 s without, and 15% less wall time).
TEST_JVM_FLAGS="-XX:TieredStopAtLevel=1 -XX:+UseSerialGC"

# No automatic 'git gc' in the trees the scripts make: a commit of a whole upstream tree passes
# the loose-object threshold, and the gc it starts runs on in the background, writing into .git
# while a script removes or moves the tree ('rm: cannot remove .git: Directory not empty').
export GIT_CONFIG_COUNT=1 GIT_CONFIG_KEY_0=gc.auto GIT_CONFIG_VALUE_0=0

die() { echo "error: $*" >&2; exit 1; }
# rel PATH: PATH relative to the project if it is inside it, for messages.
rel() { case "$1" in "$TOP"/*) echo "${1#"$TOP"/}" ;; *) echo "$1" ;; esac; }
info() { echo "==> $*" >&2; }

# lines: prints "NAME HADOOP_BASELINE HBASE_BASELINE" of every line of build-scripts/lines.
lines() { grep -v '^#' "$TOP/build-scripts/lines" | awk 'NF'; }
line_names() { lines | awk '{print $1}' | paste -sd' '; }

# baseline_var DIR VAR: VAR of the baseline file of a baseline folder (read with HADOOP_VERSION
# of the selected line set, which HBase's Maven flags refer to).
baseline_var() {
  [ -f "$1/baseline" ] || die "missing baseline file $(rel "$1")/baseline"
  (
    # shellcheck disable=SC1091
    . "$1/baseline" || exit 1
    eval "printf '%s' \"\${$2:-}\""
  ) || die "could not read $(rel "$1")/baseline"
}

# select_line NAME: selects a line of build-scripts/lines: sets LINE, VENDOR_SUFFIX, BUILD (the
# line's outputs, build/<line>), HADOOP_/HBASE_BASELINE, _VERSION, _MAVEN_FLAGS, IT_MAVEN_ARGS,
# and exports LH_LINE so that the scripts this one runs work on the same line.
select_line() {
  local l
  l=$(lines | awk -v n="$1" '$1 == n') || true
  [ -n "$l" ] || die "unknown line '$1': build-scripts/lines names $(line_names)"
  read -r LINE HADOOP_BASELINE HBASE_BASELINE <<<"$l"
  VENDOR_SUFFIX=$LINE
  BUILD="$BUILD_ROOT/$LINE"
  # Maven's output directory of integration-tests for the line (its pom.xml).
  IT_TARGET="$TOP/integration-tests/target/$LINE"
  export LH_LINE=$LINE
  HADOOP_VERSION=$(baseline_var "$TOP/hadoop-patches/$HADOOP_BASELINE" VERSION)
  HADOOP_MAVEN_FLAGS=$(baseline_var "$TOP/hadoop-patches/$HADOOP_BASELINE" MAVEN_FLAGS)
  HBASE_VERSION=$(baseline_var "$TOP/hbase-patches/$HBASE_BASELINE" VERSION)
  HBASE_MAVEN_FLAGS=$(baseline_var "$TOP/hbase-patches/$HBASE_BASELINE" MAVEN_FLAGS)
  [ -n "$HADOOP_VERSION" ] && [ -n "$HBASE_VERSION" ] \
    || die "line $LINE: a baseline file sets no VERSION"
  # Maven arguments of the integration-tests module: the line's versions and its build/repo.
  # shellcheck disable=SC2206
  IT_MAVEN_ARGS=($HBASE_MAVEN_FLAGS -Dhadoop.version="$HADOOP_VERSION"
    -Dhbase.version="$HBASE_VERSION" -Dvendor.suffix="$VENDOR_SUFFIX" -Dlh.repo="$BUILD/repo")
}

# line_given ARG...: true if the arguments name a line (--line NAME or --line=NAME).
line_given() {
  local a
  for a in "$@"; do case "$a" in --line|--line=*) return 0 ;; esac; done
  return 1
}

# line_option ARG...: takes --line NAME (or --line=NAME) out of the arguments, selects that line
# (default: $LH_LINE, else the first line of build-scripts/lines) and leaves the other arguments
# in the array ARGS.
line_option() {
  local name=""
  ARGS=()
  while [ $# -gt 0 ]; do
    case "$1" in
      --line)
        [ $# -ge 2 ] && [ -n "$2" ] || die "--line needs a line name: one of $(line_names)"
        name=$2; shift 2 ;;
      --line=*) name=${1#--line=}; shift ;;
      *) ARGS+=("$1"); shift ;;
    esac
  done
  [ -z "$name" ] || select_line "$name"
}

# project_vars hadoop|hbase: sets PROJECT, NAME, GROUP, BASELINE, PATCHES (the baseline folder),
# VERSION, VVERSION, MODULES, MVN_FLAGS of the selected line.
project_vars() {
  case "${1:-}" in
    hadoop) NAME=Hadoop GROUP=$HADOOP_GROUP BASELINE=$HADOOP_BASELINE VERSION=$HADOOP_VERSION
      MVN_FLAGS=$HADOOP_MAVEN_FLAGS ;;
    hbase) NAME=HBase GROUP=$HBASE_GROUP BASELINE=$HBASE_BASELINE VERSION=$HBASE_VERSION
      MVN_FLAGS=$HBASE_MAVEN_FLAGS ;;
    *) die "unknown project '${1:-}': expected 'hadoop' or 'hbase'" ;;
  esac
  PROJECT=$1
  PATCHES="$TOP/$1-patches/$BASELINE"
  [ -f "$PATCHES/modules" ] || die "missing modules file $(rel "$PATCHES")/modules"
  MODULES=$(grep -v '^#' "$PATCHES/modules" | awk 'NF {print $1, $2}')
  [ -n "$MODULES" ] || die "$(rel "$PATCHES")/modules names no module"
  # Modules the series adds ("artifactId path new:BASE"): no upstream jar, sources or POM; built
  # on the classpath of the rebuilt module BASE, listed before it, plus BASE's classes.
  NEW_MODULES=$(grep -v '^#' "$PATCHES/modules" | awk 'NF >= 3 {print $1, $3}')
  local a kind
  while read -r a kind; do
    [ -n "$a" ] || continue
    [[ "$kind" == new:* ]] && awk -v b="${kind#new:}" -v a="$a" \
      '$1 == a {exit !seen} $1 == b {seen = 1} END {if (!seen) exit 1}' <<<"$MODULES" \
      || die "$(rel "$PATCHES")/modules: $a: expected 'new:BASE', BASE a module listed before it," \
        "got '$kind'"
  done <<<"$NEW_MODULES"
  VVERSION="$VERSION-$VENDOR_SUFFIX"
}

# compile_excludes: the current project's compile excludes, one path per line (none if its
# baseline folder has no compile-excludes file).
compile_excludes() {
  [ ! -f "$PATCHES/compile-excludes" ] || grep -v '^#' "$PATCHES/compile-excludes" | awk 'NF'
}

# fetch_all SPEC...: downloads, in one Maven run, each artifact of SPECs (G:A:V[:type
# [:classifier]], as fetch takes them) that the local repository lacks, with its published sha1:
# one JVM start for them all, and Maven's parallel downloads, where a fetch per artifact pays a
# Maven start each (most of a download's time on a fresh machine). fetch then checks each sha1
# as before; an artifact this run could not get is left to fetch, whose error names it.
fetch_all() {
  local spec g a v t c deps="" n=0 lock tmp
  for spec in "$@"; do
    IFS=: read -r g a v t c <<<"$spec"
    t=${t:-jar}
    local f="$M2_REPO/${g//.//}/$a/$v/$a-$v${c:+-$c}.$t"
    [ ! -f "$f" ] || [ ! -f "$f.sha1" ] || continue
    deps+="<dependency><groupId>$g</groupId><artifactId>$a</artifactId><version>$v</version>"
    deps+="<type>$t</type>${c:+<classifier>$c</classifier>}<exclusions><exclusion>"
    deps+="<groupId>*</groupId><artifactId>*</artifactId></exclusion></exclusions></dependency>"
    n=$((n + 1))
  done
  [ "$n" -gt 0 ] || return 0
  mkdir -p "$M2_REPO"
  exec {lock}>>"$M2_REPO/.lh-fetch.lock"
  flock "$lock"
  tmp=$(mktemp -d)
  cat >"$tmp/pom.xml" <<POM
<project xmlns="http://maven.apache.org/POM/4.0.0">
  <modelVersion>4.0.0</modelVersion>
  <groupId>localityhealer.fetch</groupId><artifactId>fetch-all</artifactId><version>1</version>
  <packaging>pom</packaging>
  <dependencies>$deps</dependencies>
</project>
POM
  info "downloading $n artifacts from Maven Central"
  (cd "$tmp" && "${MVN[@]}" dependency:resolve) >&2 \
    || info "could not download them all at once: one at a time, each named if it fails"
  rm -rf "$tmp"
  exec {lock}>&-
}

# fetch G:A:V[:type[:classifier]]: prints the local path of the artifact, downloaded from Maven
# Central if needed, after checking its sha1 against the checksum file Central publishes.
fetch() {
  local spec=$1 g a v t c
  IFS=: read -r g a v t c <<<"$spec"
  t=${t:-jar}
  local f="$M2_REPO/${g//.//}/$a/$v/$a-$v${c:+-$c}.$t"
  if [ ! -f "$f" ] || [ ! -f "$f.sha1" ]; then
    # One download at a time (lines and port-check run side by side), checked again once ours.
    local lock
    mkdir -p "$M2_REPO"
    exec {lock}>>"$M2_REPO/.lh-fetch.lock"
    flock "$lock"
    if [ ! -f "$f" ] || [ ! -f "$f.sha1" ]; then
      rm -f "$f" "$f.sha1"
      "${MVN[@]}" dependency:get -Dtransitive=false -Dartifact="$g:$a:$v:$t${c:+:$c}" >&2 \
        || die "download of $spec from Maven Central failed"
    fi
    exec {lock}>&-
  fi
  [ -f "$f.sha1" ] || die "no published sha1 for $spec next to $f"
  local want got
  want=$(awk '{print $1; exit}' "$f.sha1")
  got=$(sha1sum "$f" | awk '{print $1}')
  [ "$want" = "$got" ] || die "sha1 mismatch for $f: Maven Central says $want, file has $got"
  echo "$f"
}

# modules: prints "artifactId path" lines of the current project.
modules() { echo "$MODULES"; }
# new_module_base ARTIFACT: prints the BASE of a module the series adds (see project_vars); fails
# for a module upstream has.
new_module_base() { awk -v a="$1" '$1 == a {print substr($2, 5); found = 1} END {exit !found}' \
  <<<"$NEW_MODULES"; }

# series_patches: prints the absolute paths of the current project's series, in order.
series_patches() {
  local series="$PATCHES/series" line
  [ -f "$series" ] || die "missing series file $(rel "$series")"
  while IFS= read -r line || [ -n "$line" ]; do
    line=${line%%#*}; line=$(echo "$line" | xargs)
    [ -n "$line" ] || continue
    [ -f "$PATCHES/$line" ] || die "$(rel "$series") names $line, which does not exist in $(rel "$PATCHES")"
    echo "$PATCHES/$line"
  done <"$series"
}

# shared_folders PROJECT: the folders of PROJECT-patches/ that hold patches every baseline shares
# (the series of a baseline names them as ../FOLDER/NNNN-...patch), relative to the project: every
# folder there without a baseline file, e.g. hbase-patches/HBASE-26250.
shared_folders() {
  local d
  for d in "$TOP/$1-patches"/*/; do
    d=${d%/}
    [ -f "$d/baseline" ] || echo "${d#"$TOP"/}"
  done
}

# maintainer: "Name <email>" of build-scripts/maintainer; maintainer_name: the name alone.
maintainer() {
  local m
  m=$(grep -v '^#' "$TOP/build-scripts/maintainer" | awk 'NF' | head -1)
  [[ "$m" =~ ^[^\<\>]+\ \<[^\<\>@\ ]+@[^\<\>\ ]+\>$ ]] \
    || die "build-scripts/maintainer: expected one line 'Name <email>', got '$m'"
  echo "$m"
}
maintainer_name() { maintainer | sed -E 's/ <.*//'; }

# dep3 FILE FIELD: the value of a DEP-3 field of a patch's message (empty if absent).
dep3() {
  awk '/^---$/ { exit } { print }' "$1" | sed -n "s/^$2: //p" | head -1
}

# check_patch FILE: the metadata every patch of a series must carry: an upstream-style name and
# subject, and DEP-3 fields (https://dep-team.pages.debian.net/deps/dep3/): Bug:, Forwarded:
# (no, not-needed or the URL it was forwarded to), Origin: (upstream, backport, vendor or other,
# optionally ", URL"), Last-Update: (YYYY-MM-DD) and, where upstream shipped the feature,
# Applied-Upstream: (the first upstream release holding it, optionally ", URL").
check_patch() {
  local p=$1 name v
  name=$(basename "$p")
  [[ "$name" =~ ^[0-9]{4}-(HADOOP|HDFS|HBASE)-[0-9]+-[a-z0-9-]+\.patch$ ]] \
    || die "$(rel "$p"): name must be NNNN-<JIRA>-<slug>.patch"
  grep -qE '^Subject: \[PATCH\] (HADOOP|HDFS|HBASE)-[0-9]+\. ' "$p" \
    || die "$(rel "$p"): subject must start with '<JIRA>. ' (e.g. 'HDFS-16262. Async refresh ...')"
  local key
  for key in Bug Forwarded Origin Last-Update; do
    [ -n "$(dep3 "$p" "$key")" ] || die "$(rel "$p"): missing '$key:' line in the message"
  done
  v=$(dep3 "$p" Forwarded)
  [[ "$v" =~ ^(no|not-needed|https?://[^\ ]+)$ ]] \
    || die "$(rel "$p"): 'Forwarded: $v': DEP-3 allows no, not-needed or a URL"
  v=$(dep3 "$p" Origin)
  [[ "$v" =~ ^(upstream|backport|vendor|other)(,\ https?://[^\ ]+)?$ ]] \
    || die "$(rel "$p"): 'Origin: $v': expected upstream, backport, vendor or other[, URL]"
  v=$(dep3 "$p" Last-Update)
  [[ "$v" =~ ^[0-9]{4}-[0-9]{2}-[0-9]{2}$ ]] \
    || die "$(rel "$p"): 'Last-Update: $v': expected YYYY-MM-DD"
  v=$(dep3 "$p" Applied-Upstream)
  [ -z "$v" ] || [[ "$v" =~ ^[0-9]+(\.[0-9]+)+(,\ https?://[^\ ]+)?$ ]] \
    || die "$(rel "$p"): 'Applied-Upstream: $v': expected a release (e.g. 3.3.5)[, URL]"
  v=$(git mailinfo /dev/null /dev/null <"$p" | sed -n 's/^Author: //p; s/^Email: / </p' | paste -sd '')
  [ "$v>" = "$(maintainer)" ] \
    || die "$(rel "$p"): author '$v>' is not the maintainer of build-scripts/maintainer"
}

# Extract one sources jar into an upstream-layout module directory.
# extract_sources JAR MODULE_DIR main|test
extract_sources() {
  local jar=$1 dir=$2 kind=$3 tmp f
  tmp=$(mktemp -d)
  unzip -q -o "$jar" -d "$tmp"
  rm -rf "$tmp/META-INF/MANIFEST.MF" "$tmp/META-INF/maven" "$tmp"/META-INF/LICENSE* \
    "$tmp"/META-INF/NOTICE* "$tmp/META-INF/DEPENDENCIES"
  # Code generated by upstream's build (protobuf, Jamon, JSP) lives in target/ upstream, not src/.
  local gen="$dir/target/generated-sources/java"
  [ "$kind" = main ] || gen="$dir/target/generated-test-sources/java"
  (cd "$tmp" && grep -rlE --include='*.java' \
    'Generated by the protocol buffer compiler|Autogenerated Jamon|org\.apache\.jasper\.runtime' . \
    || true) | while IFS= read -r f; do
      mkdir -p "$gen/$(dirname "$f")"; mv "$tmp/$f" "$gen/$f"
    done
  (cd "$tmp" && find . -type f) | while IFS= read -r f; do
    local to
    case "$f" in
      *.java|*/package.html|*/overview.html) to="src/$kind/java" ;;
      *.jamon) to="src/$kind/jamon" ;;
      *) to="src/$kind/resources" ;;
    esac
    mkdir -p "$dir/$to/$(dirname "$f")"
    mv "$tmp/$f" "$dir/$to/$f"
  done
  rm -rf "$tmp"
}

# pristine_dir: where pristine keeps the upstream tree of the current project, VERSION and
# modules (lines with the same baseline and modules share it).
pristine_dir() {
  echo "$BUILD_ROOT/pristine/$PROJECT-$VERSION-$(sha1sum <<<"$MODULES" | cut -c1-8)"
}

# pristine: makes (once) pristine_dir: the upstream tree of the rebuilt modules at VERSION.
pristine() {
  local out stamp="$PROJECT $VERSION $MODULES" lock
  out=$(pristine_dir)
  if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; then return; fi
  # Made once: a script that runs side by side with this one waits for it, then finds it made.
  mkdir -p "$BUILD_ROOT/pristine"
  exec {lock}>>"$out.lock"
  flock "$lock"
  if [ -f "$out/.stamp" ] && [ "$(cat "$out/.stamp")" = "$stamp" ]; then
    exec {lock}>&-; return
  fi
  info "unpacking pristine $PROJECT $VERSION sources from Maven Central"
  local tmp="$out.tmp.$$" a path main test pom
  rm -rf "$tmp"; mkdir -p "$tmp"
  while read -r a path; do
    if new_module_base "$a" >/dev/null; then continue; fi
    main=$(fetch "$GROUP:$a:$VERSION:jar:sources") \
      && test=$(fetch "$GROUP:$a:$VERSION:jar:test-sources") \
      && pom=$(fetch "$GROUP:$a:$VERSION:pom") || { rm -rf "$tmp"; exit 1; }
    extract_sources "$main" "$tmp/$path" main
    extract_sources "$test" "$tmp/$path" test
    cp "$pom" "$tmp/$path/pom.xml"
  done < <(modules)
  echo "$stamp" >"$tmp/.stamp"
  rm -rf "$out"; mv "$tmp" "$out"
  exec {lock}>&-
}

# add_release TREE: commits pristine_dir (made by pristine) into the git tree TREE as a root
# commit of its own, tagged upstream-VERSION, and leaves TREE on it.
add_release() {
  local tree=$1 src
  src=$(pristine_dir)
  (
    cd "$tree"
    git_fixed checkout -q --orphan "release-$VERSION"
    git_fixed rm -rq --cached .
    find . -mindepth 1 -maxdepth 1 ! -name .git -exec rm -rf {} +
    cp -a "$src/." .
    rm -f .stamp
    git_fixed add -A .
    git_fixed commit -q -m "Pristine Apache $NAME $VERSION (Maven Central sources jars)"
    git_fixed tag "upstream-$VERSION"
  ) || die "could not add $NAME $VERSION to $(rel "$tree")"
}

# onto_version RELEASE: the version of the current project's artifacts for RELEASE: with the
# suffix of the line's baseline version if Maven Central has that build (2.6.6 on a line based on
# 2.6.4-hadoop3: 2.6.6-hadoop3), else RELEASE itself.
onto_version() {
  local r=$1 suffix=""
  [[ "$r" == *-* ]] || [[ "$VERSION" != *-* ]] || suffix="-${VERSION#*-}"
  if [ -n "$suffix" ] && on_central "$r$suffix"; then echo "$r$suffix"; else echo "$r"; fi
}

# on_central VERSION: whether Maven Central has some rebuilt module of the current project at
# VERSION (its POM).
on_central() {
  local a path
  while read -r a path; do
    if new_module_base "$a" >/dev/null; then continue; fi
    if (fetch "$GROUP:$a:$1:pom") >/dev/null 2>&1; then return 0; fi
  done < <(modules)
  return 1
}

# release_of VERSION: the release a version belongs to (2.6.4-hadoop3 -> 2.6.4).
release_of() { echo "${1%%-*}"; }
# version_le A B: whether release A is B or older.
version_le() { [ "$(printf '%s\n%s\n' "$1" "$2" | sort -V | head -1)" = "$1" ]; }
# applied_upstream PATCH RELEASE: whether the patch's Applied-Upstream release is RELEASE or older
# (upstream ships the feature there; the patch drops out of a series on RELEASE).
applied_upstream() {
  local v
  v=$(dep3 "$1" Applied-Upstream); v=${v%%,*}
  [ -n "$v" ] && version_le "$v" "$(release_of "$2")"
}

# Fixed identity and dates so that trees made from the same inputs have the same commit ids.
git_fixed() {
  GIT_AUTHOR_NAME="lh-build" GIT_AUTHOR_EMAIL="lh-build@localhost" \
  GIT_COMMITTER_NAME="lh-build" GIT_COMMITTER_EMAIL="lh-build@localhost" \
  GIT_AUTHOR_DATE="2000-01-01T00:00:00Z" GIT_COMMITTER_DATE="2000-01-01T00:00:00Z" \
  git -c core.autocrlf=false -c commit.gpgsign=false "$@"
}

# make_tree DEST: a git tree of the pristine sources plus one commit per patch (git am), made
# aside and moved into DEST only when every patch applied; DEST is left as it was otherwise.
make_tree() {
  local dest=$1 tmp p
  local -a patches=() list
  list=$(series_patches) || exit 1
  [ -z "$list" ] || mapfile -t patches <<<"$list"
  for p in "${patches[@]}"; do check_patch "$p"; done
  pristine
  tmp="$dest.tmp.$$"
  rm -rf "$tmp"; mkdir -p "$(dirname "$dest")"
  cp -a "$(pristine_dir)" "$tmp"
  rm -f "$tmp/.stamp"
  (
    cd "$tmp"
    git_fixed init -q -b pristine .
    printf 'target/classes/\n' >.git/info/exclude
    git_fixed add -A .
    git_fixed commit -q -m "Pristine Apache $NAME $VERSION (Maven Central sources jars)"
    git_fixed tag "upstream-$VERSION"
    git_fixed checkout -q -b series
    for p in "${patches[@]}"; do
      if ! out=$(git_fixed -c user.name=lh-build -c user.email=lh-build@localhost \
          am --committer-date-is-author-date "$p" 2>&1); then
        echo "$out" | grep -E '^(error|Patch failed)' >&2
        echo "error: patch $(basename "$p") does not apply to $PROJECT $VERSION" \
          "(see the failing file above)" >&2
        exit 1
      fi
    done
  ) || { rm -rf "$tmp"; exit 1; }
  rm -rf "$dest"; mv "$tmp" "$dest"
}

# source_date_epoch hadoop|hbase: the time stamp of the project's rebuilt jars, in seconds since
# 1970: the time of the last commit that changed the inputs of its build (its baseline folder but
# for the test lists known-flaky, regression-tests and upstream-tests, and Hadoop's too for
# HBase, which is built against the rebuilt Hadoop; the build script and its lib/). Each project
# has its own, so that a commit to the HBase series leaves the Hadoop jars as
# they were; inputs_hash holds it, so that a build whose jars would get another stamp rebuilds
# them: two builds of one commit, a fresh one and one on top of an earlier build, give
# byte-identical jars. $SOURCE_DATE_EPOCH if set (the reproducible-builds.org convention);
# 1980-01-01 outside a git clone.
source_date_epoch() {
  if [ -n "${SOURCE_DATE_EPOCH:-}" ]; then
    [[ "$SOURCE_DATE_EPOCH" =~ ^[0-9]+$ ]] \
      || die "SOURCE_DATE_EPOCH=$SOURCE_DATE_EPOCH is not a number of seconds since 1970"
    echo "$SOURCE_DATE_EPOCH"; return
  fi
  local t d paths=() folders=("hadoop-patches/$HADOOP_BASELINE")
  mapfile -t -O 1 folders < <(shared_folders hadoop)
  case "${1:-}" in
    hadoop) ;;
    hbase) folders+=("hbase-patches/$HBASE_BASELINE"); mapfile -t -O ${#folders[@]} folders \
      < <(shared_folders hbase) ;;
    *) die "source_date_epoch: expected hadoop or hbase, got '${1:-}'" ;;
  esac
  for d in "${folders[@]}"; do
    paths+=("$d" ":(exclude)$d/known-flaky" ":(exclude)$d/regression-tests"
      ":(exclude)$d/upstream-tests")
  done
  t=$(git -C "$TOP" log -1 --format=%ct -- "${paths[@]}" build-scripts/build build-scripts/lib \
    build-scripts/versions 2>/dev/null) || t=""
  echo "${t:-315532800}"
}

# inputs_hash: a hash of everything the build of the current project depends on.
inputs_hash() {
  {
    cat "$TOP/build-scripts/versions" "$TOP"/build-scripts/build
    find "$TOP/build-scripts/lib" -type f -print0 | LC_ALL=C sort -z | xargs -0 cat
    echo "$LINE $MODULES $MVN_FLAGS $VERSION"
    compile_excludes
    if [ -d "$PATCHES/test-deps" ]; then cat "$PATCHES"/test-deps/*; fi
    cat "$PATCHES/series"
    local list; list=$(series_patches) || exit 1
    [ -z "$list" ] || xargs -r -d '\n' cat <<<"$list"
    echo "$JVM_FLAGS"
    echo "jar time stamp $(source_date_epoch "$PROJECT")"
  } | sha256sum | awk '{print $1}'
}

# Maven copies artifacts it resolves from the file repository build/repo into the local
# repository; drop those copies of the vendor versions so that the jars just built are used.
drop_cached_vendor_artifacts() {
  local p a path
  for p in hadoop hbase; do
    project_vars "$p"
    while read -r a path; do rm -rf "$M2_REPO/${GROUP//.//}/$a/$VVERSION"; done < <(modules)
  done
}

# run_harness_main NAME CLASS [ARG...]: compiles integration-tests against build/repo and runs
# CLASS (a main class of its test sources) in one JVM with the harness's host names; logs and
# data go to build/NAME/.
compile_harness() {
  local it="$TOP/integration-tests"
  drop_cached_vendor_artifacts
  info "compiling the integration harness"
  (cd "$it" && "${MVN[@]}" test-compile dependency:build-classpath "${IT_MAVEN_ARGS[@]}" \
    -Dmdep.includeScope=test -Dmdep.outputFile="$IT_TARGET/harness.classpath") \
    || die "could not compile integration-tests against build/repo"
}

run_harness_main() {
  local name=$1 cls=$2 it="$TOP/integration-tests"; shift 2
  compile_harness
  mkdir -p "$BUILD/$name/logs"
  info "running $cls (cluster log: $(rel "$BUILD/$name")/logs/cluster.log)"
  # From the project's directory, so that the report's path is printed relative to it.
  # shellcheck disable=SC2086
  (cd "$TOP" && java $JVM_FLAGS -Xmx3g -Djava.net.preferIPv4Stack=true \
    -Djdk.net.hosts.file="$IT_TARGET/hosts" -Dlh.log.dir="$BUILD/$name/logs" \
    -Dtest.build.data.basedirectory="$BUILD/$name/data/" -Dtest.build.data="$BUILD/$name/data" \
    -Dlh.report.dir="$(rel "$BUILD")/report" \
    -cp "$IT_TARGET/test-classes:$(cat "$IT_TARGET/harness.classpath")" "$cls" "$@")
}

# run_cluster_main CLASS [ARG...]: runs CLASS (a main class of the integration harness) on host0
# of the real cluster of build-scripts/cluster, which must be up, with the harness's classes and
# its chart library after the cluster's classpath; reports go to build/<line>/report/real-cluster/.
run_cluster_main() {
  local it="$TOP/integration-tests" charts
  charts=$(tr ':' '\n' <"$IT_TARGET/harness.classpath" | grep '/jfreechart-' | head -1)
  [ -n "$charts" ] || die "no jfreechart jar in $(rel "$IT_TARGET")/harness.classpath"
  # From the project's directory, so that the report's path is printed relative to it.
  (cd "$TOP" && LH_EXTRA_CLASSPATH="$IT_TARGET/test-classes:$charts" \
    "$TOP/build-scripts/cluster" java host0 -Xmx1g -Djava.awt.headless=true \
    -Dlh.cluster.script="$TOP/build-scripts/cluster" -Dlh.report.dir="$(rel "$BUILD")/report/real-cluster" \
    "$@")
}

# The default line: $LH_LINE (set by a script that runs this one), else the first of
# build-scripts/lines. A script's --line option (line_option) selects another.
select_line "${LH_LINE:-$(lines | awk 'NR == 1 {print $1}')}"
