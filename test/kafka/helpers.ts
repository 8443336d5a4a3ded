/**
 * The Kafka suite's shared pieces: the cluster that test/kafka/global-setup.ts started (or null: skip), unique
 * names, fault helpers over scripts/kafka-cluster.sh, and a poll-until-deadline for the cluster's state.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import path from 'node:path';
import { promisify } from 'node:util';
import { inject } from 'vitest';
import { connectKafka, type KafkaBackend } from '../../src/client/kafka/kafka-backend.js';
import { until } from '../helpers/eventually.js';

export const kafkaBootstrap: string | null = inject('kafkaBootstrap');
const clusterDir: string | null = inject('kafkaClusterDir');

/** True when no cluster could be started: `describe.skipIf(noKafka)` (the global setup printed one warning line). */
export const noKafka = kafkaBootstrap === null;

export function bootstrap(): string {
  if (kafkaBootstrap === null) throw new Error('no Kafka cluster');
  return kafkaBootstrap;
}

export function uniqueName(prefix: string): string {
  return `${prefix}-${randomBytes(4).toString('hex')}`;
}

export function openKafka(): Promise<KafkaBackend> {
  return connectKafka({ bootstrap: bootstrap(), timeoutMs: 30_000 });
}

const script = path.resolve(import.meta.dirname, '../../scripts/kafka-cluster.sh');

/** `kafka-cluster.sh kill N` (SIGKILL, waits until the process is gone) or `restart N` (waits until it serves). */
export async function cluster(command: 'kill' | 'restart', node: 1 | 2 | 3): Promise<void> {
  if (clusterDir === null) throw new Error('fault tests need CRATER_KAFKA_DIR for a cluster started outside the suite');
  await promisify(execFile)('bash', [script, command, String(node)], {
    env: { ...process.env, CRATER_KAFKA_DIR: clusterDir },
  });
}

/** Polls `check` until it returns a value other than undefined, or fails after `timeoutMs`. */
export function pollUntil<T>(what: string, check: () => Promise<T | undefined>, timeoutMs = 60_000): Promise<T> {
  let last: unknown;
  const lastError = (): string =>
    last ? ` (last error: ${last instanceof Error ? last.message : JSON.stringify(last)})` : '';
  return until(
    async () => {
      try {
        return await check();
      } catch (error) {
        last = error;
        return undefined;
      }
    },
    { what: () => `${what}: within ${timeoutMs} ms${lastError()}`, timeoutMs, intervalMs: 200 },
  );
}

/** Waits until every partition of `topic` has `size` in-sync replicas (after a broker came back). */
export function waitForIsr(kafka: KafkaBackend, topic: string, size: number, timeoutMs = 90_000): Promise<true> {
  return pollUntil(
    `${topic} back to ISR ${size}`,
    async () => {
      const metadata = await kafka.admin.metadata({ topics: [topic], forceUpdate: true });
      const partitions = metadata.topics.get(topic)?.partitions ?? [];
      return partitions.length > 0 && partitions.every((p) => p.isr.length >= size) ? true : undefined;
    },
    timeoutMs,
  );
}
