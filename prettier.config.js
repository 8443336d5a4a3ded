/**
 * The house format: 120 columns (what the doc comments already wrap at), single quotes, trailing commas everywhere,
 * semicolons, two-space indent. `npm run format:check` checks it; `npm run format` applies it.
 * @type {import('prettier').Config}
 */
export default {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
};
