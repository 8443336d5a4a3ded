/**
 * One batch through `--exec CMD` (the `consume --exec` contract, README "consume --exec"):
 *
 * - CMD runs under `sh -c` once per batch, in a process group of its own (so Ctrl-C reaches crater, which lets the
 *   running batch finish, and not CMD), with the batch on stdin as JSON lines in the `consume --json` envelope,
 *   stdin closed after the last one. Environment: CRATER_TOPICS, CRATER_GROUP, CRATER_BATCH_SIZE,
 *   CRATER_RETRY_ATTEMPT (0 first), CRATER_WORKER. stderr is crater's stderr.
 * - Exit 0: the batch is done, except records CMD named on stdout with
 *   `{"partition":P,"offset":O,"outcome":"retry"|"dead-letter"|"ok","reason":"…"}` (plus "topic" when several
 *   topics are consumed). Any other exit status (or a signal) fails the whole batch: it is retried.
 * - A stdout line `{"produce":{"topic":T,"key":…,"value":…,"headers":…}}` (byte fields as in the envelope) is a
 *   record to produce once CMD exited 0: inside the batch's transaction with --transactional, else right away.
 * - Every other stdout line is copied to crater's stdout, in order, so `--exec 'jq -c .value'` is a pipeline stage.
 */
import { spawn } from 'node:child_process';
import { createInterface } from 'node:readline';
import { type BatchItem, type ItemResult, type ProducerRecord, tableRowOf } from '../client/index.js';
import { CraterError, UsageError } from '../errors.js';
import { EnvelopeWriter } from './render/envelope-writer.js';
import { type EnvelopeEncoding, parseEnvelope } from './render/envelope.js';

export interface ExecSpec {
  command: string;
  env: NodeJS.ProcessEnv;
  encoding: EnvelopeEncoding;
  /** Lines CMD printed that are neither outcomes nor produce requests; the batch ends once the last write settled. */
  passThrough: (line: string) => Promise<unknown> | undefined;
}

export interface ExecResult<T> {
  outcomes: ItemResult<T>[];
  produce: Array<{ topic: string; record: ProducerRecord }>;
}

/** A non-zero exit: the batch is retried, then dead-lettered with this message as the reason. */
export class ExecFailedError extends CraterError {
  constructor(
    readonly exitCode: number | null,
    readonly signal: NodeJS.Signals | null,
    options?: { cause?: unknown },
  ) {
    super('ERR_EXEC_FAILED', signal ? `command killed by ${signal}` : `command exited with code ${exitCode}`, options);
  }
}

const OUTCOMES = new Set(['ok', 'retry', 'dead-letter']);

function parseLine<T>(
  line: string,
  index: () => Map<string, BatchItem<T>>,
  single: string | undefined,
  out: ExecResult<T>,
): boolean {
  if (!line.startsWith('{')) return false;
  let doc: Record<string, unknown>;
  try {
    doc = JSON.parse(line) as Record<string, unknown>;
  } catch {
    return false;
  }
  if (doc.produce !== undefined && typeof doc.produce === 'object' && doc.produce !== null) {
    const spec = doc.produce as Record<string, unknown>;
    if (typeof spec.topic !== 'string') throw new UsageError(`exec output: "produce" needs a "topic": ${line}`);
    const r = parseEnvelope(JSON.stringify(spec), 'exec output');
    out.produce.push({ topic: spec.topic, record: { key: r.key, value: r.value, headers: r.headers } });
    return true;
  }
  if (typeof doc.outcome !== 'string' || !OUTCOMES.has(doc.outcome)) return false;
  const topic = typeof doc.topic === 'string' ? doc.topic : single;
  const item = index().get(`${String(doc.partition)}@${String(doc.offset)}@${topic}`);
  if (!item) throw new UsageError(`exec output names a record that is not in this batch: ${line}`);
  const reason = typeof doc.reason === 'string' ? doc.reason : `marked ${doc.outcome} by the command`;
  if (doc.outcome === 'ok') out.outcomes.push({ item, outcome: 'ok' });
  else if (doc.outcome === 'retry') out.outcomes.push({ item, outcome: 'retry', reason });
  else out.outcomes.push({ item, outcome: 'dead-letter', reason });
  return true;
}

/** Bytes rendered before a write; and bytes queued for the pipe beyond which rendering waits for CMD to read. */
const CHUNK_BYTES = 256 * 1024;
const QUEUED_BYTES = 1024 * 1024;

type ChildStdin = NodeJS.WritableStream & { destroyed: boolean; writableLength: number };

function drained(stdin: ChildStdin): Promise<void> {
  return new Promise<void>((resolve) => {
    const done = (): void => {
      stdin.off('drain', done);
      stdin.off('close', done);
      resolve();
    };
    stdin.on('drain', done);
    stdin.on('close', done);
  });
}

/**
 * Renders the envelope lines (render/envelope-writer.ts) in chunks of about CHUNK_BYTES and writes each, so CMD
 * starts reading while the rest is rendered. Waits for CMD only when more than QUEUED_BYTES are queued for the pipe, so rendering
 * and CMD's reading overlap rather than taking turns at every write.
 */
async function feed(
  stdin: ChildStdin,
  items: readonly BatchItem<unknown>[],
  encoding: EnvelopeEncoding,
  withHeaders: boolean,
): Promise<void> {
  const kind = `${encoding}/${withHeaders}`;
  const renderer = idleWriters.get(kind)?.pop() ?? new EnvelopeWriter(encoding, withHeaders, CHUNK_BYTES);
  try {
    await feedWith(renderer, stdin, items, withHeaders);
  } finally {
    const idle = idleWriters.get(kind) ?? [];
    if (renderer.size === 0 && idle.length < 4) idle.push(renderer);
    idleWriters.set(kind, idle);
  }
}

/**
 * Writers no batch is rendering with, by encoding and headers: the next batch (of any worker) renders into the
 * chunks an earlier one's writes have finished with, rather than allocating its own.
 */
const idleWriters = new Map<string, EnvelopeWriter[]>();

async function feedWith(
  renderer: EnvelopeWriter,
  stdin: ChildStdin,
  items: readonly BatchItem<unknown>[],
  withHeaders: boolean,
) {
  for (let i = 0; i < items.length && !stdin.destroyed; i++) {
    const record = items[i]!.transport;
    // A record still in its FETCH reply's frame is rendered from the frame (no field of it is built); the row has
    // no header list when the FETCH asked for none, where a transport has [], so that case takes the object path.
    const row = tableRowOf(record);
    const fromRow = row !== undefined && (row.table.withHeaders || !withHeaders);
    if (fromRow ? renderer.fullRow(row.table, row.row) : renderer.full(record)) {
      const chunk = renderer.take();
      stdin.write(chunk, () => renderer.recycle(chunk));
      // eslint-disable-next-line @typescript-eslint/no-unnecessary-condition -- a failed write() destroys stdin synchronously; TypeScript keeps the narrowing across calls (TypeScript#9998)
      if (stdin.writableLength > QUEUED_BYTES && !stdin.destroyed) await drained(stdin);
    }
    if (fromRow) renderer.addRow(row.table, row.row);
    else renderer.add(record);
  }
  if (renderer.size > 0 && !stdin.destroyed) {
    const last = renderer.take();
    stdin.write(last, () => renderer.recycle(last));
  }
  stdin.end();
}

/** Runs CMD on `items`; resolves with what it asked for, rejects with ExecFailedError on a non-zero exit. */
export async function execBatch<T>(
  spec: ExecSpec,
  items: readonly BatchItem<T>[],
  topics: readonly string[],
  withHeaders: boolean,
): Promise<ExecResult<T>> {
  let built: Map<string, BatchItem<T>> | undefined;
  // Built on the first outcome line only: most batches have none.
  const index = (): Map<string, BatchItem<T>> => {
    if (built) return built;
    built = new Map();
    for (const i of items) built.set(`${i.transport.partition}@${i.transport.offset}@${i.transport.topic}`, i);
    return built;
  };
  const single = topics.length === 1 ? topics[0] : undefined;
  const child = spawn('/bin/sh', ['-c', spec.command], {
    env: spec.env,
    stdio: ['pipe', 'pipe', 'inherit'],
    detached: true,
  });
  const out: ExecResult<T> = { outcomes: [], produce: [] };
  let parseError: Error | undefined;
  let written: Promise<unknown> | undefined;
  const lines = createInterface({ input: child.stdout, crlfDelay: Infinity });
  lines.on('line', (line) => {
    try {
      if (!parseLine(line, index, single, out)) written = spec.passThrough(line);
    } catch (error) {
      parseError ??= error as Error;
    }
  });
  const linesDone = new Promise<void>((resolve) => lines.once('close', resolve));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve, reject) => {
    child.once('error', reject);
    child.once('close', (code, signal) => resolve({ code, signal }));
  });
  // CMD may exit without reading its input: EPIPE on stdin is not an error of ours.
  child.stdin.on('error', () => {});
  await feed(child.stdin, items, spec.encoding, withHeaders);
  const { code, signal } = await exited;
  await linesDone;
  await written;
  if (code !== 0) throw new ExecFailedError(code, signal);
  if (parseError) throw parseError;
  return out;
}
