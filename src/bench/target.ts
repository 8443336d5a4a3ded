/**
 * Where a benchmark runs: the embedded crater broker in a child process (default), or any broker given by address
 * (a MoonMQ broker included, so only core opcodes are used: CREATE_TOPIC, PRODUCE, PRODUCE_BATCH, FETCH,
 * DELETE_TOPIC), or a Kafka cluster given as kafka://host:port[,...] (the backend seam, backend.ts). Also the records every bench sends, built once and shared.
 */
import { randomBytes } from 'node:crypto';
import type { AcksMode } from '../broker/config.js';
import type { BackendKind, Backend as Client } from '../client/backend.js';
import type { Client as MoonmqClient } from '../client/client.js';
import { connectBackend, moonmqOnly } from '../client/connect-backend.js';
import type { CodecName } from '../protocol/opcodes.js';
import type { ProducerRecord } from '../client/moonmq/produce-ops.js';
import { UsageError } from '../errors.js';
import { EmbeddedBroker } from './embedded-broker.js';

export interface TargetOptions {
  /** `host:port` of a running broker; absent: the embedded broker. */
  broker?: string | undefined;
  /** Embedded broker only (an external broker's acks are its own configuration). */
  acks?: AcksMode | undefined;
  username?: string | undefined;
  password?: string | undefined;
  timeoutMs?: number | undefined;
  /** Node flags for the embedded broker's process, e.g. ['--cpu-prof']. */
  brokerExecArgv?: readonly string[] | undefined;
}

export interface BrokerInfo {
  address: string;
  /** Which backend carried the run: 'moonmq' (crater's broker or MoonMQ) or 'kafka'. */
  backend: BackendKind;
  embedded: boolean;
  serverName: string | null;
  serverVersion: string | null;
  /** The embedded broker's acks; null for an external broker (not observable over the wire). */
  acks: AcksMode | null;
}

export interface BenchTarget {
  info: BrokerInfo;
  /** Present for the embedded broker: fsync counter and RSS over IPC. */
  embedded: EmbeddedBroker | undefined;
  connect(): Promise<Client>;
  /** A MoonMQ-protocol client, for benches built on its own features (accumulator, batch and share consumers). */
  connectMoonmq(what: string): Promise<MoonmqClient>;
  close(): Promise<void>;
}

export async function openTarget(options: TargetOptions): Promise<BenchTarget> {
  if (options.broker !== undefined && options.acks !== undefined) {
    throw new UsageError('--acks applies to the embedded broker only; an external broker acks as it is configured');
  }
  if (options.broker !== undefined && options.brokerExecArgv !== undefined) {
    throw new UsageError('broker profiling applies to the embedded broker only');
  }
  const embedded =
    options.broker === undefined
      ? await EmbeddedBroker.start({ acks: options.acks ?? 'leader', execArgv: options.brokerExecArgv })
      : undefined;
  const address = embedded?.address ?? options.broker!;
  // The embedded broker's address changes when it is restarted.
  const connectClient = (): Promise<Client> =>
    connectBackend({
      broker: embedded?.address ?? address,
      username: options.username,
      password: options.password,
      timeoutMs: options.timeoutMs ?? 30_000,
    });
  try {
    const probe = await connectClient();
    const info: BrokerInfo = {
      address,
      backend: probe.kind,
      embedded: embedded !== undefined,
      serverName: probe.serverName ?? null,
      serverVersion: probe.serverVersion ?? null,
      acks: embedded ? (options.acks ?? 'leader') : null,
    };
    await probe.close();
    const connectMoonmq = async (what: string): Promise<MoonmqClient> => {
      const backend = await connectClient();
      try {
        return moonmqOnly(backend, what);
      } catch (err) {
        await backend.close();
        throw err;
      }
    };
    return { info, embedded, connect: connectClient, connectMoonmq, close: async () => embedded?.close() };
  } catch (err) {
    await embedded?.close();
    throw err;
  }
}

/** A fresh topic per run, so repeated runs against one external broker never read each other's records. */
export function benchTopicName(prefix: string): string {
  return `${prefix}-${Date.now().toString(36)}-${randomBytes(3).toString('hex')}`;
}

export interface RecordShape {
  count: number;
  valueSize: number;
}

/**
 * `count` records with distinct keys (so the key hash spreads them over every partition, as a keyed workload
 * does) and one shared random value of `valueSize` bytes: random so a codec has real work, shared because the
 * frame encoder copies it anyway.
 */
export function benchRecords(shape: RecordShape): ProducerRecord[] {
  const value = randomBytes(shape.valueSize);
  const records = new Array<ProducerRecord>(shape.count);
  for (let i = 0; i < shape.count; i++) records[i] = { key: Buffer.from(`k${i.toString(36).padStart(7, '0')}`), value };
  return records;
}

/** Bytes of key and value in the records (what MB/s counts). */
export function payloadBytes(records: readonly ProducerRecord[]): number {
  let n = 0;
  for (const r of records) n += byteLen(r.key) + byteLen(r.value);
  return n;
}

function byteLen(v: Buffer | string | undefined): number {
  return v === undefined ? 0 : typeof v === 'string' ? Buffer.byteLength(v) : v.length;
}

export type BenchCodec = CodecName;
export const KEY_BYTES = 8;
