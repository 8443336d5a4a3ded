/**
 * SendQueue (src/client/kafka/send-queue.ts): one send in flight, sends made meanwhile coalesced in call order,
 * each caller handed the acks of its own records. The send here is a recording function whose replies the test
 * releases, standing in for @platformatic/kafka's producer (the real one is covered by test/kafka).
 */
import { describe, expect, it } from 'vitest';
import type { BatchResult, ProducerRecord } from '../../../src/client/backend.js';
import { SendQueue } from '../../../src/client/kafka/send-queue.js';
import { eventually } from '../../helpers/eventually.js';

interface Call {
  topic: string;
  values: string[];
  answer(result: BatchResult | Error): void;
}

function recordingSend() {
  const calls: Call[] = [];
  let inFlight = 0;
  let maxInFlight = 0;
  let next = 0n;
  const send = (topic: string, records: readonly ProducerRecord[]): Promise<BatchResult> => {
    inFlight += 1;
    maxInFlight = Math.max(maxInFlight, inFlight);
    return new Promise<BatchResult>((resolve, reject) => {
      calls.push({
        topic,
        values: records.map((r) => String(r.value)),
        answer: (result) => {
          inFlight -= 1;
          if (result instanceof Error) reject(result);
          else resolve(result);
        },
      });
    });
  };
  const ack = (call: Call): BatchResult => ({ acks: call.values.map(() => ({ partition: 0, offset: next++ })) });
  return { calls, send, ack, maxInFlight: () => maxInFlight };
}

const rec = (value: string): ProducerRecord => ({ value });

describe('SendQueue', () => {
  it('keeps one send in flight and coalesces what arrives meanwhile, acks back to each caller in order', async () => {
    const s = recordingSend();
    const queue = new SendQueue(s.send);
    const first = queue.enqueue('t', [rec('a')]);
    await eventually(() => s.calls.length === 1);
    const later = ['b', 'c', 'd'].map((v) => queue.enqueue('t', [rec(v)]));
    const batch = queue.enqueue('t', [rec('e'), rec('f')]);
    s.calls[0]!.answer(s.ack(s.calls[0]!));
    expect((await first).acks).toEqual([{ partition: 0, offset: 0n }]);
    await eventually(() => s.calls.length === 2);
    expect(s.calls[1]!.values).toEqual(['b', 'c', 'd', 'e', 'f']);
    s.calls[1]!.answer(s.ack(s.calls[1]!));
    expect((await Promise.all(later)).map((r) => r.acks.map((a) => a.offset))).toEqual([[1n], [2n], [3n]]);
    expect((await batch).acks.map((a) => a.offset)).toEqual([4n, 5n]);
    expect(s.maxInFlight()).toBe(1);
  });

  it('splits at a topic change and at the record limit, and fails only the callers of a failed send', async () => {
    const s = recordingSend();
    const queue = new SendQueue(s.send, { maxRecords: 2, maxBytes: 1 << 20 });
    const sent = [
      queue.enqueue('t', [rec('a')]),
      queue.enqueue('t', [rec('b')]),
      queue.enqueue('t', [rec('c')]),
      queue.enqueue('u', [rec('d')]),
    ];
    const outcomes = Promise.allSettled(sent);
    await eventually(() => s.calls.length === 1);
    expect(s.calls[0]!.values).toEqual(['a', 'b']);
    s.calls[0]!.answer(new Error('NOT_ENOUGH_REPLICAS'));
    await eventually(() => s.calls.length === 2);
    expect(s.calls[1]).toMatchObject({ topic: 't', values: ['c'] });
    s.calls[1]!.answer(s.ack(s.calls[1]!));
    await eventually(() => s.calls.length === 3);
    expect(s.calls[2]).toMatchObject({ topic: 'u', values: ['d'] });
    s.calls[2]!.answer(s.ack(s.calls[2]!));
    expect((await outcomes).map((o) => o.status)).toEqual(['rejected', 'rejected', 'fulfilled', 'fulfilled']);
  });

  it('drain() waits for every queued send; failQueued() rejects what has not gone out', async () => {
    const s = recordingSend();
    const queue = new SendQueue(s.send, { maxRecords: 1, maxBytes: 1 << 20 });
    const a = queue.enqueue('t', [rec('a')]);
    const b = queue.enqueue('t', [rec('b')]);
    await eventually(() => s.calls.length === 1);
    queue.failQueued(new Error('aborted'));
    await expect(b).rejects.toThrow('aborted');
    let drained = false;
    const draining = queue.drain().then(() => (drained = true));
    s.calls[0]!.answer(s.ack(s.calls[0]!));
    await draining;
    expect(drained).toBe(true);
    expect((await a).acks).toHaveLength(1);
    expect(s.calls).toHaveLength(1);
  });
});
