import { Flags } from '@oclif/core';
import { BaseCommand, DEFAULT_BROKER_PORT, type StopReason, formatHostPort } from '../../cli/index.js';
import { ShutdownIncompleteError } from '../../errors.js';

export default class BrokerStart extends BaseCommand {
  static override summary = 'Run a broker in the foreground.';
  static override description = `Listens on 127.0.0.1:${DEFAULT_BROKER_PORT} by default, the address every client command uses when neither --broker nor CRATER_BROKER says otherwise; --port 0 picks a free port. Prints one line, CRATER_BROKER=host:port (a JSON object with --json), on stdout once it listens; logs go to stderr. SIGINT or SIGTERM stop it gracefully (exit 0, also when the final sync fails on a full disk: that is logged as one line). A second broker on the same data directory fails at once (exit 1).

Settings, highest precedence first: flags, CRATER_* environment variables, the --config JSON file (MoonMQ appsettings.json "Server" {Host, Port, DataDir, MaxFrameSize, Acks, MaxSegmentSize, Retention, Topics, MaxConnections, MaxConnectionsPerIp, MaxPendingSendBytesTotal} and "Auth" {Username, PasswordHash} are read), defaults.

Connections past --max-connections (960) or --max-connections-per-ip (32) are refused with ERR 6. When the replies queued for all connections pass --max-pending-send-bytes-total (128 MiB), the connection holding the most is closed.`;

  static override examples = [
    '<%= config.bin %> broker start --topic orders:4',
    '<%= config.bin %> broker start --data-dir ./data --port 9092 --acks leader',
    'echo -n secret | <%= config.bin %> broker hash-password > hash && <%= config.bin %> broker start --username admin --password-hash "$(cat hash)"',
  ];

  static override flags = {
    'data-dir': Flags.string({
      description: 'Data directory (default: a temp dir removed on exit).',
      env: 'CRATER_DATA_DIR',
    }),
    'keep-data': Flags.boolean({ description: 'Keep the temp data directory on exit.' }),
    host: Flags.string({ description: 'Address to listen on [default: 127.0.0.1].', env: 'CRATER_HOST' }),
    port: Flags.integer({
      description: `Port; 0 picks a free one [default: ${DEFAULT_BROKER_PORT}, where every client looks].`,
      env: 'CRATER_PORT',
      min: 0,
      max: 65_535,
    }),
    acks: Flags.string({
      description: 'When PRODUCE is acknowledged [default: leader].',
      env: 'CRATER_ACKS',
      options: ['none', 'leader'],
    }),
    username: Flags.string({
      description: 'The one user AUTH accepts (open mode when absent).',
      env: 'CRATER_AUTH_USERNAME',
    }),
    'password-hash': Flags.string({
      description: 'pbkdf2-sha256$iter$salt$hash, from `broker hash-password`.',
      env: 'CRATER_AUTH_PASSWORD_HASH',
    }),
    topic: Flags.string({
      description: 'Create name[:partitions] at start when missing (repeatable).',
      multiple: true,
    }),
    'max-frame-size': Flags.integer({
      description: 'Largest accepted frame body in bytes [default: 1048576].',
      env: 'CRATER_MAX_FRAME_SIZE',
      min: 17,
    }),
    'segment-bytes': Flags.integer({
      description: 'Segment size for new topics.',
      env: 'CRATER_SEGMENT_BYTES',
      min: 1,
    }),
    retention: Flags.string({ description: 'Retention for new topics, e.g. 7d, 12h, 3600s.', env: 'CRATER_RETENTION' }),
    'max-connections': Flags.integer({
      description: 'Open connections allowed in total [default: 960].',
      env: 'CRATER_MAX_CONNECTIONS',
      min: 1,
    }),
    'max-connections-per-ip': Flags.integer({
      description: 'Open connections allowed from one IP address [default: 32].',
      env: 'CRATER_MAX_CONNECTIONS_PER_IP',
      min: 1,
    }),
    'max-pending-send-bytes-total': Flags.integer({
      description: 'Unsent reply bytes allowed across all connections [default: 134217728].',
      env: 'CRATER_MAX_PENDING_SEND_BYTES_TOTAL',
      min: 1,
    }),
    config: Flags.string({
      description: 'JSON settings file (MoonMQ appsettings.json accepted).',
      env: 'CRATER_CONFIG',
    }),
    'exit-on-stdin-close': Flags.boolean({ description: 'Stop when stdin closes (for supervisors and tests).' }),
    'pid-file': Flags.string({
      description: "Write the broker's pid to this file once it listens; removed on exit.",
      helpValue: 'path',
    }),
  };

  #stopBroker: (() => void) | undefined;

  override stop(reason: StopReason): void {
    if (reason === 'interrupt' && this.#stopBroker) this.#stopBroker();
    else super.stop(reason);
  }

  async run(): Promise<Record<string, unknown> | undefined> {
    const { flags } = await this.parse(BrokerStart);
    const { Broker, launchOptions, readAppSettings } = await import('../../broker/index.js');
    const { stderrLogger, temporaryDataDir, writePidFile } = await import('../../cli/broker-run.js');
    const file = flags.config ? await readAppSettings(flags.config) : {};
    const options = launchOptions(
      {
        dataDir: flags['data-dir'],
        host: flags.host,
        port: flags.port,
        acks: flags.acks,
        username: flags.username,
        passwordHash: flags['password-hash'],
        topics: flags.topic,
        maxFrameSize: flags['max-frame-size'],
        segmentBytes: flags['segment-bytes'],
        retention: flags.retention,
        maxConnections: flags['max-connections'],
        maxConnectionsPerIp: flags['max-connections-per-ip'],
        maxPendingSendBytesTotal: flags['max-pending-send-bytes-total'],
      },
      file,
    );
    options.port ??= DEFAULT_BROKER_PORT;
    const temp = options.dataDir === undefined ? await temporaryDataDir(flags['keep-data']) : undefined;
    let pidFile: { remove(): Promise<void> } | undefined;
    try {
      const broker = await Broker.start({
        ...options,
        dataDir: options.dataDir ?? temp!.dir,
        logger: stderrLogger(flags.verbose),
      });
      const stopped = new Promise<void>((resolve) => {
        this.#stopBroker = resolve;
        process.once('SIGTERM', resolve);
        if (flags['exit-on-stdin-close']) {
          process.stdin.once('end', resolve).once('close', resolve).resume();
        }
      });
      if (flags['pid-file'] !== undefined) pidFile = await writePidFile(flags['pid-file']);
      const { host, port } = broker.address;
      const address = formatHostPort({ host, port });
      if (this.jsonEnabled())
        process.stdout.write(`${JSON.stringify({ broker: address, host, port, dataDir: broker.dataDir })}\n`);
      else this.out(`CRATER_BROKER=${address}`);
      await stopped;
      this.diag('stopping broker');
      await stopBroker(broker);
      process.stdin.pause();
    } finally {
      await pidFile?.remove();
      await temp?.remove();
    }
    return undefined;
  }

  protected override logJson(json: unknown): void {
    if (json !== undefined) super.logJson(json);
  }
}

/**
 * A stop whose final sync failed (a full disk) still closed every file and released the lock, and the broker logged
 * it as one line: everything acknowledged was durable already, so that is exit 0, not a stack trace.
 */
async function stopBroker(broker: { stop(): Promise<void> }): Promise<void> {
  try {
    await broker.stop();
  } catch (err) {
    if (!(err instanceof ShutdownIncompleteError)) throw err;
  }
}
