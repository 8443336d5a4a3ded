/**
 * Rendering for `crater state dump`: one table row per `__producer_state` record (a v3 memo lists its batch's
 * acks as `partition@offset`), the findings table and the closing summary. `--json` prints the report object
 * itself through json.ts's bigint rule.
 */
import type { ChalkInstance } from 'chalk';
import type { StateDumpSummary, StateEntry, StateFinding } from '../../storage/producer-state/types.js';
import { formatCount } from './format.js';
import type { Column } from './table.js';

function what(e: StateEntry): string {
  if (e.tombstone) return 'tombstone';
  if (e.kind === 'memo' && e.memo) return `memo v${e.memo.version}`;
  return e.kind;
}

function detail(e: StateEntry): string {
  if (e.problem && e.kind === 'undecodable') return e.problem;
  if (e.tombstone) return '';
  if (e.kind === 'allocator') return `next_pid ${e.nextPid}`;
  if (e.kind === 'identity') return '';
  const m = e.memo;
  if (!m) return e.problem ?? '';
  if (m.noAck) {
    const last = m.lastSeq === 0xffff_ffff ? '-1 (nothing yet)' : String(m.lastSeq);
    return `last_seq ${last}, no ack: the request after it did not land${e.problem ? ` (${e.problem})` : ''}`;
  }
  let text = `last_seq ${m.lastSeq} at ${m.lastPartition}@${m.lastOffset}`;
  if (m.acks)
    text += `; batch ${m.baseSeq}..${m.lastSeq}: ${m.acks.map((a) => `${a.partition}@${a.offset}`).join(' ')}`;
  if (e.problem) text += ` (${e.problem})`;
  return text;
}

export function stateEntryColumns(): Column<StateEntry>[] {
  return [
    { header: 'P', value: (e) => e.partition, align: 'right' },
    { header: 'OFFSET', value: (e) => e.offset, align: 'right' },
    { header: 'KIND', value: what },
    { header: 'PRODUCER', value: (e) => e.producerName },
    { header: 'PID', value: (e) => e.producerId, align: 'right' },
    { header: 'EPOCH', value: (e) => e.epoch, align: 'right' },
    { header: 'TOPIC', value: (e) => e.topic },
    { header: 'DETAIL', value: detail },
  ];
}

export function stateFindingColumns(): Column<StateFinding>[] {
  return [
    { header: 'FINDING', value: (f) => f.kind },
    { header: 'FILE', value: (f) => f.file },
    { header: 'OFFSET', value: (f) => f.offset, align: 'right' },
    { header: 'POSITION', value: (f) => f.position, align: 'right' },
    { header: 'DETAIL', value: (f) => f.message },
  ];
}

export function stateSummaryLine(s: StateDumpSummary, view: string, chalk: ChalkInstance): string {
  const versions = Object.entries(s.memoVersions)
    .map(([v, n]) => `${v} ${formatCount(n)}`)
    .join(', ');
  const findings =
    s.findings === 0
      ? chalk.green('no findings')
      : chalk.red(`${formatCount(s.findings)} finding${s.findings === 1 ? '' : 's'}`);
  const against = s.acksChecked > 0 ? `; ${formatCount(s.acksChecked)} ack(s) checked` : '';
  return (
    `${formatCount(s.records)} record(s), ${formatCount(s.shown)} shown (${view}); ` +
    `${formatCount(s.identities)} producer(s), ${formatCount(s.memos)} memo(s)${versions ? ` (${versions})` : ''}, ` +
    `${formatCount(s.tombstones)} tombstone(s); next_pid ${s.nextPid ?? 'unset'}${against}; ${findings}`
  );
}
