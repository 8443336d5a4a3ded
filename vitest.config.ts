import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // @oclif/test captures console output; vitest must not intercept it first.
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    projects: [
      { extends: true, test: { name: 'crater', include: ['test/**/*.test.ts'], exclude: ['test/kafka/**'] } },
      {
        // One real 3-node Kafka cluster for the whole Kafka suite (test/kafka/global-setup.ts); its files run one at a
        // time because some of them kill a broker of that shared cluster.
        extends: true,
        test: {
          name: 'kafka',
          include: ['test/kafka/**/*.test.ts'],
          globalSetup: ['test/kafka/global-setup.ts'],
          fileParallelism: false,
          testTimeout: 120_000,
          hookTimeout: 120_000,
        },
      },
    ],
  },
});
