/**
 * crater's help layout (oclif `helpClass`): a command page leads with its examples, right after the usage line,
 * because that is what a reader looks for first; every example is a shell line starting with `$` (pipelines too);
 * the root page ends with the exit-code table that every command shares.
 */
import { type Command, CommandHelp, Help } from '@oclif/core';
import { renderExitCodeTable } from './exit-codes.js';

const ORDER = ['USAGE', 'EXAMPLES', 'ARGUMENTS', 'FLAGS', 'DESCRIPTION', 'ALIASES', 'FLAG DESCRIPTIONS'];

/** The vocabulary every command shares, said once here (and in the README). */
const CONVENTIONS = [
  'Partitions are numbered from 1, as the protocol numbers them.',
  'Offsets are opaque cursors: byte positions on segmented topics (the default), record counts on commitlog topics.',
  '--json is machine-readable output: one JSON document, or one JSON line per record for commands that stream',
  '  (produce, consume); --jsonl is offered where a command has both shapes (segments inspect).',
  '-n/--max-records is always a record count. Durations take units: 500ms, 5s, 2m, 12h, 7d (bare numbers are ms).',
  'Connection settings: flags > CRATER_* environment > --profile (client config) > defaults.',
];

function withDollar(line: string): string {
  return line.startsWith('$ ') ? line : `$ ${line}`;
}

class CraterCommandHelp extends CommandHelp {
  protected override sections(): ReturnType<CommandHelp['sections']> {
    const rank = (header: string): number => {
      const at = ORDER.indexOf(header);
      return at === -1 ? ORDER.length : at;
    };
    return [...super.sections()].sort((a, b) => rank(a.header) - rank(b.header));
  }

  /** oclif marks every argument of a command that takes extra ones as repeatable; only the last one is. */
  protected override args(args: Command.Arg.Any[]): [string, string | undefined][] | undefined {
    const rows = super.args(args);
    return rows?.map(([name, description], i) => [
      i < rows.length - 1 ? name.replace(/\.\.\.(\]?)$/, '$1') : name,
      description,
    ]);
  }

  protected override examples(examples: Command.Example[] | string | undefined): string | undefined {
    if (examples === undefined) return undefined;
    const list = typeof examples === 'string' ? [examples] : examples;
    return super.examples(
      list.map((e) => (typeof e === 'string' ? withDollar(e) : { ...e, command: withDollar(e.command) })),
    );
  }
}

export default class CraterHelp extends Help {
  protected override CommandHelpClass = CraterCommandHelp;

  override formatRoot(): string {
    const conventions = this.section('CONVENTIONS', CONVENTIONS.join('\n'));
    return `${super.formatRoot()}\n\n${this.section('EXIT CODES', renderExitCodeTable('plain'))}\n\n${conventions}`;
  }
}
