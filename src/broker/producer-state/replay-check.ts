/**
 * What a duplicate (a request whose sequence the table classified as a replay) must pass before the broker answers
 * it with the memoized acks instead of appending:
 *
 *   1. the write that memoized those acks became durable: a session one of whose writes failed to (a failed data
 *      fsync, or a memo that was not persisted) is over, and every later request of it is refused (ERR 7) until the
 *      producer starts a new session;
 *   2. under acks=leader the acked records lie below the log's durable end.
 *
 * The content is not compared (semantics.md §5, the MoonMQ contract): what keeps a different record off an old
 * sequence is the client's error table (protocol/error-codes.ts), which ends the session after every error that may
 * have left state for the sequence, together with rule 1, which keeps a failed write from ever being replayed.
 */
import { ErrorCode } from '../../protocol/error-codes.js';
import type { MemoAck } from '../../storage/producer-state-codec.js';
import type { BrokerCore } from '../core.js';
import { HandlerError } from '../handler.js';
import type { ProducerBinding } from './binding.js';
import type { SequenceState } from './sequence-table.js';

export function sessionFailed(): HandlerError {
  return new HandlerError(
    ErrorCode.INTERNAL,
    'an earlier write of this producer session did not become durable: start a new session (INIT_PRODUCER_ID)',
  );
}

/** Marks `state` and the binding's current state for `topic` (when of the same epoch) as belonging to a failed session. */
export function failSession(binding: ProducerBinding, topic: string, state: SequenceState): void {
  state.failed = true;
  const current = binding.topics.get(topic);
  if (current && current.epoch === state.epoch) current.failed = true;
}

/** Waits for the memoizing write, then checks the two rules above; resolves when the replay may be acked. */
export async function checkReplay(
  broker: BrokerCore,
  topicName: string,
  state: Pick<SequenceState, 'durable' | 'failed'>,
  acks: readonly MemoAck[],
  current: Pick<SequenceState, 'failed'> = state,
): Promise<void> {
  await state.durable;
  if (state.failed || current.failed) throw sessionFailed();
  const topic = broker.topics.requireTopic(topicName);
  if (broker.config.acks === 'none') return;
  for (const ack of acks) {
    const log = topic.partitions[ack.partition - 1];
    if (log && ack.offset >= log.durableEndOffset) throw sessionFailed();
  }
}
