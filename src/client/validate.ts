/**
 * Client-side checks of semantics.md §12's caps, run before anything is encoded so a request the broker would refuse
 * (or that would overflow a frame) never leaves the process. Each failure is a UsageError naming the field.
 */
import { UsageError } from '../errors.js';
import type { RecordHeader } from '../protocol/headers.js';
import { Caps, Limits } from '../protocol/limits.js';

const TOPIC_CHARS = /^[A-Za-z0-9._-]+$/;

/** A topic name as CREATE_TOPIC accepts it; `forCreate` also refuses internal `__*` names. */
export function validateTopicName(name: string, forCreate = false): void {
  const bytes = Buffer.byteLength(name);
  if (bytes < 1 || bytes > Caps.topic) {
    throw new UsageError(`topic name must be 1..${Caps.topic} bytes, got ${bytes}`);
  }
  if (!TOPIC_CHARS.test(name)) {
    throw new UsageError(`topic name '${name}' may contain only letters, digits, '.', '_' and '-'`);
  }
  if (name.startsWith('-') || name === '.' || name === '..') {
    throw new UsageError(`topic name '${name}' is not allowed`);
  }
  if (forCreate && name.startsWith('__')) {
    throw new UsageError(`topic name '${name}' is reserved: '__' names are internal`);
  }
}

/** A string field against its byte cap; `min` 1 for fields that may not be empty. */
export function validateString(field: string, value: string, cap: number, min = 0): void {
  const bytes = Buffer.byteLength(value);
  if (bytes < min || bytes > cap) {
    throw new UsageError(`${field} must be ${min}..${cap} bytes, got ${bytes}`);
  }
}

/**
 * True when `value` is one of `allowed`. It takes `unknown` on purpose: a JavaScript caller (or a config file) can
 * pass any value where the types name a union, and these checks are what stands between that and the wire.
 */
export function isOneOf<T extends string | number>(value: unknown, allowed: readonly T[]): value is T {
  return (allowed as readonly unknown[]).includes(value);
}

export function validateBytes(field: string, value: Uint8Array, cap: number = Caps.default): void {
  if (value.length > cap) throw new UsageError(`${field} is ${value.length} bytes, over the cap of ${cap}`);
}

export function validatePartitionCount(field: string, n: number): void {
  if (!Number.isInteger(n) || n < 1 || n > Limits.partitions) {
    throw new UsageError(`${field} must be an integer in 1..${Limits.partitions}, got ${n}`);
  }
}

/** A 1-based partition id; the broker checks the upper bound against the topic. */
export function validatePartitionId(partition: number): void {
  if (!Number.isInteger(partition) || partition < 1 || partition > 0xffff_ffff) {
    throw new UsageError(`partition must be a 1-based integer, got ${partition}`);
  }
}

export function validateOffset(field: string, offset: bigint): void {
  if (offset < 0n || offset > 0xffff_ffff_ffff_ffffn) throw new UsageError(`${field} must fit in a u64, got ${offset}`);
}

export function validateU32(field: string, n: number): void {
  if (!Number.isInteger(n) || n < 0 || n > 0xffff_ffff) throw new UsageError(`${field} must be a u32, got ${n}`);
}

export function validateHeaders(field: string, headers: readonly RecordHeader[]): void {
  if (headers.length > Limits.headersPerRecord) {
    throw new UsageError(`${field} has ${headers.length} headers, over the limit of ${Limits.headersPerRecord}`);
  }
  for (const h of headers) {
    validateString(`${field} name`, h.name, Caps.headerName);
    validateBytes(`${field} '${h.name}' value`, h.value, Caps.headerValue);
  }
}

export function validateBatchCount(count: number, max: number = Limits.batchRecords): void {
  if (count < 1 || count > max) throw new UsageError(`a batch holds 1..${max} records, got ${count}`);
}

export function validateConfigEntries(entries: readonly (readonly [string, string])[]): void {
  if (entries.length > Limits.configEntries) {
    throw new UsageError(`at most ${Limits.configEntries} config entries, got ${entries.length}`);
  }
  for (const [key, value] of entries) {
    validateString('config key', key, Caps.configKey, 1);
    validateString(`config value of '${key}'`, value, Caps.configValue);
  }
}
