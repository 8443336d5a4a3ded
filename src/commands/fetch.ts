import { Args, Flags } from '@oclif/core';
import { BaseCommand } from '../cli/base-command.js';
import { renderExitCodeTable } from '../cli/exit-codes.js';
import { connectionFlags } from '../cli/flags.js';

export default class Fetch extends BaseCommand {
  static override summary =
    'Send one FETCH as a group and show the reply (this COMMITS: the group moves past what it shows).';

  static override description = `One FETCH as --group. This commits: the broker moves the group past every record it sends, as for any FETCH, so the next fetch or consume as that group starts after them. To look without moving a group, use \`crater consume TOPIC --from beginning -e\` (a throwaway group) or a --group of its own. By default FETCH_FLAG_BATCHED asks for one RECORD_BATCH (with headers on a crater broker); --legacy clears it and the broker answers one RECORD frame per record. The reply shape ("batch" or "legacy") and the number of reply frames (the closing OK included, so N records in legacy shape are N+1 frames) go to stderr, the records to stdout as a table; --raw prints each reply frame in hex for bug reports.

--json prints {topic, group, committed: true, shape, frames, records:[envelope...], rawFrames?:[{op, name, correl, payload}]}, records in the envelope of \`crater consume --json\`, frame bytes in hex.

Exit codes:
${renderExitCodeTable('plain', ['OK', 'FAILURE', 'USAGE'])}`;

  static override examples = [
    '<%= config.bin %> <%= command.id %> orders --group debug --max-records 5',
    '<%= config.bin %> <%= command.id %> orders --group debug --legacy --raw',
  ];

  static override args = {
    topic: Args.string({ description: 'Topic to fetch from.', required: true, ignoreStdin: true }),
  };

  static override flags = {
    ...connectionFlags(),
    group: Flags.string({ char: 'g', description: 'Consumer group to fetch as.', required: true }),
    'max-records': Flags.integer({
      char: 'n',
      description: 'FETCH max_records (shared across partitions).',
      default: 100,
      min: 1,
    }),
    legacy: Flags.boolean({ description: 'Clear FETCH_FLAG_BATCHED: one RECORD frame per record.' }),
    raw: Flags.boolean({ description: 'Print the reply frames in hex.' }),
    isolation: Flags.string({
      description: 'Transactional isolation.',
      options: ['read_uncommitted', 'read_committed'],
    }),
  };

  async run(): Promise<unknown> {
    const { args, flags } = await this.parse(Fetch);
    const { moonmqOnly, openClient } = await import('../cli/connect.js');
    const { toEnvelope } = await import('../cli/render/envelope.js');
    const { rawFrameRows, recordColumns } = await import('../cli/render/records.js');
    const backend = await openClient(flags);
    try {
      const client = moonmqOnly(
        backend,
        flags.legacy
          ? "FETCH's legacy one-RECORD-per-record reply shape"
          : "fetch shows MoonMQ's FETCH reply frames; use crater consume",
      );
      const result = await client.fetch(args.topic, flags.group, {
        maxRecords: flags['max-records'],
        batched: !flags.legacy,
        headers: !flags.legacy && client.isCrater,
        isolation: flags.isolation as 'read_committed' | undefined,
        raw: flags.raw,
        timeoutMs: flags.timeout,
      });
      const rawFrames = result.rawFrames && rawFrameRows(result.rawFrames);
      if (this.jsonEnabled()) {
        return {
          topic: args.topic,
          group: flags.group,
          committed: true,
          shape: result.shape,
          frames: result.frames,
          records: result.records.map((r) => toEnvelope(r)),
          ...(rawFrames && { rawFrames }),
        };
      }
      this.diag(
        `reply shape: ${result.shape}, ${result.frames} frames, ${result.records.length} records (group ${flags.group} committed past them)`,
      );
      if (result.records.length > 0) this.out(this.table(recordColumns(), result.records));
      for (const f of rawFrames ?? [])
        this.out(`${f.name} (0x${f.op.toString(16).padStart(2, '0')}) correl ${f.correl} payload ${f.payload}`);
      return undefined;
    } finally {
      await backend.close();
    }
  }
}
