# shellcheck shell=bash
# Shared by the bin/ launchers: find JDK 25+, build the jars when needed, run
# the jrdma tools on the JPMS module path.  Source it; it defines functions and
# JRDMA_ROOT only.
#
# Environment:
#   JAVA_HOME         used when it is JDK 25 or newer; else the newest >= 25 in /usr/lib/jvm
#   JRDMA_JVM_DIR     where to look for JDKs (default /usr/lib/jvm)
#   JRDMA_BUILD       auto (default: build when a source or pom is newer than the jars),
#                     always, never
#   JRDMA_JAVA_OPTS   extra JVM options, split on blanks (e.g. "-Xmx512m -Djrdma.devices=jrxe0=fd77::1")

JRDMA_ROOT=$(cd "$(dirname "$(readlink -f "${BASH_SOURCE[0]}")")/../.." && pwd)
JRDMA_MAIN_MODULE=org.jrdma.perftest
JRDMA_MAIN_CLASS=org.jrdma.perftest.Jrdma
JRDMA_TOOL_DIR=$JRDMA_ROOT/jrdma-perftest          # the Maven module whose jar + lib/ we run
JRDMA_LIB=$JRDMA_TOOL_DIR/target/lib                 # runtime dependencies (copy-dependencies)
JRDMA_STAMP=$JRDMA_LIB/.built                        # touched after a successful build
JRDMA_BUILD_LOG=$JRDMA_ROOT/target/jrdma-build.log

jrdma_die() { echo "jrdma: $*" >&2; exit 1; }

# Major version of the JDK in directory $1 (empty if it is not a JDK).
jrdma_jdk_major() {
  local home=$1 v=""
  [[ -x $home/bin/java && -x $home/bin/javac ]] || return 0
  if [[ -r $home/release ]]; then
    v=$(sed -n 's/^JAVA_VERSION="\{0,1\}\([^"]*\)"\{0,1\}$/\1/p' "$home/release")
  fi
  [[ -n $v ]] || v=$("$home/bin/java" -XshowSettings:properties -version 2>&1 |
                     sed -n 's/^ *java\.specification\.version = //p')
  v=${v#1.}                       # 1.8 -> 8
  echo "${v%%[.+-]*}"
}

# Sets JRDMA_JAVA_HOME to a JDK >= 25 (JAVA_HOME first, then the newest in JRDMA_JVM_DIR).
jrdma_find_jdk() {
  local min=25 best="" bestv=0 d v
  if [[ -n ${JAVA_HOME:-} ]]; then
    v=$(jrdma_jdk_major "$JAVA_HOME")
    if [[ -n $v ]] && ((v >= min)); then JRDMA_JAVA_HOME=$JAVA_HOME; return 0; fi
  fi
  for d in "${JRDMA_JVM_DIR:-/usr/lib/jvm}"/*/; do
    d=${d%/}
    v=$(jrdma_jdk_major "$d")
    [[ -n $v ]] && ((v >= min && v > bestv)) && { best=$d; bestv=$v; }
  done
  [[ -n $best ]] || jrdma_die "no JDK $min or newer: JAVA_HOME=${JAVA_HOME:-(unset)}, nothing >= $min in ${JRDMA_JVM_DIR:-/usr/lib/jvm} (install JDK $min, e.g. Temurin, or set JAVA_HOME)"
  JRDMA_JAVA_HOME=$best
}

# The runtime modules the tool jar depends on (their source trees decide staleness).
jrdma_sources() {
  local m
  echo "$JRDMA_ROOT/pom.xml"
  echo "$JRDMA_TOOL_DIR/pom.xml"; echo "$JRDMA_TOOL_DIR/src/main"
  for m in "$JRDMA_LIB"/jrdma-*.jar; do
    [[ -e $m ]] || continue
    m=${m##*/}; m=${m%-[0-9]*.jar}
    [[ -d $JRDMA_ROOT/$m ]] && { echo "$JRDMA_ROOT/$m/pom.xml"; echo "$JRDMA_ROOT/$m/src/main"; }
  done
}

jrdma_tool_jar() {
  local j
  for j in "$JRDMA_TOOL_DIR"/target/jrdma-perftest-*.jar; do
    [[ -f $j && $j != *-sources.jar && $j != *-javadoc.jar && $j != *-tests.jar ]] && { echo "$j"; return 0; }
  done
  return 1
}

jrdma_stale() {
  [[ -f $JRDMA_STAMP ]] && jrdma_tool_jar >/dev/null || return 0
  local newer
  newer=$(find $(jrdma_sources) -newer "$JRDMA_STAMP" -print -quit 2>/dev/null)
  [[ -n $newer ]]
}

# Runs Maven (JAVA_HOME = the JDK found) with MAVEN_OPTS quieting JDK 25's
# warnings about Maven's own libraries.
jrdma_mvn() {
  command -v mvn >/dev/null || jrdma_die "Maven (mvn) not found: install it (apt-get install maven)"
  JAVA_HOME=$JRDMA_JAVA_HOME \
  MAVEN_OPTS="--sun-misc-unsafe-memory-access=allow --enable-native-access=ALL-UNNAMED ${MAVEN_OPTS:-}" \
    mvn "$@"
}

# Builds the tool jar and its runtime dependencies (target/lib) if stale;
# output goes to $JRDMA_BUILD_LOG, shown only on failure.  Offline first
# (fast, no network), online when something is missing from ~/.m2.
jrdma_build() {
  local mode=${JRDMA_BUILD:-auto}
  case $mode in
    never) jrdma_tool_jar >/dev/null || jrdma_die "not built and JRDMA_BUILD=never (run bin/jrdma once without it)"; return 0;;
    always|auto) ;;
    *) jrdma_die "JRDMA_BUILD must be auto, always or never";;
  esac
  [[ $mode == always ]] || jrdma_stale || return 0
  mkdir -p "$JRDMA_ROOT/target"
  exec 9>"$JRDMA_ROOT/target/.jrdma-build.lock"
  flock 9                                     # one build at a time (e.g. server + client)
  if [[ $mode == always ]] || jrdma_stale; then
    echo "jrdma: building (log: ${JRDMA_BUILD_LOG#"$PWD"/}) ..." >&2
    local args=(-B -f "$JRDMA_ROOT/pom.xml" -pl jrdma-perftest -am -DskipTests
                package dependency:copy-dependencies -DincludeScope=runtime -DoutputDirectory=target/lib)
    rm -rf "$JRDMA_LIB"
    local t0=$SECONDS
    if ! { echo "== mvn -o ${args[*]}"; jrdma_mvn -o "${args[@]}"; } >"$JRDMA_BUILD_LOG" 2>&1; then
      if ! { echo "== offline build failed; retrying online"; echo "== mvn ${args[*]}"; jrdma_mvn "${args[@]}"; } >>"$JRDMA_BUILD_LOG" 2>&1; then
        grep -E '^\[(ERROR|WARNING)\]|BUILD' "$JRDMA_BUILD_LOG" | tail -n 60 >&2
        exec 9>&-
        jrdma_die "build failed; full log: $JRDMA_BUILD_LOG"
      fi
    fi
    touch "$JRDMA_STAMP"
    echo "jrdma: built in $((SECONDS - t0)) s" >&2
  fi
  exec 9>&-
}

# The java command line (array JRDMA_CMD) that runs the jrdma tool on the module path.
jrdma_command() {
  local jar opts=()
  jar=$(jrdma_tool_jar) || jrdma_die "no jrdma-perftest jar in $JRDMA_TOOL_DIR/target"
  [[ -n ${JRDMA_JAVA_OPTS:-} ]] && read -ra opts <<<"$JRDMA_JAVA_OPTS"
  JRDMA_CMD=("$JRDMA_JAVA_HOME/bin/java" --enable-native-access=org.jrdma.rocev2,org.jrdma.soft,org.jrdma.ibverbs,org.jrdma.app "${opts[@]}"
             -p "$jar:$JRDMA_LIB" -m "$JRDMA_MAIN_MODULE/$JRDMA_MAIN_CLASS")
}

# Everything a launcher needs before exec: JDK, build, command line.
jrdma_prepare() {
  jrdma_find_jdk
  jrdma_build
  jrdma_command
}
