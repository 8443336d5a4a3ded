#!/usr/bin/env bash
# Side by side on one Kafka cluster (issue 17 item 6): crater's `bench throughput --broker kafka://...` against
# Kafka's own ProducerPerformance and ConsumerPerformance (kafka-producer-perf-test / kafka-consumer-perf-test, from
# the same jars as the cluster) on the same records: N records of 100-byte values (crater adds 8-byte keys),
# acks=all, one topic of 4 partitions. Then crater's embedded broker on the same bench for scale.
#
#   scripts/kafka-perf.sh [kafka://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3 | start] [records] [in-flight]
#
# With `start` (the default) it starts a 3-node cluster of its own (scripts/kafka-cluster.sh, in a temp dir) and
# stops it at the end, so one command produces both sides. Prints one line per run and, last, the ratios
# crater/Java for produce and consume. Like for like: 100-byte values, 4 partitions, acks=all on both sides (crater's
# records also carry an 8-byte key); consume is fetch time only on both: Java's fetch.nMsg.sec is over fetch.time.ms
# (its run less the group join), crater's fetch phase runs from its first FETCH to the last reply (connect, join and
# close untimed). crater warms up untimed on a topic of its own, the Java tools do not. The crater runs' full reports go to
# bench-results/kafka-perf-*.json, the summary to bench-results/kafka-perf-summary-*.json.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BROKER="${1:-start}"
if [ "$BROKER" = start ]; then
  CRATER_KAFKA_DIR="$(mktemp -d "${TMPDIR:-/tmp}/crater-perf-kafka-XXXXXX")"
  export CRATER_KAFKA_DIR
  trap 'bash "$ROOT/scripts/kafka-cluster.sh" stop >/dev/null 2>&1 || true' EXIT
  BROKER="$(bash "$ROOT/scripts/kafka-cluster.sh" start | sed -n 's/^CRATER_KAFKA_BOOTSTRAP=//p')"
fi
N="${2:-100000}"
IN_FLIGHT="${3:-4}"
BOOT="${BROKER#kafka://}"
JARS="$ROOT/.cache/kafka/jars"
OUT="$ROOT/bench-results"
mkdir -p "$OUT"
java_tool() { java -Xmx512m -Dlog4j.configuration=file:/dev/null -cp "$JARS/*" "$@"; }
stamp=$(date +%s)

echo "== crater bench throughput --broker $BROKER -n $N --in-flight $IN_FLIGHT"
node "$ROOT/bin/run.js" bench throughput --broker "$BROKER" -n "$N" --in-flight "$IN_FLIGHT" --json >"$OUT/kafka-perf-crater-kafka-$stamp.json"
node -e 'const r=require(process.argv[1]); for (const p of ["produce","fetch"]) console.log(`crater/kafka ${p}: ${Math.round(r[p].recordsPerSec)} records/s, ${r[p].mbPerSec.toFixed(2)} MB/s`)' "$OUT/kafka-perf-crater-kafka-$stamp.json"

topic="perf-java-$stamp"
java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --create --topic "$topic" --partitions 4 >/dev/null
echo "== ProducerPerformance --num-records $N --record-size 100 acks=all"
java_prod=$(java_tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$N" --record-size 100 --throughput -1 \
  --producer-props bootstrap.servers="$BOOT" acks=all 2>/dev/null | tail -1)
echo "$java_prod"
echo "== ConsumerPerformance --messages $N"
java_cons=$(java_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOT" --topic "$topic" --messages "$N" --timeout 60000 2>/dev/null | tail -2)
echo "$java_cons"
java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --delete --topic "$topic" >/dev/null || true

echo "== crater bench throughput (embedded crater broker) -n $N --in-flight $IN_FLIGHT"
node "$ROOT/bin/run.js" bench throughput -n "$N" --in-flight "$IN_FLIGHT" --json >"$OUT/kafka-perf-crater-embedded-$stamp.json"
node -e 'const r=require(process.argv[1]); for (const p of ["produce","fetch"]) console.log(`crater/embedded ${p}: ${Math.round(r[p].recordsPerSec)} records/s, ${r[p].mbPerSec.toFixed(2)} MB/s`)' "$OUT/kafka-perf-crater-embedded-$stamp.json"

# The ratios: ProducerPerformance's last line "N records sent, R records/sec (...)"; ConsumerPerformance's CSV
# (start.time, end.time, data.consumed.in.MB, MB.sec, data.consumed.in.nMsg, nMsg.sec, rebalance.time.ms,
# fetch.time.ms, fetch.MB.sec, fetch.nMsg.sec): fetch.nMsg.sec is the last field.
node -e '
  const [crater, prod, cons, load, n, out] = process.argv.slice(1);
  const r = require(crater);
  const javaProduce = Number(/([\d.]+) records\/sec/.exec(prod)?.[1]);
  const javaConsume = Number(cons.trim().split("\n").at(-1).split(",").at(-1));
  const s = {
    records: Number(n), load: Number(load),
    produce: { crater: Math.round(r.produce.recordsPerSec), java: javaProduce, ratio: +(r.produce.recordsPerSec / javaProduce).toFixed(2) },
    consume: { crater: Math.round(r.fetch.recordsPerSec), java: javaConsume, ratio: +(r.fetch.recordsPerSec / javaConsume).toFixed(2) },
  };
  require("node:fs").writeFileSync(out, JSON.stringify(s, null, 2) + "\n");
  console.log(`== crater/java on Kafka: produce ${s.produce.ratio}x (${s.produce.crater} vs ${s.produce.java} records/s), consume ${s.consume.ratio}x (${s.consume.crater} vs ${s.consume.java} records/s), load ${load}`);
' "$OUT/kafka-perf-crater-kafka-$stamp.json" "$java_prod" "$java_cons" "$(cut -d' ' -f1 /proc/loadavg)" "$N" "$OUT/kafka-perf-summary-$stamp.json"
