import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../cli/exit-codes.js';
import { connectionFlags, parseTimeoutMs } from '../cli/flags.js';
import { execFlags } from '../cli/exec-command.js';

export const DEFAULT_GROUP = 'crater-cli';

export default class Consume extends BaseCommand {
  static override summary =
    'Consume records from one or more topics, printing them with a kcat-style format or as JSON lines.';

  static override description = `Reads each TOPIC as consumer group --group (default "${DEFAULT_GROUP}") from where the group left off, as a member of that group while it runs (\`crater group describe\` shows it). Partitions are numbered from 1, as the protocol numbers them (from 0 on Kafka, --broker kafka://...).

--from moves the group before reading, like kcat -o: beginning, end (only records produced from now on), committed (the default: do not move), OFFSET (that offset in every partition; an opaque cursor, a byte position on segmented topics, as printed by -f %o or --json), -N (the last N records of each partition; found by reading the partition once) or @TIMESTAMP_MS (the first record stamped at or after that time, via LIST_OFFSETS timestamp mode). With --group the move is for everyone in that group. Without --group, --from and -p/--partition N (repeatable) read through a throwaway group "${DEFAULT_GROUP}-<random>" that starts at the beginning and is deleted on exit; -p reads outside any group, as kcat -p does, so it refuses --group.

Without --follow it polls with FETCH (record headers included on a crater broker); --follow uses SUBSCRIBE (one topic) and the broker pushes records as they land (push frames carry no headers: "headers" is null).

What counts as consumed: the broker commits past everything it sends. crater hands records back to the group (commits their own offset) unless they were written to stdout: those past --max-records, and, when the reader of stdout goes away (\`| head -1\`), those not written plus those of the last write (--json writes one FETCH at a time) and of the 64 KiB of output before it, which may still have been in the process or the pipe. The next run may see a few records again; it never skips one. (--follow: the broker has already committed what it pushed.)

-e stops once every partition reaches the end offset (LIST_OFFSETS latest) seen at start. --idle-timeout stops after that long without a record.

Output: -f/--format as in kcat: %t topic, %p partition, %o offset, %T timestamp (ms), %k key, %s value, %h headers (name=value,...), %K/%S key/value length, %% a percent, escapes \\n \\t \\r \\0 \\\\; keys and values are raw bytes (default "%s\\n"). --json prints one envelope per line: {topic, partition, offset, timestamp, key, value, headers:[{name, value}]}, each byte field {"utf8":...}, {"base64":...} or {"hex":...}, key null when absent; \`crater produce --input jsonl\` reads it back byte for byte. A summary goes to stderr. \`| head -1\` exits quietly (0) at the next record written after the reader has gone.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'INCOMPLETE', 'INTERRUPTED'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders -e',
    "<%= config.bin %> <%= command.id %> orders --from beginning -e -f '%p:%o %k=%s\\n'",
    '<%= config.bin %> <%= command.id %> orders --from -10 -p 2 -e',
    '<%= config.bin %> <%= command.id %> orders payments --from @1767225600000 -e --json',
    '<%= config.bin %> <%= command.id %> orders --group billing --max-records 10 --idle-timeout 5s --json',
    '<%= config.bin %> <%= command.id %> orders --follow',
    "<%= config.bin %> <%= command.id %> scans --group sorter --batch-size 500 --batch-timeout 2s --exec './sort.sh' --retries 3 --backoff 200ms:5s",
  ];

  static override strict = false;

  static override args = {
    topic: Args.string({ description: 'Topic to read; more topics may follow.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    ...connectionFlags(),
    group: Flags.string({
      char: 'g',
      description: `Consumer group [default: ${DEFAULT_GROUP}; with --from or -p and no --group, a throwaway one].`,
    }),
    from: Flags.string({
      char: 'o',
      description: 'Where to start: committed, beginning, end, OFFSET, -N (last N per partition) or @TIMESTAMP_MS.',
      default: 'committed',
      helpValue: 'POSITION',
    }),
    partition: Flags.integer({
      char: 'p',
      description: 'Only this partition (from 1 on MoonMQ, from 0 on Kafka; repeatable); reads outside any group.',
      multiple: true,
      min: 0,
    }),
    'max-records': Flags.integer({
      char: 'n',
      description: `Stop after N records; exit ${ExitCode.INCOMPLETE} if -e or the idle timeout stops it first.`,
      min: 1,
    }),
    'exit-at-end': Flags.boolean({
      char: 'e',
      description: 'Stop when every partition reaches the end offsets seen at start.',
      exclusive: ['follow'],
    }),
    'idle-timeout': Flags.custom<number>({
      description: 'Stop after this long without a record (ms, or 5s, 2m).',
      helpValue: 'duration',
      parse: async (s) => parseTimeoutMs(s),
    })(),
    isolation: Flags.string({
      description: 'Transactional isolation.',
      options: ['read_uncommitted', 'read_committed'],
    }),
    follow: Flags.boolean({
      description: 'Receive records by SUBSCRIBE push instead of polling with FETCH (one topic).',
    }),
    format: Flags.string({ char: 'f', description: 'kcat-style output template.', exclusive: ['json'] }),
    encoding: Flags.string({
      description: '--json byte fields: utf8 when exact (auto), else base64; or always base64/hex.',
      options: ['auto', 'base64', 'hex'],
      default: 'auto',
    }),
    ...execFlags(),
  };

  async run(): Promise<undefined> {
    const { argv, flags } = await this.parse(Consume);
    if (flags.exec !== undefined) {
      const { consumeExec } = await import('../cli/exec-command.js');
      const { openClient } = await import('../cli/connect.js');
      const stdout = this.lines();
      const context = {
        signal: this.signal,
        json: this.jsonEnabled(),
        diag: (t: string) => this.diag(t),
        out: (t: string) => stdout.writeLine(t),
      };
      const summary = await consumeExec((argv as string[])[0]!, flags, () => openClient(flags), context, DEFAULT_GROUP);
      if (this.jsonEnabled()) this.logJson(summary);
      return undefined;
    }
    const { runConsume } = await import('../cli/consume-run.js');
    const lines = this.jsonEnabled() ? this.jsonLines() : undefined;
    try {
      this.setExitCode(
        await runConsume(argv as string[], flags, { signal: this.signal, lines, diag: (t) => this.diag(t) }),
      );
    } finally {
      lines?.detach();
    }
    return undefined;
  }

  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json);
  }
}
