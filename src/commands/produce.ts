import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { renderExitCodeTable } from '../cli/exit-codes.js';
import { connectionFlags } from '../cli/flags.js';
import { producerTuningFlags } from '../cli/produce-tuning.js';

export default class Produce extends BaseCommand {
  static override summary = 'Produce records from stdin or files, one per line (or JSONL envelopes).';

  static override description = `Each input line is one record (bytes as they are, split on \\n; empty lines are skipped). With -K the line is split at the first delimiter into key and value (a line without it has no key); -k gives every record the same key; -H name=value adds a header to every record (repeatable; order and duplicates are kept; headers need a crater broker, otherwise nothing is sent).

--input jsonl reads exactly the envelope \`crater consume --json\` prints: key, value and headers with per-field encodings (utf8, base64, hex), so a consume | produce round trip is byte-exact. topic, partition, offset and timestamp in the envelope are ignored: the broker picks the partition from the key and stamps the time.

--idempotent sends through an ephemeral idempotent producer on a connection of its own: every request carries a producer id and sequence, so a request resent after a lost reply is deduplicated by the broker instead of appended twice (a lost connection fails the request in flight, since an ephemeral session cannot resume). --producer-name NAME implies --idempotent and makes the producer durable: the same name resumes its session after a lost connection. An idempotent PRODUCE_BATCH holds at most 1,024 records, so with an idempotent producer --batch is capped at 1,024 (N records go out in ceil(N / 1,024) requests or more, as the frame limit needs). --transactional makes the whole input one transaction of that producer: it commits at the end of input and aborts on SIGINT (exit 130), SIGTERM or the first failure (exit 1), saying which on stderr; read_committed readers then see every record or none. Delivery reports (--json) describe appends, which an aborted transaction never makes visible to read_committed readers.

Records go through the producer's accumulator: they are batched per topic into PRODUCE_BATCH frames, each sent when its frame reaches --batch-bytes (default --max-frame-size, the broker's limit, 1 MiB by default) or --batch N records, or when --linger (5ms) passes; --max-in-flight requests (5) are outstanding at once; reading pauses while --buffer-bytes (32MiB) of records wait, or (--max-in-flight + 2) × --batch records (reading further ahead would not make the requests go faster); each record has one --delivery-timeout (120s, at least --linger + --timeout) covering linger, requests and retries. --stats prints the producer's metrics (Kafka's names) on stderr at the end.

-D DELIM splits the input at DELIM instead of newlines; --file-per-record sends each FILE (or stdin) whole as one record. -Z sends empty records instead of skipping them: the protocol has no null value, so an empty value is what a tombstone is (a compacted topic drops the key), on crater and MoonMQ alike. -p N sends every record to partition N in the backend's numbering: on MoonMQ's protocol 1-based, through the BATCH_FLAG_PARTITION extension (a crater broker only, not with --idempotent; against any other broker it is refused and nothing is sent); on kafka:// 0-based.

Output: nothing on stdout, a summary on stderr (a progress line with count and rate on a terminal, nothing extra in a pipe). If the reader of the delivery reports goes away (\`| head -1\`), the reports stop, one line on stderr says so, and the rest of the input is still produced: nothing read is dropped silently. Ctrl-C stops reading input, sends what was read, prints what was produced and exits 130. A missing topic stops at the first record with a hint to create it. --json prints one delivery report per record on stdout as JSON lines, in input order: {index, source, line, topic, outcome:"acked", partition, offset}, or {index, source, line, topic, outcome:"failed"|"uncertain", error:{code, message}}. failed means not written; uncertain means it may have been written (the connection dropped or the deadline passed with its request out). A failed record (malformed line, too large, broker error) is reported with its input line and the others still go out; the command then exits 1. A lost connection, a timeout or an uncertain record ends the run (exit 1) once what was sent is reported.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'INTERRUPTED'])}`;

  static override examples = [
    'echo hello | <%= config.bin %> <%= command.id %> orders',
    '<%= config.bin %> <%= command.id %> orders keys.txt -K : -H source=cli',
    '<%= config.bin %> consume orders -e --json | <%= config.bin %> <%= command.id %> orders-copy --input jsonl --batch 1000',
    '<%= config.bin %> <%= command.id %> orders events.txt --idempotent --batch 500',
  ];

  static override strict = false;

  // oclif would print "TOPIC... [FILE...]" for a command that takes extra arguments; it takes one TOPIC.
  static override usage = '<%= command.id %> TOPIC [FILE...] [FLAGS]';

  /** Reads stdin while writing reports: a closed stdout must not end it (base-command.ts). */
  static override consumesInput = true;

  static override args = {
    topic: Args.string({ description: 'Topic to produce to.', required: true, ignoreStdin: true }),
    file: Args.string({ description: 'Input files ("-" for stdin); stdin when none.', ignoreStdin: true }),
  };

  static override flags = {
    ...connectionFlags(),
    'key-delimiter': Flags.string({
      char: 'K',
      description: 'Split each line into key and value at the first DELIM.',
      helpValue: 'DELIM',
      exclusive: ['key'],
    }),
    key: Flags.string({ char: 'k', description: 'Key for every record.' }),
    header: Flags.string({
      char: 'H',
      description: 'Header name=value for every record (repeatable).',
      multiple: true,
    }),
    input: Flags.string({ description: 'Input format.', options: ['lines', 'jsonl'], default: 'lines' }),
    batch: Flags.integer({
      description:
        'At most N records per PRODUCE_BATCH (1..10000; 1,024 when idempotent; alias --batch-size, as bench calls it).',
      min: 1,
      max: 10_000,
      aliases: ['batch-size'],
    }),
    ...producerTuningFlags(),
    'max-frame-size': Flags.integer({
      description: "Largest frame to send (the broker's limit).",
      default: 1_048_576,
      min: 64,
    }),
    codec: Flags.string({
      description: 'Compression of stored values (lz4 and zstd: Kafka only).',
      options: ['none', 'gzip', 'snappy', 'lz4', 'zstd'],
      default: 'none',
    }),
    idempotent: Flags.boolean({
      description: 'Produce through an idempotent producer (retries deduplicated; at most 1,024 records per batch).',
    }),
    'producer-name': Flags.string({
      description: 'Produce through the durable idempotent producer NAME (implies --idempotent).',
      helpValue: 'NAME',
    }),
    transactional: Flags.boolean({
      description: 'Produce the whole input in one transaction of --producer-name.',
      dependsOn: ['producer-name'],
    }),
    partition: Flags.integer({
      char: 'p',
      description:
        'Send every record to this partition (MoonMQ protocol: 1-based, crater brokers only; kafka://: 0-based).',
      min: 0,
    }),
    delimiter: Flags.string({
      char: 'D',
      description: 'Record delimiter instead of a newline (escapes \\n \\t \\r \\0 \\\\ \\xHH).',
      helpValue: 'DELIM',
    }),
    'null-empty': Flags.boolean({
      char: 'Z',
      description: 'Send empty records (empty value: a tombstone on a compacted topic) instead of skipping them.',
    }),
    'file-per-record': Flags.boolean({ description: 'Each FILE (or stdin) is one record, byte for byte.' }),
  };

  async run(): Promise<undefined> {
    const { args, argv, flags } = await this.parse(Produce);
    const { runProduce } = await import('../cli/produce-run.js');
    const io = {
      signal: this.signal,
      reports: this.jsonEnabled() ? this.jsonLines() : undefined,
      json: this.jsonEnabled(),
      diag: (t: string) => this.diag(t),
      chalk: this.stderrChalk,
    };
    try {
      this.setExitCode(await runProduce(args.topic, (argv as string[]).slice(1), flags, io));
    } finally {
      io.reports?.detach();
    }
    return undefined;
  }

  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json);
  }
}
