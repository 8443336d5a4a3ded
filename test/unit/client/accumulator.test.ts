/**
 * The accumulator's rules on a scripted sink and a manual clock: when a batch leaves (linger, batchBytes,
 * maxBatchRecords, flush), how many requests are out, what a retry resends and when, and which of acked / failed /
 * uncertain each send() ends as. Time moves only through the clock.
 */
import { describe, expect, it } from 'vitest';
import { RECORD_OVERHEAD_BYTES, RecordAccumulator } from '../../../src/client/producer/accumulator.js';
import {
  type AccumulatorOptions,
  resolveAccumulatorOptions,
} from '../../../src/client/producer/accumulator-options.js';
import { backoffMs, retryRule } from '../../../src/client/producer/retry-rule.js';
import { brokerError } from '../../../src/client/moonmq/connection.js';
import {
  BufferExhaustedError,
  ConnectionError,
  DeliveryTimeoutError,
  TimeoutError,
  UncertainDeliveryError,
  UsageError,
} from '../../../src/errors.js';
import { ErrorCode } from '../../../src/protocol/error-codes.js';
import { ManualClock, settle } from '../../helpers/manual-clock.js';
import { ScriptedSink } from './scripted-sink.js';
import { predict } from '../../../src/bench/producer-model.js';

function setup(options: AccumulatorOptions = {}, idempotent = false) {
  const clock = new ManualClock();
  const sink = new ScriptedSink(idempotent);
  const resolved = resolveAccumulatorOptions(
    { clock, random: () => 0.5, requestTimeoutMs: 1_000, deliveryTimeoutMs: 10_000, ...options },
    { idempotent },
  );
  const acc = new RecordAccumulator(sink, resolved, {});
  return { clock, sink, acc };
}

/** Records the outcome of each promise as it settles. */
function outcomes<T>(promises: Promise<T>[]): (T | Error | 'pending')[] {
  const out: (T | Error | 'pending')[] = promises.map(() => 'pending');
  promises.forEach((p, i) => {
    p.then(
      (v) => void (out[i] = v),
      (e: Error) => void (out[i] = e),
    );
  });
  return out;
}

const rec = (i: number) => ({ key: `k${i}`, value: `value-${i}` });

describe('batching', () => {
  it('holds a sparse batch for lingerMs, then sends it as one request', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5 });
    const sends = [0, 1, 2].map((i) => acc.send('orders', rec(i)));
    await clock.advance(4);
    expect(sink.sent).toHaveLength(0);
    await clock.advance(1);
    expect(sink.sent).toHaveLength(1);
    expect(sink.sent[0]!.records.map((r) => r.value)).toEqual(['value-0', 'value-1', 'value-2']);
    sink.ackAll(0);
    expect((await Promise.all(sends)).map((a) => a.offset)).toEqual([0n, 1n, 2n]);
  });

  it('sends a batch at maxBatchRecords or batchBytes without waiting for linger', async () => {
    const byCount = setup({ lingerMs: 1_000, maxBatchRecords: 4 });
    for (let i = 0; i < 10; i++) void byCount.acc.send('t', rec(i));
    await settle();
    expect(byCount.sink.sent.map((b) => b.records.length)).toEqual([4, 4]);
    await byCount.clock.advance(1_000);
    expect(byCount.sink.sent.map((b) => b.records.length)).toEqual([4, 4, 2]);

    // Overhead 17 + 2 + 4 + 1 + 4 = 28 bytes; each entry is 8 + 2 + 7 = 17 bytes, so 128 bytes hold 5 records.
    const byBytes = setup({ lingerMs: 1_000, batchBytes: 128 });
    for (let i = 0; i < 7; i++) void byBytes.acc.send('t', { key: `k${i}`, value: 'vvvvvvv' });
    await settle();
    expect(byBytes.sink.sent.map((b) => b.records.length)).toEqual([5]);
  });

  it('keeps one open batch per topic and starts a new batch when the headers flag would change', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5 });
    void acc.send('a', rec(0));
    void acc.send('b', rec(1));
    void acc.send('a', { value: 'h', headers: [{ name: 'x', value: Buffer.from('1') }] });
    await clock.advance(5);
    expect(sink.sent.map((b) => [b.topic, b.records.length])).toEqual([
      ['a', 1],
      ['b', 1],
      ['a', 1],
    ]);
    // A lone record goes as the single-record request, unless it has headers (only a batch frame carries them).
    expect(sink.sent.map((b) => b.single)).toEqual([true, true, false]);
  });

  it('flush() sends the open batch at once and resolves when every earlier send settled', async () => {
    const { sink, acc } = setup({ lingerMs: 5_000 });
    const sends = outcomes([acc.send('t', rec(0)), acc.send('t', rec(1))]);
    let flushed = false;
    void acc.flush().then(() => (flushed = true));
    await settle();
    expect(sink.sent).toHaveLength(1);
    expect(flushed).toBe(false);
    sink.ackAll(0);
    await settle();
    expect(flushed).toBe(true);
    expect(sends.every((o) => typeof o === 'object' && !(o instanceof Error))).toBe(true);
  });

  it('refuses a record no frame can carry, alone, without touching the batch', async () => {
    const { sink, acc } = setup({ lingerMs: 0, maxFrameBytes: 1_024 } as AccumulatorOptions);
    await expect(acc.send('t', { value: Buffer.alloc(70_000) })).rejects.toThrow(UsageError);
    expect(sink.sent).toHaveLength(0);
  });
});

describe("the seed's model", () => {
  it('with smooth arrivals and a broker that keeps up, the mean batch is the predicted one', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5 });
    const record = { key: 'k0000000', value: 'v'.repeat(100) };
    // One 108-byte record per millisecond: r = 108,000 B/s, so r × L is 5 records' worth in 5 ms.
    let acked = 0;
    for (let i = 0; i < 1_000; i++) {
      void acc.send('orders', record);
      await clock.advance(1);
      for (; acked < sink.sent.length; acked++) sink.ackAll(acked);
    }
    await clock.advance(5);
    for (; acked < sink.sent.length; acked++) sink.ackAll(acked);
    const model = predict({
      producers: 1,
      topics: 1,
      partitions: 4,
      clientPartitions: false,
      rateBytesPerSec: 108_000,
      batchBytes: 1_000_000,
      lingerMs: 5,
      recordBytes: 108,
    });
    const measured = acc.metrics()['batch-records-avg'];
    // The model counts the first record plus r × L (6); the record arriving as the linger ends goes next time (5).
    expect(model.meanBatchRecords).toBe(6);
    expect(measured).toBeGreaterThanOrEqual(5);
    expect(measured).toBeLessThanOrEqual(6);
  });
});

describe('requests in flight', () => {
  it('has at most maxInFlight requests out and sends the next batch when one returns', async () => {
    const { sink, acc } = setup({ lingerMs: 0, maxBatchRecords: 1, maxInFlight: 2 });
    for (let i = 0; i < 4; i++) void acc.send('t', rec(i));
    await settle();
    expect(sink.sent).toHaveLength(2);
    expect(acc.metrics()['requests-in-flight']).toBe(2);
    sink.ackAll(0);
    await settle();
    expect(sink.sent).toHaveLength(3);
  });

  it('an idempotent sink gets one batch per topic at a time, topics side by side', async () => {
    const { sink, acc } = setup({ lingerMs: 0, maxBatchRecords: 1 }, true);
    for (let i = 0; i < 3; i++) void acc.send('a', rec(i));
    void acc.send('b', rec(9));
    await settle();
    expect(sink.sent.map((b) => b.topic)).toEqual(['a', 'b']);
    sink.ackAll(0);
    await settle();
    expect(sink.sent.map((b) => b.topic)).toEqual(['a', 'b', 'a']);
  });
});

describe('bounded admission', () => {
  const small = { lingerMs: 5_000, batchBytes: 1_024, bufferBytes: 1_024 };

  it("'reject' fails the send at once with BufferExhaustedError and counts it", async () => {
    const { acc } = setup({ ...small, onBufferFull: 'reject' });
    const admitted = [];
    let refused: unknown;
    for (let i = 0; i < 20 && refused === undefined; i++) {
      const p = acc.send('t', rec(i));
      p.catch((e: unknown) => (refused = e));
      admitted.push(p);
      await settle();
    }
    expect(refused).toBeInstanceOf(BufferExhaustedError);
    expect((refused as BufferExhaustedError).mode).toBe('reject');
    expect(acc.metrics()['buffer-exhausted-records']).toBe(1);
    expect(acc.metrics()['buffer-available-bytes']).toBe(
      1_024 - Math.floor(1_024 / (17 + RECORD_OVERHEAD_BYTES)) * (17 + RECORD_OVERHEAD_BYTES),
    );
  });

  it("'block' admits a waiting send when room frees, and fails it after maxBlockMs otherwise", async () => {
    // Each record holds its 17 frame bytes plus the bookkeeping charge: `fit` of them fill the 1,024 bytes, one more
    // waits, and the next finds a quarter of the buffer already waiting and is refused at once.
    const per = 17 + RECORD_OVERHEAD_BYTES;
    const fit = Math.floor(1_024 / per);
    const { clock, sink, acc } = setup({ ...small, maxBlockMs: 50, maxBatchRecords: 1, lingerMs: 0, maxInFlight: 1 });
    const sends = outcomes(Array.from({ length: fit + 2 }, (_, i) => acc.send('t', rec(i))));
    await clock.advance(0);
    expect(sends.slice(0, fit + 1)).toEqual(Array(fit + 1).fill('pending'));
    expect((sends[fit + 1] as BufferExhaustedError).mode).toBe('block');
    sink.ackAll(0);
    await clock.advance(0);
    expect(sends[0]).toMatchObject({ offset: 0n });
    expect(sends[fit]).toBe('pending');
    expect(acc.metrics()['buffer-available-bytes']).toBe(1_024 - fit * per);
    const late = outcomes([acc.send('t', rec(99))]);
    await clock.advance(49);
    expect(late[0]).toBe('pending');
    await clock.advance(1);
    expect(late[0]).toBeInstanceOf(BufferExhaustedError);
    expect((late[0] as BufferExhaustedError).waitedMs).toBe(50);
    expect(acc.metrics()['buffer-exhausted-records']).toBe(2);
  });
});

describe('delivery deadline and retries', () => {
  it('refuses deliveryTimeoutMs < lingerMs + requestTimeoutMs at construction, saying why', () => {
    expect(() =>
      resolveAccumulatorOptions(
        { lingerMs: 5, requestTimeoutMs: 30_000, deliveryTimeoutMs: 30_000 },
        { idempotent: false },
      ),
    ).toThrow(/deliveryTimeoutMs must be at least lingerMs \+ requestTimeoutMs \(5 \+ 30000 = 30005 ms\), got 30000/);
    expect(() =>
      resolveAccumulatorOptions(
        { lingerMs: 5, requestTimeoutMs: 30_000, deliveryTimeoutMs: 30_005 },
        { idempotent: false },
      ),
    ).not.toThrow();
  });

  it('backs off 100 ms doubling to 1 s with jitter, and classifies errors by class and code', () => {
    expect([1, 2, 3, 4, 5, 9].map((n) => backoffMs(n, () => 0.5))).toEqual([100, 200, 400, 800, 1_000, 1_000]);
    expect(backoffMs(1, () => 0)).toBe(80);
    expect(backoffMs(5, () => 0.999_999)).toBe(1_200);
    expect(retryRule(brokerError(ErrorCode.RATE_LIMITED, 'slow down'))).toBe('retry');
    expect(retryRule(brokerError(ErrorCode.TOPIC_MISSING, 'no'))).toBe('fatal');
    expect(retryRule(new TimeoutError('late'))).toBe('unknown');
    expect(retryRule(new UsageError('bad'))).toBe('fatal');
  });

  it('retries a refused batch after its backoff and fails it once the next retry would pass the deadline', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0, deliveryTimeoutMs: 1_500, requestTimeoutMs: 1_000 });
    const send = outcomes([acc.send('t', rec(0))]);
    await clock.advance(0);
    sink.sent[0]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow down'));
    await clock.advance(99);
    expect(sink.sent).toHaveLength(1);
    await clock.advance(1);
    expect(sink.sent).toHaveLength(2);
    expect(acc.metrics()['record-retry-total']).toBe(1);
    sink.sent[1]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow down'));
    await clock.advance(200);
    expect(sink.sent).toHaveLength(3);
    // At t = 300 the next pause (400 ms) still fits; after that (t = 700 + 800) it would not.
    sink.sent[2]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow down'));
    await clock.advance(400);
    sink.sent[3]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow down'));
    await settle();
    const error = send[0] as DeliveryTimeoutError;
    expect(error).toBeInstanceOf(DeliveryTimeoutError);
    expect(error.phase).toBe('retrying');
    expect((error.cause as { errorCode: number }).errorCode).toBe(ErrorCode.RATE_LIMITED);
    expect(clock.pendingTimers).toBe(0);
  });

  it('after a partial append resends the tail only, and fails the tail when the refusal is fatal', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0 });
    const sends = outcomes([0, 1, 2, 3, 4].map((i) => acc.send('t', rec(i))));
    await clock.advance(0);
    sink.sent[0]!.resolve({ acks: sink.acks(2), error: brokerError(ErrorCode.INTERNAL, 'disk') });
    await clock.advance(100);
    expect(sink.sent[1]!.records.map((r) => r.value)).toEqual(['value-2', 'value-3', 'value-4']);
    sink.sent[1]!.resolve({ acks: sink.acks(1), error: brokerError(ErrorCode.NOT_AUTHORIZED, 'no') });
    await settle();
    expect(sends.slice(0, 3).map((o) => (o as { offset: bigint }).offset)).toEqual([0n, 1n, 2n]);
    expect(sends.slice(3).map((o) => (o as unknown as { errorCode: number }).errorCode)).toEqual([
      ErrorCode.NOT_AUTHORIZED,
      ErrorCode.NOT_AUTHORIZED,
    ]);
    expect(sink.sent).toHaveLength(2);
  });

  it('a lost reply is uncertain, carrying the record and the request it rode in; it is not resent', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0 });
    const sends = outcomes([acc.send('t', rec(0)), acc.send('t', rec(1))]);
    await clock.advance(0);
    sink.sent[0]!.reject(new ConnectionError('connection closed'));
    await settle();
    const e = sends[1] as UncertainDeliveryError;
    expect(e).toBeInstanceOf(UncertainDeliveryError);
    expect(e.record).toEqual(rec(1));
    expect(e.request).toMatchObject({ requestId: 1, topic: 't', attempt: 1, records: 2, position: 1 });
    await clock.advance(5_000);
    expect(sink.sent).toHaveLength(1);
    expect(acc.metrics()['record-uncertain-total']).toBe(2);
  });

  it('the deadline: a queued record fails, an in-flight one is uncertain; a late reply changes nothing', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0, maxBatchRecords: 1, maxInFlight: 1, deliveryTimeoutMs: 2_000 });
    const sends = outcomes([acc.send('t', rec(0)), acc.send('t', rec(1))]);
    await clock.advance(2_000);
    expect(sends[0]).toBeInstanceOf(UncertainDeliveryError);
    expect((sends[1] as DeliveryTimeoutError).phase).toBe('queued');
    const held = acc.metrics()['buffer-available-bytes'];
    sink.ackAll(0);
    await settle();
    expect(sends[0]).toBeInstanceOf(UncertainDeliveryError);
    expect(acc.metrics()['buffer-available-bytes']).toBeGreaterThan(held);
    expect(acc.metrics()['buffer-available-bytes']).toBe(acc.metrics()['buffer-total-bytes']);
  });

  it('a request carries no more time than its batch has left', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 0, deliveryTimeoutMs: 1_500, requestTimeoutMs: 1_000 });
    void acc.send('t', rec(0)).catch(() => undefined);
    await clock.advance(0);
    expect(sink.sent[0]!.options.timeoutMs).toBe(1_000);
    sink.sent[0]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow'));
    await clock.advance(100);
    sink.sent[1]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow'));
    await clock.advance(200);
    sink.sent[2]!.reject(brokerError(ErrorCode.RATE_LIMITED, 'slow'));
    await clock.advance(400);
    expect(sink.sent[3]!.options.timeoutMs).toBe(800);
  });
});

describe('close', () => {
  it('drains within drainMs, then fails what never left and reports what is in flight as uncertain', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5_000, maxBatchRecords: 2, maxInFlight: 1 });
    const sends = outcomes([0, 1, 2, 3, 4].map((i) => acc.send('t', rec(i))));
    await settle();
    let closed = false;
    void acc.close(100).then(() => (closed = true));
    await expect(acc.send('t', rec(9))).rejects.toThrow(UsageError);
    await clock.advance(99);
    expect(closed).toBe(false);
    await clock.advance(1);
    expect(closed).toBe(true);
    expect(sends.slice(0, 2).every((o) => o instanceof UncertainDeliveryError)).toBe(true);
    expect(sends.slice(2).map((o) => (o as DeliveryTimeoutError).phase)).toEqual(['closing', 'closing', 'closing']);
    expect(sink.sent).toHaveLength(1);
    expect(clock.pendingTimers).toBe(0);
  });

  it('with time enough, close() waits for every accepted record', async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5_000 });
    const sends = outcomes([acc.send('t', rec(0))]);
    const closing = acc.close(1_000);
    await clock.advance(0);
    sink.ackAll(0);
    await closing;
    expect(sends[0]).toMatchObject({ partition: 1, offset: 0n });
  });
});

describe('metrics', () => {
  it("reports Kafka's queue time and batch size figures", async () => {
    const { clock, sink, acc } = setup({ lingerMs: 5 });
    const sends = [0, 1, 2, 3].map((i) => acc.send('t', rec(i)));
    await clock.advance(5);
    sink.ackAll(0);
    await Promise.all(sends);
    const m = acc.metrics();
    expect(m['record-queue-time-avg']).toBe(5);
    expect(m['record-queue-time-max']).toBeCloseTo(5, 2);
    expect(m['batch-records-avg']).toBe(4);
    expect(m['records-per-request-avg']).toBe(4);
    // 28 bytes of frame overhead for topic "t" plus 4 entries of 8 + 2 + 7.
    expect(m['batch-size-avg']).toBe(28 + 4 * 17);
    expect(m['request-total']).toBe(1);
    expect(m['record-error-total']).toBe(0);
  });
});
