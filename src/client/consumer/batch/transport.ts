/**
 * A batch item's transport context and the item itself, as views of the fetched record rather than copies of its
 * fields: a batch consumer holds whole batches of items while the handler runs, and what it holds survives every
 * scavenge until the batch is done (copied each time). Over a TableRecord (fetch-table.ts) nothing of the record is
 * built until a handler reads it. The fields are accessors: `{ ...transport }` copies none of them.
 * (An item's transport is this module's RecordTransport; tableRowOf finds the row behind it.)
 */
import type { RecordHeader } from '../../../protocol/headers.js';
import type { FetchedRecord } from '../../../protocol/messages/fetch.js';
import { TableRecord } from '../../fetch-table.js';
import type { BatchItem, TransportContext } from './types.js';

const NO_HEADERS: readonly never[] = Object.freeze([]);

export class RecordTransport implements TransportContext {
  constructor(
    readonly record: FetchedRecord,
    readonly deliveryAttempt: number,
  ) {}

  get topic(): string {
    return this.record.topic;
  }

  get partition(): number {
    return this.record.partition;
  }

  get offset(): bigint {
    return this.record.offset;
  }

  get timestamp(): bigint {
    return this.record.timestamp;
  }

  get key(): Buffer {
    return this.record.key;
  }

  get value(): Buffer {
    return this.record.value;
  }

  get headers(): readonly RecordHeader[] {
    return this.record.headers ?? NO_HEADERS;
  }
}

/**
 * An item whose message is its value bytes (no deserializer), on its first delivery: it is its own transport, so a
 * record held in a batch costs one object here rather than two.
 */
export class ValueItem extends RecordTransport implements BatchItem<Buffer> {
  get transport(): RecordTransport {
    return this;
  }

  get message(): Buffer {
    return this.record.value;
  }
}

/** The FETCH reply row a transport reads from, for a renderer that copies the row's bytes itself; else undefined. */
export function tableRowOf(t: TransportContext): TableRecord | undefined {
  return t instanceof RecordTransport && t.record instanceof TableRecord ? t.record : undefined;
}
