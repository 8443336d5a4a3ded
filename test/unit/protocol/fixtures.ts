/** Loads the JSON vectors under fixtures/: "<digits>n" becomes a bigint, "utf8:<text>" a Buffer, hex loses spaces. */
import { readFileSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

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

/** A small deterministic PRNG (mulberry32) so random split points are reproducible. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
