import { defineConfig } from 'vitest/config';

export default defineConfig({
  test: {
    // @oclif/test captures console output; vitest must not intercept it first.
    disableConsoleIntercept: true,
    testTimeout: 30_000,
    hookTimeout: 30_000,
    pool: 'forks',
    // Most test time is spent waiting on fsyncs, sockets and child processes, not on a core: three files at a time
    // keep a 2-core machine busy without starving the timing of any one test.
    maxWorkers: 3,
    // Collected only with --coverage (`npm run coverage`, and CI's one test run). The CLI tests run the built
    // dist/ in child processes, which V8 coverage of this process does not see: src/commands is measured by them
    // only where a unit test imports it, so it is left out of the figure rather than counted as uncovered.
    coverage: {
      provider: 'v8',
      include: ['src/**/*.ts'],
      exclude: ['src/commands/**'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
      // The lines figure unit + integration tests reached (86.83%); CI's full run, CLI tests included, is at least that.
      thresholds: { lines: 86 },
    },
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
