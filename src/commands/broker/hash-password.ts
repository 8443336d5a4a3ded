import { Flags } from '@oclif/core';
import { BaseCommand, ExitCode } from '../../cli/index.js';

export default class BrokerHashPassword extends BaseCommand {
  static override summary = 'Hash a password for `broker start --password-hash`.';
  static override description =
    'Reads the password from stdin (one trailing newline is dropped) and prints pbkdf2-sha256$<iterations>$<salt_hex>$<hash_hex>.';

  static override examples = ['printf %s "$PASSWORD" | <%= config.bin %> broker hash-password'];

  static override flags = {
    iterations: Flags.integer({ description: 'PBKDF2-SHA256 iterations.', default: 600_000, min: 1 }),
  };

  async run(): Promise<{ hash: string }> {
    const { flags } = await this.parse(BrokerHashPassword);
    const { hashPassword } = await import('../../broker/index.js');
    const chunks: Buffer[] = [];
    for await (const chunk of process.stdin) chunks.push(chunk as Buffer);
    const password = Buffer.concat(chunks)
      .toString('utf8')
      .replace(/\r?\n$/, '');
    if (password === '') this.fail(ExitCode.USAGE, 'no password on stdin');
    const hash = await hashPassword(password, flags.iterations);
    this.out(hash);
    return { hash };
  }
}
