import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { formatHostPort, parseHostPort, passwordFlag, usernameFlag } from '../../cli/flags.js';

export default class BenchShare extends BaseCommand {
  static override summary = 'Share-group drain: C share consumers with implicit acks drain N records.';

  static override description = `Produces --records records (untimed) to a fresh topic of --partitions partitions, then --consumers share consumers of one group (implicit acks, --max-records per SHARE_FETCH) drain it concurrently. The timed phase runs from the first poll to the last consumer's final commit, so every acquisition and every ACCEPT is durable in __share_group_state inside it. A poll that finds nothing waits --max-wait-ms on the broker (10): only the last polls of the drain do (the last records are already held by other members), and the timed phase includes that wait, so a long one would time idle. One untimed warm-up pass runs first. Reports aggregate records/s, each consumer's count, duplicates (0 unless a lock expired) and, against the embedded broker, its peak RSS, the fsyncs of the timed phase and the CPU time client and broker used in it (on a loaded machine, records ÷ the larger CPU time says what the code would do with a core each). Needs a crater broker. --json prints the report.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --consumers 8 --records 200000 --json',
  ];

  static override flags = {
    records: Flags.integer({ char: 'n', description: 'Records to drain.', default: 100_000, min: 1 }),
    consumers: Flags.integer({ description: 'Share consumers in the group.', default: 4, min: 1, max: 64 }),
    partitions: Flags.integer({ description: 'Partitions of the bench topic.', default: 4, min: 1, max: 1024 }),
    'value-size': Flags.integer({
      description: 'Value bytes per record (keys are 8 bytes).',
      default: 100,
      min: 1,
      max: 1_000_000,
    }),
    'max-records': Flags.integer({ description: 'Records per SHARE_FETCH.', default: 1000, min: 1, max: 10_000 }),
    'max-wait-ms': Flags.integer({
      description: 'How long a SHARE_FETCH that finds nothing waits (only the last polls of the drain do).',
      default: 10,
      min: 0,
      max: 30_000,
    }),
    broker: Flags.custom<string>({
      char: 'b',
      description: 'Run against this crater broker instead of an embedded one.',
      helpValue: 'host:port',
      parse: async (s) => formatHostPort(parseHostPort(s)),
    })(),
    username: usernameFlag(),
    password: passwordFlag(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BenchShare);
    const { runShareBench } = await import('../../bench/share.js');
    const { renderPairs } = await import('../../cli/render/table.js');
    const { createSpinner } = await import('../../cli/terminal.js');
    const spinner = (await createSpinner('share')).start();
    let report;
    try {
      report = await runShareBench({
        broker: flags.broker,
        username: flags.username,
        password: flags.password,
        records: flags.records,
        consumers: flags.consumers,
        partitions: flags.partitions,
        valueSize: flags['value-size'],
        maxRecords: flags['max-records'],
        maxWaitMs: flags['max-wait-ms'],
        onProgress: (step) => (spinner.text = step),
      });
      spinner.stop();
    } catch (err) {
      spinner.fail('share bench failed');
      throw err;
    }
    if (this.jsonEnabled()) return report;
    const mib = (n: number | null) => (n === null ? 'n/a' : `${(n / 1_048_576).toFixed(1)} MiB`);
    this.out(
      renderPairs(
        [
          ['broker', `${report.broker.address}${report.broker.embedded ? ' (embedded)' : ''}`],
          ['records', report.records],
          ['consumers', report.params.consumers],
          ['records/s', Math.round(report.recordsPerSec)],
          ['wall', `${report.wallMs.toFixed(0)} ms (every record delivered at ${report.allDeliveredMs.toFixed(0)} ms)`],
          ['polls', report.polls],
          ['per consumer', report.perConsumer.join(' ')],
          ['duplicates', report.duplicates],
          ['broker peak RSS', mib(report.brokerPeakRssBytes)],
          ['fsyncs', report.fsyncs ?? 'n/a'],
          [
            'CPU client / broker',
            `${report.clientCpuMs.toFixed(0)} ms / ${report.brokerCpuMs === null ? 'n/a' : `${report.brokerCpuMs.toFixed(0)} ms`}`,
          ],
        ],
        this.chalk,
      ),
    );
    return undefined;
  }
}
