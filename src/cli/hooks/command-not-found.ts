/**
 * oclif's `command_not_found` hook: a mistyped command ends the way every other usage error does, in crater's own
 * format (`Error [ERR_USAGE]: …` on stderr, `{"error":{…}}` on stdout under --json, exit 2), with the closest
 * commands as "did you mean" suggestions.
 */
import { Errors, type Hook } from '@oclif/core';
import { ExitCode } from '../exit-codes.js';
import { stringifyJson } from '../render/json.js';
import { chalkFor } from '../terminal.js';

/** Edit distance between two command ids (insert, delete, substitute each cost 1). */
export function editDistance(a: string, b: string): number {
  let previous = Array.from({ length: b.length + 1 }, (_, i) => i);
  for (let i = 1; i <= a.length; i++) {
    const current = [i];
    for (let j = 1; j <= b.length; j++) {
      current[j] = Math.min(previous[j]! + 1, current[j - 1]! + 1, previous[j - 1]! + (a[i - 1] === b[j - 1] ? 0 : 1));
    }
    previous = current;
  }
  return previous[b.length]!;
}

/** Up to three known ids within a third of the typed id's length (at least 2 edits), closest first. */
export function suggestions(typed: string, known: readonly string[]): string[] {
  const limit = Math.max(2, Math.floor(typed.length / 3));
  return known
    .map((id) => ({ id, d: Math.min(editDistance(typed, id), id.startsWith(typed) ? 1 : Infinity) }))
    .filter((c) => c.d <= limit)
    .sort((x, y) => x.d - y.d || x.id.localeCompare(y.id))
    .slice(0, 3)
    .map((c) => c.id);
}

const hook: Hook<'command_not_found'> = async function (options) {
  const spaced = (id: string): string => id.replaceAll(':', ' ');
  const known = [...options.config.commandIDs, ...options.config.topics.map((t) => t.name)].map(spaced);
  // oclif joins the words it could not match, arguments included ("consme orders"): try the longest prefix first.
  // The closest prefix wins (ties: the longer one), so "topic creat x" is reported as "topic creat".
  const words = spaced(options.id).split(' ');
  const ids = [...new Set(known)];
  let typed = words.join(' ');
  let close: string[] = [];
  let best = Infinity;
  for (let n = words.length; n > 0; n--) {
    const prefix = words.slice(0, n).join(' ');
    const found = suggestions(prefix, ids);
    // A prefix that is itself a command or topic ("topic" in "topic creat") is not what was mistyped.
    if (found.includes(prefix)) continue;
    const d = found.length === 0 ? Infinity : editDistance(prefix, found[0]!);
    if (d < best) [best, typed, close] = [d, prefix, found];
  }
  const hint =
    close.length === 0
      ? 'run `crater --help` for the list'
      : `did you mean ${close.map((c) => `"${c}"`).join(' or ')}?`;
  const message = `unknown command "${typed}"; ${hint}`;
  process.stderr.write(`${chalkFor(process.stderr).red('Error [ERR_USAGE]')}: ${message}\n`);
  if ((options.argv ?? []).includes('--json'))
    process.stdout.write(`${stringifyJson({ error: { code: 'ERR_USAGE', message } }, { pretty: true })}\n`);
  throw new Errors.ExitError(ExitCode.USAGE);
};

export default hook;
