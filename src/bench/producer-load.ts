/**
 * The load of `bench producer`: each producer sends keyed records through its accumulator, at its share of the
 * total rate (drivePaced: arrivals evenly spaced in time, as the seed's model assumes) or, without a rate, as fast
 * as the buffer admits (driveProducer).
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
  /** Wake-ups of the schedule (for the mean records per wake-up). */
  wakeups: number;
}

const tick = (ms: number): Promise<void> =>
  new Promise((resolve) => (ms > 0 ? setTimeout(resolve, ms) : setImmediate(resolve)));

/** One producer's load: its counters, the shared outcome handlers and the wait for buffer room. */
class Load {
  readonly figures: LoadFigures = {
    sent: 0,
    acked: 0,
    failed: 0,
    uncertain: 0,
    maxSettleMs: 0,
    burstSquares: 0,
    burstRecords: 0,
    wakeups: 0,
  };
  outstanding = 0;
  private room: (() => void) | undefined;

  constructor(
    private readonly producer: Producer,
    private readonly options: LoadOptions,
  ) {}

  private readonly wake = (): void => {
    const room = this.room;
    if (room && (this.outstanding === 0 || this.producer.bufferAvailableBytes >= this.options.recordCharge)) {
      this.room = undefined;
      room();
    }
  };

  // Shared handlers: the load itself allocates nothing per record beyond what send() does.
  private readonly onAck = (): void => {
    this.figures.acked += 1;
    this.outstanding -= 1;
    this.wake();
  };

  private readonly onError = (error: unknown): void => {
    if (error instanceof UncertainDeliveryError) this.figures.uncertain += 1;
    else this.figures.failed += 1;
    this.outstanding -= 1;
    this.wake();
  };

  private timed(started: number, then: (value: unknown) => void): (value: unknown) => void {
    return (value) => {
      const ms = performance.now() - started;
      if (ms > this.figures.maxSettleMs) this.figures.maxSettleMs = ms;
      then(value);
    };
  }

  sendOne(): void {
    const f = this.figures;
    const record = this.options.records[f.sent % this.options.records.length]!;
    f.sent += 1;
    this.outstanding += 1;
    const sent = this.producer.send(this.options.topic, record);
    // Every 16th send is timed: two closures per record would weigh on the memory a stalled run measures, and the
    // records next to a timed one left within microseconds of it, in the same batch or the one before.
    if (!this.options.timeSettles || (f.sent & 15) !== 1) {
      sent.then(this.onAck, this.onError);
      return;
    }
    const started = performance.now();
    sent.then(this.timed(started, this.onAck), this.timed(started, this.onError));
  }

  /** True when the buffer has no room for the next record while sends are outstanding. */
  get full(): boolean {
    return this.producer.bufferAvailableBytes < this.options.recordCharge && this.outstanding > 0;
  }

  /** Resolves once a send settled and the buffer has room again (or nothing is outstanding). */
  untilRoom(): Promise<void> {
    return new Promise<void>((resolve) => (this.room = resolve));
  }

  /** Counts one wake-up of the schedule that sent `burst` records. */
  wokeUp(burst: number): void {
    if (burst === 0) return;
    this.figures.burstSquares += burst * burst;
    this.figures.burstRecords += burst;
    this.figures.wakeups += 1;
  }
}

/**
 * Every producer at `recordsPerSec`, arrivals evenly spaced in time (the seed's smooth-arrival assumption): one
 * open-loop stream at P × the rate dealt round-robin, so each producer's records are 1/rate apart and its neighbour's
 * fall between them. A wake-up sends what fell due since the last one and the next comes as soon as the event loop
 * has turned once (setImmediate; a timer only when the next arrival is more than a millisecond away), so a burst is
 * only as large as the loop is slow, which `wokeUp` records per producer. When a producer's buffer is full the
 * stream waits for it (the backpressure an application would apply) and then sends its backlog: the run has not
 * kept up, which the model check reports.
 */
export async function drivePaced(
  producers: readonly Producer[],
  options: LoadOptions,
  recordsPerSec: number,
): Promise<LoadFigures[]> {
  const loads = producers.map((p) => new Load(p, options));
  const perMs = (recordsPerSec * loads.length) / 1000;
  const counts = new Array<number>(loads.length).fill(0);
  const start = performance.now();
  let dealt = 0;
  for (let now = start; now < options.until; now = performance.now()) {
    const due = Math.floor((now - start) * perMs);
    counts.fill(0);
    let waited: Load | undefined;
    for (; dealt < due; dealt++) {
      const i = dealt % loads.length;
      if (loads[i]!.full) {
        waited = loads[i];
        break;
      }
      loads[i]!.sendOne();
      counts[i]! += 1;
    }
    loads.forEach((load, i) => load.wokeUp(counts[i]!));
    if (waited) await waited.untilRoom();
    else await tick(Math.floor((dealt + 1) / perMs - (performance.now() - start)));
  }
  await Promise.all(producers.map((p) => p.flush()));
  for (const load of loads) while (load.outstanding > 0) await load.untilRoom();
  return loads.map((l) => l.figures);
}

/** One producer as fast as its buffer admits (the throughput figure): sends in runs of 1,000 between event-loop turns. */
export async function driveProducer(producer: Producer, options: LoadOptions): Promise<LoadFigures> {
  const load = new Load(producer, options);
  const f = load.figures;
  while (performance.now() < options.until) {
    const due = f.sent + 1_000;
    // The clock is read once per 64 sends: the load itself should cost next to nothing per record.
    let now = performance.now();
    const before = f.sent;
    while (f.sent < due && now < options.until) {
      if (load.full) {
        await load.untilRoom();
        now = performance.now();
        continue;
      }
      load.sendOne();
      if ((f.sent & 63) === 0) now = performance.now();
    }
    load.wokeUp(f.sent - before);
    await tick(0);
  }
  await producer.flush();
  while (load.outstanding > 0) await load.untilRoom();
  return f;
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
