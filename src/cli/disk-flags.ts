/**
 * Flags and help shared by the read-only on-disk readers (`segments inspect`, `state dump`): both report findings
 * and exit CORRUPT on them only under --verify, so that contract is worded once here.
 */
import { Flags } from '@oclif/core';
import { ExitCode, renderExitCodeTable } from './exit-codes.js';
import { byteEncodings } from './render/segments.js';

/** --verify: exit CORRUPT when the reader found anything. */
export function verifyFlag() {
  return Flags.boolean({ description: `Exit ${ExitCode.CORRUPT} (CORRUPT) when there is any finding.` });
}

/** --jsonl, exclusive with --json; `description` says what each line is. */
export function jsonlFlag(description: string) {
  return Flags.boolean({ description, exclusive: ['json'] });
}

/** --key-encoding and --value-encoding: how key, value and header bytes are shown as text. */
export function byteEncodingFlags(scope: string) {
  return {
    'key-encoding': Flags.string({
      description: `Key bytes as text (${scope}).`,
      options: [...byteEncodings],
      default: 'utf8',
    }),
    'value-encoding': Flags.string({
      description: `Value and header bytes as text (${scope}).`,
      options: [...byteEncodings],
      default: 'utf8',
    }),
  };
}

/** The closing "Exit codes" section of a reader's help, with what --verify changes. */
export function findingsExitCodes(): string {
  return `Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'CORRUPT'])}
Without --verify, findings are reported and the exit code is 0.`;
}
