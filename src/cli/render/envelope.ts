/**
 * The JSONL record envelope: what `consume --json` prints and what `produce --input jsonl` reads, one object per line.
 *
 *   {"topic":"orders","partition":1,"offset":0,"timestamp":1764460800000,
 *    "key":{"utf8":"k1"} | {"base64":"AP8="} | {"hex":"00ff"} | null,
 *    "value":{"utf8":""} | {"base64":"..."} | {"hex":"..."},
 *    "headers":[{"name":"trace","value":{"utf8":"abc"}}] | null}
 *
 * Every byte field names its encoding, so binary bytes and empty values survive a round trip exactly: `utf8` is
 * used only when the bytes decode and re-encode to themselves, otherwise `base64` (or the encoding asked for).
 * `key` is null for a record without a key (the wire cannot tell an empty key from none: both are zero bytes).
 * `headers` keeps order and duplicates; it is null when the reply could not carry headers (a SUBSCRIBE push, a
 * legacy-shape fetch, a broker that is not crater), and [] for a record that has none.
 * Offsets and timestamps follow the bigint rule of json.ts (numbers while safe, decimal strings beyond).
 *
 * On input, topic, partition, offset and timestamp are ignored (the broker picks the partition from the key and
 * stamps the time); a bare string is accepted as shorthand for {"utf8": ...}, and null/absent means empty.
 */
import { isUtf8 } from 'node:buffer';
import type { RecordHeader } from '../../protocol/headers.js';
import { UsageError } from '../../errors.js';

export const envelopeEncodings = ['auto', 'base64', 'hex'] as const;
export type EnvelopeEncoding = (typeof envelopeEncodings)[number];

export type ByteField = { utf8: string } | { base64: string } | { hex: string };

export interface EnvelopeHeader {
  name: string;
  value: ByteField;
}

export interface RecordEnvelope {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  key: ByteField | null;
  value: ByteField;
  headers: EnvelopeHeader[] | null;
}

/** The record fields the envelope is built from (a FetchedRecord fits). */
export interface EnvelopeSource {
  topic: string;
  partition: number;
  offset: bigint;
  timestamp: bigint;
  key: Buffer;
  value: Buffer;
  headers?: readonly RecordHeader[] | undefined;
}

/** The record an envelope line describes, ready for the client's produce calls. */
export interface EnvelopeRecord {
  key: Buffer | undefined;
  value: Buffer;
  headers: RecordHeader[] | undefined;
}

/**
 * True when `bytes` is text that survives decoding and re-encoding as UTF-8 unchanged: exactly when it is valid
 * UTF-8 (Node's decoder replaces anything else, surrogates included, with U+FFFD).
 */
export function isExactUtf8(bytes: Buffer): boolean {
  return isUtf8(bytes);
}

export function encodeBytes(bytes: Buffer, encoding: EnvelopeEncoding = 'auto'): ByteField {
  if (encoding === 'hex') return { hex: bytes.toString('hex') };
  if (encoding === 'auto' && isExactUtf8(bytes)) return { utf8: bytes.toString('utf8') };
  return { base64: bytes.toString('base64') };
}

export function toEnvelope(record: EnvelopeSource, encoding: EnvelopeEncoding = 'auto'): RecordEnvelope {
  return {
    topic: record.topic,
    partition: record.partition,
    offset: record.offset,
    timestamp: record.timestamp,
    key: record.key.length === 0 ? null : encodeBytes(record.key, encoding),
    value: encodeBytes(record.value, encoding),
    headers:
      record.headers === undefined
        ? null
        : record.headers.map((h) => ({ name: h.name, value: encodeBytes(h.value, encoding) })),
  };
}

/** A 64-bit value by the rule of json.ts: a number while safe, a decimal string beyond. */
function bigintJson(n: bigint): string {
  const v = Number(n);
  return Number.isSafeInteger(v) ? String(v) : `"${n}"`;
}

/** One byte field as JSON text (the reference; envelope-lines.ts renders the common case without it). */
export function byteFieldJson(bytes: Buffer, encoding: EnvelopeEncoding): string {
  if (encoding === 'hex') return `{"hex":"${bytes.toString('hex')}"}`;
  if (encoding === 'auto' && isUtf8(bytes)) return `{"utf8":${JSON.stringify(bytes.toString('utf8'))}}`;
  return `{"base64":"${bytes.toString('base64')}"}`;
}

/**
 * `stringifyJson(toEnvelope(record, encoding))`, character for character, without building the envelope object:
 * `consume --json` prints one per record, and this is most of its cost.
 */
export function envelopeJson(record: EnvelopeSource, encoding: EnvelopeEncoding = 'auto'): string {
  const key = record.key.length === 0 ? 'null' : byteFieldJson(record.key, encoding);
  let headers = 'null';
  if (record.headers !== undefined) {
    const parts = record.headers.map(
      (h) => `{"name":${JSON.stringify(h.name)},"value":${byteFieldJson(h.value, encoding)}}`,
    );
    headers = `[${parts.join(',')}]`;
  }
  return `{"topic":${JSON.stringify(record.topic)},"partition":${record.partition},"offset":${bigintJson(record.offset)},"timestamp":${bigintJson(record.timestamp)},"key":${key},"value":${byteFieldJson(record.value, encoding)},"headers":${headers}}`;
}

const BASE64 = /^(?:[A-Za-z0-9+/]{4})*(?:[A-Za-z0-9+/]{2}==|[A-Za-z0-9+/]{3}=)?$/;
const HEX = /^(?:[0-9a-fA-F]{2})*$/;

function isObject(v: unknown): v is Record<string, unknown> {
  return typeof v === 'object' && v !== null && !Array.isArray(v);
}

/** One byte field back to bytes; undefined for null or absent. Strict: a malformed field is a UsageError naming it. */
export function decodeBytes(field: unknown, where: string): Buffer | undefined {
  if (field === null || field === undefined) return undefined;
  if (typeof field === 'string') return Buffer.from(field, 'utf8');
  if (!isObject(field)) throw new UsageError(`${where}: expected {"utf8"|"base64"|"hex": string}, a string or null`);
  const keys = Object.keys(field);
  const name = keys[0];
  const text = name === undefined ? undefined : field[name];
  if (keys.length !== 1 || typeof text !== 'string') {
    throw new UsageError(`${where}: expected exactly one of "utf8", "base64" or "hex" with a string value`);
  }
  switch (name) {
    case 'utf8':
      return Buffer.from(text, 'utf8');
    case 'base64':
      if (!BASE64.test(text)) throw new UsageError(`${where}: not canonical base64`);
      return Buffer.from(text, 'base64');
    case 'hex':
      if (!HEX.test(text)) throw new UsageError(`${where}: not an even-length hex string`);
      return Buffer.from(text, 'hex');
    default:
      throw new UsageError(`${where}: unknown encoding "${name}" (use utf8, base64 or hex)`);
  }
}

/** Parses one envelope line; `where` (e.g. "stdin:3") prefixes every error. */
export function parseEnvelope(line: string, where: string): EnvelopeRecord {
  let doc: unknown;
  try {
    doc = JSON.parse(line);
  } catch (err) {
    throw new UsageError(`${where}: not JSON (${(err as Error).message})`);
  }
  if (!isObject(doc)) throw new UsageError(`${where}: expected a JSON object`);
  const key = decodeBytes(doc.key, `${where}: key`);
  const value = decodeBytes(doc.value, `${where}: value`) ?? Buffer.alloc(0);
  let headers: RecordHeader[] | undefined;
  if (doc.headers !== null && doc.headers !== undefined) {
    if (!Array.isArray(doc.headers)) throw new UsageError(`${where}: headers must be an array or null`);
    headers = doc.headers.map((h: unknown, i: number) => {
      if (!isObject(h) || typeof h.name !== 'string')
        throw new UsageError(`${where}: headers[${i}] needs a string "name"`);
      return { name: h.name, value: decodeBytes(h.value, `${where}: headers[${i}].value`) ?? Buffer.alloc(0) };
    });
  }
  return { key: key === undefined || key.length === 0 ? undefined : key, value, headers };
}
