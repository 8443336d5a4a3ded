/**
 * The batch consumer's records as views of their FETCH reply (TableRecord, RecordTransport, ValueItem): every field
 * reads what the protocol decoder gives for the same bytes; exec renders a table-backed item from its row, byte for
 * byte what it renders from a plain item; the worker channel's enqueue/notify/take.
 */
import { describe, expect, it } from 'vitest';
import { execBatch } from '../../../../src/cli/exec-batch.js';
import { envelopeJson } from '../../../../src/cli/render/envelope.js';
import { WorkerChannel } from '../../../../src/client/consumer/batch/accumulator.js';
import { RecordTransport, ValueItem, tableRowOf } from '../../../../src/client/consumer/batch/transport.js';
import { TableRecord, decodeFetchTable, tableRecords } from '../../../../src/client/fetch-table.js';
import type { BatchItem } from '../../../../src/client/index.js';
import { encodePayload } from '../../../../src/protocol/message.js';
import { type FetchedRecord, recordBatchCodec } from '../../../../src/protocol/messages/fetch.js';

const records = (withHeaders: boolean): FetchedRecord[] =>
  Array.from({ length: 5 }, (_, i) => ({
    topic: i < 3 ? 'orders' : 'we"ird',
    partition: 1 + (i % 2),
    offset: i === 4 ? 2n ** 60n : BigInt(1000 * i),
    timestamp: 1_764_460_800_000n + BigInt(i),
    key: i === 0 ? Buffer.alloc(0) : Buffer.from(`k${i}`),
    value: i === 2 ? Buffer.from([0xff, 0x00, 0x80]) : Buffer.from(`value "${i}"\n`),
    headers: withHeaders ? (i === 1 ? [{ name: 'trace', value: Buffer.from('abc') }] : []) : undefined,
  }));

const tableOf = (withHeaders: boolean) =>
  decodeFetchTable(encodePayload(recordBatchCodec(withHeaders), { records: records(withHeaders) }), withHeaders)!;

describe('TableRecord', () => {
  it('reads every field as the decoder does, with and without header blocks', () => {
    for (const withHeaders of [true, false]) {
      const lazy = tableRecords(tableOf(withHeaders));
      const plain = records(withHeaders);
      expect(lazy.length).toBe(plain.length);
      lazy.forEach((r, i) => {
        const p = plain[i]!;
        expect([r.topic, r.partition, r.offset, r.timestamp]).toEqual([p.topic, p.partition, p.offset, p.timestamp]);
        expect(r.key.equals(p.key) && r.value.equals(p.value)).toBe(true);
        expect(r.headers).toEqual(p.headers);
      });
    }
    const t = tableOf(false);
    const r = new TableRecord(t, 3);
    expect([r.table, r.row, r.topic]).toEqual([t, 3, 'we"ird']);
  });
});

describe('RecordTransport and ValueItem', () => {
  it('show the record through accessors; a first-delivery item is its own transport', () => {
    const record = tableRecords(tableOf(true))[1]!;
    const item = new ValueItem(record, 1);
    expect(item.transport).toBe(item);
    expect(item.message.toString()).toBe('value "1"\n');
    expect([item.topic, item.partition, item.offset, item.deliveryAttempt]).toEqual(['orders', 2, 1000n, 1]);
    expect(item.headers).toEqual([{ name: 'trace', value: Buffer.from('abc') }]);
    const plain = new RecordTransport({ ...records(false)[1]!, headers: undefined }, 2);
    expect(plain.headers).toEqual([]);
    expect(tableRowOf(item)).toBe(record);
    expect(tableRowOf(plain)).toBeUndefined();
    expect(tableRowOf({ ...plain, headers: [] } as never)).toBeUndefined();
  });
});

describe('exec stdin from table rows', () => {
  it('is byte for byte what plain items give: the consume --json envelope', async () => {
    for (const withHeaders of [true, false]) {
      const table = tableOf(withHeaders);
      const lazy: BatchItem<Buffer>[] = tableRecords(table).map((r) => new ValueItem(r, 1));
      const plain: BatchItem<Buffer>[] = records(withHeaders).map((r) => {
        const transport = new RecordTransport(r, 1);
        return { message: r.value, transport };
      });
      const run = async (items: readonly BatchItem<Buffer>[]) => {
        const lines: string[] = [];
        const spec = {
          command: 'cat',
          env: process.env,
          encoding: 'auto' as const,
          passThrough: (l: string) => void lines.push(l),
        };
        await execBatch(spec, items, ['orders', 'we"ird'], true);
        return lines;
      };
      const expected = records(withHeaders).map((r) => envelopeJson({ ...r, headers: r.headers ?? [] }));
      expect(await run(lazy)).toEqual(expected);
      expect(await run(plain)).toEqual(expected);
    }
  });
});

describe('WorkerChannel', () => {
  it('queues with enqueue, wakes a waiting worker on notify, and takes at most max records in order', async () => {
    const channel = new WorkerChannel<number>();
    channel.notify();
    const woken = channel.available();
    for (let i = 0; i < 5; i++) channel.enqueue(i);
    expect(channel.size).toBe(5);
    channel.notify();
    await woken;
    expect(channel.take(3)).toEqual([0, 1, 2]);
    expect(channel.take(10)).toEqual([3, 4]);
    expect(channel.size).toBe(0);
  });
});
