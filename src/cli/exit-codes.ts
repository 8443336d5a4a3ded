/**
 * crater's exit codes: a contract for scripts, so they live in one table and every other place (help text, README,
 * the error mapping) is derived from it.
 */
import { namesOf } from '../protocol/table.js';

export const ExitCode = {
  OK: 0,
  FAILURE: 1,
  USAGE: 2,
  CORRUPT: 3,
  INCOMPLETE: 4,
  THRESHOLD: 5,
  INTERRUPTED: 130,
} as const;

export type ExitCodeName = keyof typeof ExitCode;
export type ExitCodeValue = (typeof ExitCode)[ExitCodeName];

export const exitCodeMeaning: Readonly<Record<ExitCodeName, string>> = {
  OK: 'success',
  FAILURE: 'runtime failure (broker error, connection lost, timeout, I/O error)',
  USAGE: 'bad usage: unknown command, unknown or invalid flag or argument',
  CORRUPT: '--verify found corrupt data (segments inspect, state dump)',
  INCOMPLETE: 'consume received fewer than N records before -e or the idle timeout',
  THRESHOLD: 'bench --min-speedup fell short',
  INTERRUPTED: 'interrupted by SIGINT (Ctrl-C)',
};

const allNames = Object.keys(ExitCode) as ExitCodeName[];
const namesByCode = namesOf(ExitCode);

export function exitCodeName(code: number): ExitCodeName | undefined {
  return namesByCode.get(code);
}

/**
 * The table as text. `plain` is for `--help` (aligned columns); `markdown` is what README.md embeds, so a test can
 * check the README against the table. `only` narrows it to the codes one command can return, for its help text.
 */
export function renderExitCodeTable(format: 'plain' | 'markdown' = 'plain', only?: readonly ExitCodeName[]): string {
  const names = only === undefined ? allNames : allNames.filter((name) => only.includes(name));
  if (format === 'markdown') {
    const rows = names.map((name) => `| ${ExitCode[name]} | ${name} | ${exitCodeMeaning[name]} |`);
    return ['| code | name | meaning |', '| --- | --- | --- |', ...rows].join('\n');
  }
  const codeWidth = Math.max(...names.map((n) => String(ExitCode[n]).length));
  const nameWidth = Math.max(...names.map((n) => n.length));
  return names
    .map((name) => `${String(ExitCode[name]).padStart(codeWidth)}  ${name.padEnd(nameWidth)}  ${exitCodeMeaning[name]}`)
    .join('\n');
}
