/**
 * The house format: 120 columns (what the doc comments already wrap at), single quotes, trailing commas everywhere,
 * semicolons, two-space indent. `npm run format:check` checks it; `npm run format` applies it.
 * TypeScript is parsed with babel-ts rather than prettier's default typescript parser: the same output on every file
 * of the repository, in about two thirds of the CPU time (the check is one of CI's static checks).
 * @type {import('prettier').Config}
 */
export default {
  printWidth: 120,
  singleQuote: true,
  trailingComma: 'all',
  overrides: [{ files: ['*.ts', '*.mts', '*.cts'], options: { parser: 'babel-ts' } }],
};
