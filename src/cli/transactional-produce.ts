/**
 * `crater produce --idempotent` and `--producer-name NAME [--transactional]`: records go through an idempotent
 * producer (ephemeral, or durable when named) on a connection of its own instead of plain PRODUCE / PRODUCE_BATCH,
 * so a resent request after a lost reply is deduplicated by the broker. With --transactional the whole input is one
 * transaction: it commits at the end of input and aborts on SIGINT, SIGTERM or the first failure (a record the
 * broker refused, a malformed line, a lost connection, a refused commit), so read_committed readers see every
 * record or none.
 */
import type { BackendCodec, Backend as Client, BackendProducer as Producer } from '../client/backend.js';
import type { AccumulatorOptions } from '../client/index.js';
import type { ProduceRunner } from './produce-runner.js';
import type { RecordChunk } from './producing.js';
import { StopGate, STOPPED } from './stop-gate.js';

export type TransactionEnd =
  | { committed: true }
  | {
      committed: false;
      reason: 'SIGINT' | 'SIGTERM' | 'failure';
      error?: Error | undefined;
      abortError?: Error | undefined;
    };

export interface IdempotentProduceOptions {
  /** Absent: an ephemeral idempotent producer; a name: the durable producer NAME (needed for transactions). */
  producerName?: string | undefined;
  codec: BackendCodec;
  /** Kafka only: every record to this 0-based partition. */
  partition?: number | undefined;
  timeoutMs: number;
  maxFrameBytes: number;
  /** The accumulator flags (--linger, --batch-bytes, …). */
  tuning?: AccumulatorOptions | undefined;
}

export class IdempotentProduce {
  private constructor(readonly producer: Producer) {}

  static open(client: Client, options: IdempotentProduceOptions): IdempotentProduce {
    return new IdempotentProduce(
      client.producer({
        ...options.tuning,
        idempotent: true,
        producerName: options.producerName,
        codec: options.codec,
        ...(options.partition !== undefined && { partition: options.partition }),
        timeoutMs: options.timeoutMs,
        maxFrameBytes: options.maxFrameBytes,
      }),
    );
  }

  /**
   * Begins the transaction, feeds every chunk of records to `runner` and commits at the end of input; aborts instead on
   * `signal` (SIGINT), SIGTERM or the first failed record. Never throws for those: the end says what happened.
   */
  async runTransaction(
    records: AsyncIterable<RecordChunk>,
    runner: ProduceRunner,
    signal: AbortSignal,
  ): Promise<TransactionEnd> {
    await this.producer.beginTransaction();
    const stop = new AbortController();
    const onTerm = (): void => stop.abort('SIGTERM');
    // Only Ctrl-C aborts: a closed stdout stops the delivery reports, not the transaction (produce-run.ts).
    const onInterrupt = (): void => {
      if (signal.reason === 'interrupt') stop.abort('SIGINT');
    };
    process.once('SIGTERM', onTerm);
    signal.addEventListener('abort', onInterrupt, { once: true });
    const gate = new StopGate();
    stop.signal.addEventListener('abort', () => gate.stop(), { once: true });
    if (signal.aborted) onInterrupt();
    let failure: Error | undefined;
    try {
      const input = records[Symbol.asyncIterator]();
      for (;;) {
        const next = await gate.next(input.next());
        if (next === STOPPED || next.done) break;
        await runner.add(next.value);
        if (runner.stats.failed.length > 0 || stop.signal.aborted) break;
      }
      if (!stop.signal.aborted && runner.stats.failed.length === 0) await runner.flush();
    } catch (error) {
      failure = error as Error;
    } finally {
      process.off('SIGTERM', onTerm);
      signal.removeEventListener('abort', onInterrupt);
    }
    const reason = stop.signal.aborted ? (stop.signal.reason as 'SIGINT' | 'SIGTERM' | 'failure') : undefined;
    const firstFailed = runner.stats.failed[0]?.error;
    if (reason === undefined && failure === undefined && firstFailed === undefined) {
      try {
        await this.producer.commitTransaction();
        return { committed: true };
      } catch (error) {
        return { committed: false, reason: 'failure', error: error as Error };
      }
    }
    const error = failure ?? (firstFailed ? new Error(`${firstFailed.code}: ${firstFailed.message}`) : undefined);
    let abortError: Error | undefined;
    await this.producer.abortTransaction().catch((e: unknown) => {
      abortError = e as Error;
    });
    return { committed: false, reason: reason ?? 'failure', error, abortError };
  }

  close(): Promise<void> {
    return this.producer.close();
  }
}

/** The stderr line that says how the transaction ended. */
export function transactionEndLine(end: TransactionEnd, records: number): string {
  if (end.committed) return `transaction committed: ${records} records`;
  const why = end.reason === 'failure' ? `failure: ${end.error?.message ?? 'unknown error'}` : end.reason;
  const tail = end.abortError
    ? `; END_TXN abort failed (${end.abortError.message}), the broker aborts it when the connection closes`
    : '';
  return `transaction aborted (${why}): none of its records is visible to read_committed readers${tail}`;
}
