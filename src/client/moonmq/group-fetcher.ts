/**
 * The batch consumer's reader on MoonMQ's protocol (backend.ts BackendGroupFetcher): a connection of its own that
 * FETCHes as one group. A DESCRIBE_GROUP asked for with a FETCH is sent right behind it on the same connection, so
 * the broker answers it right after that FETCH: each partition's offset just past everything delivered so far,
 * before a later pipelined FETCH moves it (offsets are opaque cursors, so this is how "the next one" is known).
 * A batched reply's records are TableRecords: their fields are accessors over the reply's frame.
 */
import type { BackendGroupFetcher, BackendIsolation, BackendTransactionOffset, FetchedRecord } from '../backend.js';
import { tableRecords } from '../fetch-table.js';
import { describeGroup } from './admin.js';
import { fetchRecords } from './fetch-ops.js';
import type { Session } from './session.js';

export class MoonmqGroupFetcher implements BackendGroupFetcher {
  constructor(
    private readonly session: Session,
    private readonly group: string,
    private readonly isolation: BackendIsolation | undefined,
  ) {}

  get closed(): boolean {
    return this.session.conn.closed;
  }

  async fetch(
    topic: string,
    options: { maxRecords: number; withCursors: boolean },
  ): Promise<{ records: FetchedRecord[]; cursors: BackendTransactionOffset[] | undefined }> {
    const fetchOptions = {
      maxRecords: options.maxRecords,
      headers: this.session.server.isCrater,
      isolation: this.isolation,
      // The records as views of the reply's rows (fetch-table.ts TableRecord): a batch consumer holds whole batches
      // of them, and a lazy record is one small object where a decoded one is six.
      table: true,
    };
    const [fetched, described] = await Promise.all([
      fetchRecords(this.session, topic, this.group, fetchOptions),
      options.withCursors ? describeGroup(this.session.conn, this.group) : undefined,
    ]);
    const records = fetched.table ? tableRecords(fetched.table) : fetched.records;
    return { records, cursors: described?.offsets };
  }

  async cursors(): Promise<BackendTransactionOffset[]> {
    return (await describeGroup(this.session.conn, this.group)).offsets;
  }

  close(): Promise<void> {
    return this.session.conn.close();
  }
}
