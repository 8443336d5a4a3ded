/**
 * Simulated power losses over a live, in-process broker (issue 11, item 5). The broker's storage runs over the
 * power-loss file layer (power-loss-fs.ts); at seeded operation numbers the layer writes an image of what the disk
 * would hold if the power went out right then, and the workload's observations so far (what was acknowledged, what
 * a consumer had seen) are copied beside it. Afterwards a fresh broker starts on every image (recovery must always
 * start) and the caller checks it against those observations.
 *
 * SIGKILL keeps the page cache, so only this finds fsync-ordering bugs: an image holds only what fsyncs covered
 * (and, by variant, a random prefix of the rest, or that with the last write torn).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Broker, type BrokerStartOptions } from '../../src/broker/broker.js';
import { type Client, connect } from '../../src/client/client.js';
import { installFileLayer } from '../../src/storage/file-io.js';
import { type CrashVariant, PowerLossFs } from './power-loss-fs.js';
import { prng } from './prng.js';

export interface CrashImage<F> {
  /** The operation number the power went out before. */
  operation: number;
  dir: string;
  /** The workload's observations at that moment (a deep copy). */
  facts: F;
}

export interface CampaignOptions<F> {
  seed: number;
  variant: CrashVariant;
  /** Mean operations between two crash points. */
  gap: number;
  broker: Partial<BrokerStartOptions>;
  /** Fresh observations; `copy` snapshots them at a crash point. */
  facts: () => F;
  copy: (facts: F) => F;
  /** Runs against the live broker, recording into `facts`; the campaign closes `client` afterwards. */
  workload: (client: Client, facts: F) => Promise<void>;
  /** Checks one recovered broker against the facts of its crash point. */
  verify: (client: Client, facts: F, broker: Broker) => Promise<void>;
}

/** Runs the workload once with crash points every ~gap operations, then recovers and verifies every image. */
export async function runCampaign<F>(
  options: CampaignOptions<F>,
): Promise<{ crashPoints: number; operations: number }> {
  const root = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-power-loss-'));
  const dataDir = path.join(root, 'live');
  fs.mkdirSync(dataDir);
  const rng = prng(options.seed);
  const layer = new PowerLossFs(dataDir);
  const slow = prng(options.seed + 1_000_003);
  layer.fsyncLatencyMs = () => (slow() < 0.5 ? 0 : 1 + Math.floor(slow() * 4));
  const images: CrashImage<F>[] = [];
  const facts = options.facts();
  let next = 1 + Math.floor(rng() * options.gap);
  layer.onOperation = (n) => {
    if (n !== next) return;
    const dir = path.join(root, `crash-${images.length}`);
    layer.image(dir, options.variant, rng);
    images.push({ operation: n, dir, facts: options.copy(facts) });
    next = n + 1 + Math.floor(rng() * 2 * options.gap);
  };
  const restore = installFileLayer(layer);
  try {
    const broker = await Broker.start({ ...options.broker, dataDir, port: 0 });
    try {
      const client = await connect({ broker: `127.0.0.1:${broker.address.port}` });
      try {
        await options.workload(client, facts);
      } finally {
        await client.close();
      }
    } finally {
      await broker.stop();
    }
  } finally {
    layer.onOperation = undefined;
    restore();
  }
  try {
    for (const image of images) await recoverAndVerify(image, options);
  } finally {
    fs.rmSync(root, { recursive: true, force: true });
  }
  return { crashPoints: images.length, operations: layer.operations };
}

async function recoverAndVerify<F>(image: CrashImage<F>, options: CampaignOptions<F>): Promise<void> {
  let broker: Broker;
  try {
    broker = await Broker.start({ ...options.broker, dataDir: image.dir, port: 0 });
  } catch (err) {
    throw new Error(
      `recovery did not start after a power loss before operation ${image.operation} (${options.variant}, seed ${options.seed})`,
      { cause: err },
    );
  }
  try {
    const client = await connect({ broker: `127.0.0.1:${broker.address.port}` });
    try {
      await options.verify(client, image.facts, broker);
    } catch (err) {
      throw new Error(
        `after a power loss before operation ${image.operation} (${options.variant}, seed ${options.seed}): ${(err as Error).message}`,
        { cause: err },
      );
    } finally {
      await client.close();
    }
  } finally {
    await broker.stop();
  }
}

/** Every record a new group reads from `topic`, fetched until a fetch comes back empty. */
export async function readAll(
  client: Client,
  topic: string,
  group: string,
  isolation?: 'read_committed',
): Promise<Array<{ partition: number; offset: bigint; value: string }>> {
  const out: Array<{ partition: number; offset: bigint; value: string }> = [];
  for (;;) {
    const { records } = await client.fetch(topic, group, { maxRecords: 1000, ...(isolation ? { isolation } : {}) });
    if (records.length === 0) return out;
    for (const r of records) out.push({ partition: r.partition, offset: r.offset, value: r.value.toString() });
  }
}
