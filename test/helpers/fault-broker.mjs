// The test-only broker entry for crash tests (child-broker.ts starts it when a crash point is asked for): the
// built broker, started like `crater broker start` on a data dir and port 0, with a fault hook that SIGKILLs this
// process at the crash point named by --crash-at. Nothing in the product reads a crash point; only this file does.
//
//   node test/helpers/fault-broker.mjs --data-dir DIR --crash-at POINT [--crash-skip N] [--topic name:partitions]...
//
// --crash-skip N passes the crash point N times before the hit that kills (default 0: the first kills).
//
// Prints CRATER_BROKER=host:port once listening; SIGTERM stops it gracefully.
import { parseArgs } from 'node:util';
import { Broker, parseTopicSpec } from '../../dist/broker/index.js';
import { crashPoints } from '../../dist/broker/fault-hooks.js';

const { values } = parseArgs({
  options: {
    'data-dir': { type: 'string' },
    'crash-at': { type: 'string' },
    'crash-skip': { type: 'string' },
    topic: { type: 'string', multiple: true },
  },
});
const crashAt = values['crash-at'];
if (!values['data-dir'] || !crashPoints.includes(crashAt)) {
  process.stderr.write(
    `usage: fault-broker.mjs --data-dir DIR --crash-at (${crashPoints.join('|')}) [--topic t:n]...\n`,
  );
  process.exit(2);
}
let skip = Number(values['crash-skip'] ?? 0);
const faults = {
  crashPoint(point) {
    if (point !== crashAt || skip-- > 0) return;
    process.stderr.write(`fault hook: crash point ${point} reached, killing the broker\n`);
    process.kill(process.pid, 'SIGKILL');
  },
};
const broker = await Broker.start({
  dataDir: values['data-dir'],
  port: 0,
  topics: (values.topic ?? []).map(parseTopicSpec),
  faults,
});
process.stdout.write(`CRATER_BROKER=${broker.address.host}:${broker.address.port}\n`);
await new Promise((resolve) => process.once('SIGTERM', resolve));
await broker.stop();
