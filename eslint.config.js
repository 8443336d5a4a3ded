/**
 * ESLint, type-aware (typescript-eslint's project service reads tsconfig.json). typescript-eslint's recommended
 * type-checked set, plus the rules that find real bugs in async, socket and byte-level code: promises nobody awaits
 * or that are passed where a callback's return is ignored (in the recommended set), conditions the types say are
 * constant, switches that miss a case, `||` where `??` was meant, a returned promise that escapes its try/catch.
 * Layout is prettier's job, so no rule here is about style. `npm run lint` runs it after tsc.
 */
import js from '@eslint/js';
import tseslint from 'typescript-eslint';

export default tseslint.config(
  { ignores: ['dist/', 'dist-lint/', 'coverage/', 'node_modules/', 'fixtures/', 'bench-results/'] },
  js.configs.recommended,
  ...tseslint.configs.recommendedTypeChecked,
  {
    languageOptions: {
      parserOptions: { projectService: true, tsconfigRootDir: import.meta.dirname },
    },
    rules: {
      '@typescript-eslint/switch-exhaustiveness-check': ['error', { considerDefaultExhaustiveForUnions: true }],
      '@typescript-eslint/return-await': ['error', 'in-try-catch'],
      // `||` on a number where `??` was meant drops a 0; strings and booleans use `||` on purpose ('' = "none").
      '@typescript-eslint/prefer-nullish-coalescing': ['error', { ignorePrimitives: { boolean: true, string: true } }],
      // Rejecting with what a catch caught (unknown) passes the original error on; anything else must be an Error.
      // Also an AbortSignal's reason (typed any), which is what an aborted wait must reject with.
      '@typescript-eslint/prefer-promise-reject-errors': [
        'error',
        { allowThrowingUnknown: true, allowThrowingAny: true },
      ],
      '@typescript-eslint/only-throw-error': ['error', { allowThrowingUnknown: true, allowThrowingAny: true }],
      // A leading underscore marks a parameter an interface requires but this implementation does not use.
      '@typescript-eslint/no-unused-vars': [
        'error',
        { argsIgnorePattern: '^_', varsIgnorePattern: '^_', ignoreRestSiblings: true },
      ],
      eqeqeq: ['error', 'always', { null: 'ignore' }],
      // On. Its findings were re-read one by one: checks of input a JavaScript caller or a file can get wrong take
      // `unknown` (isOneOf in client/validate.ts, acksMode in broker/config.ts), lifecycle fields tell the truth about
      // being unset, and the few left are TypeScript keeping a narrowing of `this.closed`/`signal.aborted` across an
      // await or a call that changes it (TypeScript#9998): those lines carry a disable comment saying so.
      '@typescript-eslint/no-unnecessary-condition': 'error',
      // An async function that does not await still turns a throw into a rejection, which callers rely on.
      '@typescript-eslint/require-await': 'off',
      // Flags only `active = this` (the running command, for the SIGINT handler); arrow functions make it moot.
      '@typescript-eslint/no-this-alias': 'off',
    },
  },
  {
    // Tests read JSON a command printed (any, by nature) and take methods off objects to pass to expect().
    files: ['test/**/*.ts'],
    rules: {
      '@typescript-eslint/no-unsafe-assignment': 'off',
      '@typescript-eslint/no-unsafe-member-access': 'off',
      '@typescript-eslint/no-unsafe-call': 'off',
      '@typescript-eslint/no-unsafe-return': 'off',
      '@typescript-eslint/no-unsafe-argument': 'off',
      '@typescript-eslint/no-explicit-any': 'off',
      '@typescript-eslint/unbound-method': 'off',
    },
  },
  {
    // The launchers and scripts are plain Node ESM, outside the TypeScript project.
    files: ['**/*.js', '**/*.mjs'],
    ...tseslint.configs.disableTypeChecked,
    languageOptions: {
      ...tseslint.configs.disableTypeChecked.languageOptions,
      globals: { process: 'readonly', console: 'readonly', Buffer: 'readonly', URL: 'readonly' },
    },
  },
  {
    // bin/ is CommonJS (bin/package.json): an ES module entry point costs every start-up the ESM loader's warm-up.
    files: ['bin/*.js'],
    languageOptions: { sourceType: 'commonjs', globals: { require: 'readonly', __dirname: 'readonly' } },
    rules: { '@typescript-eslint/no-require-imports': 'off' },
  },
);
