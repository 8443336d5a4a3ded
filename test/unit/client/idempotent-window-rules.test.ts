/**
 * The idempotent window reads the error-code table (protocol/error-codes.ts) for what to do after a refused batch:
 * `resendAfterEarlier` (ERR 11) waits for the session's earlier batches and resends the same sequence, `retriable`
 * (ERR 6, ERR 20) resends it after a pause, anything else ends the session and reaches the caller.
 */
import { describe, expect, it } from 'vitest';
import { BrokerError } from '../../../src/errors.js';
import { brokerError } from '../../../src/client/moonmq/connection.js';
import {
  type BatchReply,
  type Current,
  IdempotentWindow,
  type WindowHost,
} from '../../../src/client/moonmq/idempotent-window.js';
import type { Session } from '../../../src/client/moonmq/session.js';
import { ErrorCode } from '../../../src/protocol/error-codes.js';

const current: Current = {
  session: { conn: { closed: false } } as unknown as Session,
  id: { producerId: 1n, epoch: 0 },
};

function host(): WindowHost & { ended: number } {
  let generation = 1;
  let next = 0;
  return {
    ended: 0,
    ready: () => Promise.resolve(current),
    resume: () => Promise.resolve(current),
    generation: () => generation,
    endSession() {
      this.ended++;
      generation++;
      next = 0;
    },
    assign: (_topic, count) => {
      const first = next;
      next += count;
      return first;
    },
    maxRetries: () => 3,
  };
}

const acked = (count: number): BatchReply => ({
  acks: Array.from({ length: count }, (_, i) => ({ partition: 1, offset: BigInt(i) })),
  errorCode: ErrorCode.NONE,
  errorMessage: '',
});

/** Each call of the returned request answers with the next of `answers` (a reply, or an error to reject with). */
function scripted(answers: (BatchReply | Error | Promise<BatchReply>)[]) {
  const calls: number[] = [];
  const request = (_current: Current, baseSeq: number): Promise<BatchReply> => {
    calls.push(baseSeq);
    const answer = answers.shift()!;
    return answer instanceof Error ? Promise.reject(answer) : Promise.resolve(answer);
  };
  return { calls, request };
}

describe('the idempotent window after a refused batch', () => {
  it('resends a batch refused with ERR 11 with its own sequence, once the batch before it settled', async () => {
    const h = host();
    const window = new IdempotentWindow(h);
    const order: string[] = [];
    let releaseFirst!: () => void;
    const first = window.send('t', 2, () => {
      order.push('first sent');
      return new Promise<BatchReply>((resolve) => {
        releaseFirst = () => {
          order.push('first acked');
          resolve(acked(2));
        };
      });
    });
    const second = scripted([brokerError(ErrorCode.OUT_OF_ORDER_SEQUENCE, 'behind an unsettled batch'), acked(3)]);
    let secondSent!: () => void;
    const sentOnce = new Promise<void>((resolve) => (secondSent = resolve));
    const secondDone = window.send('t', 3, (c, seq) => {
      order.push(`second sent at ${seq}`);
      secondSent();
      return second.request(c, seq);
    });
    await sentOnce;
    expect(order).toEqual(['first sent', 'second sent at 2']);
    releaseFirst();
    await first;
    expect((await secondDone).acks).toHaveLength(3);
    expect(second.calls).toEqual([2, 2]);
    expect(order).toEqual(['first sent', 'second sent at 2', 'first acked', 'second sent at 2']);
    expect(h.ended).toBe(0);
  });

  it('resends a retriable refusal (ERR 6, ERR 20) with the same sequence', async () => {
    for (const code of [ErrorCode.RATE_LIMITED, ErrorCode.NOT_LEADER]) {
      const h = host();
      const { calls, request } = scripted([brokerError(code, 'not now'), acked(1)]);
      expect((await new IdempotentWindow(h).send('t', 1, request)).acks).toHaveLength(1);
      expect(calls).toEqual([0, 0]);
      expect(h.ended).toBe(0);
    }
  });

  it('hands any other refusal to the caller after one attempt and ends the session', async () => {
    for (const code of [ErrorCode.TOPIC_MISSING, ErrorCode.INTERNAL, ErrorCode.PRODUCER_FENCED, 999]) {
      const h = host();
      const { calls, request } = scripted([brokerError(code, 'no'), acked(1)]);
      const error = await new IdempotentWindow(h).send('t', 1, request).catch((e: unknown) => e);
      expect(error).toBeInstanceOf(BrokerError);
      expect((error as BrokerError).errorCode).toBe(code);
      expect(calls).toEqual([0]);
      expect(h.ended).toBe(1);
    }
  });
});
