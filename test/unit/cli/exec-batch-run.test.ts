/**
 * execBatch (cli/exec-batch.ts) with real `sh -c` children: the batch arrives on stdin as envelope lines, stdout
 * lines are outcomes, produce requests or passed through in order, and a failing command, a record not in the
 * batch or a produce request without a topic each end the batch the way the contract says.
 */
import { describe, expect, it } from 'vitest';
import { ExecFailedError, execBatch } from '../../../src/cli/exec-batch.js';
import type { BatchItem } from '../../../src/client/index.js';
import { UsageError } from '../../../src/errors.js';

function item(offset: bigint, value: string, topic = 'scans', partition = 3): BatchItem<Buffer> {
  const v = Buffer.from(value);
  return {
    message: v,
    transport: {
      topic,
      partition,
      offset,
      timestamp: 1n,
      key: Buffer.alloc(0),
      value: v,
      headers: [],
      deliveryAttempt: 1,
    },
  };
}

function run(command: string, items: BatchItem<Buffer>[], topics = ['scans'], env: NodeJS.ProcessEnv = {}) {
  const passed: string[] = [];
  const result = execBatch(
    {
      command,
      env: { PATH: process.env.PATH, ...env },
      encoding: 'auto',
      passThrough: (line) => {
        passed.push(line);
        return Promise.resolve();
      },
    },
    items,
    topics,
    false,
  );
  return { result, passed };
}

describe('execBatch', () => {
  it('feeds the batch on stdin and passes every other output line through, in order', async () => {
    const items = [item(0n, 'a'), item(7n, 'b')];
    const { result, passed } = run('cat; echo "$CRATER_GROUP done"', items, ['scans'], { CRATER_GROUP: 'g' });
    expect(await result).toEqual({ outcomes: [], produce: [] });
    expect(passed.map((l) => (l.startsWith('{') ? (JSON.parse(l) as { offset: number }).offset : l))).toEqual([
      0,
      7,
      'g done',
    ]);
  });

  it('reads outcomes by partition and offset (topic needed only with several topics), with or without a reason', async () => {
    const items = [item(0n, 'a'), item(7n, 'b'), item(9n, 'c', 'other', 1)];
    const script = [
      `echo '{"partition":3,"offset":0,"outcome":"retry","reason":"busy","topic":"scans"}'`,
      `echo '{"partition":3,"offset":7,"outcome":"dead-letter","topic":"scans"}'`,
      `echo '{"partition":1,"offset":9,"outcome":"ok","topic":"other"}'`,
      `echo '{"outcome":"unknown"}'`,
      `echo '{not json'`,
    ].join('; ');
    const { result, passed } = run(script, items, ['scans', 'other']);
    const { outcomes } = await result;
    expect(outcomes.map((o) => [o.item.transport.offset, o.outcome, 'reason' in o ? o.reason : undefined])).toEqual([
      [0n, 'retry', 'busy'],
      [7n, 'dead-letter', 'marked dead-letter by the command'],
      [9n, 'ok', undefined],
    ]);
    // A JSON line that is no outcome, and a line that is not JSON, are output like any other.
    expect(passed).toEqual(['{"outcome":"unknown"}', '{not json']);
  });

  it('collects produce requests with envelope-encoded bytes', async () => {
    const line = JSON.stringify({ produce: { topic: 'out', key: { utf8: 'k' }, value: { hex: '6869' } } });
    const { result } = run(`echo '${line}'`, [item(0n, 'a')]);
    const { produce } = await result;
    expect(produce).toHaveLength(1);
    expect(produce[0]!.topic).toBe('out');
    expect(Buffer.from(produce[0]!.record.key as Buffer).toString()).toBe('k');
    expect(Buffer.from(produce[0]!.record.value as Buffer).toString()).toBe('hi');
  });

  it('a non-zero exit or a signal fails the batch, even when the command never read its input', async () => {
    const many = Array.from({ length: 3000 }, (_, i) => item(BigInt(i), 'x'.repeat(100)));
    const failed = await run('exit 3', many).result.catch((e: unknown) => e);
    expect(failed).toBeInstanceOf(ExecFailedError);
    expect(failed).toMatchObject({ exitCode: 3, signal: null, message: 'command exited with code 3' });
    const killed = await run('kill -TERM $$', [item(0n, 'a')]).result.catch((e: unknown) => e);
    expect(killed).toMatchObject({ signal: 'SIGTERM', message: 'command killed by SIGTERM' });
  });

  it('naming a record outside the batch, or producing without a topic, is a usage error after a clean exit', async () => {
    const stray = run(`echo '{"partition":3,"offset":5,"outcome":"ok"}'`, [item(0n, 'a')]).result;
    await expect(stray).rejects.toThrow(UsageError);
    await expect(stray).rejects.toThrow(/names a record that is not in this batch/u);
    const noTopic = run(`echo '{"produce":{"value":{"utf8":"v"}}}'`, [item(0n, 'a')]).result;
    await expect(noTopic).rejects.toThrow(/"produce" needs a "topic"/u);
  });
});
