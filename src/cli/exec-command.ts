/**
 * The `--exec` branch of `crater consume`: its flags (spread into the command's own) and the glue from parsed flags
 * to runExecConsume, so consume.ts only adds one spread and one branch.
 */
import { Flags } from '@oclif/core';
import { UsageError } from '../errors.js';
import { parseTimeoutMs } from './flags.js';

const duration = (description: string) =>
  Flags.custom<number>({ description, helpValue: 'ms', parse: async (s) => parseTimeoutMs(s) })();

export function execFlags() {
  return {
    exec: Flags.string({
      description:
        'Run CMD (sh -c) once per batch, the batch as JSON lines on its stdin; exit 0 = done, non-zero = retry. See "consume --exec" in the README.',
      helpValue: 'CMD',
    }),
    'batch-size': Flags.integer({ description: '--exec: records per batch at most.', min: 1, default: 100 }),
    'batch-timeout': duration(
      "--exec: longest wait after a batch's first record before running what there is (default 5s).",
    ),
    retries: Flags.integer({
      description: '--exec: retries of a failed batch before its records are dead-lettered or discarded.',
      min: 0,
      default: 3,
    }),
    backoff: Flags.string({
      description: '--exec: wait between retries: MIN:MAX exponential with jitter, or one fixed DELAY.',
      default: '200ms:5s',
    }),
    'dead-letter': Flags.boolean({
      description: '--exec: records that exhaust their retries go to TOPIC.dlq (the default).',
      exclusive: ['discard'],
    }),
    discard: Flags.boolean({
      description: '--exec: drop records that exhaust their retries instead of dead-lettering them.',
      exclusive: ['dead-letter'],
    }),
    workers: Flags.integer({
      description: '--exec: batches run in parallel; one partition always goes to the same worker.',
      min: 1,
      default: 1,
    }),
    rate: Flags.string({ description: '--exec: records per second at most (token bucket), e.g. 500/s.' }),
    burst: Flags.integer({
      description: '--exec: token bucket size for --rate (default: --batch-size; must be >= --batch-size).',
      min: 1,
    }),
    breaker: Flags.string({
      description:
        '--exec: circuit breaker, FAILURES/WINDOW, e.g. 5/30s: that many failed batches in the window pause every worker.',
    }),
    'breaker-pause': duration('--exec: how long an open circuit pauses before one trial batch (default 15s).'),
    filter: Flags.string({
      description:
        '--exec: keep only records matching FIELD~REGEX, or drop those matching FIELD!~REGEX (FIELD: key, value, header.NAME); repeatable, all must keep a record.',
      multiple: true,
    }),
    transactional: Flags.boolean({
      description:
        '--exec: each batch in a transaction: the "produce" lines CMD printed and the batch\'s offsets commit together.',
    }),
    'commit-interval': duration('--exec: how often finished offsets are committed (default 5s; always on exit).'),
  };
}

export interface ExecCommandFlags {
  exec?: string | undefined;
  group?: string | undefined;
  from: string;
  follow: boolean;
  format?: string | undefined;
  'max-records'?: number | undefined;
  'exit-at-end': boolean;
  'idle-timeout'?: number | undefined;
  isolation?: string | undefined;
  encoding: string;
  'batch-size': number;
  'batch-timeout'?: number | undefined;
  retries: number;
  backoff: string;
  discard: boolean;
  workers: number;
  rate?: string | undefined;
  burst?: number | undefined;
  breaker?: string | undefined;
  'breaker-pause'?: number | undefined;
  filter?: string[] | undefined;
  transactional: boolean;
  'commit-interval'?: number | undefined;
}

export interface ExecCommandContext {
  signal: AbortSignal;
  json: boolean;
  diag(text: string): void;
  /** Writes a line of data to stdout (also under --json: CMD's own output is data). */
  out(text: string): Promise<unknown>;
}

/** --exec belongs to the batch consumer: the plain reader's positioning and stop flags are refused with it. */
function refuseReaderFlags(flags: ExecCommandFlags): void {
  for (const [name, set] of [
    ['--follow', flags.follow],
    ['--format', flags.format !== undefined],
    ['--max-records', flags['max-records'] !== undefined],
    ['--exit-at-end', flags['exit-at-end']],
    ['--from beginning', flags.from === 'beginning'],
  ] as const) {
    if (set)
      throw new UsageError(
        `${name} cannot be combined with --exec: a batch consumer resumes from the group's committed offsets and runs until Ctrl-C or --idle-timeout`,
      );
  }
}

/** The parsed flags as runExecConsume's options. */
async function execOptions(topic: string, flags: ExecCommandFlags, defaultGroup: string) {
  const { parseBackoff, parseBreaker, parseFilter, parseRate } = await import('./exec-consume.js');
  const rate =
    flags.rate === undefined
      ? undefined
      : { permitsPerSecond: parseRate(flags.rate), burst: flags.burst ?? flags['batch-size'] };
  if (flags.burst !== undefined && rate === undefined) throw new UsageError('--burst needs --rate');
  const breaker =
    flags.breaker === undefined
      ? undefined
      : { ...parseBreaker(flags.breaker), pauseMs: flags['breaker-pause'] ?? 15_000 };
  return {
    topics: [topic],
    group: flags.group ?? defaultGroup,
    command: flags.exec!,
    batchSize: flags['batch-size'],
    batchTimeoutMs: flags['batch-timeout'] ?? 5_000,
    retries: flags.retries,
    backoff: parseBackoff(flags.backoff),
    onExhausted: flags.discard ? ('discard' as const) : ('dead-letter' as const),
    workers: flags.workers,
    rate,
    breaker,
    filters: (flags.filter ?? []).map(parseFilter),
    transactional: flags.transactional,
    encoding: flags.encoding as 'auto',
    idleTimeoutMs: flags['idle-timeout'],
    commitIntervalMs: flags['commit-interval'] ?? 5_000,
    isolation: flags.isolation as 'read_committed' | undefined,
  };
}

/** Runs `consume TOPIC --exec CMD`; returns the summary (the command prints it as --json). */
export async function consumeExec(
  topic: string,
  flags: ExecCommandFlags & Record<string, unknown>,
  connect: () => Promise<import('../client/backend.js').Backend>,
  ctx: ExecCommandContext,
  defaultGroup: string,
) {
  refuseReaderFlags(flags);
  const options = await execOptions(topic, flags, defaultGroup);
  const { runExecConsume } = await import('./exec-consume.js');
  const client = await connect();
  try {
    await client.describeTopic(topic);
    const summary = await runExecConsume(client, options, ctx.signal, {
      passThrough: (line) => ctx.out(line),
      diag: (text) => ctx.diag(text),
    });
    ctx.diag(
      `consumed ${summary.records} records from ${topic} as group ${summary.group} in ${summary.batches} batches (${summary.recordsPerSecond} records/s): ` +
        `${summary.processed} processed, ${summary.filtered} filtered, ${summary.retries} retries, ${summary.deadLettered} dead-lettered, ${summary.discarded} discarded, ${summary.produced} produced; stopped by ${summary.stoppedBy}`,
    );
    return summary;
  } finally {
    await client.close();
  }
}
