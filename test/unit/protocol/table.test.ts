import { describe, expect, it } from 'vitest';
import { ExitCode, exitCodeName } from '../../../src/cli/exit-codes.js';
import { ErrorCode, errorName } from '../../../src/protocol/error-codes.js';
import { Op, opName } from '../../../src/protocol/opcodes.js';
import { namesOf } from '../../../src/protocol/table.js';
import { TxnState, txnStateName } from '../../../src/storage/txn-state-codec.js';

describe('namesOf', () => {
  it('maps every code of a table back to its name and knows no other code', () => {
    const names = namesOf({ A: 1, B: 7 } as const);
    expect([...names]).toEqual([
      [1, 'A'],
      [7, 'B'],
    ]);
    expect(names.get(2)).toBeUndefined();
  });

  it('serves the four name functions, each naming every code of its table', () => {
    for (const [name, code] of Object.entries(Op)) expect(opName(code)).toBe(name);
    for (const [name, code] of Object.entries(ErrorCode)) expect(errorName(code)).toBe(`ERR_${name}`);
    for (const [name, code] of Object.entries(TxnState)) expect(txnStateName(code)).toBe(name);
    for (const [name, code] of Object.entries(ExitCode)) expect(exitCodeName(code)).toBe(name);
    expect([opName(0xff), errorName(99), txnStateName(9), exitCodeName(9)]).toEqual([
      '0xff',
      'ERR_UNKNOWN_99',
      'UNKNOWN_9',
      undefined,
    ]);
  });
});
