/**
 * What `crater produce` does between parsing its flags and exiting: check the flags against each other, open the
 * client (and an idempotent producer when asked), read the input into records, feed them to the ProduceRunner and
 * say how it ended. The rules that matter to a user:
 *
 * - every record read is produced or reported as failed: when the reader of the delivery reports goes away
 *   (`| head -1`) the reports stop, one line on stderr says so, and the rest of the input is still produced;
 * - Ctrl-C stops reading input, sends what was already read, prints what was produced and exits 130;
 * - a missing topic ends the run at the first record (every later one would fail the same way).
 */
import type { Backend, BackendCodec, BackendProducer } from '../client/backend.js';
import type { AccumulatorOptions } from '../client/index.js';
import { UsageError } from '../errors.js';
import { openClientWith, type ConnectionFlagValues } from './connect.js';
import { withTopicHint } from './error-report.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { inputSources, parseDelimiter, parseHeaderFlag, readInputChunks } from './line-input.js';
import { renderProducerStats, type TuningFlags, tuningOptions } from './produce-tuning.js';
import { ProduceRunner, type Reporter } from './produce-runner.js';
import { type Delivery, type LineOptions, plainRecordChunks, type RecordChunk, recordChunks } from './producing.js';
import { stringifyJson } from './render/json.js';
import type { JsonlWriter } from './render/jsonl.js';
import { deliveryFailureLine, produceProgress, produceSummary } from './render/records.js';
import { StopGate, STOPPED } from './stop-gate.js';
import { createSpinner, throttled, type Spinner } from './terminal.js';
import { IdempotentProduce, transactionEndLine } from './transactional-produce.js';
import type { ChalkInstance } from 'chalk';

export interface ProduceFlags extends ConnectionFlagValues, TuningFlags {
  stats?: boolean | undefined;
  'key-delimiter'?: string | undefined;
  key?: string | undefined;
  header?: string[] | undefined;
  input: string;
  batch?: number | undefined;
  'max-frame-size': number;
  codec: string;
  idempotent: boolean;
  'producer-name'?: string | undefined;
  transactional: boolean;
  partition?: number | undefined;
  delimiter?: string | undefined;
  'null-empty': boolean;
  'file-per-record': boolean;
}

/** What the command lends the run: output, diagnostics and its stop signal. */
export interface ProduceIo {
  signal: AbortSignal;
  /** The delivery-report writer under --json. */
  reports?: JsonlWriter | undefined;
  /** --json: --stats prints the metrics as one JSON line on stderr. */
  json: boolean;
  diag(text: string): void;
  chalk: ChalkInstance;
}

/** Flag combinations that cannot work, refused before anything is opened. */
export function checkProduceFlags(flags: ProduceFlags): void {
  const jsonl = flags.input === 'jsonl';
  if (jsonl && (flags.key !== undefined || flags['key-delimiter'] !== undefined || flags.header !== undefined)) {
    throw new UsageError('--input jsonl takes keys and headers from the envelope; drop -k, -K and -H');
  }
  if (jsonl && (flags.delimiter !== undefined || flags['file-per-record'])) {
    throw new UsageError('--input jsonl reads one envelope per line; drop -D and --file-per-record');
  }
  if (flags['file-per-record'] && flags.delimiter !== undefined)
    throw new UsageError('--file-per-record and -D exclude each other');
  if (flags['key-delimiter'] === '') throw new UsageError('--key-delimiter must not be empty');
}

/** The records of the input, one RecordChunk per chunk read. */
function inputRecords(files: readonly string[], flags: ProduceFlags): AsyncIterable<RecordChunk> {
  const split = {
    delimiter: flags.delimiter === undefined ? undefined : parseDelimiter(flags.delimiter),
    filePerRecord: flags['file-per-record'],
  };
  const options: LineOptions = {
    input: flags.input === 'jsonl' ? 'jsonl' : 'lines',
    keyDelimiter: flags['key-delimiter'] === undefined ? undefined : Buffer.from(flags['key-delimiter'], 'utf8'),
    key: flags.key === undefined ? undefined : Buffer.from(flags.key, 'utf8'),
    headers: flags.header?.map(parseHeaderFlag),
    keepEmpty: flags['null-empty'],
  };
  // Plain lines, the common case, become records as they are split, with no LineChunk in between.
  if (options.input === 'lines' && !split.filePerRecord)
    return plainRecordChunks(inputSources(files, process.stdin), options, split.delimiter);
  return recordChunks(readInputChunks(files, process.stdin, split), options);
}

/** What MoonMQ's protocol can carry only to a crater broker (Kafka has headers and partitions natively). */
function requireCraterFor(client: Backend, flags: ProduceFlags, idempotent: boolean): void {
  if (client.kind !== 'moonmq') return;
  if (flags.partition !== undefined && idempotent) {
    throw new UsageError("-p/--partition cannot be combined with --idempotent or --producer-name on MoonMQ's protocol");
  }
  if (client.isCrater) return;
  const who = `${client.address} is ${client.serverName ?? 'a broker that did not identify itself'}, nothing was sent`;
  if ((flags.header?.length ?? 0) > 0) throw new UsageError(`record headers need a crater broker; ${who}`);
  if (flags.partition !== undefined) throw new UsageError(`-p/--partition needs a crater broker; ${who}`);
}

/**
 * Reports deliveries: failures on stderr, reports on stdout until its reader goes, progress on the spinner. It
 * returns a promise only while it writes reports (the writer waits for 'drain').
 */
function reporter(io: ProduceIo, spinner: Spinner, topic: string, stats: () => ProduceRunner['stats']): Reporter {
  const started = performance.now();
  let reportsStopped = false;
  let written = 0;
  const progress = throttled(() => {
    spinner.text = produceProgress(topic, stats().delivered, performance.now() - started);
  });
  const writeReports = async (ds: readonly Delivery[], reports: JsonlWriter): Promise<void> => {
    let text = '';
    for (const d of ds) text += `${stringifyJson(d)}\n`;
    if (await reports.writeChunk(text)) written += ds.length;
    else {
      reportsStopped = true;
      io.diag(`stdout closed after ${written} delivery reports; producing the rest of the input without reports`);
    }
    progress();
  };
  return {
    get eachAck() {
      return io.reports !== undefined && !reportsStopped;
    },
    report(ds) {
      for (const d of ds) {
        if (!d.error) continue;
        // The spinner owns the current stderr line; a failure line must not be drawn over.
        const spinning = spinner.isSpinning;
        spinner.stop();
        io.diag(deliveryFailureLine(d, io.chalk));
        if (spinning) spinner.start();
      }
      if (io.reports && !reportsStopped && ds.length > 0) return writeReports(ds, io.reports);
      progress();
      return undefined;
    },
  };
}

/** Feeds records to the runner until the input ends or Ctrl-C; a closed stdout does not stop it. */
async function feed(chunks: AsyncIterable<RecordChunk>, runner: ProduceRunner, signal: AbortSignal): Promise<boolean> {
  // Ctrl-C stops reading, not the reader of stdout going away.
  const gate = new StopGate();
  const onAbort = (): void => {
    if (signal.reason === 'interrupt') gate.stop();
  };
  if (signal.aborted) onAbort();
  signal.addEventListener('abort', onAbort);
  const input = chunks[Symbol.asyncIterator]();
  let complete = false;
  try {
    for (;;) {
      const next = await gate.next(input.next());
      if (next === STOPPED) break;
      if (next.done) {
        complete = true;
        break;
      }
      // A chunk read is sent whole, also after Ctrl-C: what was read is sent.
      const wait = runner.add(next.value);
      if (wait) await wait;
    }
  } finally {
    signal.removeEventListener('abort', onAbort);
  }
  await runner.flush();
  // After Ctrl-C a read of stdin may still be pending; nothing will consume it.
  if (!complete) process.stdin.destroy();
  return complete;
}

interface Senders {
  client: Backend;
  /** The idempotent producer, when --idempotent or --producer-name asked for one. */
  producer: IdempotentProduce | undefined;
  sender: BackendProducer;
}

/** Opens the client and the producer the flags ask for; nothing is left open when it throws. */
async function openSenders(flags: ProduceFlags, tuning: AccumulatorOptions, idempotent: boolean): Promise<Senders> {
  const maxFrameBytes = flags['max-frame-size'];
  const client = await openClientWith(flags, { maxRequestFrameSize: maxFrameBytes });
  try {
    requireCraterFor(client, flags, idempotent);
  } catch (error) {
    await client.close();
    throw error;
  }
  const codec = flags.codec as BackendCodec;
  const partition = flags.partition;
  const producer = idempotent
    ? IdempotentProduce.open(client, {
        producerName: flags['producer-name'],
        codec,
        partition,
        timeoutMs: flags.timeout,
        maxFrameBytes,
        tuning,
      })
    : undefined;
  const sender =
    producer?.producer ??
    client.producer({ ...tuning, codec, ...(partition !== undefined && { partition }), maxFrameBytes });
  return { client, producer, sender };
}

/** --transactional: the whole input in one transaction; the exit code says whether it committed. */
async function produceInTransaction(
  producer: IdempotentProduce,
  records: AsyncIterable<RecordChunk>,
  runner: ProduceRunner,
  io: ProduceIo,
  spinner: Spinner,
): Promise<ExitCodeValue> {
  const end = await producer.runTransaction(records, runner, io.signal);
  spinner.stop();
  io.diag(transactionEndLine(end, runner.stats.delivered));
  if (!end.committed) process.stdin.destroy();
  if (end.committed) return ExitCode.OK;
  return end.reason === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.FAILURE;
}

/** Runs the whole produce and returns the exit code it ends with. */
export async function runProduce(
  topic: string,
  files: readonly string[],
  flags: ProduceFlags,
  io: ProduceIo,
): Promise<ExitCodeValue> {
  checkProduceFlags(flags);
  const idempotent = flags.idempotent || flags['producer-name'] !== undefined;
  const tuning = tuningOptions(flags, { idempotent, maxFrameBytes: flags['max-frame-size'] });
  const { client, producer, sender } = await openSenders(flags, tuning, idempotent);
  const spinner = await createSpinner(`producing to ${topic}`);
  const started = performance.now();
  try {
    const runner: ProduceRunner = new ProduceRunner(
      sender,
      { topic },
      reporter(io, spinner, topic, () => runner.stats),
    );
    spinner.start();
    const records = inputRecords(files, flags);
    if (producer && flags.transactional) return await produceInTransaction(producer, records, runner, io, spinner);
    const complete = await feed(records, runner, io.signal).catch((error: unknown) => {
      throw withTopicHint(error, topic);
    });
    spinner.stop();
    const summary = produceSummary(topic, runner.stats, performance.now() - started, io.chalk);
    io.diag(complete ? summary : `interrupted: ${summary}; the rest of the input was not read`);
    if (flags.stats && sender.metrics) io.diag(renderProducerStats(sender.metrics(), io.json));
    if (!complete) return ExitCode.INTERRUPTED;
    return runner.stats.failed.length > 0 ? ExitCode.FAILURE : ExitCode.OK;
  } finally {
    spinner.stop();
    await sender.close();
    await client.close();
  }
}
