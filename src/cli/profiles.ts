/**
 * Client profiles, like rpk profiles and kcat -F: named sets of connection settings in one JSON file.
 *
 *   $CRATER_CLIENT_CONFIG, else $XDG_CONFIG_HOME/crater/config.json, else ~/.config/crater/config.json
 *
 *   {
 *     "defaultProfile": "local",
 *     "profiles": {
 *       "local": { "broker": "127.0.0.1:9092" },
 *       "prod":  { "broker": "kafka://b1:9092,b2:9092", "username": "app", "password": "…", "timeout": "5s" }
 *     }
 *   }
 *
 * The file's variable is CRATER_CLIENT_CONFIG, not CRATER_CONFIG: CRATER_CONFIG is already `broker start`'s
 * settings file (MoonMQ's appsettings.json), and a client must never read a broker's file as its own.
 *
 * `broker` is kept as the text the user wrote and parsed by the --broker flag's own parser, so any address that
 * flag accepts (host:port, [v6]:port, moonmq://…, and the kafka://host:port,… form a Kafka backend adds) can be
 * stored. Precedence is flags > environment > profile > built-in default: the chosen profile only fills the
 * CRATER_* variables the user has not set, before the flags are parsed, so oclif's own flag > env > default order
 * does the rest.
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { UsageError } from '../errors.js';

export interface Profile {
  broker?: string;
  username?: string;
  password?: string;
  /** A duration as --timeout takes it: 500, "500ms", "5s", "2m". */
  timeout?: string | number;
}

export interface ClientConfig {
  defaultProfile?: string;
  profiles: Record<string, Profile>;
}

/** Which environment variable each profile field fills. */
export const PROFILE_ENV: Readonly<Record<keyof Profile, string>> = {
  broker: 'CRATER_BROKER',
  username: 'CRATER_USERNAME',
  password: 'CRATER_PASSWORD',
  timeout: 'CRATER_TIMEOUT',
};

export function clientConfigPath(env: NodeJS.ProcessEnv = process.env): { file: string; explicit: boolean } {
  if (env.CRATER_CLIENT_CONFIG) return { file: env.CRATER_CLIENT_CONFIG, explicit: true };
  const base = env.XDG_CONFIG_HOME || path.join(os.homedir(), '.config');
  return { file: path.join(base, 'crater', 'config.json'), explicit: false };
}

function checkProfile(name: string, value: unknown, file: string): Profile {
  if (typeof value !== 'object' || value === null || Array.isArray(value))
    throw new UsageError(`${file}: profile "${name}" must be an object`);
  for (const [key, v] of Object.entries(value)) {
    if (!(key in PROFILE_ENV))
      throw new UsageError(
        `${file}: profile "${name}" has an unknown field "${key}" (known: ${Object.keys(PROFILE_ENV).join(', ')})`,
      );
    if (typeof v !== 'string' && !(key === 'timeout' && typeof v === 'number'))
      throw new UsageError(`${file}: profile "${name}".${key} must be a string`);
  }
  return value;
}

/** Reads and checks the file; undefined when it does not exist and nobody named it. */
export function readClientConfig(
  env: NodeJS.ProcessEnv = process.env,
): { file: string; config: ClientConfig } | undefined {
  const { file, explicit } = clientConfigPath(env);
  let text: string;
  try {
    text = fs.readFileSync(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT' && !explicit) return undefined;
    throw new UsageError(`cannot read the client config ${file}: ${(error as NodeJS.ErrnoException).code ?? 'error'}`);
  }
  let raw: unknown;
  try {
    raw = JSON.parse(text);
  } catch {
    throw new UsageError(`${file} is not valid JSON`);
  }
  const shape = `${file}: expected {"profiles": {NAME: {broker, username, password, timeout}}}`;
  if (typeof raw !== 'object' || raw === null) throw new UsageError(shape);
  const doc = raw as { defaultProfile?: unknown; profiles?: unknown };
  if (typeof doc.profiles !== 'object' || doc.profiles === null) {
    throw new UsageError(shape);
  }
  if (doc.defaultProfile !== undefined && typeof doc.defaultProfile !== 'string')
    throw new UsageError(`${file}: defaultProfile must be a string`);
  const profiles = Object.fromEntries(
    Object.entries(doc.profiles).map(([name, p]) => [name, checkProfile(name, p, file)]),
  );
  return { file, config: { defaultProfile: doc.defaultProfile, profiles } };
}

/** `--profile NAME` or `--profile=NAME` in argv (before oclif parses it), else CRATER_PROFILE. */
export function profileNameFrom(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--') break;
    if (arg === '--profile') return argv[i + 1];
    if (arg.startsWith('--profile=')) return arg.slice('--profile='.length);
  }
  return env.CRATER_PROFILE || undefined;
}

/**
 * Fills the unset CRATER_* variables from the chosen profile (the named one, else the file's default profile).
 * Returns the profile's name, or undefined when none applies.
 */
export function applyProfile(argv: readonly string[], env: NodeJS.ProcessEnv = process.env): string | undefined {
  const named = profileNameFrom(argv, env);
  const loaded = readClientConfig(env);
  if (!loaded) {
    if (named !== undefined)
      throw new UsageError(
        `profile "${named}" asked for, but there is no client config at ${clientConfigPath(env).file}`,
      );
    return undefined;
  }
  const name = named ?? loaded.config.defaultProfile;
  if (name === undefined) return undefined;
  const profile = loaded.config.profiles[name];
  if (!profile) {
    const known = Object.keys(loaded.config.profiles);
    throw new UsageError(
      `no profile "${name}" in ${loaded.file}${known.length > 0 ? ` (profiles: ${known.join(', ')})` : ''}`,
    );
  }
  for (const [field, variable] of Object.entries(PROFILE_ENV) as Array<[keyof Profile, string]>) {
    const value = profile[field];
    if (value !== undefined && env[variable] === undefined) env[variable] = String(value);
  }
  return name;
}
