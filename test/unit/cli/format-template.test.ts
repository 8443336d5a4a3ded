import { describe, expect, it } from 'vitest';
import { DEFAULT_FORMAT, compileFormat } from '../../../src/cli/render/format-template.js';

const record = {
  topic: 'orders',
  partition: 3,
  offset: 122n,
  timestamp: 1_700_000_000_123n,
  key: Buffer.from('k1'),
  value: Buffer.from([0x00, 0xff, 0x41]),
  headers: [
    { name: 'a', value: Buffer.from('1') },
    { name: 'a', value: Buffer.from('2') },
  ],
};

describe('kcat-style format templates', () => {
  it('expands every placeholder and escape, keeping value bytes raw', () => {
    const out = compileFormat('%t/%p@%o %T k=%k(%K) v=%s(%S) h=%h 100%%\\t|\\\\\\n')(record);
    const expected = Buffer.concat([
      Buffer.from('orders/3@122 1700000000123 k=k1(2) v='),
      Buffer.from([0x00, 0xff, 0x41]),
      Buffer.from('(3) h=a=1,a=2 100%\t|\\\n'),
    ]);
    expect(out.equals(expected)).toBe(true);
  });

  it('defaults to the value and a newline; a keyless record prints nothing for %k and 0 for %K', () => {
    expect(compileFormat(DEFAULT_FORMAT)(record).equals(Buffer.from([0x00, 0xff, 0x41, 0x0a]))).toBe(true);
    const keyless = { ...record, key: Buffer.alloc(0), headers: undefined };
    expect(compileFormat('[%k][%K][%h]')(keyless).toString()).toBe('[][0][]');
  });

  it('rejects unknown placeholders, unknown escapes and a trailing lone % or backslash', () => {
    expect(() => compileFormat('%x')).toThrow(/unknown placeholder %x/);
    expect(() => compileFormat('\\q')).toThrow(/unknown escape \\q/);
    expect(() => compileFormat('abc%')).toThrow(/lone %/);
    expect(() => compileFormat('abc\\')).toThrow(/lone \\/);
  });
});
