#!/usr/bin/env bash
# A local Apache Kafka test cluster: three KRaft nodes, each a combined controller+broker, on free loopback ports.
#
#   scripts/kafka-cluster.sh start          resolve the jars (once), format storage, start 3 nodes, wait until the
#                                           cluster answers metadata; prints CRATER_KAFKA_BOOTSTRAP=kafka://h:p,h:p,h:p
#   scripts/kafka-cluster.sh stop           SIGTERM the nodes this script started (SIGKILL after 20 s), remove the dir
#   scripts/kafka-cluster.sh status         one line per node: node id, pid, running|stopped, broker port
#   scripts/kafka-cluster.sh kill N         SIGKILL node N (1..3), for fault tests
#   scripts/kafka-cluster.sh restart N      start node N again on its own storage and ports
#   scripts/kafka-cluster.sh jars           only resolve the jars (the Maven step)
#   scripts/kafka-cluster.sh jars --cached  exit 0 if the jars are already resolved for this pom, 1 if not
#
# State (configs, data, logs, pids) lives in $CRATER_KAFKA_DIR (default .cache/kafka/cluster). Only pids recorded
# there are ever signalled, and only while they still run a java process with that dir on its command line.
# The jars come from test/kafka/pom.xml into .cache/kafka/jars through a Maven repository in .cache/kafka/m2 (both
# git-ignored; CRATER_MAVEN_REPO moves the Maven repository elsewhere); a stamp of the pom's hash makes a second run
# skip Maven entirely.
set -euo pipefail

ROOT="$(cd "$(dirname "$0")/.." && pwd)"
CACHE="$ROOT/.cache/kafka"
JARS="$CACHE/jars"
POM="$ROOT/test/kafka/pom.xml"
DIR="${CRATER_KAFKA_DIR:-$CACHE/cluster}"
NODES=3
HEAP="${CRATER_KAFKA_HEAP:--Xms128m -Xmx384m}"
START_TIMEOUT_S="${CRATER_KAFKA_START_TIMEOUT:-180}"

log() { echo "kafka-cluster: $*" >&2; }
die() { log "$*"; exit 1; }

need_java() {
  command -v java >/dev/null 2>&1 || die "java not found: Kafka 4.x needs Java 17 or newer on PATH"
}

jars_cached() {
  [ -f "$JARS/.pom-sha256" ] && [ "$(cat "$JARS/.pom-sha256")" = "$(sha256sum "$POM" | cut -d' ' -f1)" ]
}

resolve_jars() {
  local stamp="$JARS/.pom-sha256" want
  want="$(sha256sum "$POM" | cut -d' ' -f1)"
  if jars_cached; then return 0; fi
  command -v mvn >/dev/null 2>&1 || die "mvn not found: needed once to fetch the Kafka jars from Maven Central"
  log "resolving Kafka jars with Maven into $JARS"
  rm -rf "$JARS"
  mvn -B -q -f "$POM" -Dmaven.repo.local="${CRATER_MAVEN_REPO:-$CACHE/m2}" dependency:copy-dependencies >&2 || die "maven failed to resolve the Kafka jars"
  echo "$want" >"$stamp"
}

# Prints N distinct free loopback ports (bound together, then released; the window for a race is tiny).
free_ports() {
  node -e '
    const net = require("node:net");
    const n = Number(process.argv[1]);
    const servers = [];
    let left = n;
    for (let i = 0; i < n; i++) {
      const s = net.createServer();
      servers.push(s);
      s.listen(0, "127.0.0.1", () => { if (--left === 0) { console.log(servers.map((x) => x.address().port).join(" ")); servers.forEach((x) => x.close()); } });
    }
  ' "$1"
}

write_configs() {
  local ports=($1) voters="" i
  for i in $(seq 1 $NODES); do
    voters+="${voters:+,}$i@127.0.0.1:${ports[$((NODES + i - 1))]}"
  done
  for i in $(seq 1 $NODES); do
    local b=${ports[$((i - 1))]} c=${ports[$((NODES + i - 1))]}
    mkdir -p "$DIR/node$i/data"
    cat >"$DIR/node$i/server.properties" <<EOF
process.roles=broker,controller
node.id=$i
controller.quorum.voters=$voters
listeners=PLAINTEXT://127.0.0.1:$b,CONTROLLER://127.0.0.1:$c
advertised.listeners=PLAINTEXT://127.0.0.1:$b
controller.listener.names=CONTROLLER
inter.broker.listener.name=PLAINTEXT
listener.security.protocol.map=PLAINTEXT:PLAINTEXT,CONTROLLER:PLAINTEXT
log.dirs=$DIR/node$i/data
auto.create.topics.enable=false
num.partitions=1
default.replication.factor=3
min.insync.replicas=2
offsets.topic.replication.factor=3
offsets.topic.num.partitions=6
transaction.state.log.replication.factor=3
transaction.state.log.min.isr=2
transaction.state.log.num.partitions=6
share.coordinator.state.topic.replication.factor=3
share.coordinator.state.topic.min.isr=2
group.initial.rebalance.delay.ms=0
num.network.threads=2
num.io.threads=4
num.recovery.threads.per.data.dir=1
background.threads=2
log.cleaner.threads=1
log.cleaner.dedupe.buffer.size=8388608
replica.lag.time.max.ms=10000
# A killed node is declared dead (and its partitions get new leaders) after 4 s instead of 9.
broker.session.timeout.ms=4000
broker.heartbeat.interval.ms=1000
EOF
    echo "$b" >"$DIR/node$i/broker.port"
  done
  # The broker logs through SLF4J 1.7 bound to reload4j, which reads log4j 1.x properties.
  cat >"$DIR/log4j.properties" <<'EOF'
log4j.rootLogger=INFO, file
log4j.appender.file=org.apache.log4j.FileAppender
log4j.appender.file.File=${kafka.logs.dir}/server.log
log4j.appender.file.layout=org.apache.log4j.PatternLayout
log4j.appender.file.layout.ConversionPattern=[%d] %p %m (%c)%n
EOF
}

# Sets JAVA to the command line that runs a class from the jars for node $1 (an array, so the classpath's * reaches
# java unexpanded).
java_cmd() {
  local i=$1 heap
  read -ra heap <<<"$HEAP"
  # C1 only (TieredStopAtLevel=1): a node's start took 11 s of CPU with C2 and 7.5 s without it (restart on two loaded
  # cores: 30-33 s -> 20-26 s), and nothing a test cluster runs is hot enough for C2's code to pay for its compiles.
  JAVA=(java "${heap[@]}" -XX:+UseSerialGC -XX:TieredStopAtLevel=1 -Djava.awt.headless=true
    -Dkafka.logs.dir="$DIR/node$i" -Dlog4j.configuration="file:$DIR/log4j.properties"
    -cp "$JARS/*")
}

format_storage() {
  local id i
  # A cluster id is 16 random bytes in base64url. One that starts with '-' (1 in 64) reads as an option to the
  # storage tool's argument parser ("--cluster-id/-t: expected one argument"), so draw until it does not, as
  # Kafka's own Uuid.randomUuid does.
  id="$(node -e 'const c = require("node:crypto"); let id; do id = c.randomBytes(16).toString("base64url"); while (id.startsWith("-")); console.log(id)')"
  for i in $(seq 1 $NODES); do
    java_cmd "$i"
    "${JAVA[@]}" kafka.tools.StorageTool format -t "$id" -c "$DIR/node$i/server.properties" >"$DIR/node$i/format.log" 2>&1 &
  done
  wait || true
  for i in $(seq 1 $NODES); do
    [ -f "$DIR/node$i/data/meta.properties" ] || die "formatting node $i failed: $(tail -5 "$DIR/node$i/format.log")"
  done
}

start_node() {
  local i=$1
  # setsid: the node gets its own session, so a ^C at the terminal that ran `start` does not reach it.
  java_cmd "$i"
  setsid "${JAVA[@]}" kafka.Kafka "$DIR/node$i/server.properties" >"$DIR/node$i/stdout.log" 2>&1 </dev/null &
  echo $! >"$DIR/node$i/pid"
}

# True while pid file $1 names a live java process started on this cluster's dir.
ours() {
  local pid
  [ -f "$1" ] || return 1
  pid="$(cat "$1")"
  [ -r "/proc/$pid/cmdline" ] || return 1
  tr '\0' ' ' <"/proc/$pid/cmdline" | grep -q -- "$DIR/node" || return 1
}

bootstrap() {
  local list="" i
  for i in $(seq 1 $NODES); do list+="${list:+,}127.0.0.1:$(cat "$DIR/node$i/broker.port")"; done
  echo "$list"
}

# Waits until every node's broker port accepts a connection and the cluster reports all nodes in its metadata.
wait_ready() {
  local deadline=$((SECONDS + START_TIMEOUT_S)) i
  for i in "$@"; do
    until (exec 3<>"/dev/tcp/127.0.0.1/$(cat "$DIR/node$i/broker.port")") 2>/dev/null; do
      ours "$DIR/node$i/pid" || die "node $i exited during start: $(tail -20 "$DIR/node$i/server.log" 2>/dev/null)"
      [ $SECONDS -lt $deadline ] || die "node $i did not listen within ${START_TIMEOUT_S}s"
      sleep 0.5
    done
  done
  until node "$ROOT/scripts/kafka-metadata-probe.js" "$(bootstrap)" "$NODES" 2>"$DIR/probe.log"; do
    [ $SECONDS -lt $deadline ] || die "cluster did not report $NODES brokers within ${START_TIMEOUT_S}s: $(cat "$DIR/probe.log")"
    sleep 1
  done
}

cmd_start() {
  need_java
  resolve_jars
  if ours "$DIR/node1/pid" || ours "$DIR/node2/pid" || ours "$DIR/node3/pid"; then
    die "a cluster is already running in $DIR (stop it first)"
  fi
  rm -rf "$DIR"
  mkdir -p "$DIR"
  write_configs "$(free_ports $((NODES * 2)))"
  format_storage
  local t0=$SECONDS i
  for i in $(seq 1 $NODES); do start_node "$i"; done
  if ! wait_ready $(seq 1 $NODES); then cmd_stop; exit 1; fi
  log "3 nodes up in $((SECONDS - t0))s (dir $DIR)"
  echo "CRATER_KAFKA_BOOTSTRAP=kafka://$(bootstrap)"
}

cmd_stop() {
  local i pid deadline
  for i in $(seq 1 $NODES); do
    ours "$DIR/node$i/pid" && kill -TERM "$(cat "$DIR/node$i/pid")" 2>/dev/null || true
  done
  deadline=$((SECONDS + 20))
  for i in $(seq 1 $NODES); do
    while ours "$DIR/node$i/pid"; do
      if [ $SECONDS -ge $deadline ]; then kill -KILL "$(cat "$DIR/node$i/pid")" 2>/dev/null || true; fi
      sleep 0.2
    done
  done
  [ -d "$DIR" ] && [ -z "${CRATER_KAFKA_KEEP:-}" ] && rm -rf "$DIR"
  return 0
}

cmd_status() {
  local i state
  [ -d "$DIR" ] || { echo "no cluster in $DIR"; return 1; }
  for i in $(seq 1 $NODES); do
    if ours "$DIR/node$i/pid"; then state=running; else state=stopped; fi
    echo "node $i pid $(cat "$DIR/node$i/pid" 2>/dev/null || echo -) $state 127.0.0.1:$(cat "$DIR/node$i/broker.port")"
  done
  echo "CRATER_KAFKA_BOOTSTRAP=kafka://$(bootstrap)"
}

node_arg() {
  [[ "${1:-}" =~ ^[1-3]$ ]] || die "expected a node number 1..3"
}

case "${1:-}" in
  start) cmd_start ;;
  stop) cmd_stop ;;
  status) cmd_status ;;
  kill)
    node_arg "${2:-}"
    ours "$DIR/node$2/pid" || die "node $2 is not running"
    pid="$(cat "$DIR/node$2/pid")"
    kill -KILL "$pid"
    while [ -e "/proc/$pid" ] && ! grep -q '^State:.*Z' "/proc/$pid/status" 2>/dev/null; do sleep 0.1; done
    ;;
  restart)
    node_arg "${2:-}"
    ours "$DIR/node$2/pid" && die "node $2 is running"
    start_node "$2"
    wait_ready "$2"
    ;;
  jars)
    if [ "${2:-}" = "--cached" ]; then jars_cached; else resolve_jars; fi
    ;;
  *) echo "usage: $0 start|stop|status|kill N|restart N|jars" >&2; exit 2 ;;
esac
