import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { ExitCode, renderExitCodeTable } from '../cli/exit-codes.js';
import { connectionFlags } from '../cli/flags.js';
import { producerTuningFlags } from '../cli/produce-tuning.js';

export default class Produce extends BaseCommand {
  static override summary = 'Produce records from stdin or files, one per line (or JSONL envelopes).';

  static override description = `Each input line is one record (bytes as they are, split on \\n; empty lines are skipped). With -K the line is split at the first delimiter into key and value (a line without it has no key); -k gives every record the same key; -H name=value adds a header to every record (repeatable; order and duplicates are kept; headers need a crater broker, otherwise nothing is sent).

--input jsonl reads exactly the envelope \`crater consume --json\` prints: key, value and headers with per-field encodings (utf8, base64, hex), so a consume | produce round trip is byte-exact. topic, partition, offset and timestamp in the envelope are ignored: the broker picks the partition from the key and stamps the time.

--idempotent sends through an ephemeral idempotent producer on a connection of its own: every request carries a producer id and sequence, so a request resent after a lost reply is deduplicated by the broker instead of appended twice (a lost connection fails the request in flight, since an ephemeral session cannot resume). --producer-name NAME implies --idempotent and makes the producer durable: the same name resumes its session after a lost connection. An idempotent PRODUCE_BATCH holds at most 1,024 records, so with an idempotent producer --batch is capped at 1,024 (N records go out in ceil(N / 1,024) requests or more, as the frame limit needs). --transactional makes the whole input one transaction of that producer: it commits at the end of input and aborts on SIGINT (exit 130), SIGTERM or the first failure (exit 1), saying which on stderr; read_committed readers then see every record or none. Delivery reports (--json) describe appends, which an aborted transaction never makes visible to read_committed readers.

Records go through the producer's accumulator: they are batched per topic into PRODUCE_BATCH frames, each sent when its frame reaches --batch-bytes (default --max-frame-size, the broker's limit, 1 MiB by default) or --batch N records, or when --linger (5ms) passes; --max-in-flight requests (5) are outstanding at once; reading pauses while --buffer-bytes (32MiB) of records wait; each record has one --delivery-timeout (120s, at least --linger + --timeout) covering linger, requests and retries. --stats prints the producer's metrics (Kafka's names) on stderr at the end.

Output: nothing on stdout, a summary on stderr (a spinner on a terminal). --json prints one delivery report per record on stdout as JSON lines, in input order: {index, source, line, topic, outcome:"acked", partition, offset}, or {index, source, line, topic, outcome:"failed"|"uncertain", error:{code, message}}. failed means not written; uncertain means it may have been written (the connection dropped or the deadline passed with its request out). A failed record (malformed line, too large, broker error) is reported with its input line and the others still go out; the command then exits 1. A lost connection, a timeout or an uncertain record ends the run (exit 1) once what was sent is reported.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE', 'INTERRUPTED'])}`;

  static override examples = [
    'echo hello | <%= config.bin %> <%= command.id %> orders',
    "<%= config.bin %> <%= command.id %> orders keys.txt -K : -H source=cli",
    '<%= config.bin %> consume orders -e --json | <%= config.bin %> <%= command.id %> orders-copy --input jsonl --batch 1000',
    '<%= config.bin %> <%= command.id %> orders events.txt --idempotent --batch 500',
  ];

  static override strict = false;

  static override args = {
    topic: Args.string({ description: 'Topic to produce to.', required: true, ignoreStdin: true }),
    file: Args.string({ description: 'Input files ("-" for stdin); stdin when none.', ignoreStdin: true }),
  };

  static override flags = {
    ...connectionFlags(),
    'key-delimiter': Flags.string({ char: 'K', description: 'Split each line into key and value at the first DELIM.', helpValue: 'DELIM', exclusive: ['key'] }),
    key: Flags.string({ char: 'k', description: 'Key for every record.' }),
    header: Flags.string({ char: 'H', description: 'Header name=value for every record (repeatable).', multiple: true }),
    input: Flags.string({ description: 'Input format.', options: ['lines', 'jsonl'], default: 'lines' }),
    batch: Flags.integer({ description: 'At most N records per PRODUCE_BATCH (1..10000; 1,024 when idempotent).', min: 1, max: 10_000 }),
    ...producerTuningFlags(),
    'max-frame-size': Flags.integer({ description: "Largest frame to send (the broker's limit).", default: 1_048_576, min: 64 }),
    codec: Flags.string({ description: 'Compression of stored values (lz4 and zstd: Kafka only).', options: ['none', 'gzip', 'snappy', 'lz4', 'zstd'], default: 'none' }),
    partition: Flags.integer({ char: 'p', description: 'Kafka only: send every record to this partition (0-based); default: by key hash.', min: 0 }),
    idempotent: Flags.boolean({ description: 'Produce through an idempotent producer (retries deduplicated; at most 1,024 records per batch).' }),
    'producer-name': Flags.string({ description: 'Produce through the durable idempotent producer NAME (implies --idempotent).', helpValue: 'NAME' }),
    transactional: Flags.boolean({ description: 'Produce the whole input in one transaction of --producer-name.', dependsOn: ['producer-name'] }),
  };

  async run(): Promise<undefined> {
    const { args, argv, flags } = await this.parse(Produce);
    const jsonl = flags.input === 'jsonl';
    if (jsonl && (flags.key !== undefined || flags['key-delimiter'] !== undefined || flags.header !== undefined)) {
      this.fail(ExitCode.USAGE, '--input jsonl takes keys and headers from the envelope; drop -k, -K and -H');
    }
    if (flags['key-delimiter'] === '') this.fail(ExitCode.USAGE, '--key-delimiter must not be empty');
    const { parseHeaderFlag, readInputLines } = await import('../cli/line-input.js');
    const { ProduceRunner, recordsFromLines } = await import('../cli/producing.js');
    const { openClient } = await import('../cli/connect.js');
    const { createSpinner } = await import('../cli/terminal.js');
    const { produceSummary, deliveryFailureLine } = await import('../cli/render/records.js');
    const headers = flags.header?.map(parseHeaderFlag);
    const { renderProducerStats, tuningOptions } = await import('../cli/produce-tuning.js');
    const tuning = tuningOptions(flags, { idempotent: flags.idempotent || flags['producer-name'] !== undefined, maxFrameBytes: flags['max-frame-size'] });
    const client = await openClient(flags, { maxRequestFrameSize: flags['max-frame-size'] });
    if (flags.partition !== undefined && client.kind !== 'kafka') {
      await client.close();
      this.fail(ExitCode.USAGE, '--partition is for a kafka:// broker; MoonMQ picks the partition from the key');
    }
    const { IdempotentProduce, transactionEndLine } = await import('../cli/transactional-produce.js');
    const codec = flags.codec as 'none' | 'gzip' | 'snappy' | 'lz4' | 'zstd';
    const idempotent = flags.idempotent || flags['producer-name'] !== undefined;
    const partition = flags.partition;
    const producer = idempotent ? IdempotentProduce.open(client, {
      producerName: flags['producer-name'], codec, partition, timeoutMs: flags.timeout, maxFrameBytes: flags['max-frame-size'], tuning,
    }) : undefined;
    const sender = producer?.producer ?? client.producer({ ...tuning, codec, ...(partition !== undefined && { partition }), maxFrameBytes: flags['max-frame-size'] });
    const spinner = await createSpinner(`producing to ${args.topic}`);
    const started = performance.now();
    try {
      if (headers && headers.length > 0 && !client.supportsHeaders) {
        this.fail(ExitCode.FAILURE, `record headers need a crater broker; ${client.address} is ${client.serverName ?? 'a broker that did not identify itself'}, nothing was sent`);
      }
      const writer = this.jsonEnabled() ? this.jsonLines() : undefined;
      const runner = new ProduceRunner(
        sender,
        { topic: args.topic },
        async (d) => {
          if (d.error) {
            // The spinner owns the current stderr line; a failure line must not be drawn over.
            const spinning = spinner.isSpinning;
            spinner.stop();
            this.diag(deliveryFailureLine(d, this.stderrChalk));
            if (spinning) spinner.start();
          }
          if (writer) await writer.write(d);
          spinner.text = `producing to ${args.topic}: ${runner.stats.delivered} records`;
        },
      );
      spinner.start();
      const files = (argv as string[]).slice(1);
      const records = recordsFromLines(readInputLines(files), {
        input: jsonl ? 'jsonl' : 'lines',
        keyDelimiter: flags['key-delimiter'] === undefined ? undefined : Buffer.from(flags['key-delimiter'], 'utf8'),
        key: flags.key === undefined ? undefined : Buffer.from(flags.key, 'utf8'),
        headers,
      });
      if (producer && flags.transactional) {
        const end = await producer.runTransaction(records, runner, this.signal);
        spinner.stop();
        writer?.detach();
        this.diag(transactionEndLine(end, runner.stats.delivered));
        // An abort may leave a read of stdin pending; nothing will consume it.
        if (!end.committed) process.stdin.destroy();
        if (!end.committed) this.setExitCode(end.reason === 'SIGINT' ? ExitCode.INTERRUPTED : ExitCode.FAILURE);
        return undefined;
      }
      // SIGINT is left to the base command (exit 130 at once): every record acked so far has been reported.
      for await (const p of records) await runner.add(p);
      await runner.flush();
      spinner.stop();
      writer?.detach();
      this.diag(produceSummary(args.topic, runner.stats, performance.now() - started, this.stderrChalk));
      if (flags.stats && sender.metrics) this.diag(renderProducerStats(sender.metrics(), this.jsonEnabled()));
      if (runner.stats.failed.length > 0) this.setExitCode(ExitCode.FAILURE);
    } finally {
      spinner.stop();
      await sender.close();
      await client.close();
    }
    return undefined;
  }

  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json);
  }
}
