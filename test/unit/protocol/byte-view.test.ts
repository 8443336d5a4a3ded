import { describe, expect, it } from 'vitest';
import { arrayBufferView, byteView, sameRange } from '../../../src/protocol/byte-view.js';

describe('byteView', () => {
  it('is a Buffer over the same memory as subarray, also inside a pooled Buffer with a non-zero byteOffset', () => {
    // Buffer.from of a short string is a slice of Node's shared pool, so its byteOffset is usually not 0.
    const parent = Buffer.from('0123456789abcdef').subarray(3);
    const v = byteView(parent, 2, 7);
    expect(Buffer.isBuffer(v)).toBe(true);
    expect(v).toEqual(parent.subarray(2, 7));
    expect(v.toString()).toBe('56789');
    expect(v.buffer).toBe(parent.buffer);
    expect(v.byteOffset).toBe(parent.byteOffset + 2);
    // Shared memory: a write through the view shows in the parent, and Buffer methods work on it.
    v[0] = 0x41;
    expect(parent.toString()).toBe('34A6789abcdef');
    expect(v.readUInt16BE(0)).toBe(0x4136);
  });

  it('makes empty views at either end', () => {
    const parent = Buffer.from('xyz');
    expect(byteView(parent, 0, 0).length).toBe(0);
    expect(byteView(parent, 3, 3).length).toBe(0);
    expect(byteView(parent, 0, 3).toString()).toBe('xyz');
  });

  it('arrayBufferView makes the same view from the parent ArrayBuffer and an absolute offset', () => {
    const parent = Buffer.from('0123456789abcdef').subarray(3);
    const v = arrayBufferView(parent.buffer, parent.byteOffset + 2, 5);
    expect(Buffer.isBuffer(v)).toBe(true);
    expect(v).toEqual(byteView(parent, 2, 7));
    expect(v.buffer).toBe(parent.buffer);
    expect(v.byteOffset).toBe(parent.byteOffset + 2);
    expect(arrayBufferView(parent.buffer, parent.byteOffset + parent.length, 0).length).toBe(0);
  });
});

describe('sameRange', () => {
  it('compares two ranges of one Buffer byte by byte, also when they overlap or are empty', () => {
    const b = Buffer.from('ordersorderxorders');
    expect(sameRange(b, 0, 12, 6)).toBe(true);
    expect(sameRange(b, 0, 6, 6)).toBe(false); // "orderx" differs in its last byte only
    expect(sameRange(b, 0, 6, 5)).toBe(true);
    expect(sameRange(b, 3, 3, 6)).toBe(true);
    expect(sameRange(b, 1, 7, 0)).toBe(true);
    expect(sameRange(Buffer.from('aaab'), 0, 1, 2)).toBe(true);
    expect(sameRange(Buffer.from('aaab'), 0, 1, 3)).toBe(false);
  });
});
