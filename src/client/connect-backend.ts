/**
 * The one place that chooses a backend: `kafka://host:port[,host:port...]` opens the Kafka backend (loaded only
 * then, so MoonMQ users never load the Kafka library), anything else MoonMQ's protocol.
 */
import { type Backend, backendKindOf } from './backend.js';
import { connect } from './client.js';
import type { ConnectOptions } from './moonmq/session.js';

export async function connectBackend(options: ConnectOptions): Promise<Backend> {
  if (backendKindOf(options.broker) === 'kafka') {
    const { connectKafka } = await import('./kafka/kafka-backend.js');
    return connectKafka({ bootstrap: options.broker, timeoutMs: options.timeoutMs, username: options.username, password: options.password });
  }
  return connect(options);
}
