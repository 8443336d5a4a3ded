/**
 * What `crater consume` does between parsing its flags and exiting: choose the group (named, or a throwaway one
 * deleted on exit), move it to --from, join it so `group describe` shows this reader as a member, run the pull or
 * push loop, and say how it ended.
 *
 * Which group:
 * - `--group G`: G, from its committed offsets unless --from moves it first (for everyone in G);
 * - neither --group nor -p nor --from: the default group (continues where the last run stopped);
 * - `-p N` or `--from ...` without --group: a throwaway group "crater-cli-<random>", starting at the beginning
 *   unless --from says otherwise, deleted on exit. -p reads outside any group, like kcat's -p, so it refuses --group.
 */
import { randomUUID } from 'node:crypto';
import type { Backend as Client } from '../client/backend.js';
import type { FetchedRecord } from '../client/index.js';
import { UsageError } from '../errors.js';
import { moonmqOnly, openClient, writeBytes, type ConnectionFlagValues } from './connect.js';
import { type ConsumeOutcome, JSON_FETCH_CHUNK, type Output, consumePull, consumePush } from './consuming.js';
import { withTopicHint } from './error-report.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { type Position, checkPartitions, commitTargets, parsePosition, resolveTargets } from './positions.js';
import type { EnvelopeEncoding } from './render/envelope.js';
import { envelopeLines } from './render/envelope-lines.js';
import { EnvelopeWriter } from './render/envelope-writer.js';
import { DEFAULT_FORMAT, compileFormat } from './render/format-template.js';
import { formatCount } from './render/format.js';
import type { LineWriter } from './render/jsonl.js';
import { formatRate } from './render/records.js';
import { createSpinner, throttled, type Spinner } from './terminal.js';

export const DEFAULT_GROUP = 'crater-cli';

export interface ConsumeFlags extends ConnectionFlagValues {
  group?: string | undefined;
  from: string;
  partition?: number[] | undefined;
  'max-records'?: number | undefined;
  'exit-at-end': boolean;
  'idle-timeout'?: number | undefined;
  isolation?: string | undefined;
  follow: boolean;
  format?: string | undefined;
  encoding: string;
}

export interface ConsumeIo {
  signal: AbortSignal;
  /** The line writer under --json; raw bytes go to stdout otherwise. */
  lines?: LineWriter | undefined;
  diag(text: string): void;
}

interface GroupChoice {
  group: string;
  ephemeral: boolean;
  position: Position | undefined;
}

export function chooseGroup(flags: ConsumeFlags): GroupChoice {
  if (flags.partition !== undefined && flags.group !== undefined) {
    throw new UsageError(
      '-p/--partition reads outside any group (as kcat -p does): drop --group, or drop -p to read as the group',
    );
  }
  const position = flags.from === 'committed' ? undefined : parsePosition(flags.from);
  const ephemeral = flags.group === undefined && (position !== undefined || flags.partition !== undefined);
  const group = flags.group ?? (ephemeral ? `${DEFAULT_GROUP}-${randomUUID().slice(0, 8)}` : DEFAULT_GROUP);
  return { group, ephemeral, position };
}

/**
 * A progress line (count and rate) on stderr, only when stderr is a terminal and stdout is not: records on the
 * terminal itself would be drawn over by it, and a pipe on stderr gets none.
 */
async function progress(topics: readonly string[]): Promise<Spinner | undefined> {
  if (process.stdout.isTTY === true) return undefined;
  return (await createSpinner(`consuming ${topics.join(', ')}`)).start();
}

function counted(output: Output, spinner: Spinner | undefined, topics: readonly string[]): Output {
  if (!spinner) return output;
  const started = performance.now();
  let n = 0;
  const redraw = throttled(() => {
    spinner.text = `consuming ${topics.join(', ')}: ${formatCount(n)} records, ${formatRate(n, performance.now() - started)}`;
  });
  const progress = (written: number): void => {
    n += written;
    redraw();
  };
  if (typeof output !== 'function') {
    return {
      batch: async (records) => {
        const bytes = await output.batch(records);
        if (bytes !== undefined) progress(bytes.length);
        return bytes;
      },
    };
  }
  return async (r) => {
    const bytes = await output(r);
    if (bytes !== undefined) progress(1);
    return bytes;
  };
}

/**
 * Record printers that report the bytes they wrote (the output window needs them) or undefined once stdout went.
 * --json writes a FETCH's envelopes in one buffer; the template prints a record at a time.
 */
function emitter(flags: ConsumeFlags, io: ConsumeIo): Output {
  const { lines } = io;
  if (lines) {
    const encoding = flags.encoding as EnvelopeEncoding;
    // One writer for the whole run: each FETCH renders into a buffer an earlier write has finished with.
    const out = new EnvelopeWriter(encoding, true, JSON_FETCH_CHUNK * 256);
    return {
      batch: async (records) => {
        const { bytes, lengths } = envelopeLines(records, encoding, out);
        return (await lines.writeChunk(bytes, () => out.recycle(bytes))) ? lengths : undefined;
      },
    };
  }
  const format = compileFormat(flags.format ?? DEFAULT_FORMAT);
  return async (r: FetchedRecord) => {
    const bytes = format(r);
    return (await writeBytes(process.stdout, bytes, io.signal)) ? bytes.length : undefined;
  };
}

async function prepare(
  client: Client,
  topics: readonly string[],
  flags: ConsumeFlags,
  choice: GroupChoice,
): Promise<void> {
  for (const topic of topics) {
    const { partitionCount } = await client
      .describeTopic(topic)
      .catch((e: unknown) => Promise.reject(withTopicHint(e, topic)));
    checkPartitions(client, topic, partitionCount, flags.partition);
  }
  const open = (): Promise<Client> => openClient(flags);
  const position = choice.position;
  if (position !== undefined) {
    for (const topic of topics) {
      const targets = await resolveTargets(client, open, topic, position, flags.partition);
      await commitTargets(open, topic, choice.group, targets, flags.timeout);
    }
  }
  // A named group's reader is a member while it runs (pull mode: the member is bound to the fetching connection).
  if (!choice.ephemeral && !flags.follow && client.kind === 'moonmq')
    await moonmqOnly(client, 'group membership').joinGroup(choice.group, topics);
}

const WHY = {
  count: 'got them all',
  end: 'reached the end',
  idle: 'idle timeout',
  interrupted: 'interrupted',
  'stream-ended': 'stream ended',
  'output-closed': '',
} as const;

function endLine(
  outcome: ConsumeOutcome,
  topics: readonly string[],
  group: string,
  wanted: number | undefined,
): string {
  return `consumed ${outcome.count}${wanted === undefined ? '' : ` of ${wanted}`} records from ${topics.join(', ')} as group ${group}: ${WHY[outcome.cause]}`;
}

/** Runs the whole consume and returns its exit code. */
export async function runConsume(
  topics: readonly string[],
  flags: ConsumeFlags,
  io: ConsumeIo,
): Promise<ExitCodeValue> {
  if (flags.follow && topics.length > 1)
    throw new UsageError('--follow reads one topic; drop --follow to read several');
  const choice = chooseGroup(flags);
  const client = await openClient(flags);
  try {
    await prepare(client, topics, flags, choice);
    const options = {
      topics,
      group: choice.group,
      partitions: flags.partition,
      maxRecords: flags['max-records'],
      exitAtEnd: flags['exit-at-end'],
      idleTimeoutMs: flags['idle-timeout'],
      isolation: flags.isolation as 'read_committed' | undefined,
      timeoutMs: flags.timeout,
      fetchChunk: io.lines ? JSON_FETCH_CHUNK : undefined,
    };
    const spinner = await progress(topics);
    const outcome = await (flags.follow ? consumePush : consumePull)(
      client,
      options,
      counted(emitter(flags, io), spinner, topics),
      io.signal,
    ).finally(() => spinner?.stop());
    if (outcome.cause === 'output-closed') return ExitCode.OK;
    const wanted = flags['max-records'];
    io.diag(endLine(outcome, topics, choice.group, wanted));
    if (wanted !== undefined && outcome.count < wanted && (outcome.cause === 'end' || outcome.cause === 'idle')) {
      io.diag(`incomplete: ${outcome.count} of ${wanted} records before ${WHY[outcome.cause]}`);
      return ExitCode.INCOMPLETE;
    }
    return outcome.cause === 'interrupted' ? ExitCode.INTERRUPTED : ExitCode.OK;
  } finally {
    if (!choice.ephemeral && !flags.follow && client.kind === 'moonmq')
      await moonmqOnly(client, 'group membership')
        .leaveGroup()
        .catch(() => {});
    if (choice.ephemeral) await client.deleteGroup(choice.group).catch(() => {});
    await client.close();
  }
}
