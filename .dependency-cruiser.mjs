/**
 * The import-direction rules of docs/code-habits.md ("Layers and cycles"), checked by dependency-cruiser in
 * `npm run lint` (so in CI). Type-only imports count (tsPreCompilationDeps), because a type-only cycle is still two
 * modules that cannot be understood, moved or tested apart. `src/errors.ts` imports nothing and every layer may
 * use it. A rule's comment is what `npm run lint` prints when it fails.
 */
const ours = '^src/';
const errors = '^src/errors[.]ts$';

/** @type {import('dependency-cruiser').IConfiguration} */
export default {
  forbidden: [
    {
      name: 'no-circular',
      severity: 'error',
      comment:
        'A cycle, type-only ones included. Break it: types in a file of their own, options beside the config, the ' +
        'interface in the lower layer (which the upper one implements).',
      from: { path: ours },
      to: { circular: true },
    },
    {
      name: 'protocol-is-pure',
      severity: 'error',
      comment: 'protocol/ imports nothing of ours (errors.ts aside): no client, broker, storage or cli code.',
      from: { path: '^src/protocol/' },
      to: { path: ours, pathNot: ['^src/protocol/', errors] },
    },
    {
      name: 'storage-imports-protocol-at-most',
      severity: 'error',
      comment: 'storage/ is local disk only: it imports protocol/ (and errors.ts) at most.',
      from: { path: '^src/storage/' },
      to: { path: ours, pathNot: ['^src/(storage|protocol)/', errors] },
    },
    {
      name: 'client-imports-protocol-at-most',
      severity: 'error',
      comment: 'client/ imports protocol/ (and errors.ts), never broker/, storage/, cli/ or commands/.',
      from: { path: '^src/client/' },
      to: { path: ours, pathNot: ['^src/(client|protocol)/', errors] },
    },
    {
      name: 'broker-imports-protocol-and-storage',
      severity: 'error',
      comment: 'broker/ imports protocol/ and storage/ (and errors.ts), never client/, cli/ or commands/.',
      from: { path: '^src/broker/' },
      to: { path: ours, pathNot: ['^src/(broker|protocol|storage)/', errors] },
    },
    {
      name: 'commands-use-the-public-surface',
      severity: 'error',
      comment:
        'commands/ are glue: they import cli/, bench/, errors.ts and the entry points (src/index.ts, ' +
        'client/index.ts, broker/index.ts), never a module inside protocol/, storage/, client/ or broker/; export ' +
        'what a command needs from an entry point or from cli/ (cli/disk-readers.ts for the on-disk readers).',
      from: { path: '^src/commands/' },
      to: {
        path: ours,
        pathNot: ['^src/(commands|cli|bench)/', errors, '^src/index[.]ts$', '^src/(client|broker)/index[.]ts$'],
      },
    },
    {
      name: 'nothing-imports-commands',
      severity: 'error',
      comment: 'oclif loads commands/; the library and cli/ never import a command (move what they share into cli/).',
      from: { path: ours, pathNot: '^src/commands/' },
      to: { path: '^src/commands/' },
    },
    {
      name: 'backend-seam',
      severity: 'error',
      comment:
        'client/producer/ and client/consumer/ talk to a broker through client/backend.ts (the seam), never ' +
        'through a backend: move backend-specific code into client/moonmq/ or client/kafka/, and let client.ts ' +
        '(or kafka-backend.ts) pick it.',
      from: { path: '^src/client/(producer|consumer)/' },
      to: { path: '^src/client/(moonmq|kafka)/' },
    },
  ],
  options: {
    includeOnly: ours,
    doNotFollow: { path: 'node_modules' },
    tsPreCompilationDeps: true,
    tsConfig: { fileName: 'tsconfig.json' },
    enhancedResolveOptions: {
      exportsFields: ['exports'],
      conditionNames: ['import', 'require', 'node', 'default', 'types'],
      extensions: ['.ts', '.js'],
    },
    cache: false,
  },
};
