import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { benchTarget, benchTargetFlags, refuseIdempotent, underSpinner } from '../../cli/render/bench-flags.js';

export default class BenchConsumer extends BaseCommand {
  static override summary = 'Batch consumer throughput against plain batched fetch, and through consume --exec.';

  static override description = `Produces --records records once, then reads them three ways, each as a fresh group: plain batched FETCH (as bench throughput's fetch phase), the client's batch consumer with a no-op handler and --max-size (timed until every record is consumed, its offsets committed and the consumer closed), and \`consume --exec CMD\` with --exec-batch-size (default CMD: cat > /dev/null; --no-exec skips it). The paths alternate --repeat times on the same records (a fresh group each time); the table shows each path's median run, and the batch-consumer / fetch ratio is of the medians.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    "<%= config.bin %> <%= command.id %> --records 500000 --exec 'wc -l > /dev/null' --json",
  ];

  static override flags = {
    records: Flags.integer({ char: 'n', description: 'Records to produce and consume.', default: 200_000, min: 1 }),
    'max-size': Flags.integer({ description: 'Batch consumer maxSize.', default: 500, min: 1 }),
    'fetch-size': Flags.integer({
      description: 'Records per FETCH, for the plain fetch and the batch consumer.',
      default: 1000,
      min: 1,
    }),
    workers: Flags.integer({ description: 'Batch consumer workers.', default: 1, min: 1, max: 64 }),
    exec: Flags.string({
      description: 'The command for the consume --exec path.',
      default: 'cat > /dev/null',
      helpValue: 'CMD',
    }),
    'no-exec': Flags.boolean({ description: 'Skip the consume --exec path.' }),
    repeat: Flags.integer({
      description: 'Timed runs of each path, alternating; medians are reported.',
      default: 3,
      min: 1,
      max: 100,
    }),
    'exec-batch-size': Flags.integer({
      description:
        'Records per batch (one CMD per batch) for the consume --exec path; CMD startup is per batch, so big batches are what a shell command is fast with.',
      default: 50_000,
      min: 1,
      max: 100_000,
    }),
    ...benchTargetFlags(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BenchConsumer);
    refuseIdempotent(flags.idempotent);
    const { runConsumerBench } = await import('../../bench/consumer-bench.js');
    const render = await import('../../cli/render/bench-consumer.js');
    const exec = flags['no-exec'] ? undefined : execPath(flags.exec, flags['exec-batch-size']);
    const report = await underSpinner('consumer bench', (onProgress) =>
      runConsumerBench({
        ...benchTarget(flags),
        records: flags.records,
        maxSize: flags['max-size'],
        fetchSize: flags['fetch-size'],
        workers: flags.workers,
        repeat: flags.repeat,
        exec,
        onProgress,
      }),
    );
    if (this.jsonEnabled()) return report;
    if (flags.csv) {
      this.out(render.consumerCsv(report));
      return undefined;
    }
    this.out(render.consumerSummary(report));
    this.out(this.table(render.consumerColumns(), render.consumerRows(report)));
    return undefined;
  }
}

/** The `consume --exec CMD` path: the CLI's own exec consumer, timed until it has processed `records`. */
function execPath(command: string, batchSize: number) {
  return {
    command,
    batchSize,
    run: async (client: import('../../client/index.js').Backend, topic: string, group: string, records: number) => {
      const { runExecConsume } = await import('../../cli/exec-consume.js');
      const t0 = performance.now();
      const s = await runExecConsume(
        client,
        {
          topics: [topic],
          group,
          command,
          batchSize,
          batchTimeoutMs: 50,
          retries: 0,
          backoff: { type: 'fixed', delayMs: 0 },
          onExhausted: 'discard',
          workers: 1,
          filters: [],
          transactional: false,
          encoding: 'auto',
          commitIntervalMs: 5_000,
          stopAfter: records,
          progress: false,
        },
        new AbortController().signal,
        { passThrough: () => undefined, diag: () => undefined },
      );
      return { wallMs: performance.now() - t0, records: s.processed, batches: s.batches };
    },
  };
}
