/**
 * Starts one 3-node KRaft cluster (scripts/kafka-cluster.sh) for the Kafka suite and stops it afterwards; the tests
 * read its bootstrap list with `inject('kafkaBootstrap')` (null: skip). CRATER_KAFKA_BOOTSTRAP=kafka://… set in the
 * environment uses that cluster instead and leaves it running (its 'kill' and 'restart' helpers then need
 * CRATER_KAFKA_DIR pointing at it). Without Java (or without Maven while the jars are not cached) the suite is
 * skipped with one warning line, unless CRATER_REQUIRE_KAFKA=1 (CI), which makes that a failure. The cluster is
 * stopped by the teardown, after failed tests too, and by an exit hook if vitest ends without its teardown.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';
import { connectKafka } from '../../src/client/kafka/kafka-backend.js';
import { until } from '../helpers/eventually.js';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBootstrap: string | null;
    kafkaClusterDir: string | null;
  }
}

const script = path.resolve(import.meta.dirname, '../../scripts/kafka-cluster.sh');

/** Why the cluster cannot start here (no Java; no Maven while the jars are not cached yet), or undefined. */
function missingTool(): string | undefined {
  if (spawnSync('java', ['-version'], { stdio: 'ignore' }).status !== 0)
    return 'no java on PATH (Kafka 4.x needs Java 17+)';
  const jarsCached = spawnSync('bash', [script, 'jars', '--cached'], { stdio: 'ignore' }).status === 0;
  if (!jarsCached && spawnSync('mvn', ['-v'], { stdio: 'ignore' }).status !== 0)
    return 'no mvn on PATH to fetch the Kafka jars from Maven Central (needed once)';
  return undefined;
}

function skip(project: TestProject, why: string): undefined {
  if (process.env.CRATER_REQUIRE_KAFKA === '1')
    throw new Error(`CRATER_REQUIRE_KAFKA=1 but the Kafka suite cannot run: ${why}`);
  console.warn(`kafka suite skipped: ${why}; install Java 17+ and Maven to run it (CI requires it)`);
  project.provide('kafkaBootstrap', null);
  project.provide('kafkaClusterDir', null);
  return undefined;
}

/**
 * Waits until a group coordinator answers: a new cluster creates __consumer_offsets (50 partitions) at the first
 * group request, which on loaded cores took longer than a test's 3 s --idle-timeout (its consumer stopped before it
 * had joined).
 */
async function waitForCoordinator(bootstrap: string): Promise<void> {
  const kafka = await connectKafka({ bootstrap, timeoutMs: 30_000 });
  let last: unknown;
  try {
    await until(
      async () => {
        try {
          await kafka.describeGroup('crater-suite-warm-up');
          return true;
        } catch (error) {
          last = error;
          return undefined;
        }
      },
      {
        timeoutMs: 120_000,
        intervalMs: 0,
        what: () => `a group coordinator (last error: ${last instanceof Error ? last.message : String(last)})`,
      },
    );
  } finally {
    await kafka.close();
  }
}

export default async function setup(project: TestProject): Promise<(() => void) | undefined> {
  const given = process.env.CRATER_KAFKA_BOOTSTRAP;
  if (given) {
    project.provide('kafkaBootstrap', given);
    project.provide('kafkaClusterDir', process.env.CRATER_KAFKA_DIR ?? null);
    return undefined;
  }
  const missing = missingTool();
  if (missing) return skip(project, missing);
  // CRATER_KAFKA_DIR names the state dir (.ci/run sets it, so its trap stops the cluster even if vitest is killed).
  const dir = process.env.CRATER_KAFKA_DIR ?? mkdtempSync(path.join(tmpdir(), 'crater-kafka-'));
  const env = { ...process.env, CRATER_KAFKA_DIR: dir };
  let stopped = false;
  const stop = (): void => {
    if (stopped) return;
    stopped = true;
    process.off('exit', stop);
    execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  };
  // The nodes run in sessions of their own: a vitest that exits without its teardown (a ^C) still stops them.
  process.on('exit', stop);
  const started = performance.now();
  let out: string;
  try {
    out = execFileSync('bash', [script, 'start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  } catch (error) {
    stop();
    throw error;
  }
  const bootstrap = /CRATER_KAFKA_BOOTSTRAP=(\S+)/.exec(out)?.[1];
  if (!bootstrap) {
    stop();
    throw new Error(`kafka-cluster.sh start printed no bootstrap list: ${out}`);
  }
  try {
    await waitForCoordinator(bootstrap);
  } catch (error) {
    stop();
    throw error;
  }
  console.warn(`kafka suite: 3-node cluster ${bootstrap} started in ${Math.round(performance.now() - started)} ms`);
  project.provide('kafkaBootstrap', bootstrap);
  project.provide('kafkaClusterDir', dir);
  return stop;
}
