import { readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import {
  CommandFailure,
  errorCodeForJson,
  exitCodeForError,
  oneLineMessage,
  toUsageError,
} from '../../../src/cli/error-report.js';
import { ExitCode, exitCodeName, renderExitCodeTable } from '../../../src/cli/exit-codes.js';
import {
  BrokerError,
  ConnectionError,
  CorruptDataError,
  DecodeError,
  StorageError,
  TimeoutError,
  UsageError,
} from '../../../src/errors.js';

describe('exit-code table', () => {
  it('has the documented values', () => {
    expect(ExitCode).toEqual({
      OK: 0,
      FAILURE: 1,
      USAGE: 2,
      CORRUPT: 3,
      INCOMPLETE: 4,
      THRESHOLD: 5,
      INTERRUPTED: 130,
    });
    expect(exitCodeName(130)).toBe('INTERRUPTED');
    expect(exitCodeName(42)).toBeUndefined();
  });

  it('renders one row per code, as text and markdown, optionally narrowed', () => {
    const plain = renderExitCodeTable('plain').split('\n');
    expect(plain).toHaveLength(7);
    expect(plain[6]).toMatch(/^130 {2}INTERRUPTED {2}/);
    expect(plain[0]).toMatch(/^ {2}0 {2}OK/);
    const md = renderExitCodeTable('markdown').split('\n');
    expect(md[0]).toBe('| code | name | meaning |');
    expect(md).toContain('| 3 | CORRUPT | --verify found corrupt data (segments inspect, state dump) |');
    expect(renderExitCodeTable('plain', ['OK', 'CORRUPT']).split('\n')).toHaveLength(2);
  });

  it('README.md documents exactly this table', () => {
    const readme = readFileSync(new URL('../../../README.md', import.meta.url), 'utf8');
    expect(readme).toContain(renderExitCodeTable('markdown'));
  });
});

describe('error → exit code', () => {
  it('maps CraterError codes', () => {
    expect(exitCodeForError(new UsageError('bad'))).toBe(2);
    expect(exitCodeForError(new CorruptDataError('f', 1, 'crc'))).toBe(3);
    expect(exitCodeForError(new DecodeError('len', 4, 'short'))).toBe(1);
    expect(exitCodeForError(new BrokerError(3, 'UNKNOWN_TOPIC', 'no such topic'))).toBe(1);
    expect(exitCodeForError(new ConnectionError('refused'))).toBe(1);
    expect(exitCodeForError(new TimeoutError('slow'))).toBe(1);
    expect(exitCodeForError(new StorageError('disk'))).toBe(1);
  });

  it('takes a command outcome code as given', () => {
    expect(exitCodeForError(new CommandFailure(ExitCode.INCOMPLETE, 'got 3 of 10'))).toBe(4);
    expect(exitCodeForError(new CommandFailure(ExitCode.THRESHOLD, 'slow'))).toBe(5);
  });

  it("honours oclif's exit on its own errors, and defaults to 1", () => {
    expect(exitCodeForError(Object.assign(new Error('x'), { oclif: { exit: 2 } }))).toBe(2);
    expect(exitCodeForError(new Error('plain'))).toBe(1);
    expect(exitCodeForError('a string')).toBe(1);
  });

  it('names the JSON code from the class, never the message', () => {
    expect(errorCodeForJson(new CorruptDataError('f', 1, 'ERR_USAGE in the text'))).toBe('ERR_CORRUPT');
    expect(errorCodeForJson(new CommandFailure(ExitCode.THRESHOLD, 'x'))).toBe('ERR_THRESHOLD');
    expect(errorCodeForJson(Object.assign(new Error('gone'), { code: 'ENOENT' }))).toBe('ENOENT');
    expect(errorCodeForJson(Object.assign(new Error('x'), { oclif: { exit: 2 } }))).toBe('ERR_USAGE');
    expect(errorCodeForJson(new Error('x'))).toBe('ERR_FAILURE');
  });
});

describe('oneLineMessage', () => {
  it("folds oclif's multi-line parse message onto one line, keeping the --help hint once", () => {
    const err = new Error('Parsing --broker \n\tinvalid port "x"\nSee more help with --help');
    expect(oneLineMessage(err)).toBe('Parsing --broker: invalid port "x" (see --help)');
  });

  it('does not double a trailing colon', () => {
    expect(oneLineMessage(new Error('Missing 1 required arg:\nfile  the segment'))).toBe(
      'Missing 1 required arg: file  the segment',
    );
  });

  it('leaves a one-line message alone', () => {
    expect(oneLineMessage(new Error('plain'))).toBe('plain');
  });

  it('a parse error becomes a UsageError (exit 2) with the folded text', () => {
    const usage = toUsageError(new Error('Nonexistent flag: --x\nSee more help with --help'));
    expect(usage).toBeInstanceOf(UsageError);
    expect(usage.message).toBe('Nonexistent flag: --x (see --help)');
    expect(exitCodeForError(usage)).toBe(2);
  });
});
