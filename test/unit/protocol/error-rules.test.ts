/**
 * Every error code carries its rule (issue 12, item 3): whether the same request may be resent, what an idempotent
 * producer's session does next, whether a group member must rejoin. The client reads nothing else.
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

  it('treats a code it does not know as not retriable and as ending the session', () => {
    for (const code of [22, 49, 54, 999, 0xffff]) {
      expect(errorRule(code)).toEqual({ retriable: false, producer: 'new-session', rejoin: false });
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
