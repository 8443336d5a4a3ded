/**
 * How `crater broker start` turns its inputs into BrokerOptions. Precedence, highest first: command-line flags,
 * CRATER_* environment variables (oclif folds these into the flag values), the `--config` JSON file, built-in
 * defaults. The file may be a MoonMQ appsettings.json: its `Server` and `Auth` sections are read.
 */
import fs from 'node:fs/promises';
import { UsageError } from '../errors.js';
import type { AcksMode, AuthOptions, BrokerOptions, InitialTopic } from './config.js';
import type { ProducerStateOptions } from './producer-state/runtime.js';

export interface LaunchInputs {
  dataDir?: string | undefined;
  host?: string | undefined;
  port?: number | undefined;
  acks?: string | undefined;
  username?: string | undefined;
  passwordHash?: string | undefined;
  topics?: readonly string[] | undefined;
  maxFrameSize?: number | undefined;
  segmentBytes?: number | undefined;
  retention?: string | undefined;
  maxConnections?: number | undefined;
  maxConnectionsPerIp?: number | undefined;
  maxPendingSendBytesTotal?: number | undefined;
}

/** The parts of a MoonMQ-style appsettings.json crater understands. */
export interface AppSettings {
  Server?: {
    Host?: string;
    Port?: number;
    DataDir?: string;
    MaxFrameSize?: number;
    Acks?: string | number;
    MaxSegmentSize?: number;
    RetentionSeconds?: number;
    Retention?: string | number;
    Topics?: Array<string | { Name: string; Partitions?: number }>;
    MaxConnections?: number;
    MaxConnectionsPerIp?: number;
    MaxPendingSendBytesTotal?: number;
  };
  Auth?: { Username?: string; PasswordHash?: string };
}

export async function readAppSettings(file: string): Promise<AppSettings> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (err) {
    throw new UsageError(`cannot read config file ${file}: ${(err as Error).message}`);
  }
  try {
    const parsed = JSON.parse(text) as unknown;
    if (typeof parsed !== 'object' || parsed === null || Array.isArray(parsed)) throw new Error('not a JSON object');
    return parsed;
  } catch (err) {
    throw new UsageError(`config file ${file} is not valid JSON: ${(err as Error).message}`);
  }
}

const DURATION = /^(\d+(?:\.\d+)?)\s*(ms|s|m|h|d)?$/;
const UNIT_MS = { ms: 1, s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 } as const;

/** A retention: "7d", "12h", "30m", "3600s", "500ms"; a bare number is seconds (as the sidecar stores it). */
export function parseRetentionMs(input: string): number {
  const match = DURATION.exec(input.trim());
  if (!match) throw new UsageError(`invalid retention "${input}": expected a number with ms, s, m, h or d`);
  const unit = (match[2] ?? 's') as keyof typeof UNIT_MS;
  const ms = Math.round(Number(match[1]) * UNIT_MS[unit]);
  if (!Number.isSafeInteger(ms) || ms < 1000) throw new UsageError(`invalid retention "${input}": must be at least 1s`);
  return ms;
}

/** `name` or `name:partitions` (default 1 partition). */
export function parseTopicSpec(spec: string): InitialTopic {
  const colon = spec.lastIndexOf(':');
  const name = colon < 0 ? spec : spec.slice(0, colon);
  const partitions = colon < 0 ? 1 : Number(spec.slice(colon + 1));
  if (name === '' || !Number.isInteger(partitions) || partitions < 1 || partitions > 1024) {
    throw new UsageError(`invalid topic "${spec}": expected name or name:partitions with 1..1024 partitions`);
  }
  return { name, partitions };
}

function parseAcks(value: string | number): AcksMode {
  const v = String(value).toLowerCase();
  if (v === 'none' || v === '0') return 'none';
  if (v === 'leader' || v === '1') return 'leader';
  throw new UsageError(`invalid acks "${value}": crater supports none (0) and leader (1)`);
}

/** Merges inputs (flags with env already folded in) over the file; undefined fields keep the broker defaults. */
export type LaunchOptions = Omit<BrokerOptions, 'dataDir'> & {
  dataDir: string | undefined;
  producerState?: ProducerStateOptions;
};

export function launchOptions(inputs: LaunchInputs, file: AppSettings = {}): LaunchOptions {
  const server = file.Server ?? {};
  const username = inputs.username ?? file.Auth?.Username;
  const passwordHash = inputs.passwordHash ?? file.Auth?.PasswordHash;
  if ((username === undefined) !== (passwordHash === undefined)) {
    throw new UsageError('--username and --password-hash go together (or neither, for open mode)');
  }
  const auth: AuthOptions | undefined = username !== undefined ? { username, passwordHash: passwordHash! } : undefined;
  const fileRetention =
    server.Retention !== undefined
      ? parseRetentionMs(String(server.Retention))
      : server.RetentionSeconds !== undefined
        ? server.RetentionSeconds * 1000
        : undefined;
  const fileTopics = (server.Topics ?? []).map((t) =>
    typeof t === 'string' ? parseTopicSpec(t) : { name: t.Name, partitions: t.Partitions ?? 1 },
  );
  const acks = inputs.acks ?? server.Acks;
  return {
    dataDir: inputs.dataDir ?? server.DataDir,
    host: inputs.host ?? server.Host,
    port: inputs.port ?? server.Port,
    acks: acks === undefined ? undefined : parseAcks(acks),
    auth,
    maxFrameSize: inputs.maxFrameSize ?? server.MaxFrameSize,
    segmentBytes: inputs.segmentBytes ?? server.MaxSegmentSize,
    retentionMs: inputs.retention !== undefined ? parseRetentionMs(inputs.retention) : fileRetention,
    topics: inputs.topics && inputs.topics.length > 0 ? inputs.topics.map(parseTopicSpec) : fileTopics,
    maxConnections: inputs.maxConnections ?? server.MaxConnections,
    maxConnectionsPerIp: inputs.maxConnectionsPerIp ?? server.MaxConnectionsPerIp,
    maxPendingSendBytesTotal: inputs.maxPendingSendBytesTotal ?? server.MaxPendingSendBytesTotal,
  };
}
