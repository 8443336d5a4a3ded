/**
 * runExecConsume (the library half of `consume --exec`) against a real broker with real `sh -c` commands: every
 * record goes through CMD once, its produce requests land in the named topic, pass-through lines reach the hook,
 * and the run stops by --stop-after, by --idle-timeout or by the abort signal (reported as an interrupt).
 */
import { describe, expect, it } from 'vitest';
import { type ExecConsumeOptions, runExecConsume } from '../../src/cli/exec-consume.js';
import { useTempBroker } from '../helpers/temp-broker.js';

const env = useTempBroker();

function options(command: string, over: Partial<ExecConsumeOptions> = {}): ExecConsumeOptions {
  return {
    topics: ['in'],
    group: 'g',
    command,
    batchSize: 4,
    batchTimeoutMs: 50,
    retries: 0,
    backoff: { type: 'fixed', delayMs: 10 },
    onExhausted: 'discard',
    workers: 1,
    filters: [],
    transactional: false,
    encoding: 'auto',
    commitIntervalMs: 100,
    progress: false,
    ...over,
  };
}

describe('runExecConsume', () => {
  it('runs CMD per batch: its produce lines land, other lines pass through, --stop-after ends the run', async () => {
    await env.start();
    const client = await env.client();
    await client.createTopic('in', 1);
    await client.createTopic('out', 1);
    await client.produceBatch(
      'in',
      Array.from({ length: 6 }, (_, i) => ({ value: `v${i}` })),
    );
    const passed: string[] = [];
    const produceLine = `{"produce":{"topic":"out","value":{"utf8":"seen"}}}`;
    const summary = await runExecConsume(
      client,
      options(`while read -r l; do echo '${produceLine}'; done; echo "batch of $CRATER_BATCH_SIZE in $CRATER_TOPICS"`, {
        stopAfter: 6,
      }),
      new AbortController().signal,
      { passThrough: (line) => void passed.push(line), diag: () => undefined },
    );
    expect(summary).toMatchObject({ topics: ['in'], group: 'g', records: 6, processed: 6, produced: 6 });
    expect(summary.stoppedBy).toBe('idle');
    expect(passed.every((l) => /^batch of \d in in$/u.test(l))).toBe(true);
    expect(passed.map((l) => Number(l.split(' ')[2])).reduce((a, b) => a + b, 0)).toBe(6);
    const reader = await env.client();
    const out = await reader.fetch('out', 'r', { maxRecords: 100 });
    expect(out.records.map((r) => r.value.toString())).toEqual(Array(6).fill('seen'));
  });

  it('an abort stops the run after the running batch and is reported as an interrupt', async () => {
    await env.start();
    const client = await env.client();
    await client.createTopic('in', 1);
    await client.produceBatch('in', [{ value: 'a' }]);
    const abort = new AbortController();
    const summary = await runExecConsume(client, options('cat > /dev/null; echo done'), abort.signal, {
      passThrough: () => void abort.abort(),
      diag: () => undefined,
    });
    expect(summary).toMatchObject({ records: 1, processed: 1, produced: 0, stoppedBy: 'interrupt' });
  });

  it('--idle-timeout ends a run that has nothing to read', async () => {
    await env.start();
    const client = await env.client();
    await client.createTopic('in', 1);
    const summary = await runExecConsume(client, options('cat', { idleTimeoutMs: 200 }), new AbortController().signal, {
      passThrough: () => undefined,
      diag: () => undefined,
    });
    expect(summary).toMatchObject({ records: 0, batches: 0, stoppedBy: 'idle' });
  });
});
