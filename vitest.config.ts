import { defineConfig } from 'vitest/config';

// The Kafka suite (test/kafka: a real 3-node KRaft cluster) runs only when asked: `npm run test:kafka`. After the
// CLI and accumulator merge five of its tests fail (issue 17 stays open), so it is not part of `npm test` or CI yet.
const kafkaProject =
  process.env.CRATER_KAFKA_SUITE === '1'
    ? [
        {
          // One real 3-node Kafka cluster for the whole Kafka suite (test/kafka/global-setup.ts); its files run one at a
          // time because some of them kill a broker of that shared cluster.
          extends: true as const,
          test: {
            name: 'kafka',
            include: ['test/kafka/**/*.test.ts'],
            globalSetup: ['test/kafka/global-setup.ts'],
            fileParallelism: false,
            testTimeout: 120_000,
            hookTimeout: 120_000,
          },
        },
      ]
    : [];

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
      // src/client/kafka is exercised by the opt-in Kafka suite only.
      exclude: ['src/commands/**', 'src/client/kafka/**'],
      reporter: ['text-summary', 'json-summary', 'html'],
      reportsDirectory: 'coverage',
      reportOnFailure: true,
      // What the full suite reaches without the Kafka suite, rounded down: 90.59% of lines at the commit that set it
      // (see the README's contributing section).
      thresholds: { lines: 90 },
    },
    projects: [
      { extends: true, test: { name: 'crater', include: ['test/**/*.test.ts'], exclude: ['test/kafka/**'] } },
      ...kafkaProject,
    ],
  },
});
