/**
 * Client config profiles (issue 16 item 8): CRATER_CLIENT_CONFIG names the file, --profile (or the file's
 * defaultProfile) picks one, and flags > environment > profile > default. The broker field is stored as text and
 * parsed by the --broker flag's own parser, so whatever that flag accepts (a kafka:// list once a Kafka backend
 * exists) can live in a profile.
 */
import fs from 'node:fs/promises';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type CliResult, crater as run, useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();
let tmp: string;
let file: string;
let closedAddress: string;

function crater(args: string[], env: NodeJS.ProcessEnv = {}): Promise<CliResult> {
  return run(args, '', { env: { CRATER_CLIENT_CONFIG: file, ...env } });
}

beforeAll(async () => {
  await server.createTopic('from-profile');
  const probe = net.createServer();
  await new Promise<void>((resolve) => probe.listen(0, '127.0.0.1', resolve));
  closedAddress = `127.0.0.1:${(probe.address() as net.AddressInfo).port}`;
  await new Promise<void>((resolve) => probe.close(() => resolve()));
  tmp = await fs.mkdtemp(path.join(os.tmpdir(), 'crater-profiles-'));
  file = path.join(tmp, 'config.json');
  const profiles = {
    defaultProfile: 'good',
    profiles: {
      good: { broker: server.address, timeout: '5s' },
      bad: { broker: closedAddress },
      kafka: { broker: 'kafka://b1:9092,b2:9092' },
    },
  };
  await fs.writeFile(file, JSON.stringify(profiles));
});

afterAll(async () => {
  if (tmp) await fs.rm(tmp, { recursive: true, force: true });
});

const topics = (r: CliResult): string[] => JSON.parse(r.stdout).topics;

describe('client profiles', () => {
  it('the default profile supplies the broker when neither flag nor environment does', async () => {
    const r = await crater(['topic', 'list', '--json']);
    expect(r.code, r.stderr).toBe(0);
    expect(topics(r)).toContain('from-profile');
  });

  it('--profile NAME picks another profile', async () => {
    const r = await crater(['topic', 'list', '--profile', 'bad', '--json']);
    expect(r.code).toBe(1);
    expect(r.stderr).toContain(closedAddress);
  });

  it('the environment beats the profile, and a flag beats both', async () => {
    expect(
      topics(await crater(['topic', 'list', '--profile', 'bad', '--json'], { CRATER_BROKER: server.address })),
    ).toContain('from-profile');
    const flagWins = await crater(['topic', 'list', '--profile', 'bad', '--broker', server.address, '--json'], {
      CRATER_BROKER: closedAddress,
    });
    expect(topics(flagWins)).toContain('from-profile');
  });

  it('an unknown profile is a usage error that lists the profiles', async () => {
    const r = await crater(['topic', 'list', '--profile', 'nope', '--json']);
    expect(r.code).toBe(2);
    expect(JSON.parse(r.stdout).error.message).toBe(`no profile "nope" in ${file} (profiles: good, bad, kafka)`);
  });

  it('a stored kafka:// address reaches the same parser as --broker', async () => {
    const fromProfile = await crater(['topic', 'list', '--profile', 'kafka']);
    const fromFlag = await run(['topic', 'list', '--broker', 'kafka://b1:9092,b2:9092'], '', {});
    expect(fromProfile.code).toBe(fromFlag.code);
    expect(fromProfile.stderr.replace(/CRATER_BROKER|--broker/g, '')).toBe(
      fromFlag.stderr.replace(/CRATER_BROKER|--broker/g, ''),
    );
  });
});
