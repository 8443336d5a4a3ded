/**
 * Help and vocabulary (issue 16 items 6 and 10): every help page leads with its examples (before the flags), every
 * example is a `$` line, the root help shows the exit-code table and the shared conventions (1-based partitions,
 * units), produce's usage shows one TOPIC, durations take units (topic alter --set retention=7d is sent as
 * seconds), and offset columns name their unit. Help pages are rendered in-process from the built manifest.
 */
import { Config } from '@oclif/core';
import { describe, expect, it } from 'vitest';
import CraterHelp from '../../src/cli/help.js';
import { ExitCode } from '../../src/cli/exit-codes.js';
import { crater, repoRoot, useCliBroker } from '../helpers/cli.js';

const server = useCliBroker();

/** The help text without colour. */
function plain(text: string): string {
  return text.replace(new RegExp(`${String.fromCharCode(27)}\\[[0-9;]*m`, 'g'), '');
}

describe('help pages', () => {
  it('every crater command page shows EXAMPLES before FLAGS, each example a `$` line', async () => {
    const config = await Config.load(repoRoot);
    // formatCommand is protected in oclif's typings; it is what `crater CMD --help` prints.
    const help = new CraterHelp(config, { stripAnsi: true }) as unknown as {
      formatCommand(c: (typeof config.commands)[number]): string;
    };
    const ours = config.commands.filter((c) => c.pluginName === 'crater');
    expect(ours.length).toBeGreaterThan(15);
    for (const command of ours) {
      const text = plain(help.formatCommand(command));
      const examples = text.indexOf('\nEXAMPLES\n');
      const flags = text.indexOf('\nFLAGS\n');
      expect(examples, command.id).toBeGreaterThan(0);
      if (flags !== -1) expect(examples, command.id).toBeLessThan(flags);
      const block = text.slice(examples + '\nEXAMPLES\n'.length).split(/\n[A-Z][A-Z ]+\n/)[0]!;
      const starts = block.split('\n').filter((l) => /^ {2}\S/.test(l));
      expect(starts.length, command.id).toBeGreaterThan(0);
      for (const line of starts) expect(line, command.id).toMatch(/^ {2}\$ /);
    }
  });

  it('the root help has the exit-code table and says once that partitions are 1-based', async () => {
    const r = await crater(['--help']);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/EXIT CODES\n\s+0\s+OK\s+success/);
    for (const code of Object.values(ExitCode)) expect(r.stdout).toMatch(new RegExp(`\\n\\s+${code}\\s+[A-Z]+\\s`));
    expect(r.stdout.match(/numbered from 1/g)).toHaveLength(1);
  });

  it("produce's usage line takes one TOPIC", async () => {
    const r = await crater(['produce', '--help']);
    expect(r.stdout).toContain('$ crater produce TOPIC [FILE...]');
    expect(r.stdout).not.toContain('TOPIC...');
  });
});

describe('one vocabulary', () => {
  it('topic alter --set retention=2d sends whole seconds; a bad duration is a usage error', async () => {
    await server.createTopic('vocab');
    const env = { broker: server.address };
    const r = await crater(['topic', 'alter', 'vocab', '--set', 'retention=2d', '--json'], '', env);
    expect(r.code, r.stderr).toBe(0);
    expect(JSON.parse(r.stdout)).toEqual({ topic: 'vocab', set: { retention: '172800' } });
    const described = JSON.parse((await crater(['topic', 'describe', 'vocab', '--json'], '', env)).stdout);
    expect(described.config.retention).toBe('172800');
    const bad = await crater(['topic', 'alter', 'vocab', '--set', 'retention=1.5s', '--json'], '', env);
    expect(bad.code).toBe(2);
    const timeout = await crater(['topic', 'list', '--timeout', '1h', '--json'], '', env);
    expect(timeout.code).toBe(0);
  });
});
