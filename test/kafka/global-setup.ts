/**
 * Starts one 3-node KRaft cluster (scripts/kafka-cluster.sh) for the Kafka suite and stops it afterwards; the tests
 * read its bootstrap list with `inject('kafkaBootstrap')` (null: skip). CRATER_KAFKA_BOOTSTRAP=kafka://… set in the
 * environment uses that cluster instead and leaves it running (its 'kill' and 'restart' helpers then need
 * CRATER_KAFKA_DIR pointing at it). Without Java the suite is skipped with one warning line, unless
 * CRATER_REQUIRE_KAFKA=1 (CI), which makes that a failure.
 */
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync } from 'node:fs';
import { tmpdir } from 'node:os';
import path from 'node:path';
import type { TestProject } from 'vitest/node';

declare module 'vitest' {
  export interface ProvidedContext {
    kafkaBootstrap: string | null;
    kafkaClusterDir: string | null;
  }
}

const script = path.resolve(import.meta.dirname, '../../scripts/kafka-cluster.sh');

function hasJava(): boolean {
  return spawnSync('java', ['-version'], { stdio: 'ignore' }).status === 0;
}

export default function setup(project: TestProject): (() => void) | undefined {
  const given = process.env.CRATER_KAFKA_BOOTSTRAP;
  if (given) {
    project.provide('kafkaBootstrap', given);
    project.provide('kafkaClusterDir', process.env.CRATER_KAFKA_DIR ?? null);
    return undefined;
  }
  if (!hasJava()) {
    if (process.env.CRATER_REQUIRE_KAFKA === '1')
      throw new Error('CRATER_REQUIRE_KAFKA=1 but java is not on PATH: the Kafka suite cannot run');
    console.warn(
      'kafka suite skipped: no java on PATH (Kafka 4.x needs Java 17+; set CRATER_REQUIRE_KAFKA=1 to make this fail)',
    );
    project.provide('kafkaBootstrap', null);
    project.provide('kafkaClusterDir', null);
    return undefined;
  }
  // CRATER_KAFKA_DIR names the state dir (.ci/run sets it, to stop the cluster even if vitest is killed).
  const dir = process.env.CRATER_KAFKA_DIR ?? mkdtempSync(path.join(tmpdir(), 'crater-kafka-'));
  const env = { ...process.env, CRATER_KAFKA_DIR: dir };
  const started = performance.now();
  const out = execFileSync('bash', [script, 'start'], { env, encoding: 'utf8', stdio: ['ignore', 'pipe', 'inherit'] });
  const bootstrap = /CRATER_KAFKA_BOOTSTRAP=(\S+)/.exec(out)?.[1];
  if (!bootstrap) throw new Error(`kafka-cluster.sh start printed no bootstrap list: ${out}`);
  console.warn(`kafka suite: 3-node cluster ${bootstrap} started in ${Math.round(performance.now() - started)} ms`);
  project.provide('kafkaBootstrap', bootstrap);
  project.provide('kafkaClusterDir', dir);
  return () => {
    execFileSync('bash', [script, 'stop'], { env, stdio: ['ignore', 'inherit', 'inherit'] });
  };
}
