/** What commands import from the CLI layer. */
export { BaseCommand, type BaseFlags, type StopReason } from './base-command.js';
export { CommandFailure } from './error-report.js';
export { ExitCode, type ExitCodeName, type ExitCodeValue, exitCodeMeaning, renderExitCodeTable } from './exit-codes.js';
export {
  DEFAULT_BROKER_HOST,
  DEFAULT_BROKER_PORT,
  type HostPort,
  brokerFlag,
  connectionFlags,
  formatHostPort,
  parseHostPort,
  parseTimeoutMs,
  passwordFlag,
  timeoutFlag,
  usernameFlag,
} from './flags.js';
export { formatBytes, formatCount, formatDuration } from './render/format.js';
export { jsonReplacer, stringifyJson } from './render/json.js';
export { JsonlWriter, LineWriter } from './render/jsonl.js';
export { type Column, renderPairs, renderTable } from './render/table.js';
export { type ColorLevel, type Spinner, chalkFor, colorLevel, createSpinner, spinnerAllowed } from './terminal.js';
