import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../cli/exit-codes.js';
import { connectionFlags, parseTimeoutMs } from '../cli/flags.js';
import { execFlags } from '../cli/exec-command.js';

export const DEFAULT_GROUP = 'crater-cli';

export default class Consume extends BaseCommand {
  static override summary = 'Consume records as a group, printing them with a kcat-style format or as JSON lines.';

  static override description = `Reads TOPIC as consumer group --group (default "${DEFAULT_GROUP}") from where the group left off; the broker commits what it delivers, so the next run continues after it.

--from beginning without --group reads with a fresh group "${DEFAULT_GROUP}-<random>" (which starts at offset 0) and deletes that group on exit. With --group it first rewinds that group on this topic: a side connection FETCHes once (dropping what it gets) and COMMITs each partition's earliest offset, then consumption starts there. A member of the group still connected elsewhere keeps its own position.

Without --follow it polls with FETCH (record headers included on a crater broker); --follow uses SUBSCRIBE and the broker pushes records as they land (push frames carry no headers: "headers" is null). Records that arrived past --max-records, or after stdout's reader went away, are handed back to the group by committing their offsets (pull mode only: with --follow the broker has already committed what it pushed).

-e stops once every partition reaches the end offset (LIST_OFFSETS latest) seen at start. --idle-timeout stops after that long without a record.

Output: -f/--format as in kcat: %t topic, %p partition, %o offset, %T timestamp (ms), %k key, %s value, %h headers (name=value,...), %K/%S key/value length, %% a percent, escapes \\n \\t \\r \\0 \\\\; keys and values are raw bytes (default "%s\\n"). --json prints one envelope per line: {topic, partition, offset, timestamp, key, value, headers:[{name, value}]}, each byte field {"utf8":...}, {"base64":...} or {"hex":...}, key null when absent; \`crater produce --input jsonl\` reads it back byte for byte. A summary goes to stderr. \`| head -1\` exits quietly (0) at the next record written after the reader has gone.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'INCOMPLETE', 'INTERRUPTED'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders -e',
    "<%= config.bin %> <%= command.id %> orders --from beginning -e -f '%p:%o %k=%s\\n'",
    '<%= config.bin %> <%= command.id %> orders --group billing --max-records 10 --idle-timeout 5s --json',
    '<%= config.bin %> <%= command.id %> orders --follow',
    "<%= config.bin %> <%= command.id %> scans --group sorter --batch-size 500 --batch-timeout 2s --exec './sort.sh' --retries 3 --backoff 200ms:5s",
  ];

  static override args = { topic: Args.string({ description: 'Topic to read.', required: true, ignoreStdin: true }) };

  static override flags = {
    ...connectionFlags(),
    group: Flags.string({ char: 'g', description: `Consumer group [default: ${DEFAULT_GROUP}; with --from beginning a fresh one].` }),
    from: Flags.string({ description: "Where to start: the group's committed offsets, or the beginning.", options: ['committed', 'beginning'], default: 'committed' }),
    'max-records': Flags.integer({ char: 'n', description: `Stop after N records; exit ${ExitCode.INCOMPLETE} if -e or the idle timeout stops it first.`, min: 1 }),
    'exit-at-end': Flags.boolean({ char: 'e', description: 'Stop when every partition reaches the end offsets seen at start.', exclusive: ['follow'] }),
    'idle-timeout': Flags.custom<number>({ description: 'Stop after this long without a record (ms, or 5s, 2m).', helpValue: 'ms', parse: async (s) => parseTimeoutMs(s) })(),
    isolation: Flags.string({ description: 'Transactional isolation.', options: ['read_uncommitted', 'read_committed'] }),
    follow: Flags.boolean({ description: 'Receive records by SUBSCRIBE push instead of polling with FETCH.' }),
    format: Flags.string({ char: 'f', description: 'kcat-style output template.', exclusive: ['json'] }),
    encoding: Flags.string({ description: '--json byte fields: utf8 when exact (auto), else base64; or always base64/hex.', options: ['auto', 'base64', 'hex'], default: 'auto' }),
    ...execFlags(),
  };

  async run(): Promise<undefined> {
    const { args, flags } = await this.parse(Consume);
    if (flags.exec !== undefined) {
      const { consumeExec } = await import('../cli/exec-command.js');
      const { openMoonmqClient } = await import('../cli/connect.js');
      const stdout = this.lines();
      const context = { signal: this.signal, json: this.jsonEnabled(), diag: (t: string) => this.diag(t), out: (t: string) => stdout.writeLine(t) };
      const summary = await consumeExec(args.topic, flags, () => openMoonmqClient(flags, 'consume --exec (the batch consumer)'), context, DEFAULT_GROUP);
      if (this.jsonEnabled()) this.logJson(summary);
      return undefined;
    }
    const { openClient, writeBytes } = await import('../cli/connect.js');
    const { consumePull, consumePush, rewindGroup } = await import('../cli/consuming.js');
    const { toEnvelope } = await import('../cli/render/envelope.js');
    const { compileFormat, DEFAULT_FORMAT } = await import('../cli/render/format-template.js');
    const { randomUUID } = await import('node:crypto');
    const format = compileFormat(flags.format ?? DEFAULT_FORMAT);
    const ephemeral = flags.from === 'beginning' && flags.group === undefined;
    const group = flags.group ?? (ephemeral ? `${DEFAULT_GROUP}-${randomUUID().slice(0, 8)}` : DEFAULT_GROUP);
    const signal = this.signal;
    if (flags.from === 'beginning' && !ephemeral) await rewindGroup(() => openClient(flags), args.topic, group, flags.timeout);
    const client = await openClient(flags);
    try {
      await client.describeTopic(args.topic);
      const writer = this.jsonEnabled() ? this.jsonLines() : undefined;
      const encoding = flags.encoding as 'auto';
      const emit = writer
        ? (r: Parameters<typeof toEnvelope>[0]) => writer.write(toEnvelope(r, encoding))
        : (r: Parameters<typeof toEnvelope>[0]) => writeBytes(process.stdout, format(r), signal);
      const options = {
        topic: args.topic,
        group,
        maxRecords: flags['max-records'],
        exitAtEnd: flags['exit-at-end'],
        idleTimeoutMs: flags['idle-timeout'],
        isolation: flags.isolation as 'read_committed' | undefined,
        timeoutMs: flags.timeout,
      };
      const outcome = await (flags.follow ? consumePush : consumePull)(client, options, emit, signal);
      writer?.detach();
      if (outcome.cause === 'output-closed') return undefined;
      const wanted = flags['max-records'];
      const why = { count: 'got them all', end: 'reached the end', idle: 'idle timeout', interrupted: 'interrupted', 'stream-ended': 'stream ended', 'output-closed': '' }[outcome.cause];
      this.diag(`consumed ${outcome.count}${wanted === undefined ? '' : ` of ${wanted}`} records from ${args.topic} as group ${group}: ${why}`);
      if (wanted !== undefined && outcome.count < wanted && (outcome.cause === 'end' || outcome.cause === 'idle')) {
        this.diag(`incomplete: ${outcome.count} of ${wanted} records before ${why}`);
        this.setExitCode(ExitCode.INCOMPLETE);
      }
    } finally {
      if (ephemeral) await client.deleteGroup(group).catch(() => {});
      await client.close();
    }
    return undefined;
  }

  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json);
  }
}
