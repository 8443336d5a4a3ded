/**
 * The loop behind `crater share consume`: an explicit-mode share consumer whose every record (or, with --batch,
 * every poll) is decided by --ack or by the exit status of --exec CMD, which reads the records as JSON lines on its
 * stdin: exit 0 accepts, exit SHARE_EXEC_REJECT_CODE rejects (archives; dead-letters when the group enables it), any
 * other status releases the records for redelivery.
 */
import { spawn } from 'node:child_process';
import type { Client, ShareAckName, ShareConsumerRecord } from '../client/index.js';
import { toEnvelope } from './render/envelope.js';
import { stringifyJson } from './render/json.js';

export const SHARE_EXEC_REJECT_CODE = 65;

export interface ShareConsumeOptions {
  topic: string;
  group: string;
  maxRecords?: number | undefined;
  idleTimeoutMs?: number | undefined;
  ack: ShareAckName;
  exec?: string | undefined;
  batch: boolean;
}

export interface ShareConsumeOutcome {
  count: number;
  accepted: number;
  released: number;
  rejected: number;
  cause: 'count' | 'idle' | 'interrupted';
}

/** One record as the JSON line printed (--json) or piped to --exec: the record envelope plus its delivery count. */
export function shareLine(r: ShareConsumerRecord): string {
  return `${stringifyJson({ ...toEnvelope({ ...r, headers: undefined }), deliveryCount: r.deliveryCount })}\n`;
}

/** Runs `command` through the shell with `input` on stdin; its stdout and stderr are ours. */
export function runExec(command: string, input: string): Promise<ShareAckName> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, { shell: true, stdio: ['pipe', 'inherit', 'inherit'] });
    child.once('error', reject);
    child.once('close', (code) =>
      resolve(code === 0 ? 'accept' : code === SHARE_EXEC_REJECT_CODE ? 'reject' : 'release'),
    );
    child.stdin.on('error', () => undefined);
    child.stdin.end(input);
  });
}

export async function shareConsume(
  client: Client,
  options: ShareConsumeOptions,
  emit: (r: ShareConsumerRecord) => Promise<boolean>,
  signal: AbortSignal,
): Promise<ShareConsumeOutcome> {
  const consumer = await client.shareConsumer({
    group: options.group,
    topics: [options.topic],
    ackMode: 'explicit',
    maxWaitMs: 200,
  });
  const outcome: ShareConsumeOutcome = { count: 0, accepted: 0, released: 0, rejected: 0, cause: 'interrupted' };
  let lastRecordAt = Date.now();
  try {
    while (!signal.aborted) {
      if (options.maxRecords !== undefined && outcome.count >= options.maxRecords) {
        outcome.cause = 'count';
        break;
      }
      const records = await consumer.poll();
      if (records.length === 0) {
        if (options.idleTimeoutMs !== undefined && Date.now() - lastRecordAt >= options.idleTimeoutMs) {
          outcome.cause = 'idle';
          break;
        }
        continue;
      }
      lastRecordAt = Date.now();
      const room = options.maxRecords === undefined ? records.length : options.maxRecords - outcome.count;
      const taken = records.slice(0, room);
      for (const r of records.slice(room)) consumer.acknowledge(r, 'release');
      await decide(consumer, taken, options, emit, outcome, signal);
    }
    await consumer.commit();
  } finally {
    await consumer.close();
  }
  return outcome;
}

async function decide(
  consumer: Awaited<ReturnType<Client['shareConsumer']>>,
  records: ShareConsumerRecord[],
  options: ShareConsumeOptions,
  emit: (r: ShareConsumerRecord) => Promise<boolean>,
  outcome: ShareConsumeOutcome,
  signal: AbortSignal,
): Promise<void> {
  const note = (r: ShareConsumerRecord, d: ShareAckName): void => {
    consumer.acknowledge(
      r,
      d,
      d === 'reject' ? { reason: options.exec ? `exec exited ${SHARE_EXEC_REJECT_CODE}` : 'rejected by --ack' } : {},
    );
    outcome.count++;
    if (d === 'accept') outcome.accepted++;
    else if (d === 'release') outcome.released++;
    else outcome.rejected++;
  };
  if (options.exec && options.batch) {
    const d = await runExec(options.exec, records.map(shareLine).join(''));
    for (const r of records) note(r, d);
    return;
  }
  for (const r of records) {
    if (signal.aborted) {
      consumer.acknowledge(r, 'release');
      continue;
    }
    if (options.exec) note(r, await runExec(options.exec, shareLine(r)));
    else {
      await emit(r);
      note(r, options.ack);
    }
  }
}
