/**
 * Shared set-up for the consumer-side integration tests: a broker on port 0 over a temp dir, raw clients, records
 * appended straight to partition logs, and a FETCH that collects every frame up to its OK or ERROR.
 */
import fs from 'node:fs/promises';
import { Broker, type BrokerStartOptions } from '../../src/broker/broker.js';
import { type ConsumerService, consumerRuntimeOf } from '../../src/broker/consumer/index.js';
import type { Frame } from '../../src/protocol/frame-decoder.js';
import { decodePayload } from '../../src/protocol/message.js';
import { ErrorFrame } from '../../src/protocol/messages/error.js';
import { type FetchedRecord, FetchRequest, RecordReply, recordBatchCodec } from '../../src/protocol/messages/fetch.js';
import { Op } from '../../src/protocol/opcodes.js';
import type { RecordToStore } from '../../src/storage/record.js';
import { RawClient } from './raw-client.js';
import { tempDataDir } from './temp-broker.js';

export class ConsumerHarness {
  private started: Broker | undefined;
  dataDir: string | undefined;
  private readonly clients: RawClient[] = [];

  async start(
    topics: Array<{ name: string; partitions: number }>,
    options: Partial<BrokerStartOptions> = {},
  ): Promise<Broker> {
    this.dataDir ??= await tempDataDir();
    this.started = await Broker.start({ ...options, dataDir: this.dataDir, topics });
    return this.started;
  }

  /** The running broker; a test that reads it before `start` fails here, not on `undefined`. */
  get broker(): Broker {
    if (!this.started) throw new Error('ConsumerHarness.start() was not called');
    return this.started;
  }

  /** Closes the clients and stops the broker, keeping the data dir. */
  async restart(topics: Array<{ name: string; partitions: number }> = []): Promise<Broker> {
    await this.closeClients();
    await this.broker.stop();
    return this.start(topics);
  }

  get rt(): ConsumerService {
    return consumerRuntimeOf(this.broker);
  }

  async client(): Promise<RawClient> {
    const c = await RawClient.authenticated(this.broker.address.port);
    this.clients.push(c);
    return c;
  }

  async closeClients(): Promise<void> {
    await Promise.all(this.clients.splice(0).map((c) => c.close()));
  }

  async cleanup(): Promise<void> {
    await this.closeClients();
    await this.started?.stop();
    if (this.dataDir) await fs.rm(this.dataDir, { recursive: true, force: true });
    this.dataDir = undefined;
  }

  /**
   * Appends records with values `${prefix}-${i}` to one partition and fsyncs them (consumers read only what is
   * durable, under the broker's default acks=leader); returns their offsets.
   */
  async append(
    topic: string,
    partition: number,
    count: number,
    prefix = `p${partition}`,
    extra: Partial<RecordToStore> = {},
  ): Promise<bigint[]> {
    const log = this.broker.topics.requireTopic(topic).partitions[partition - 1]!;
    const records: RecordToStore[] = Array.from({ length: count }, (_, i) => ({
      attrs: 0,
      timestamp: 1_700_000_000_000n + BigInt(i),
      key: Buffer.from(`k-${prefix}-${i}`),
      value: Buffer.from(`${prefix}-${i}`),
      ...extra,
    }));
    const result = log.append(records);
    if (result.error) throw result.error;
    await log.sync();
    return result.offsets;
  }
}

export interface FetchOptions {
  isolation?: number;
  flags?: number;
}

/** Sends a FETCH and returns every frame carrying its correl, up to and including OK or ERROR. */
export async function fetchFrames(
  c: RawClient,
  topic: string,
  group: string,
  maxRecords: number,
  opts: FetchOptions = {},
): Promise<Frame[]> {
  const correl = c.send(FetchRequest, { topic, group, maxRecords, isolation: opts.isolation, flags: opts.flags });
  const frames: Frame[] = [];
  for (;;) {
    const f = await c.waitFor((x) => x.correl.equals(correl));
    frames.push(f);
    if (f.op === Op.OK || f.op === Op.ERROR) return frames;
  }
}

/** The records of a FETCH reply in either shape. */
export function recordsIn(frames: readonly Frame[], withHeaders = false): FetchedRecord[] {
  const out: FetchedRecord[] = [];
  for (const f of frames) {
    if (f.op === Op.RECORD_BATCH) out.push(...decodePayload(recordBatchCodec(withHeaders), f.payload).records);
    else if (f.op === Op.RECORD) out.push(decodePayload(RecordReply, f.payload));
  }
  return out;
}

export function errorCodeOf(frames: readonly Frame[] | Frame): number | undefined {
  const list = Array.isArray(frames) ? frames : [frames as Frame];
  const f = list.find((x) => x.op === Op.ERROR);
  return f ? decodePayload(ErrorFrame, f.payload).code : undefined;
}

export const values = (records: readonly FetchedRecord[]): string[] => records.map((r) => r.value.toString());

export { eventually } from './eventually.js';
