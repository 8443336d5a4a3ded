/**
 * The loop behind `crater share consume` (cli/share-consuming.ts), in-process against a real broker: -n stops at N
 * and hands the rest of a poll back, --idle-timeout ends a quiet run, --ack decides every record, --exec decides by
 * its exit status (0 accept, 65 reject, other release) per record or once per poll with --batch, and an aborted
 * signal stops before the first poll. The CLI tests cover the same through the built binary, whose coverage this
 * process does not see.
 */
import { describe, expect, it } from 'vitest';
import type { Client, ShareConsumerRecord } from '../../src/client/index.js';
import {
  SHARE_EXEC_REJECT_CODE,
  type ShareConsumeOptions,
  runExec,
  shareConsume,
  shareLine,
} from '../../src/cli/share-consuming.js';
import { fill, valueOf } from '../helpers/share.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker({ topics: [{ name: 'one', partitions: 1 }], share: { sweepIntervalMs: 20 } });

async function setup(config: Record<string, string | boolean> = {}): Promise<Client> {
  await env.start();
  const c = await env.client();
  await c.shareGroups.alter('g', { 'auto.offset.reset': 'earliest', ...config });
  return c;
}

async function consume(
  c: Client,
  options: Partial<ShareConsumeOptions>,
  signal = new AbortController().signal,
): Promise<{ outcome: Awaited<ReturnType<typeof shareConsume>>; emitted: ShareConsumerRecord[] }> {
  const emitted: ShareConsumerRecord[] = [];
  const outcome = await shareConsume(
    c,
    { topic: 'one', group: 'g', ack: 'accept', batch: false, idleTimeoutMs: 500, ...options },
    async (r) => {
      emitted.push(r);
      return true;
    },
    signal,
  );
  return { outcome, emitted };
}

describe('shareConsume', () => {
  it('-n stops at N and releases the rest of the poll; release redelivers, reject does not; idle ends a quiet run', async () => {
    const c = await setup();
    await fill(c, 'one', 5);
    const first = await consume(c, { maxRecords: 3 });
    expect(first.outcome).toEqual({ count: 3, accepted: 3, released: 0, rejected: 0, cause: 'count' });
    expect(first.emitted.map(valueOf)).toEqual(['v0', 'v1', 'v2']);
    const second = await consume(c, { ack: 'release', maxRecords: 2 });
    // The accepted three are gone; the two handed back come again, and releasing them makes them available again.
    expect(second.emitted.map(valueOf)).toEqual(['v3', 'v4']);
    expect(second.outcome).toEqual({ count: 2, accepted: 0, released: 2, rejected: 0, cause: 'count' });
    const third = await consume(c, { ack: 'reject', maxRecords: 2 });
    const counts = second.emitted.map((r) => r.deliveryCount + 1);
    expect(third.emitted.map((r) => [valueOf(r), r.deliveryCount])).toEqual([
      ['v3', counts[0]],
      ['v4', counts[1]],
    ]);
    expect(third.outcome).toMatchObject({ count: 2, rejected: 2, cause: 'count' });
    const empty = await consume(c, { idleTimeoutMs: 200 });
    expect(empty.outcome).toEqual({ count: 0, accepted: 0, released: 0, rejected: 0, cause: 'idle' });
  });

  it('--exec decides each record by its exit status and never calls emit; --batch makes one decision per poll', async () => {
    const c = await setup();
    await c.produceBatch('one', [{ value: 'ok' }, { value: 'bad' }, { value: 'retry' }]);
    const script = `v=$(cat); case "$v" in *'"ok"'*) exit 0;; *'"bad"'*) exit ${SHARE_EXEC_REJECT_CODE};; *) exit 1;; esac`;
    const each = await consume(c, { exec: script, maxRecords: 3 });
    expect(each.emitted).toEqual([]);
    expect(each.outcome).toEqual({ count: 3, accepted: 1, released: 1, rejected: 1, cause: 'count' });
    // Only the released record is left; one batch run rejects everything it got.
    const batch = await consume(c, {
      exec: `cat >/dev/null; exit ${SHARE_EXEC_REJECT_CODE}`,
      batch: true,
      maxRecords: 5,
    });
    expect(batch.outcome).toMatchObject({ count: 1, rejected: 1, accepted: 0, released: 0, cause: 'idle' });
    expect((await consume(c, { idleTimeoutMs: 200 })).outcome.count).toBe(0);
  });

  it('an aborted signal stops before the first poll and leaves every record for the next member', async () => {
    const c = await setup();
    await fill(c, 'one', 2);
    const stopped = new AbortController();
    stopped.abort('interrupt');
    const run = await consume(c, {}, stopped.signal);
    expect(run.outcome).toEqual({ count: 0, accepted: 0, released: 0, rejected: 0, cause: 'interrupted' });
    expect((await consume(c, { maxRecords: 2 })).emitted.map(valueOf)).toEqual(['v0', 'v1']);
  });
});

describe('runExec and shareLine', () => {
  it('maps the exit status to a decision and hands the JSON line on stdin', async () => {
    const line = shareLine({
      topic: 't',
      partition: 0,
      offset: 7n,
      timestamp: 1_700_000_000_000n,
      key: Buffer.alloc(0),
      value: Buffer.from('hi'),
      headers: [],
      deliveryCount: 2,
    } as unknown as ShareConsumerRecord);
    expect(line.endsWith('\n')).toBe(true);
    const parsed = JSON.parse(line);
    expect(parsed).toMatchObject({ topic: 't', partition: 0, headers: null, deliveryCount: 2 });
    expect(String(parsed.offset)).toBe('7');
    expect(parsed.value.utf8).toBe('hi');
    // The command sees exactly the line: accept only when its stdin parses back to the same record.
    expect(await runExec(`grep -q '"deliveryCount":2'`, line)).toBe('accept');
    expect(await runExec(`exit ${SHARE_EXEC_REJECT_CODE}`, line)).toBe('reject');
    expect(await runExec('exit 3', line)).toBe('release');
  });
});
