/**
 * Flags and help shared by the read-only on-disk readers (`segments inspect`, `state dump`): both report findings
 * and exit CORRUPT on them only under --verify, so that contract is worded once here.
 */
import { Flags } from '@oclif/core';
import { ExitCode, renderExitCodeTable } from './exit-codes.js';
import { type ByteEncoding, type Encodings, byteEncodings } from './render/segments.js';

/** --verify: exit CORRUPT when the reader found anything. */
export function verifyFlag() {
  return Flags.boolean({ description: `Exit ${ExitCode.CORRUPT} (CORRUPT) when there is any finding.` });
}

/** --jsonl, exclusive with --json; `description` says what each line is. */
export function jsonlFlag(description: string) {
  return Flags.boolean({ description, exclusive: ['json'] });
}

/**
 * --encoding (key, value and header bytes) and the specific --key-encoding / --value-encoding, which win when given.
 * `consume --json` shares the flag name and hex/base64, but its byte fields are tagged ({"utf8": ...}), so it can
 * pick per field (auto); here every field is a bare string, so one encoding holds for all and utf8 is the default.
 */
export function byteEncodingFlags(scope: string) {
  return {
    encoding: Flags.string({
      description: `Key, value and header bytes as text (${scope}); utf8 shows invalid bytes as U+FFFD [default: utf8].`,
      options: [...byteEncodings],
    }),
    'key-encoding': Flags.string({
      description: 'Key bytes as text; overrides --encoding.',
      options: [...byteEncodings],
    }),
    'value-encoding': Flags.string({
      description: 'Value and header bytes as text; overrides --encoding.',
      options: [...byteEncodings],
    }),
  };
}

/** The encodings the byte-encoding flags ask for: the specific flag, else --encoding, else utf8. */
export function resolveEncodings(flags: {
  encoding?: string | undefined;
  'key-encoding'?: string | undefined;
  'value-encoding'?: string | undefined;
}): Encodings {
  const both = (flags.encoding ?? 'utf8') as ByteEncoding;
  return {
    key: (flags['key-encoding'] as ByteEncoding | undefined) ?? both,
    value: (flags['value-encoding'] as ByteEncoding | undefined) ?? both,
  };
}

/** The closing "Exit codes" section of a reader's help, with what --verify changes. */
export function findingsExitCodes(): string {
  return `Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'CORRUPT'])}
Without --verify, findings are reported and the exit code is 0.`;
}
