#!/usr/bin/env bash
# Side by side on one Kafka cluster (issue 17 item 6): crater's `bench throughput --broker kafka://...` against
# Kafka's own ProducerPerformance and ConsumerPerformance (kafka-producer-perf-test / kafka-consumer-perf-test, from
# the same jars as the cluster) on the same records: N records of 100-byte values (crater adds 8-byte keys),
# acks=all, one topic of 4 partitions. Then crater's embedded broker on the same bench for scale.
#
#   scripts/kafka-perf.sh kafka://127.0.0.1:P1,127.0.0.1:P2,127.0.0.1:P3 [records] [in-flight]
#
# Prints one line per run; the crater runs' full reports go to bench-results/kafka-perf-*.json.
set -euo pipefail
ROOT="$(cd "$(dirname "$0")/.." && pwd)"
BROKER="${1:?usage: $0 kafka://host:port,... [records] [in-flight]}"
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
java_tool org.apache.kafka.tools.ProducerPerformance --topic "$topic" --num-records "$N" --record-size 100 --throughput -1 \
  --producer-props bootstrap.servers="$BOOT" acks=all 2>/dev/null | tail -1
echo "== ConsumerPerformance --messages $N"
java_tool org.apache.kafka.tools.ConsumerPerformance --bootstrap-server "$BOOT" --topic "$topic" --messages "$N" --timeout 60000 2>/dev/null | tail -2
java_tool org.apache.kafka.tools.TopicCommand --bootstrap-server "$BOOT" --delete --topic "$topic" >/dev/null || true

echo "== crater bench throughput (embedded crater broker) -n $N --in-flight $IN_FLIGHT"
node "$ROOT/bin/run.js" bench throughput -n "$N" --in-flight "$IN_FLIGHT" --json >"$OUT/kafka-perf-crater-embedded-$stamp.json"
node -e 'const r=require(process.argv[1]); for (const p of ["produce","fetch"]) console.log(`crater/embedded ${p}: ${Math.round(r[p].recordsPerSec)} records/s, ${r[p].mbPerSec.toFixed(2)} MB/s`)' "$OUT/kafka-perf-crater-embedded-$stamp.json"
