/**
 * How a connection is bound to a producer (`ProducerBinding`, kept in `conn.session` under SESSION_PRODUCER): the
 * pid, the connection's epoch and the per-topic sequence state. The runtime (runtime.ts) writes the binding; the
 * produce path, the transaction coordinator and the replay check read it. Apart from the runtime so that its
 * readers, and the broker core's interfaces, need not import the runtime.
 */
import type { ConnectionHandle } from '../handler.js';
import type { SequenceState } from './sequence-table.js';

export const SESSION_PRODUCER = 'producer';

export interface DurableProducer {
  readonly name: string;
  readonly producerId: bigint;
  /** The current epoch: frames carrying any other are fenced (ERR 50). */
  epoch: number;
  /** Wall-clock ms of the last identity or memo write (the idle clock). */
  lastWriteAt: bigint;
  liveConnections: number;
  /** topic → state; a state applies only to connections of the epoch it was written in. */
  readonly topics: Map<string, SequenceState>;
}

export interface ProducerBinding {
  readonly producerId: bigint;
  /** The connection's epoch (always 0 for an ephemeral producer). */
  readonly epoch: number;
  /** Undefined for an ephemeral producer. */
  readonly durable: DurableProducer | undefined;
  /** The per-topic state: the durable producer's map, or the connection's own. */
  readonly topics: Map<string, SequenceState>;
}

/** The binding's state for `topic`, or undefined when none was written in the binding's epoch. */
export function stateFor(binding: ProducerBinding, topic: string): SequenceState | undefined {
  const state = binding.topics.get(topic);
  return state && state.epoch === binding.epoch ? state : undefined;
}

export function bindingOf(conn: ConnectionHandle): ProducerBinding | undefined {
  return conn.session.get(SESSION_PRODUCER) as ProducerBinding | undefined;
}
