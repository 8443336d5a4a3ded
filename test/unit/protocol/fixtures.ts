/** Loads the JSON vectors under fixtures/: "<digits>n" becomes a bigint, "utf8:<text>" a Buffer, hex loses spaces. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { DecodeError } from '../../../src/errors.js';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '../../../fixtures');

function revive(_key: string, v: unknown): unknown {
  if (typeof v !== 'string') return v;
  if (/^\d+n$/.test(v)) return BigInt(v.slice(0, -1));
  if (v.startsWith('utf8:')) return Buffer.from(v.slice(5), 'utf8');
  return v;
}

export function loadFixture<T>(relative: string): T {
  return JSON.parse(readFileSync(path.join(root, relative), 'utf8'), revive) as T;
}

export function hex(s: string): Buffer {
  return Buffer.from(s.replace(/\s+/g, ''), 'hex');
}

export const SEQ_CORREL = Buffer.from(Array.from({ length: 16 }, (_, i) => i + 1));

export { prng } from '../../helpers/prng.js';

/** Runs `fn` and returns the DecodeError it throws; anything else (or nothing) fails the test. */
export function expectDecodeError(fn: () => unknown): DecodeError {
  try {
    fn();
  } catch (err) {
    if (err instanceof DecodeError) return err;
    throw err;
  }
  throw new Error('expected a DecodeError');
}
