/**
 * Flags both bench commands take. It sits next to the bench renderers because the bench owns it; the parsers reuse
 * the shared ones from cli/flags.ts. `--broker` reads CRATER_BROKER like every network command (one rule for
 * where crater connects); with neither, the bench starts its own embedded broker, and the report names its target.
 */
import { Flags } from '@oclif/core';
import { UsageError } from '../../errors.js';
import { formatHostPort, parseHostPort, passwordFlag, profileFlag, usernameFlag } from '../flags.js';

export function benchTargetFlags() {
  return {
    profile: profileFlag(),
    broker: Flags.custom<string>({
      char: 'b',
      description:
        'Run against this broker (crater or MoonMQ, or kafka://host:port[,...] for Apache Kafka) instead of an embedded crater broker in a child process.',
      env: 'CRATER_BROKER',
      helpValue: 'host:port',
      parse: async (input) => formatHostPort(parseHostPort(input)),
    })(),
    username: usernameFlag(),
    password: passwordFlag(),
    acks: Flags.string({
      description: "The embedded broker's acks mode [default: leader].",
      options: ['none', 'leader'],
    }),
    partitions: Flags.integer({ description: 'Partitions of the bench topic.', default: 4, min: 1, max: 1024 }),
    'value-size': Flags.integer({
      description: 'Value bytes per record (keys are 8 bytes).',
      default: 100,
      min: 1,
      max: 1_000_000,
    }),
    codec: Flags.string({
      description: 'Codec the broker compresses values with.',
      options: ['none', 'gzip', 'snappy'],
      default: 'none',
    }),
    idempotent: Flags.boolean({
      description: 'Produce through an idempotent producer (batch-vs-single; throughput refuses it as a usage error).',
    }),
    csv: Flags.boolean({ description: 'CSV on stdout (one row per mode or phase).', exclusive: ['json'] }),
  };
}

/** What benchTargetFlags() parses to, as far as the bench library functions take it. */
export interface BenchTargetFlagValues {
  broker?: string | undefined;
  username?: string | undefined;
  password?: string | undefined;
  acks?: string | undefined;
  partitions: number;
  'value-size': number;
}

/** The broker, credentials, acks mode and topic shape every bench function takes, from the shared flags. */
export function benchTarget(flags: BenchTargetFlagValues): {
  broker: string | undefined;
  username: string | undefined;
  password: string | undefined;
  acks: 'none' | 'leader' | undefined;
  partitions: number;
  valueSize: number;
} {
  return {
    broker: flags.broker,
    username: flags.username,
    password: flags.password,
    // oclif's `options` already refused anything else.
    acks: flags.acks as 'none' | 'leader' | undefined,
    partitions: flags.partitions,
    valueSize: flags['value-size'],
  };
}

/**
 * Runs a bench under a spinner on stderr (silent when stderr is no terminal): the bench's progress steps become the
 * spinner's text, and a failure marks it `${label} failed` before the error goes on.
 */
export async function underSpinner<T>(
  label: string,
  bench: (onProgress: (step: string) => void) => Promise<T>,
): Promise<T> {
  const { createSpinner } = await import('../terminal.js');
  const spinner = (await createSpinner(label)).start();
  try {
    const report = await bench((step) => (spinner.text = step));
    spinner.stop();
    return report;
  } catch (err) {
    spinner.fail(`${label} failed`);
    throw err;
  }
}

/** Refuses --idempotent in bench throughput rather than measuring something else under its name. */
export function refuseIdempotent(idempotent: boolean): void {
  if (idempotent) {
    throw new UsageError(
      '--idempotent is not available for bench throughput: it pipelines plain PRODUCE_BATCH requests, while an idempotent producer sends one at a time (bench batch-vs-single --idempotent measures it)',
    );
  }
}
