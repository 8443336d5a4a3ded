/**
 * Client profiles (cli/profiles.ts): where the file is looked for, what a malformed file is refused with, and the
 * precedence rule (a profile fills only the CRATER_* variables the user left unset).
 */
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import { applyProfile, clientConfigPath, profileNameFrom, readClientConfig } from '../../../src/cli/profiles.js';
import { UsageError } from '../../../src/errors.js';

let dir = '';
beforeEach(() => {
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'crater-profiles-'));
});
afterEach(() => {
  fs.rmSync(dir, { recursive: true, force: true });
});

function configFile(content: unknown): NodeJS.ProcessEnv {
  const file = path.join(dir, 'config.json');
  fs.writeFileSync(file, typeof content === 'string' ? content : JSON.stringify(content));
  return { CRATER_CLIENT_CONFIG: file };
}

function refusal(fn: () => unknown): string {
  try {
    fn();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('expected a UsageError');
}

describe('clientConfigPath', () => {
  it('takes CRATER_CLIENT_CONFIG as explicit, else XDG_CONFIG_HOME, else ~/.config', () => {
    expect(clientConfigPath({ CRATER_CLIENT_CONFIG: '/x/c.json' })).toEqual({ file: '/x/c.json', explicit: true });
    expect(clientConfigPath({ XDG_CONFIG_HOME: '/xdg' })).toEqual({
      file: path.join('/xdg', 'crater', 'config.json'),
      explicit: false,
    });
    expect(clientConfigPath({ XDG_CONFIG_HOME: '' }).file).toBe(
      path.join(os.homedir(), '.config', 'crater', 'config.json'),
    );
  });
});

describe('readClientConfig', () => {
  it('is undefined when the default file does not exist, but an explicit missing file is an error', () => {
    expect(readClientConfig({ XDG_CONFIG_HOME: dir })).toBeUndefined();
    const missing = path.join(dir, 'nope.json');
    expect(refusal(() => readClientConfig({ CRATER_CLIENT_CONFIG: missing }))).toBe(
      `cannot read the client config ${missing}: ENOENT`,
    );
  });

  it('names a directory given as the file by its error code', () => {
    expect(refusal(() => readClientConfig({ CRATER_CLIENT_CONFIG: dir }))).toBe(
      `cannot read the client config ${dir}: EISDIR`,
    );
  });

  it('refuses text that is not JSON, and JSON without a profiles object', () => {
    const env = configFile('{"profiles": ');
    expect(refusal(() => readClientConfig(env))).toBe(`${env.CRATER_CLIENT_CONFIG} is not valid JSON`);
    for (const doc of [null, 5, {}, { profiles: null }, { profiles: 'x' }]) {
      expect(refusal(() => readClientConfig(configFile(doc)))).toMatch(/: expected \{"profiles": \{NAME:/);
    }
  });

  it('refuses a non-string defaultProfile, a non-object profile, unknown fields and non-string values', () => {
    const file = path.join(dir, 'config.json');
    expect(refusal(() => readClientConfig(configFile({ defaultProfile: 1, profiles: {} })))).toBe(
      `${file}: defaultProfile must be a string`,
    );
    expect(refusal(() => readClientConfig(configFile({ profiles: { a: [] } })))).toBe(
      `${file}: profile "a" must be an object`,
    );
    expect(refusal(() => readClientConfig(configFile({ profiles: { a: { host: 'x' } } })))).toBe(
      `${file}: profile "a" has an unknown field "host" (known: broker, username, password, timeout)`,
    );
    expect(refusal(() => readClientConfig(configFile({ profiles: { a: { broker: 9092 } } })))).toBe(
      `${file}: profile "a".broker must be a string`,
    );
  });

  it('accepts a numeric timeout and returns the profiles as written', () => {
    const env = configFile({ defaultProfile: 'p', profiles: { p: { broker: 'h:1', timeout: 500 } } });
    expect(readClientConfig(env)).toEqual({
      file: env.CRATER_CLIENT_CONFIG,
      config: { defaultProfile: 'p', profiles: { p: { broker: 'h:1', timeout: 500 } } },
    });
  });
});

describe('profileNameFrom', () => {
  it('reads --profile NAME and --profile=NAME before any --, else CRATER_PROFILE', () => {
    expect(profileNameFrom(['topic', 'list', '--profile', 'prod'], {})).toBe('prod');
    expect(profileNameFrom(['--profile=stage'], {})).toBe('stage');
    expect(profileNameFrom(['--', '--profile', 'prod'], { CRATER_PROFILE: 'env' })).toBe('env');
    expect(profileNameFrom([], { CRATER_PROFILE: '' })).toBeUndefined();
  });
});

describe('applyProfile', () => {
  it('fills only the variables the user left unset, and says which profile applied', () => {
    const env = configFile({
      defaultProfile: 'local',
      profiles: { local: { broker: 'a:1' }, prod: { broker: 'b:2', username: 'app', timeout: 5000 } },
    });
    env.CRATER_USERNAME = 'me';
    expect(applyProfile(['--profile', 'prod'], env)).toBe('prod');
    expect(env.CRATER_BROKER).toBe('b:2');
    expect(env.CRATER_USERNAME).toBe('me');
    expect(env.CRATER_TIMEOUT).toBe('5000');
    expect(env.CRATER_PASSWORD).toBeUndefined();

    const byDefault = configFile({ defaultProfile: 'local', profiles: { local: { broker: 'a:1' } } });
    expect(applyProfile([], byDefault)).toBe('local');
    expect(byDefault.CRATER_BROKER).toBe('a:1');
  });

  it('applies nothing without a name or a default, and without a file unless a profile was asked for', () => {
    const env = configFile({ profiles: { local: { broker: 'a:1' } } });
    expect(applyProfile([], env)).toBeUndefined();
    expect(env.CRATER_BROKER).toBeUndefined();
    expect(applyProfile([], { XDG_CONFIG_HOME: dir })).toBeUndefined();
    expect(refusal(() => applyProfile(['--profile', 'x'], { XDG_CONFIG_HOME: dir }))).toBe(
      `profile "x" asked for, but there is no client config at ${path.join(dir, 'crater', 'config.json')}`,
    );
  });

  it('names the known profiles when the chosen one is missing', () => {
    const env = configFile({ profiles: { a: {}, b: {} } });
    expect(refusal(() => applyProfile(['--profile', 'c'], env))).toBe(
      `no profile "c" in ${env.CRATER_CLIENT_CONFIG} (profiles: a, b)`,
    );
    expect(refusal(() => applyProfile(['--profile', 'c'], configFile({ profiles: {} })))).toBe(
      `no profile "c" in ${env.CRATER_CLIENT_CONFIG}`,
    );
  });
});
