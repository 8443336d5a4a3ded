/**
 * The hand-batching baseline of `bench producer` (what `bench throughput --in-flight 4` measures): each producer's
 * connection sends ready-made PRODUCE_BATCHes of `batchSize` records, `inFlight` at a time, until the deadline.
 * The accumulator is measured against it in the same run, on the same broker.
 */
import type { Backend as Client } from '../client/backend.js';
import type { ProducerRecord } from '../client/producer/sink.js';
import { perSecond } from './stats.js';

export interface BaselineFigures {
  batchSize: number;
  inFlight: number;
  records: number;
  wallMs: number;
  recordsPerSec: number;
}

export async function handBatches(
  clients: readonly Client[],
  topic: string,
  records: readonly ProducerRecord[],
  durationMs: number,
  inFlight = 4,
  batchSize = 1_000,
): Promise<BaselineFigures> {
  const batch = Array.from({ length: batchSize }, (_, i) => records[i % records.length]!);
  let sent = 0;
  const start = performance.now();
  const until = start + durationMs;
  const slot = async (client: Client): Promise<void> => {
    while (performance.now() < until) {
      const result = await client.produceBatch(topic, batch);
      if (result.error) throw result.error;
      sent += result.acks.length;
    }
  };
  await Promise.all(clients.flatMap((c) => Array.from({ length: inFlight }, () => slot(c))));
  const wallMs = performance.now() - start;
  return { batchSize, inFlight, records: sent, wallMs, recordsPerSec: perSecond(sent, wallMs) };
}
