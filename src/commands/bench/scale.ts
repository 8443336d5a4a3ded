import { Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { renderExitCodeTable } from '../../cli/exit-codes.js';
import { formatHostPort, parseHostPort, passwordFlag, profileFlag, usernameFlag } from '../../cli/flags.js';
import { underSpinner } from '../../cli/render/bench-flags.js';
import { UsageError } from '../../errors.js';

const CURVES = ['records', 'value-size', 'partitions', 'connections'] as const;

export default class BenchScale extends BaseCommand {
  static override summary =
    'Growth curves: throughput, p99 and broker RSS as one parameter grows; broker start-up by data dir size.';

  static override description = `Runs \`bench throughput\` once per point while one parameter grows and the others stay at its defaults (4 partitions, 100-byte values, batches of 1,000, one connection, one batch in flight), each point on a fresh embedded broker:

  records       1,000 … 1,000,000 (10,000,000 with --max-records 10000000: about 1.1 GB and minutes)
  value-size    10 B … 64 KiB (at most 64 MiB of values per point)
  partitions    1 … 256
  connections   1 … 256, each producing one record at a time (batches of 1, awaited), 100 records per connection

For each point: produce and fetch records/s, their p99 latency, the broker's peak RSS and the produce phase's fsyncs. On a terminal each curve is also drawn as a bar chart.

--startup adds broker start-up time against data dirs of 10 MB, 100 MB and 1 GB (--startup-sizes): once after a clean shutdown, and once after a SIGKILL that followed about 1 MB of acknowledged records, with the log bytes the broker's recovery read each time.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %>',
    '<%= config.bin %> <%= command.id %> --curves partitions,connections --json',
    '<%= config.bin %> <%= command.id %> --curves records --max-records 10000000',
    '<%= config.bin %> <%= command.id %> --curves none --startup --startup-sizes 10,100,1000',
  ];

  static override flags = {
    curves: Flags.string({
      description: `Comma-separated curves to run, in order (${CURVES.join(', ')}), or none.`,
      default: CURVES.join(','),
    }),
    'max-records': Flags.integer({
      description: 'Largest point of the records curve (10000000 is opt-in: about 1.1 GB of log).',
      default: 1_000_000,
      min: 1000,
      max: 10_000_000,
    }),
    startup: Flags.boolean({ description: 'Also measure broker start-up against data dirs of growing size.' }),
    'startup-sizes': Flags.string({
      description: 'Data dir sizes of the start-up curve, in MB.',
      default: '10,100,1000',
      helpValue: 'mb,...',
    }),
    profile: profileFlag(),
    broker: Flags.custom<string>({
      char: 'b',
      description: 'Run the curves against this broker instead of embedded ones (no RSS; --startup refuses it).',
      env: 'CRATER_BROKER',
      helpValue: 'host:port',
      parse: async (input) => formatHostPort(parseHostPort(input)),
    })(),
    username: usernameFlag(),
    password: passwordFlag(),
  };

  async run(): Promise<unknown> {
    const { flags } = await this.parse(BenchScale);
    const sweeps = parseCurves(flags.curves);
    const sizesMb = flags['startup-sizes'].split(',').map((s) => Number(s.trim()));
    if (sizesMb.some((s) => !Number.isInteger(s) || s < 1)) {
      throw new UsageError(`--startup-sizes takes whole MB counts, got "${flags['startup-sizes']}"`);
    }
    const { runScale } = await import('../../bench/scale.js');
    const render = await import('../../cli/render/bench-scale.js');
    const report = await underSpinner('scale', (onProgress) =>
      runScale({
        broker: flags.broker,
        username: flags.username,
        password: flags.password,
        sweeps,
        maxRecords: flags['max-records'],
        ...(flags.startup ? { startup: { sizesMb } } : {}),
        onProgress,
      }),
    );
    if (this.jsonEnabled()) return report;
    if (process.stdout.isTTY) {
      for (const curve of report.curves) this.out(`${render.curveChart(curve, process.stdout.columns || 80)}\n`);
    }
    if (report.curves.length > 0) this.out(this.table(render.scaleColumns(), render.scaleRows(report)));
    if (report.startup) this.out(this.table(render.startupColumns(), report.startup.points));
    return undefined;
  }
}

function parseCurves(text: string): Array<(typeof CURVES)[number]> {
  if (text.trim() === 'none') return [];
  const names = text.split(',').map((s) => s.trim());
  for (const name of names) {
    if (!(CURVES as readonly string[]).includes(name)) {
      throw new UsageError(`unknown curve "${name}"; the curves are ${CURVES.join(', ')}, or none`);
    }
  }
  return names as Array<(typeof CURVES)[number]>;
}
