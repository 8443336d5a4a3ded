/**
 * Share-group state across simulated power losses (power-loss-fs.ts: an image keeps only what fsyncs covered, or a
 * random prefix of the rest, or that with the last write torn). Three explicit-mode members of one group poll
 * concurrently in small polls, so runs of the window split and their share-state writes are group-committed
 * together; at crash points between those writes the facts so far are kept. Each recovered broker must start and
 * a fresh member must then see: no record whose ACCEPT was acknowledged, every record delivered with a count above
 * the highest one seen before the crash (a crash never lowers a delivery count), and every acknowledged record
 * whose ACCEPT was not even sent. A crash point every ~5 file operations (CRATER_SHARE_POWER_LOSS_GAP): at 60 the
 * test missed a broker that answered before its share state was durable; at 5 it catches it.
 */
import { describe, expect, it } from 'vitest';
import type { Client } from '../../src/client/client.js';
import type { ShareConsumer } from '../../src/client/moonmq/share-consumer.js';
import type { CrashVariant } from '../helpers/power-loss-fs.js';
import { runCampaign } from '../helpers/power-loss-run.js';
import { valueOf } from '../helpers/share.js';

const GAP = Number(process.env.CRATER_SHARE_POWER_LOSS_GAP ?? 5);
const CASE_TIMEOUT_MS = 180_000 * Math.max(1, 5 / GAP);
const RECORDS = 36;
const BROKER = { acks: 'leader' as const, topics: [{ name: 'jobs', partitions: 2 }] };

interface Facts {
  /** Values whose produce was acknowledged. */
  produced: Set<string>;
  /** Values whose ACCEPT was sent (it may or may not have become durable). */
  acceptSent: Set<string>;
  /** Values whose ACCEPT the broker acknowledged. */
  accepted: Set<string>;
  /** value → the highest delivery count a member was handed. */
  maxCount: Map<string, number>;
}

const copy = (f: Facts): Facts => ({
  produced: new Set(f.produced),
  acceptSent: new Set(f.acceptSent),
  accepted: new Set(f.accepted),
  maxCount: new Map(f.maxCount),
});

/** One member: polls, releases each record's first delivery when its number is a multiple of 4, accepts the rest. */
async function member(m: ShareConsumer, facts: Facts, done: () => boolean): Promise<void> {
  for (let idle = 0; idle < 3 || !done();) {
    const got = await m.poll();
    idle = got.length === 0 ? idle + 1 : 0;
    const accepting: string[] = [];
    for (const r of got) {
      const v = valueOf(r);
      facts.maxCount.set(v, Math.max(facts.maxCount.get(v) ?? 0, r.deliveryCount));
      const release = Number(v.slice(1)) % 4 === 0 && r.deliveryCount === 1;
      m.acknowledge(r, release ? 'release' : 'accept');
      if (!release) accepting.push(v);
    }
    for (const v of accepting) facts.acceptSent.add(v);
    const results = await m.commit();
    if (results.every((x) => x.errorCode === 0)) for (const v of accepting) facts.accepted.add(v);
  }
}

async function workload(client: Client, facts: Facts): Promise<void> {
  await client.shareGroups.alter('workers', { 'auto.offset.reset': 'earliest' });
  for (let i = 0; i < RECORDS; i += 6) {
    const values = Array.from({ length: 6 }, (_, j) => `v${i + j}`);
    const result = await client.produceBatch(
      'jobs',
      values.map((value) => ({ key: value, value })),
    );
    if (result.error) throw result.error;
    for (const v of values) facts.produced.add(v);
  }
  const members = await Promise.all(
    [0, 1, 2].map(() =>
      client.shareConsumer({ group: 'workers', topics: ['jobs'], ackMode: 'explicit', maxRecords: 5, maxWaitMs: 20 }),
    ),
  );
  try {
    await Promise.all(members.map((m) => member(m, facts, () => facts.accepted.size >= RECORDS)));
  } finally {
    await Promise.allSettled(members.map((m) => m.close()));
  }
}

async function verify(client: Client, facts: Facts): Promise<void> {
  await client.shareGroups.alter('workers', { 'auto.offset.reset': 'earliest' });
  const m = await client.shareConsumer({ group: 'workers', topics: ['jobs'], maxRecords: 100, maxWaitMs: 20 });
  const delivered = new Set<string>();
  try {
    for (let idle = 0; idle < 2;) {
      const got = await m.poll();
      idle = got.length === 0 ? idle + 1 : 0;
      for (const r of got) {
        const v = valueOf(r);
        expect(facts.accepted.has(v), `${v} was accepted before the crash and came back`).toBe(false);
        expect(r.deliveryCount, `${v}'s delivery count went down`).toBeGreaterThan(facts.maxCount.get(v) ?? 0);
        delivered.add(v);
      }
    }
  } finally {
    await m.close();
  }
  const missing = [...facts.produced].filter((v) => !facts.acceptSent.has(v) && !delivered.has(v));
  expect(missing, 'acknowledged records never accepted and never delivered').toEqual([]);
}

const variants: CrashVariant[] = ['drop', 'prefix', 'torn'];

describe('share groups under power loss', () => {
  it.each(variants)(
    '%s',
    async (variant) => {
      const result = await runCampaign<Facts>({
        seed: 7,
        variant,
        gap: GAP,
        broker: BROKER,
        facts: () => ({ produced: new Set(), acceptSent: new Set(), accepted: new Set(), maxCount: new Map() }),
        copy,
        workload,
        verify,
      });
      expect(result.crashPoints).toBeGreaterThan(0);
    },
    CASE_TIMEOUT_MS,
  );
});
