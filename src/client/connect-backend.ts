/**
 * The one place that chooses a backend: `kafka://host:port[,host:port...]` opens the Kafka backend (loaded only
 * then, so MoonMQ users never load the Kafka library; kafka/load.ts says how that import skips the library's unused
 * validators), anything else MoonMQ's protocol.
 */
import { type Backend, backendKindOf } from './backend.js';
import { UnsupportedError } from '../errors.js';
import { type Client, connect } from './client.js';
import type { ConnectOptions } from './moonmq/session.js';

export async function connectBackend(options: ConnectOptions): Promise<Backend> {
  if (backendKindOf(options.broker) === 'kafka') {
    const { loadKafkaBackend } = await import('./kafka/load.js');
    const { connectKafka } = await loadKafkaBackend();
    return connectKafka({
      bootstrap: options.broker,
      timeoutMs: options.timeoutMs,
      username: options.username,
      password: options.password,
    });
  }
  return connect(options);
}

/** `backend` as MoonMQ's Client for what only MoonMQ's protocol has; UnsupportedError naming the backend otherwise. */
export function moonmqOnly(backend: Backend, what: string): Client {
  if (backend.kind !== 'moonmq') throw new UnsupportedError(backend.kind, what);
  return backend as Client;
}
