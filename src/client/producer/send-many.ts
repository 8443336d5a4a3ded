/**
 * sendMany(): records handed to the accumulator together, with ONE promise for all of them instead of one per
 * record. A caller that sends a million lines through send() holds a million promises and their reactions while
 * the batches are out, and each of them survives young-generation collections (the collector copies every live
 * object, so the cost grows with what is pending, not with what was freed): `crater produce` spent a third of its
 * CPU in the collector that way. The records go through the same batches, buffer, deadline and retries as send()'s,
 * and each still settles exactly once, as acked, failed or uncertain; `outcomes` holds them in the order given.
 *
 * Admission never waits: the records that fit in the buffer are taken from the front and `accepted` says how many;
 * the caller sends the rest once earlier outcomes have freed room (or through send(), which waits).
 */
import type { ProducerBatch } from './producer-batch.js';
import type { ProduceAck } from './sink.js';

/** A record's outcome: its ack, or the error it failed with (UncertainDeliveryError when it may have been written). */
export type RecordOutcome = ProduceAck | Error;

export class SendRun {
  /** The outcome of the record at `start + i` at `i`; undefined until it settles. */
  readonly outcomes: (RecordOutcome | undefined)[] = [];
  /** Records taken, from `start` on; the ones after them found no room in the buffer and were not sent. */
  accepted = 0;
  /** Resolves (never rejects) once every accepted record has its outcome. */
  readonly settled: Promise<void>;
  private pending = 0;
  private sealed = false;
  private resolve: () => void = () => undefined;

  /** `onError` sees each failed outcome as it is known (a producer's open transaction fails with it). */
  constructor(
    readonly start: number,
    private readonly onError?: (error: Error) => void,
  ) {
    this.settled = new Promise<void>((resolve) => (this.resolve = resolve));
  }

  /** A run whose every record failed at once with `error` (a closed producer). */
  static refused(start: number, count: number, error: Error): SendRun {
    const run = new SendRun(start);
    for (let i = 0; i < count; i++) run.outcomes.push(error);
    run.seal(count);
    return run;
  }

  /** Record `i` (from `start`) failed before it was appended. */
  fail(i: number, error: Error): void {
    this.outcomes[i] = error;
    this.onError?.(error);
  }

  /** Records `first` .. `first + n - 1` (from `start`) were just appended to `batch`, unwatched. */
  watch(batch: ProducerBatch, first: number, n: number): void {
    if (n === 0) return;
    this.pending += n;
    batch.watchRun(n, (j, outcome) => {
      if (!(outcome instanceof Promise)) return this.settle(first + j, outcome);
      // Moved to the tail of a partial append: its outcome there is its outcome.
      outcome.then(
        (ack) => this.settle(first + j, ack),
        (error: unknown) => this.settle(first + j, error as Error),
      );
    });
  }

  /** Every record the run takes was appended: `accepted` of them. */
  seal(accepted: number): void {
    this.accepted = accepted;
    this.outcomes.length = accepted;
    this.sealed = true;
    if (this.pending === 0) this.resolve();
  }

  private settle(i: number, outcome: RecordOutcome): void {
    this.outcomes[i] = outcome;
    if (outcome instanceof Error) this.onError?.(outcome);
    this.pending -= 1;
    if (this.pending === 0 && this.sealed) this.resolve();
  }
}
