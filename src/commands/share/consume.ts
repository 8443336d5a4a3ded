import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../../cli/exit-codes.js';
import { connectionFlags, parseTimeoutMs } from '../../cli/flags.js';
import { SHARE_EXEC_REJECT_CODE } from '../../cli/share-consuming.js';

export default class ShareConsume extends BaseCommand {
  static override summary =
    'Consume a topic as a member of a share group, acknowledging each record (crater brokers only).';

  static override description = `Joins share group --group and receives records under acquisition locks: other members of the group get other records. Each record is acknowledged with --ack (accept by default; release hands it back for redelivery, reject archives it and dead-letters it when the group sets dlq.enabled).

With --exec CMD, CMD runs through the shell once per record (or once per poll with --batch) with the record(s) as JSON lines on its stdin; its exit status decides: 0 accepts, ${SHARE_EXEC_REJECT_CODE} rejects, anything else releases. CMD's output is passed through.

Output without --exec: each record's value and a newline; --json prints one line per record: {topic, partition, offset, timestamp, key, value, headers: null, deliveryCount} with byte fields as in \`crater consume --json\`. A summary goes to stderr. -n stops after N records (records acquired past N are released); --idle-timeout stops after that long without a record.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'INCOMPLETE', 'INTERRUPTED'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> jobs --group workers -n 10',
    "<%= config.bin %> <%= command.id %> jobs --group workers --exec 'jq -e .value.utf8 >/dev/null'",
    '<%= config.bin %> <%= command.id %> jobs --group workers --ack release --idle-timeout 2s --json',
  ];

  static override args = { topic: Args.string({ description: 'Topic to read.', required: true, ignoreStdin: true }) };

  static override flags = {
    ...connectionFlags(),
    group: Flags.string({ char: 'g', description: 'Share group.', required: true }),
    'max-records': Flags.integer({
      char: 'n',
      description: `Stop after N records; exit ${ExitCode.INCOMPLETE} if the idle timeout stops it first.`,
      min: 1,
    }),
    ack: Flags.string({
      description: 'How each record is acknowledged (without --exec).',
      options: ['accept', 'release', 'reject'],
      default: 'accept',
      exclusive: ['exec'],
    }),
    exec: Flags.string({
      description: `Command deciding each record by its exit status (0 accept, ${SHARE_EXEC_REJECT_CODE} reject, other release).`,
    }),
    batch: Flags.boolean({
      description: 'With --exec: one run per poll, all its records on stdin, one decision for all.',
      dependsOn: ['exec'],
    }),
    'idle-timeout': Flags.custom<number>({
      description: 'Stop after this long without a record (ms, or 5s, 2m).',
      helpValue: 'ms',
      parse: async (s) => parseTimeoutMs(s),
    })(),
  };

  async run(): Promise<undefined> {
    const { args, flags } = await this.parse(ShareConsume);
    const { withMoonmqClient, writeBytes } = await import('../../cli/connect.js');
    const { shareConsume, shareLine } = await import('../../cli/share-consuming.js');
    const json = this.jsonEnabled();
    const signal = this.signal;
    const emit = (r: { value: Buffer } & Parameters<typeof shareLine>[0]) =>
      writeBytes(process.stdout, json ? shareLine(r) : Buffer.concat([r.value, Buffer.from('\n')]), signal);
    const outcome = await withMoonmqClient(flags, 'share groups', (c) =>
      shareConsume(
        c,
        {
          topic: args.topic,
          group: flags.group,
          maxRecords: flags['max-records'],
          idleTimeoutMs: flags['idle-timeout'],
          ack: flags.ack as 'accept',
          exec: flags.exec,
          batch: flags.batch,
        },
        emit,
        signal,
      ),
    );
    this.diag(
      `share group ${flags.group}: ${outcome.count} records from ${args.topic} (accepted ${outcome.accepted}, released ${outcome.released}, rejected ${outcome.rejected}); stopped: ${outcome.cause}`,
    );
    const wanted = flags['max-records'];
    if (outcome.cause === 'interrupted') this.setExitCode(ExitCode.INTERRUPTED);
    else if (wanted !== undefined && outcome.count < wanted) this.setExitCode(ExitCode.INCOMPLETE);
    return undefined;
  }
}
