import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { parseTimeoutMs } from '../../cli/flags.js';
import { benchTargetFlags } from '../../cli/render/bench-flags.js';
import { parseByteSize, parseLingerMs } from '../../cli/produce-tuning.js';
import { UsageError } from '../../errors.js';

const size = Flags.custom<number>({ parse: async (input) => parseByteSize(input), helpValue: 'BYTES' });
const time = Flags.custom<number>({ parse: async (input) => parseTimeoutMs(input), helpValue: 'TIME' });

/** `linger=0,1,5,20` or `batch-bytes=16KiB,64KiB`. */
function parseSweep(input: string): { parameter: 'linger' | 'batch-bytes'; values: number[] } {
  const match = /^(linger|batch-bytes)=(.+)$/.exec(input.trim());
  if (!match) throw new UsageError(`invalid --sweep "${input}": expected linger=V,V,… or batch-bytes=V,V,…`);
  const parameter = match[1] as 'linger' | 'batch-bytes';
  const values = match[2]!.split(',').map((v) => (parameter === 'linger' ? parseLingerMs(v) : parseByteSize(v)));
  if (values.length < 2) throw new UsageError('--sweep needs at least two values');
  return { parameter, values };
}

export default class BenchProducer extends BaseCommand {
  static override summary = "The producer accumulator under load, next to the seed's prediction.";

  static override description = `--producers P producers (a connection each) send keyed records through their accumulators to one topic of --partitions N, at --rate bytes/s of key + value in all (spread evenly over the producers), for --duration. The report prints the seed's prediction for the accumulators this backend has (on the MoonMQ protocol the broker partitions, so a producer keeps one batch per topic: producers × topics accumulators): r = rate / accumulators, fill time B/r, arrivals during linger r×L, mean batch ≈ min(B, first record + r×L); next to it what the producers' metrics measured: mean batch size (and its ratio to the prediction), batch frame p50/p99, record queue time p50/p99, requests/s and records/s.

Without --rate the producers run unthrottled (send() never awaited per record; the loop waits only when the buffer is full): that is the throughput figure, and the same run also measures hand-made batches (1,000 records, 4 in flight per connection, as bench throughput --in-flight 4) and prints the ratio (--no-baseline skips it).

--sweep linger=0,1,5,20 (or batch-bytes=16KiB,64KiB,…) repeats the run for each value on one broker and draws records/s and p99 queue time per value as a terminal chart. --stall-after TIME freezes the embedded broker (SIGSTOP) that long into the run and reports this process's RSS and how late the slowest send settled against --delivery-timeout.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --producers 10 --partitions 20 --rate 20MB --batch-bytes 64KiB --linger 5ms',
    '<%= config.bin %> <%= command.id %> --rate 2MB --sweep linger=0,1,5,20',
    '<%= config.bin %> <%= command.id %> --stall-after 2s --duration 6s --delivery-timeout 8s --request-timeout 3s --json',
  ];

  static override flags = {
    producers: Flags.integer({ description: 'Producers, one connection each.', default: 1, min: 1, max: 256 }),
    rate: size({
      description: 'Total bytes/s of key + value over all producers (MB, MiB accepted); default: unthrottled.',
    }),
    'batch-bytes': size({
      description: 'Batch target B in frame bytes (KiB / MiB accepted). [default: 1MiB, the frame limit]',
    }),
    linger: Flags.custom<number>({ parse: async (input) => parseLingerMs(input), helpValue: 'TIME' })({
      description: 'Linger L (ms, or with s; 0 allowed).',
      default: 5,
    }),
    duration: time({ description: 'Length of each measured run.', default: 5_000 }),
    'buffer-bytes': size({ description: "Each producer's buffer. [default: 32MiB]" }),
    'delivery-timeout': time({ description: 'Delivery timeout of each record. [default: 120s]' }),
    'request-timeout': time({ description: 'Timeout of each request. [default: 30s]' }),
    sweep: Flags.string({
      description: 'Repeat for each value: linger=V,V,… or batch-bytes=V,V,…',
      helpValue: 'PARAM=V,V,…',
    }),
    'stall-after': time({ description: 'Freeze the embedded broker this long into the run (SIGSTOP).' }),
    baseline: Flags.boolean({
      description: 'Unthrottled: also measure hand-made batches in the same run.',
      default: true,
      allowNo: true,
    }),
    ...(({ broker, username, password, acks, partitions, 'value-size': valueSize }) => ({
      broker,
      username,
      password,
      acks,
      partitions,
      'value-size': valueSize,
    }))(benchTargetFlags()),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BenchProducer);
    const sweep = flags.sweep === undefined ? undefined : parseSweep(flags.sweep);
    const { runProducerBench } = await import('../../bench/producer.js');
    const render = await import('../../cli/render/bench-producer.js');
    const { createSpinner } = await import('../../cli/terminal.js');
    const spinner = (await createSpinner('bench producer')).start();
    let report;
    try {
      report = await runProducerBench(
        {
          broker: flags.broker,
          username: flags.username,
          password: flags.password,
          acks: flags.acks as 'none' | 'leader' | undefined,
          producers: flags.producers,
          partitions: flags.partitions,
          rateBytesPerSec: flags.rate,
          batchBytes: flags['batch-bytes'],
          lingerMs: flags.linger,
          durationMs: flags.duration,
          valueSize: flags['value-size'],
          bufferBytes: flags['buffer-bytes'],
          deliveryTimeoutMs: flags['delivery-timeout'],
          requestTimeoutMs: flags['request-timeout'],
          baseline: flags.baseline,
          stallAfterMs: flags['stall-after'],
          onProgress: (step) => (spinner.text = step),
        },
        sweep,
      );
      spinner.stop();
    } catch (err) {
      spinner.fail('bench producer failed');
      throw err;
    }
    if (this.jsonEnabled()) return report;
    this.out(render.producerSummary(report));
    if (sweep) this.out(render.sweepChart(sweep.parameter, report.points, process.stdout.columns || 80));
    return undefined;
  }
}
