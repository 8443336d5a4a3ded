/**
 * The load of `bench producer`: each producer sends keyed records through its accumulator, at its share of the
 * total rate (an open-loop schedule checked every millisecond) or, without a rate, as fast as the buffer admits.
 * Sends are never awaited one by one: when the buffer has no room for the next record the loop waits for one to
 * settle, which is the backpressure an application would apply. Outcomes are counted, and the slowest settle is
 * kept so a run can show every send settled within its delivery deadline.
 */
import type { Producer } from '../client/producer/producer.js';
import type { ProducerRecord } from '../client/producer/sink.js';
import { UncertainDeliveryError } from '../errors.js';

export interface LoadOptions {
  topic: string;
  /** Records to cycle through (distinct keys spread them over the partitions). */
  records: readonly ProducerRecord[];
  /** performance.now() at which to stop sending. */
  until: number;
  /** This producer's share of the rate in records/s; undefined: unthrottled. */
  recordsPerSec: number | undefined;
  /** Buffer bytes one record takes, to decide whether to send or wait. */
  recordCharge: number;
  /** Keep the longest send-to-outcome time (of every 16th send, and the first). */
  timeSettles: boolean;
}

export interface LoadFigures {
  sent: number;
  acked: number;
  failed: number;
  uncertain: number;
  /** The longest time from send() to its outcome, ms (0 unless timeSettles). */
  maxSettleMs: number;
  /** Σ burst² and Σ burst over the load's wake-ups (records sent in one go), for the record-weighted mean burst. */
  burstSquares: number;
  burstRecords: number;
}

const tick = (ms: number): Promise<void> =>
  new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

export async function driveProducer(producer: Producer, options: LoadOptions): Promise<LoadFigures> {
  const figures: LoadFigures = {
    sent: 0,
    acked: 0,
    failed: 0,
    uncertain: 0,
    maxSettleMs: 0,
    burstSquares: 0,
    burstRecords: 0,
  };
  let room: (() => void) | undefined;
  let outstanding = 0;
  const wake = (): void => {
    if (room && (outstanding === 0 || producer.bufferAvailableBytes >= options.recordCharge)) {
      const r = room;
      room = undefined;
      r();
    }
  };
  // Shared handlers: the load itself allocates nothing per record beyond what send() does.
  const onAck = (): void => {
    figures.acked += 1;
    outstanding -= 1;
    wake();
  };
  const onError = (error: unknown): void => {
    if (error instanceof UncertainDeliveryError) figures.uncertain += 1;
    else figures.failed += 1;
    outstanding -= 1;
    wake();
  };
  const timed =
    (started: number, then: (value: unknown) => void) =>
    (value: unknown): void => {
      const ms = performance.now() - started;
      if (ms > figures.maxSettleMs) figures.maxSettleMs = ms;
      then(value);
    };
  const sendOne = (): void => {
    const record = options.records[figures.sent % options.records.length]!;
    figures.sent += 1;
    outstanding += 1;
    const sent = producer.send(options.topic, record);
    // Every 16th send is timed: two closures per record would weigh on the memory a stalled run measures, and the
    // records next to a timed one left within microseconds of it, in the same batch or the one before.
    if (!options.timeSettles || (figures.sent & 15) !== 1) {
      sent.then(onAck, onError);
      return;
    }
    const started = performance.now();
    sent.then(timed(started, onAck), timed(started, onError));
  };
  const start = performance.now();
  while (performance.now() < options.until) {
    const due =
      options.recordsPerSec === undefined
        ? figures.sent + 1_000
        : Math.floor(((performance.now() - start) / 1000) * options.recordsPerSec);
    // The clock is read once per 64 sends: the load itself should cost next to nothing per record.
    let now = performance.now();
    const before = figures.sent;
    while (figures.sent < due && now < options.until) {
      if (producer.bufferAvailableBytes < options.recordCharge && outstanding > 0) {
        await new Promise<void>((resolve) => (room = resolve));
        now = performance.now();
        continue;
      }
      sendOne();
      if ((figures.sent & 63) === 0) now = performance.now();
    }
    const burst = figures.sent - before;
    figures.burstSquares += burst * burst;
    figures.burstRecords += burst;
    await tick(options.recordsPerSec === undefined ? 0 : 1);
  }
  await producer.flush();
  while (outstanding > 0) await new Promise<void>((resolve) => (room = resolve));
  return figures;
}

/** Samples this process's RSS every `everyMs` until stopped; `peak` is the highest seen. */
export class RssSampler {
  peak = process.memoryUsage.rss();
  readonly baseline = this.peak;
  private readonly timer: NodeJS.Timeout;

  constructor(everyMs = 50) {
    this.timer = setInterval(() => {
      const rss = process.memoryUsage.rss();
      if (rss > this.peak) this.peak = rss;
    }, everyMs);
  }

  stop(): void {
    clearInterval(this.timer);
    const rss = process.memoryUsage.rss();
    if (rss > this.peak) this.peak = rss;
  }
}
