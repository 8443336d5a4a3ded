/**
 * Batch consumers over connections a test can cut: every session the consumer opens (main, fetch, producers) is
 * tracked, and crash() destroys them all and refuses new ones, which is what the broker sees when a consumer
 * process dies mid-batch (its open transaction is aborted, nothing more is committed).
 */
import { BatchConsumer, type BatchConsumerDeps } from '../../src/client/consumer/batch/batch-consumer.js';
import type { BatchConsumerOptions } from '../../src/client/consumer/batch/types.js';
import { Client } from '../../src/client/client.js';
import { MoonmqGroupFetcher } from '../../src/client/moonmq/group-fetcher.js';
import { openSession, type Session } from '../../src/client/moonmq/session.js';
import { IdempotentSink } from '../../src/client/moonmq/idempotent-sink.js';
import { Producer, type ProducerOptions } from '../../src/client/producer/producer.js';

export interface CrashableConsumer<T> {
  consumer: BatchConsumer<T>;
  /** Cuts every connection at once and refuses to open more. */
  crash(): void;
  /** Closes whatever is left (after a crash: nothing to do). */
  close(): Promise<void>;
}

export async function crashableBatchConsumer<T = Buffer>(
  port: number,
  options: BatchConsumerOptions<T>,
): Promise<CrashableConsumer<T>> {
  const sessions: Session[] = [];
  let crashed = false;
  const open = async (): Promise<Session> => {
    // Not a ConnectionError: the producers' sinks would keep retrying a dead process's reconnects.
    if (crashed) throw new Error('this consumer process has crashed');
    const s = await openSession({ broker: `127.0.0.1:${port}` });
    sessions.push(s);
    return s;
  };
  const main = await open();
  const producers: Producer[] = [];
  const deps: BatchConsumerDeps = {
    backend: new Client(main, { broker: `127.0.0.1:${port}` }),
    openFetcher: async (group, _topics, isolation) => new MoonmqGroupFetcher(await open(), group, isolation),
    producer: (o: ProducerOptions) => {
      const p = new Producer(new IdempotentSink(undefined, { producerName: o.producerName, reconnect: open }), o);
      producers.push(p);
      return p;
    },
  };
  const consumer = new BatchConsumer<T>(deps, options);
  return {
    consumer,
    crash() {
      crashed = true;
      for (const s of sessions) s.conn.destroy();
    },
    async close() {
      await consumer.stop();
      for (const s of sessions) await s.conn.close().catch(() => {});
    },
  };
}
