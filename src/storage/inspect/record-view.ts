/**
 * Turns a scanned record into a RecordReport. A valid record is read through record.ts; a framed record that failed
 * its CRC is decoded leniently from its raw bytes (every field bounds-checked, nothing trusted) so the report can
 * still show what the header claims.
 */
import { codecNames } from '../../protocol/opcodes.js';
import { decompressValue } from '../../protocol/compression.js';
import {
  BASE_HEADER_BYTES,
  ControlMarker,
  LENGTH_PREFIX_BYTES,
  RecordAttr,
  type StoredRecord,
  TXN_HEADER_BYTES,
  decodeControlValue,
} from '../record.js';
import type { ControlMarkerReport, InspectLevel, RecordReport } from './types.js';

export function codecName(attrs: number): string {
  const codec = attrs & RecordAttr.CODEC_MASK;
  return codecNames[codec] ?? `unknown(${codec})`;
}

export function isoTimestamp(ms: bigint): string | null {
  const n = Number(ms);
  const d = new Date(n);
  return Number.isNaN(d.getTime()) ? null : d.toISOString();
}

function markerReport(value: Buffer): ControlMarkerReport | undefined {
  const decoded = decodeControlValue(value);
  if (!decoded) return undefined;
  const marker =
    decoded.marker === ControlMarker.COMMIT
      ? 'COMMIT'
      : decoded.marker === ControlMarker.ABORT
        ? 'ABORT'
        : (`UNKNOWN(${decoded.marker})` as const);
  return { marker, producerId: decoded.producerId, epoch: decoded.epoch };
}

function flags(attrs: number): Pick<RecordReport, 'attrs' | 'codec' | 'control' | 'transactional' | 'hasHeaders'> {
  return {
    attrs,
    codec: codecName(attrs),
    control: (attrs & RecordAttr.CONTROL) !== 0,
    transactional: (attrs & RecordAttr.TRANSACTIONAL) !== 0,
    hasHeaders: (attrs & RecordAttr.HEADERS) !== 0,
  };
}

export function reportValidRecord(
  offset: bigint,
  position: number,
  record: StoredRecord,
  level: InspectLevel,
): RecordReport {
  const report: RecordReport = {
    offset,
    position,
    size: record.size,
    timestamp: record.timestamp,
    timestampIso: isoTimestamp(record.timestamp),
    ...flags(record.attrs),
    keySize: record.key.length,
    valueSize: record.value.length,
    headerCount: record.headers?.length ?? 0,
    crcValid: true,
  };
  if (record.producerId !== undefined) report.producerId = record.producerId;
  if (record.epoch !== undefined) report.epoch = record.epoch;
  if (report.control) {
    const marker = markerReport(record.value);
    if (marker) report.controlMarker = marker;
  }
  if (level === 'payload') {
    const codec = record.attrs & RecordAttr.CODEC_MASK;
    report.payload = { key: Buffer.from(record.key), value: undefined, headers: record.headers ?? [] };
    try {
      report.payload.value = Buffer.from(decompressValue(codec, record.value));
    } catch (err) {
      report.payload.decompressError = err instanceof Error ? err.message : String(err);
    }
  }
  return report;
}

/** What the header of a framed but invalid record claims. `bytes` is the whole record, length prefix included. */
export function reportDamagedRecord(offset: bigint, position: number, bytes: Buffer): RecordReport {
  const h = LENGTH_PREFIX_BYTES;
  const attrs = bytes[h] ?? 0;
  const txn = (attrs & RecordAttr.TRANSACTIONAL) !== 0;
  const headerLen = txn ? TXN_HEADER_BYTES : BASE_HEADER_BYTES;
  const timestamp = bytes.length >= h + 13 ? bytes.readBigUInt64BE(h + 5) : 0n;
  const keySize = bytes.length >= h + 5 ? bytes.readUInt32BE(h + 1) : 0;
  const payload = bytes.length - h - headerLen - 8;
  const report: RecordReport = {
    offset,
    position,
    size: bytes.length,
    timestamp,
    timestampIso: isoTimestamp(timestamp),
    ...flags(attrs),
    keySize,
    valueSize: Math.max(0, payload - keySize),
    headerCount: 0,
    crcValid: false,
  };
  if (txn && bytes.length >= h + TXN_HEADER_BYTES) {
    report.producerId = bytes.readBigUInt64BE(h + 13);
    report.epoch = bytes.readUInt16BE(h + 21);
  }
  return report;
}
