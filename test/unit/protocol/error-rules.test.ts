/**
 * Every error code carries its rule (issue 12, item 3): whether the same request may be resent, whether a windowed
 * batch is resent once the batches before it settled, whether a partial append's unwritten tail may be resent, what
 * an idempotent producer's session does next, whether a group member must rejoin. The client reads nothing else.
 */
import { describe, expect, it } from 'vitest';
import {
  ErrorCode,
  type ErrorCodeName,
  endsProducerSession,
  errorRule,
  errorRules,
  isRetriable,
  needsRejoin,
} from '../../../src/protocol/error-codes.js';
import { resendAfterError, sessionAfterError } from '../../../src/client/moonmq/idempotent-sink.js';
import { brokerError } from '../../../src/client/moonmq/connection.js';
import { retryRule, tailRule } from '../../../src/client/producer/retry-rule.js';

const names = Object.keys(ErrorCode) as ErrorCodeName[];

describe('the error-code rules', () => {
  it('has exactly one rule per code, and the predicates read it', () => {
    expect(Object.keys(errorRules).sort()).toEqual([...names].sort());
    for (const name of names) {
      const code = ErrorCode[name];
      const rule = errorRules[name];
      expect(errorRule(code)).toBe(rule);
      expect(isRetriable(code)).toBe(rule.retriable);
      expect(endsProducerSession(code)).toBe(rule.producer !== 'keep');
      expect(needsRejoin(code)).toBe(rule.rejoin);
    }
  });

  it('never lets a retriable code end a session: a resend with the same sequence must be safe', () => {
    for (const name of names)
      if (errorRules[name].retriable) expect([name, errorRules[name].producer]).toEqual([name, 'keep']);
  });

  it('ends the session on every code after which the broker may hold state for the sequence', () => {
    // ERR 7 follows a failed write, fsync or memo; ERR 11 a sequence the broker no longer agrees on; ERR 8 and 10 a
    // session the broker does not know as the client does.
    const spent = names.filter((n) => errorRules[n].producer === 'new-session').sort();
    expect(spent).toEqual(['BAD_PROTOCOL', 'INTERNAL', 'NO_PRODUCER_ID', 'OUT_OF_ORDER_SEQUENCE']);
    expect(errorRule(ErrorCode.PRODUCER_FENCED).producer).toBe('fatal');
    expect(names.filter((n) => errorRules[n].retriable).sort()).toEqual(['NOT_LEADER', 'RATE_LIMITED']);
    expect(names.filter((n) => errorRules[n].rejoin)).toEqual(['GROUP_MEMBER_UNKNOWN']);
  });

  it('resends a windowed batch after its predecessors only on ERR 11, which is not retriable on its own', () => {
    expect(names.filter((n) => errorRules[n].resendAfterEarlier)).toEqual(['OUT_OF_ORDER_SEQUENCE']);
    for (const name of names)
      if (errorRules[name].resendAfterEarlier) expect([name, errorRules[name].retriable]).toEqual([name, false]);
  });

  it("resends a partial append's unwritten tail after every retriable code and after a storage failure", () => {
    const tail = names.filter((n) => errorRules[n].tailRetriable).sort();
    expect(tail).toEqual(['INTERNAL', 'NOT_LEADER', 'RATE_LIMITED']);
    for (const name of names) if (errorRules[name].retriable) expect(tail).toContain(name);
  });

  it('gives every code all five fields, each of its own type', () => {
    for (const name of names) {
      const rule = errorRules[name];
      expect(Object.keys(rule).sort(), name).toEqual([
        'producer',
        'rejoin',
        'resendAfterEarlier',
        'retriable',
        'tailRetriable',
      ]);
      for (const field of ['retriable', 'resendAfterEarlier', 'tailRetriable', 'rejoin'] as const)
        expect(typeof rule[field], `${name}.${field}`).toBe('boolean');
      expect(['keep', 'new-session', 'fatal']).toContain(rule.producer);
    }
  });

  it('treats a code it does not know as not retriable and as ending the session', () => {
    for (const code of [22, 49, 54, 999, 0xffff]) {
      expect(errorRule(code)).toEqual({
        retriable: false,
        resendAfterEarlier: false,
        tailRetriable: false,
        producer: 'new-session',
        rejoin: false,
      });
    }
  });
});

describe("the accumulator's reading of each code", () => {
  it('retries a refused request only when retriable, and its unwritten tail only when tailRetriable', () => {
    for (const code of [...names.map((n) => ErrorCode[n]), 22, 999]) {
      const rule = errorRule(code);
      const error = brokerError(code, 'refused');
      expect(retryRule(error), `code ${code}`).toBe(rule.retriable ? 'retry' : 'fatal');
      expect(tailRule(error), `code ${code}`).toBe(rule.tailRetriable ? 'retry' : 'fatal');
    }
  });
});

describe("the idempotent producer's reaction to each code", () => {
  it('resends only retriable codes and replaces its session only after codes that end it', () => {
    for (const code of [...names.map((n) => ErrorCode[n]), 22, 999]) {
      const rule = errorRule(code);
      expect(resendAfterError(code, 0, 5)).toBe(rule.retriable);
      expect(resendAfterError(code, 5, 5)).toBe(false);
      const expected = rule.producer === 'new-session' ? 'new-session' : 'keep';
      expect(sessionAfterError(code, false)).toBe(expected);
      expect(sessionAfterError(code, true)).toBe(expected === 'keep' ? 'keep' : 'new-session-after-transaction');
    }
  });
});
