import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { parseTimeoutMs } from '../../cli/flags.js';
import { benchTarget, benchTargetFlags, refuseIdempotent, underSpinner } from '../../cli/render/bench-flags.js';

export default class BenchThroughput extends BaseCommand {
  static override summary = 'Sustained batched produce, then fetch of the same records.';

  static override description = `Produces --records records (or for --duration) in PRODUCE_BATCHes of --batch-size, with --in-flight batches pipelined on each of --connections connections, then reads them all back with batched FETCHes of --fetch-size. Reports records/s and MB/s (key + value bytes) for each phase, per-request latency percentiles (p50, p99, p99.9, max) kept in an HdrHistogram and measured from each request's intended send time (coordinated-omission aware; --rate sets an open-loop schedule), and, against the embedded broker, the broker process's peak RSS sampled every 50 ms, its fsyncs, and the CPU time per record of the broker and of the bench process (the client side).

Against the embedded broker the produce phase also reports group commit: records per fsync, and how long the broker's fsyncs took (recordsPerFsync, brokerFsync: p50, p99, and busyShare, the fsyncs' summed time per partition over the wall time, near 1 when the phase was bound by the disk). --vs-partitions N also produces into a topic of N partitions, the two phases interleaved in 5 rounds (ABBA order), and reports the median of the rounds' ratios of the first's records/s to the second's (partitionScaling.ratio; each round's in partitionScaling.rounds).

By default the broker is an embedded crater broker in a child process on a temp data dir and a free port; --broker runs against any broker, MoonMQ included.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --in-flight 4 --connections 2',
    '<%= config.bin %> <%= command.id %> --duration 10s --rate 200000 --json',
    '<%= config.bin %> <%= command.id %> --fetch-in-flight 4 --restart-before-fetch',
    '<%= config.bin %> <%= command.id %> --connections 256 --batch-size 1 --records 50000',
    '<%= config.bin %> <%= command.id %> --partitions 64 --vs-partitions 4 --json',
  ];

  static override flags = {
    records: Flags.integer({ char: 'n', description: 'Records to produce.', default: 100_000, min: 1 }),
    duration: Flags.string({
      description: 'Produce for this long instead of a record count (ms, or with s / m).',
      helpValue: 'time',
    }),
    'batch-size': Flags.integer({ description: 'Records per PRODUCE_BATCH.', default: 1000, min: 1, max: 10_000 }),
    'in-flight': Flags.integer({ description: 'Batches pipelined on each connection.', default: 1, min: 1, max: 1024 }),
    connections: Flags.integer({ description: 'Producing connections.', default: 1, min: 1, max: 256 }),
    'fetch-size': Flags.integer({ description: 'Records asked for per FETCH.', default: 1000, min: 1 }),
    'fetch-in-flight': Flags.integer({
      description: 'FETCHes pipelined on the fetching connection.',
      default: 1,
      min: 1,
      max: 64,
    }),
    'restart-before-fetch': Flags.boolean({
      description: 'Restart the embedded broker between produce and fetch (the fetch reads a log it did not write).',
    }),
    'fetch-decode': Flags.string({
      description:
        'How the client decodes FETCH replies: records (an object each) or table (positions per record, as crater consume).',
      options: ['records', 'table'],
      default: 'records',
    }),
    'vs-partitions': Flags.integer({
      description:
        'Also produce into a topic with this many partitions and report the records/s ratio (partitionScaling).',
      min: 1,
      max: 1024,
    }),
    rate: Flags.integer({
      description: 'Open-loop target in records/s (latency from the schedule); default: as fast as possible.',
      min: 1,
    }),
    ...benchTargetFlags(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BenchThroughput);
    refuseIdempotent(flags.idempotent);
    const durationMs = flags.duration === undefined ? undefined : parseTimeoutMs(flags.duration);
    const { runThroughput } = await import('../../bench/throughput.js');
    const render = await import('../../cli/render/bench.js');

    const report = await underSpinner('throughput', (onProgress) =>
      runThroughput({
        ...benchTarget(flags),
        records: flags.records,
        durationMs,
        batchSize: flags['batch-size'],
        inFlight: flags['in-flight'],
        connections: flags.connections,
        fetchSize: flags['fetch-size'],
        fetchInFlight: flags['fetch-in-flight'],
        restartBeforeFetch: flags['restart-before-fetch'],
        fetchDecode: flags['fetch-decode'] as 'table' | 'records',
        ratePerSec: flags.rate,
        vsPartitions: flags['vs-partitions'],
        codec: flags.codec as 'none' | 'gzip' | 'snappy',
        onProgress,
      }),
    );
    if (this.jsonEnabled()) return report;
    if (flags.csv) {
      this.out(render.throughputCsv(report));
      return undefined;
    }
    this.out(render.throughputSummary(report));
    this.out(this.table(render.phaseColumns(), render.phaseRows(report)));
    for (const line of render.throughputNotes(report)) this.out(line);
    return undefined;
  }
}
