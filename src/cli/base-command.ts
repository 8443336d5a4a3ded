/**
 * The base every crater command extends. It owns the process-facing contracts so commands stay glue:
 *
 * - stdout carries data only (`out`, `--json`, JSON lines); diagnostics go to stderr (`diag`);
 * - an error ends the command with the exit code of exit-codes.ts, ONE line on stderr (the stack and the `cause`
 *   chain, each cause with its code and stack, only with --verbose or DEBUG) and, under --json, `{"error":{"code","message"}}` on stdout as well;
 * - a closed stdout (`crater … | head -1`) ends the command quietly with exit 0;
 * - SIGINT ends it with 130.
 *
 * Long-running commands read `this.signal` and wind down when it aborts (SIGINT or the reader going away); a command
 * that never reads it is ended on the spot, since nothing in it would notice.
 */
import { Command, Errors, Flags, type Interfaces } from '@oclif/core';
import type { ChalkInstance } from 'chalk';
import {
  CommandFailure,
  errorCodeForJson,
  exitCodeForError,
  oneLineMessage,
  toUsageError,
  verboseReport,
} from './error-report.js';
import { UsageError } from '../errors.js';
import { ExitCode, type ExitCodeValue } from './exit-codes.js';
import { applyProfile } from './profiles.js';
import { stringifyJson } from './render/json.js';
import { JsonlWriter, LineWriter } from './render/jsonl.js';
import { type Column, renderTable } from './render/table.js';
import { chalkFor } from './terminal.js';

// oclif's FlagOutput/ArgOutput, which its interfaces barrel does not export.
// eslint-disable-next-line @typescript-eslint/no-explicit-any -- mirrors oclif's own `any`-valued maps
type OutputMap = { [name: string]: any };

export type BaseFlags = Interfaces.InferredFlags<(typeof BaseCommand)['baseFlags']>;

/** Why `signal` aborted: the user pressed Ctrl-C, or whoever read stdout went away. */
export type StopReason = 'interrupt' | 'stdout-closed';

let stdoutClosed = false;
let active: BaseCommand | undefined;
let guardInstalled = false;

/** Installed once per process: oclif swallows EPIPE but the command would keep writing into the void. */
function installStdoutGuard(): void {
  if (guardInstalled) return;
  guardInstalled = true;
  process.stdout.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code !== 'EPIPE') return;
    stdoutClosed = true;
    process.exitCode = ExitCode.OK;
    if (active) active.stop('stdout-closed');
    else process.exit(ExitCode.OK);
  });
}

export abstract class BaseCommand extends Command {
  static override enableJsonFlag = true;

  /**
   * A command that reads input while it writes output (produce) must not end quietly when stdout's reader goes:
   * it finishes its input, and an error after that point is still reported and still fails the command.
   */
  static consumesInput = false;

  static override baseFlags = {
    verbose: Flags.boolean({
      description: 'Print stack traces for errors on stderr.',
      helpGroup: 'GLOBAL',
    }),
  };

  #controller = new AbortController();
  #signalRead = false;
  #stopReason: StopReason | undefined;
  #interrupts = 0;
  #stdoutChalk: ChalkInstance | undefined;
  #stderrChalk: ChalkInstance | undefined;
  readonly #onSigint = (): void => this.stop('interrupt');

  /** Aborts on SIGINT or when stdout's reader goes away; reading it makes the command responsible for stopping. */
  protected get signal(): AbortSignal {
    this.#signalRead = true;
    return this.#controller.signal;
  }

  protected get stopReason(): StopReason | undefined {
    return this.#stopReason;
  }

  /** Colours for text bound for stdout, per the NO_COLOR / FORCE_COLOR / TTY policy of terminal.ts. */
  protected get chalk(): ChalkInstance {
    this.#stdoutChalk ??= chalkFor(process.stdout);
    return this.#stdoutChalk;
  }

  protected get stderrChalk(): ChalkInstance {
    this.#stderrChalk ??= chalkFor(process.stderr);
    return this.#stderrChalk;
  }

  /**
   * A line of human-readable data on stdout. Suppressed under --json (the returned object is the output), like
   * oclif's `log`, and dropped once the reader has gone. Use `lines()` or `jsonLines()` for long streams.
   */
  protected out(text: string): void {
    if (!this.jsonEnabled()) this.#write(text);
  }

  #write(text: string): void {
    if (!stdoutClosed) process.stdout.write(`${text}\n`);
  }

  /** A line of diagnostics on stderr (progress, warnings, summaries that are not the data). */
  protected diag(text: string): void {
    process.stderr.write(`${text}\n`);
  }

  /** A backpressure-aware writer for many lines of text on stdout. */
  protected lines(): LineWriter {
    return new LineWriter(process.stdout);
  }

  /** A backpressure-aware JSON-lines writer on stdout. */
  protected jsonLines(): JsonlWriter {
    return new JsonlWriter(process.stdout);
  }

  /** A table for stdout: boxed on a terminal, plain aligned columns in a pipe. */
  protected table<Row>(columns: readonly Column<Row>[], rows: readonly Row[]): string {
    return renderTable(columns, rows, { tty: process.stdout.isTTY === true, chalk: this.chalk });
  }

  /** Ends the command with a non-zero contract exit code (INCOMPLETE, THRESHOLD, CORRUPT, …) and one message. */
  protected fail(exitCode: ExitCodeValue, message: string): never {
    throw new CommandFailure(exitCode, message);
  }

  /**
   * Sets the exit code without ending the command, for outcomes that still render their result (a bench report that
   * missed its threshold still prints the report, then exits 5).
   */
  protected setExitCode(exitCode: ExitCodeValue): void {
    process.exitCode = exitCode;
  }

  /** Called by the process-level handlers; public only so they can reach the running command. */
  stop(reason: StopReason): void {
    if (reason === 'interrupt') {
      this.#interrupts += 1;
      process.exitCode = ExitCode.INTERRUPTED;
      if (!this.#signalRead || this.#interrupts > 1) process.exit(ExitCode.INTERRUPTED);
    } else if (!this.#signalRead) {
      process.exit(ExitCode.OK);
    }
    this.#stopReason ??= reason;
    this.#controller.abort(reason);
  }

  protected override async init(): Promise<void> {
    await super.init();
    installStdoutGuard();
    active = this;
    process.on('SIGINT', this.#onSigint);
  }

  protected override async parse<F extends OutputMap, B extends OutputMap, A extends OutputMap>(
    options?: Interfaces.Input<F, B, A>,
    argv?: string[],
  ): Promise<Interfaces.ParserOutput<F, B, A>> {
    try {
      // A command that connects reads the client profile first: it fills unset CRATER_* variables, so oclif's
      // flag > env > default order becomes flag > env > profile > default (profiles.ts).
      const flags = (options ?? (this.constructor as typeof BaseCommand)).flags ?? {};
      if ('broker' in flags) applyProfile(argv ?? this.argv);
      return await super.parse(options, argv);
    } catch (err) {
      throw err instanceof UsageError ? err : toUsageError(err);
    }
  }

  protected override async catch(err: Error & { exitCode?: number }): Promise<never> {
    const consumesInput = (this.constructor as typeof BaseCommand).consumesInput;
    if (!consumesInput && (this.#stopReason === 'stdout-closed' || stdoutClosed)) {
      process.exitCode = ExitCode.OK;
      throw new Errors.ExitError(ExitCode.OK);
    }
    if (this.#stopReason === 'interrupt') throw new Errors.ExitError(ExitCode.INTERRUPTED);
    const exitCode = exitCodeForError(err);
    const verbose = this.argv.includes('--verbose') || (process.env.DEBUG ?? '') !== '';
    const label = this.stderrChalk.red(`Error [${errorCodeForJson(err)}]`);
    this.diag(verbose ? verboseReport(err, label) : `${label}: ${oneLineMessage(err)}`);
    if (this.jsonEnabled()) this.logJson(this.toErrorJson(err));
    throw new Errors.ExitError(exitCode);
  }

  protected override async finally(err: Error | undefined): Promise<void> {
    process.off('SIGINT', this.#onSigint);
    if (active === this) active = undefined;
    if (err === undefined && this.#stopReason === 'interrupt') process.exitCode = ExitCode.INTERRUPTED;
    const consumesInput = (this.constructor as typeof BaseCommand).consumesInput;
    if (err === undefined && this.#stopReason === 'stdout-closed' && !consumesInput) process.exitCode = ExitCode.OK;
    await super.finally(err);
  }

  /** `--json` output, with bigints per the rule in render/json.ts (oclif's own would throw on a bigint). */
  protected override logJson(json: unknown): void {
    this.#write(stringifyJson(json, { pretty: true }));
  }

  protected override toErrorJson(err: unknown): { error: { code: string; message: string } } {
    return { error: { code: errorCodeForJson(err), message: oneLineMessage(err) } };
  }
}
