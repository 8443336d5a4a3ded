import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../../cli/exit-codes.js';
import { benchTarget, benchTargetFlags, underSpinner } from '../../cli/render/bench-flags.js';
import { UsageError } from '../../errors.js';

/** `max`: 10,000 records per PRODUCE_BATCH, 1,024 for an idempotent one. */
function parseBatchSizes(input: string, max: number): number[] {
  const sizes = input.split(',').map((s) => Number(s.trim()));
  if (sizes.length === 0 || sizes.some((n) => !Number.isInteger(n) || n < 1 || n > max)) {
    throw new UsageError(`invalid --batch-sizes "${input}": expected a comma-separated list of integers 1..${max}`);
  }
  return sizes;
}

export default class BenchBatchVsSingle extends BaseCommand {
  static override summary = 'Compare N single PRODUCEs with one PRODUCE_BATCH of the same records.';

  static override description = `Single mode sends the records one PRODUCE at a time, each awaited; batch mode sends them in one PRODUCE_BATCH. Both run --repeat times (alternating, after an untimed warm-up) and report the median with min and max of wall time and records/s, the speedup (single median ÷ batch median), per-record latency percentiles of single mode and, against the embedded broker, the fsyncs each mode cost.

By default the broker is an embedded crater broker in a child process (so broker and client do not share an event loop) on a temp data dir, removed afterwards, and a free port. --broker runs against any broker, MoonMQ included; only core opcodes are used then, and fsyncs are not reported.

Before anything is timed, --warmup-singles single produces (2,000; the records over again) and about 8,000 records' worth of the timed batches warm the JIT of both processes up, so the modes are timed at its steady state (with 200 warm-up singles, single mode ran much of its per-request code unoptimised and took twice the CPU per record). Beside the modes it measures the floors a durable one-record produce cannot go below: one loopback round trip to an echo server in a child process of its own (so it wakes two processes, as a request to the broker does), and one fsync of a just-appended record on the broker's file system; their samples are taken in rounds, one before each timed repeat, so they cover the same seconds as the modes, and as many as single mode has latencies (records × repeats, 400 to 4,000). It prints single mode's wall time per record against the sum of their p50s (issue 18's floor) and against the sum of their means (the floor once the disk's slow fsyncs count), and its per-record p99 against the fsync p99.

--batch-sizes adds a sweep: the records produced in batches of each size, drawn as a bar chart of records/s.

--idempotent runs both modes through an ephemeral idempotent producer on a connection of its own: single mode sends PRODUCE_IDEMPOTENT per record, batch mode IDEMPOTENT PRODUCE_BATCH frames. Those hold at most 1,024 records, so with --records over 1,024 batch mode sends ceil(N / 1,024) batches (the report's batch frames and batch size say how many), and --batch-sizes must stay within 1..1024. The broker must support idempotent produce (crater does).

Output: a table (stdout) with a spinner on stderr while it runs; --json or --csv for machines.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'THRESHOLD'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --records 4000 --batch-sizes 1,10,100,1000',
    '<%= config.bin %> <%= command.id %> --broker 127.0.0.1:9092 --min-speedup 20 --json',
    '<%= config.bin %> <%= command.id %> --idempotent --records 4000',
  ];

  static override flags = {
    records: Flags.integer({ char: 'n', description: 'Records per mode and repeat.', default: 400, min: 1 }),
    repeat: Flags.integer({ description: 'Timed repeats of each mode.', default: 5, min: 1, max: 1000 }),
    'warmup-singles': Flags.integer({
      description: 'Untimed single produces before anything is timed (the JIT warm-up).',
      default: 2000,
      min: 0,
      max: 1_000_000,
    }),
    'batch-sizes': Flags.string({
      description: 'Also sweep these batch sizes, e.g. 1,10,100,1000.',
      helpValue: 'list',
    }),
    'min-speedup': Flags.string({
      description: `Exit ${ExitCode.THRESHOLD} (THRESHOLD) when the speedup is below this.`,
      helpValue: 'x',
    }),
    ...benchTargetFlags(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BenchBatchVsSingle);
    const minSpeedup = flags['min-speedup'] === undefined ? undefined : Number(flags['min-speedup']);
    if (minSpeedup !== undefined && !(minSpeedup > 0))
      throw new UsageError(`invalid --min-speedup "${flags['min-speedup']}": expected a positive number`);
    const batchSizes =
      flags['batch-sizes'] === undefined
        ? undefined
        : parseBatchSizes(flags['batch-sizes'], flags.idempotent ? 1024 : 10_000);
    const { runBatchVsSingle } = await import('../../bench/batch-vs-single.js');
    const render = await import('../../cli/render/bench.js');

    const report = await underSpinner('batch-vs-single', (onProgress) =>
      runBatchVsSingle({
        ...benchTarget(flags),
        records: flags.records,
        codec: flags.codec as 'none' | 'gzip' | 'snappy',
        repeat: flags.repeat,
        batchSizes,
        idempotent: flags.idempotent,
        warmupSingles: flags['warmup-singles'],
        onProgress,
      }),
    );

    const passed = minSpeedup === undefined || report.speedup >= minSpeedup;
    if (!passed) this.setExitCode(ExitCode.THRESHOLD);
    const shortfall = `speedup ${report.speedup.toFixed(1)}x is below --min-speedup ${minSpeedup}`;
    if (this.jsonEnabled()) {
      if (!passed) this.diag(shortfall);
      return minSpeedup === undefined ? report : { ...report, check: { minSpeedup, passed } };
    }
    if (flags.csv) {
      this.out(render.batchVsSingleCsv(report));
      if (!passed) this.diag(shortfall);
      return undefined;
    }
    this.out(render.batchVsSingleSummary(report));
    this.out(render.floorsSummary(report));
    this.out(this.table(render.modeColumns(), render.modeRows(report)));
    this.out(
      this.chalk.bold(`speedup: ${report.speedup.toFixed(1)}x`) +
        ` (batch median ${report.batch.wallMs.median.toFixed(2)} ms)`,
    );
    const chart = render.sweepChart(report);
    if (chart !== '') this.out(`\n${chart}`);
    if (!passed) this.diag(this.stderrChalk.red(shortfall));
    return undefined;
  }
}
