/**
 * How an error leaving a command becomes an exit code, a JSON `code` and one line of text. Errors are classified by
 * class and `code`, never by message text (a parse error's text is only reshaped onto one line).
 */
import { BrokerError, CraterError, UsageError } from '../errors.js';
import { ErrorCode } from '../protocol/error-codes.js';
import { ExitCode, type ExitCodeValue, exitCodeName } from './exit-codes.js';

/**
 * A command's own non-zero outcome that is not a library error: fewer records than asked for (INCOMPLETE), a bench
 * threshold missed (THRESHOLD), a `--verify` that found damage after rendering its report (CORRUPT).
 */
export class CommandFailure extends Error {
  readonly exitCode: ExitCodeValue;
  readonly code: string;

  constructor(exitCode: ExitCodeValue, message: string, options?: { cause?: unknown }) {
    super(message, options);
    this.name = 'CommandFailure';
    this.exitCode = exitCode;
    this.code = `ERR_${exitCodeName(exitCode) ?? 'FAILURE'}`;
  }
}

/**
 * oclif's missing-argument error (its parser's RequiredArgsError, which oclif does not export; recognised by class
 * name and its `args` list). Its text appends a note about multi-value flags whenever the command has one, whether
 * or not the user typed it, so crater words the message itself.
 */
function missingArgs(err: unknown): Array<{ name: string; description?: string }> | undefined {
  if (typeof err !== 'object' || err === null || err.constructor.name !== 'RequiredArgsError') return undefined;
  const args = (err as { args?: unknown }).args;
  return Array.isArray(args) ? (args as Array<{ name: string; description?: string }>) : undefined;
}

/** Whatever oclif's parser threw (unknown flag, bad value, missing argument), re-thrown as our usage error. */
export function toUsageError(err: unknown): UsageError {
  const missing = missingArgs(err);
  const text = missing
    ? `missing argument${missing.length === 1 ? '' : 's'} ${missing.map((a) => `${a.name.toUpperCase()}${a.description ? ` (${a.description.replace(/\.$/, '')})` : ''}`).join(', ')} (see --help)`
    : oneLineMessage(err);
  const wrapped = new UsageError(text);
  wrapped.cause = err;
  return wrapped;
}

function oclifExit(err: unknown): number | undefined {
  if (typeof err !== 'object' || err === null || !('oclif' in err)) return undefined;
  const exit = (err as { oclif?: { exit?: unknown } }).oclif?.exit;
  return typeof exit === 'number' ? exit : undefined;
}

export function exitCodeForError(err: unknown): number {
  if (err instanceof CommandFailure) return err.exitCode;
  if (err instanceof CraterError) {
    switch (err.code) {
      case 'ERR_USAGE':
        return ExitCode.USAGE;
      case 'ERR_CORRUPT':
        return ExitCode.CORRUPT;
      default:
        return ExitCode.FAILURE;
    }
  }
  return oclifExit(err) ?? ExitCode.FAILURE;
}

/** The `code` of the `--json` error object: CraterError codes, ERR_<EXIT NAME> for command outcomes, Node's own. */
export function errorCodeForJson(err: unknown): string {
  if (err instanceof CraterError || err instanceof CommandFailure) return err.code;
  if (typeof err === 'object' && err !== null) {
    const code = (err as { code?: unknown }).code;
    if (typeof code === 'string' && code !== '' && code !== 'EEXIT') return code;
    if (oclifExit(err) === ExitCode.USAGE) return 'ERR_USAGE';
  }
  return 'ERR_FAILURE';
}

/**
 * oclif's parse errors span lines ("Parsing --broker \n\tbad port\nSee more help with --help"); a script reading
 * stderr wants one. The "see --help" hint is kept once, at the end.
 */
export function oneLineMessage(err: unknown): string {
  const raw = err instanceof Error ? err.message : String(err);
  const lines = raw
    .split('\n')
    .map((line) => line.trim())
    .filter((line) => line !== '');
  const hint = lines.some((line) => /^see more help with --help$/i.test(line));
  const kept = lines.filter((line) => !/^see more help with --help$/i.test(line));
  let text = '';
  for (const line of kept) {
    if (text === '') text = line;
    else text += /[:;,]$/.test(text) ? ` ${line}` : `: ${line}`;
  }
  if (text === '') text = err instanceof Error ? err.name : 'unknown error';
  return hint ? `${text} (see --help)` : text;
}

/** The chain under `err` by the standard `cause`, outermost first; it stops at a cycle or after 8 links. */
export function causesOf(err: unknown): unknown[] {
  const causes: unknown[] = [];
  const seen = new Set<unknown>([err]);
  let next = err instanceof Error ? err.cause : undefined;
  while (next !== undefined && !seen.has(next) && causes.length < 8) {
    causes.push(next);
    seen.add(next);
    next = next instanceof Error ? next.cause : undefined;
  }
  return causes;
}

/**
 * What --verbose and DEBUG print for an error: its stack, then one "Caused by [CODE]: …" block per cause with that
 * cause's own stack, so a wrapped file-system or socket error shows where it came from. `label` heads the first line.
 */
export function verboseReport(err: unknown, label: string): string {
  const text = (e: unknown): string => (e instanceof Error ? (e.stack ?? `${e.name}: ${e.message}`) : String(e));
  const lines = [`${label}: ${text(err)}`];
  for (const cause of causesOf(err)) lines.push(`Caused by [${errorCodeForJson(cause)}]: ${text(cause)}`);
  return lines.join('\n');
}

/** A missing topic (ERR 5) says how to make it; any other error is returned as it is. */
export function withTopicHint(err: unknown, topic: string): unknown {
  if (!(err instanceof BrokerError) || err.errorCode !== ErrorCode.TOPIC_MISSING) return err;
  const hinted = new BrokerError(
    err.errorCode,
    err.errorName,
    `${err.message.replace(/^[^:]*: /, '')}; create it with \`crater topic create ${topic}\``,
  );
  hinted.cause = err;
  return hinted;
}
