/**
 * Tables: boxed with cli-table3 on a terminal, plain space-aligned columns otherwise so `awk '{print $2}'` and
 * `column -t` work on piped output. Colour only ever comes from the chalk instance passed in.
 */
import { stripVTControlCharacters } from 'node:util';
import type { ChalkInstance } from 'chalk';
import { createRequire } from 'node:module';
import type CliTable from 'cli-table3';

/**
 * cli-table3 is loaded on the first boxed table only: every command imports this file (base-command.ts), and
 * loading it costs a start-up ~5-15 ms of CPU that a command writing to a pipe never uses.
 */
const requireCjs = createRequire(import.meta.url);
let tableClass: typeof CliTable | undefined;
function boxedTable(): typeof CliTable {
  return (tableClass ??= requireCjs('cli-table3') as typeof CliTable);
}

export interface Column<Row> {
  header: string;
  /** The cell text; a bigint or number is printed in decimal. */
  value: (row: Row) => string | number | bigint | boolean | null | undefined;
  align?: 'left' | 'right';
}

export interface TableOptions {
  /** Boxed output (a terminal) or plain aligned columns (a pipe or file). */
  tty: boolean;
  chalk: ChalkInstance;
}

function cellText(v: string | number | bigint | boolean | null | undefined): string {
  if (v === null || v === undefined) return '';
  return String(v);
}

function width(text: string): number {
  return stripVTControlCharacters(text).length;
}

function pad(text: string, to: number, align: 'left' | 'right'): string {
  const fill = ' '.repeat(Math.max(0, to - width(text)));
  return align === 'right' ? fill + text : text + fill;
}

export function renderTable<Row>(columns: readonly Column<Row>[], rows: readonly Row[], options: TableOptions): string {
  const cells = rows.map((row) => columns.map((c) => cellText(c.value(row))));
  const headers = columns.map((c) => options.chalk.bold(c.header));
  const aligns = columns.map((c) => c.align ?? 'left');
  if (options.tty) {
    const Table = boxedTable();
    const table = new Table({ head: headers, colAligns: aligns, style: { head: [], border: [] } });
    for (const row of cells) table.push(row);
    return table.toString();
  }
  const widths = columns.map((_, i) => Math.max(width(headers[i] ?? ''), ...cells.map((row) => width(row[i] ?? ''))));
  const line = (row: string[]): string =>
    row
      .map((cell, i) =>
        pad(cell, i === row.length - 1 && aligns[i] === 'left' ? 0 : (widths[i] ?? 0), aligns[i] ?? 'left'),
      )
      .join('  ');
  return [line(headers), ...cells.map(line)].join('\n');
}

/** Key/value pairs (a summary block) as two aligned columns. */
export function renderPairs(
  pairs: ReadonlyArray<readonly [string, string | number | bigint | boolean]>,
  chalk: ChalkInstance,
): string {
  const keyWidth = Math.max(0, ...pairs.map(([k]) => k.length));
  return pairs.map(([k, v]) => `${chalk.dim(`${k}:`.padEnd(keyWidth + 1))}  ${String(v)}`).join('\n');
}
