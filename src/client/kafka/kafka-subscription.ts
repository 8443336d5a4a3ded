/**
 * `--follow` on Kafka: a group member of its own whose records are yielded as they arrive; the group is committed
 * past each record once the next one is asked for (or when the loop ends), as a MoonMQ SUBSCRIBE commits what it
 * flushed.
 */
import type { BackendSubscription, FetchedRecord } from '../backend.js';
import type { GroupReader } from './group-reader.js';

const TAKE = 500;
const WAIT_MS = 1000;

export class KafkaSubscription implements BackendSubscription {
  #reader: Promise<GroupReader> | undefined;
  #closed = false;

  constructor(
    private readonly open: () => Promise<GroupReader>,
    private readonly onClosed: () => void,
  ) {}

  #start(): Promise<GroupReader> {
    this.#reader ??= this.open();
    return this.#reader;
  }

  async ready(): Promise<void> {
    await this.#start();
  }

  async *[Symbol.asyncIterator](): AsyncIterator<FetchedRecord> {
    const reader = await this.#start();
    while (!this.#closed) {
      // take() commits past what it returns; what the caller never asked for is handed back below.
      const batch = await reader.take(TAKE, WAIT_MS);
      for (let i = 0; i < batch.length; i++) {
        let finished = true;
        try {
          yield batch[i]!;
          finished = false;
        } finally {
          if (finished) await this.#handBack(reader, batch.slice(i + 1));
        }
        // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- close() can run while the yield above waits; TypeScript keeps the narrowing across it (TypeScript#9998)
        if (this.#closed) {
          await this.#handBack(reader, batch.slice(i + 1));
          return;
        }
      }
    }
  }

  /** Commits each partition back to its first record that was taken but not yielded. */
  async #handBack(reader: GroupReader, rest: readonly FetchedRecord[]): Promise<void> {
    const first = new Map<number, bigint>();
    for (const m of rest) if (!first.has(m.partition)) first.set(m.partition, m.offset);
    await reader.commitAt([...first].map(([partition, offset]) => ({ partition, offset }))).catch(() => undefined);
  }

  async close(): Promise<void> {
    if (this.#closed) return;
    this.#closed = true;
    this.onClosed();
    const reader = await this.#reader?.catch(() => undefined);
    await reader?.close();
  }
}
