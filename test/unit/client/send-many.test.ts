/**
 * RecordAccumulator.sendMany on a scripted sink and a manual clock: records handed over together share send()'s
 * batches, buffer and retries, and each settles exactly once, in `outcomes` at its own position, as acked, failed or
 * uncertain, with one promise for the whole run.
 */
import { describe, expect, it } from 'vitest';
import { RecordAccumulator } from '../../../src/client/producer/accumulator.js';
import {
  type AccumulatorOptions,
  resolveAccumulatorOptions,
} from '../../../src/client/producer/accumulator-options.js';
import { brokerError } from '../../../src/client/moonmq/connection.js';
import type { RecordOutcome } from '../../../src/client/producer/send-many.js';
import { ConnectionError, UncertainDeliveryError, UsageError } from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/error-codes.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';
import { ScriptedSink } from './scripted-sink.js';

function setup(options: AccumulatorOptions = {}) {
  const clock = new ManualClock();
  const sink = new ScriptedSink();
  const resolved = resolveAccumulatorOptions(
    { clock, random: () => 0.5, requestTimeoutMs: 1_000, deliveryTimeoutMs: 10_000, ...options },
    { idempotent: false },
  );
  return { clock, sink, acc: new RecordAccumulator(sink, resolved, {}) };
}

const rec = (i: number) => ({ key: `k${i}`, value: `value-${i}` });
const recs = (from: number, to: number) => Array.from({ length: to - from }, (_, i) => rec(from + i));
const offsets = (outcomes: readonly (RecordOutcome | undefined)[]) =>
  outcomes.map((o) => (o instanceof Error || o === undefined ? o : o.offset));

describe('sendMany', () => {
  it('shares batches with send(): every record gets its own ack, in order, across batch boundaries', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5, maxBatchRecords: 3 });
    const before = acc.send('t', rec(0));
    const run = acc.sendMany('t', recs(1, 6), 0);
    const after = acc.send('t', rec(6));
    expect(run.accepted).toBe(5);
    let settled = false;
    void run.settled.then(() => (settled = true));
    await clock.advance(5);
    expect(sink.sent.map((b) => b.records.map((r) => r.value))).toEqual([
      ['value-0', 'value-1', 'value-2'],
      ['value-3', 'value-4', 'value-5'],
      ['value-6'],
    ]);
    // The second batch answers first: the run waits for the first, and each record reads its own batch's ack.
    sink.ackAll(1);
    await settle();
    expect(settled).toBe(false);
    expect(offsets(run.outcomes)).toEqual([undefined, undefined, 0n, 1n, 2n]);
    sink.ackAll(0);
    sink.ackAll(2);
    await run.settled;
    expect(offsets(run.outcomes)).toEqual([4n, 5n, 0n, 1n, 2n]);
    expect((await before).offset).toBe(3n);
    expect((await after).offset).toBe(6n);
  });

  it('fails a record no frame can carry at its own position; its neighbours go out', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0, maxFrameBytes: 1_024 } as AccumulatorOptions);
    const records = [rec(0), { value: Buffer.alloc(70_000) }, rec(2), rec(3)];
    const run = acc.sendMany('t', records, 0);
    expect(run.accepted).toBe(4);
    await clock.advance(0);
    expect(sink.sent.map((b) => b.records.length)).toEqual([3]);
    sink.ackAll(0);
    await run.settled;
    expect(run.outcomes[1]).toBeInstanceOf(UsageError);
    expect(offsets([run.outcomes[0], run.outcomes[2], run.outcomes[3]])).toEqual([0n, 1n, 2n]);
    expect(acc.metrics()['record-error-total']).toBe(1);
  });

  it('takes only what fits in the buffer; the rest is sent once outcomes free room', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0, bufferBytes: 4_096, batchBytes: 1_024, bufferRecords: 3 });
    const records = recs(0, 5);
    const first = acc.sendMany('t', records, 0);
    expect(first.accepted).toBe(3);
    await clock.advance(0);
    expect(sink.sent.map((b) => b.records.length)).toEqual([3]);
    sink.ackAll(0);
    await first.settled;
    const rest = acc.sendMany('t', records, first.accepted);
    expect([rest.start, rest.accepted]).toEqual([3, 2]);
    await clock.advance(0);
    sink.ackAll(1);
    await rest.settled;
    expect([...offsets(first.outcomes), ...offsets(rest.outcomes)]).toEqual([0n, 1n, 2n, 3n, 4n]);
  });

  it('after a partial append the tail is resent and its records settle there; a lost reply is uncertain', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0 });
    const run = acc.sendMany('t', recs(0, 4), 0);
    await clock.advance(0);
    sink.sent[0]!.resolve({ acks: sink.acks(1), error: brokerError(ErrorCode.INTERNAL, 'disk') });
    await clock.advance(100);
    expect(sink.sent[1]!.records.map((r) => r.value)).toEqual(['value-1', 'value-2', 'value-3']);
    sink.sent[1]!.reject(new ConnectionError('connection closed'));
    await run.settled;
    expect(offsets(run.outcomes.slice(0, 1))).toEqual([0n]);
    const lost = run.outcomes.slice(1) as UncertainDeliveryError[];
    expect(lost.every((e) => e instanceof UncertainDeliveryError)).toBe(true);
    expect(lost.map((e) => e.record)).toEqual(recs(1, 4));
  });

  it('refuses every record once the producer is closed', async () => {
    const { acc } = setup({ lingerMs: 0 });
    await acc.close();
    const run = acc.sendMany('t', recs(0, 3), 1);
    await run.settled;
    expect(run.accepted).toBe(2);
    expect(run.outcomes.every((o) => o instanceof UsageError)).toBe(true);
  });
});
