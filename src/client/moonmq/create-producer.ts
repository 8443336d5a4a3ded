/** A Producer on a MoonMQ session: the plain sink, or the idempotent one when the options ask for idempotence. */
import { Producer, type ProducerOptions, wantsIdempotence } from '../producer/producer.js';
import { DirectSink } from './direct-sink.js';
import { IdempotentSink } from './idempotent-sink.js';
import type { Session } from './session.js';

/**
 * A producer on `client`'s own connection (an idempotent one binds its producer id to it, and a lost connection
 * fails its sends); `client.producer(options)` gives an idempotent producer a reconnecting connection of its own.
 */
export function createProducer(client: { readonly session: Session }, options: ProducerOptions = {}): Producer {
  const sink = wantsIdempotence(options)
    ? new IdempotentSink(client.session, { producerName: options.producerName })
    : new DirectSink(client.session);
  return new Producer(sink, options);
}
