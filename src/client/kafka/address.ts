import { formatAddress, parseBrokerAddress } from '../address.js';
import { KAFKA_SCHEME } from '../backend.js';
import { UsageError } from '../../errors.js';

/** `kafka://host:port[,host:port...]` → ['host:port', ...] (IPv6 bracketed); port 9092 when none is given. */
export function parseKafkaBootstrap(input: string): string[] {
  const text = input.trim();
  if (!text.toLowerCase().startsWith(KAFKA_SCHEME)) throw new UsageError(`'${input}' is not a kafka:// address`);
  const list = text.slice(KAFKA_SCHEME.length).replace(/\/+$/, '');
  const brokers = list.split(',').map((s) => s.trim());
  if (brokers.length === 0 || brokers.some((b) => b === ''))
    throw new UsageError(`'${input}': expected kafka://host:port[,host:port...]`);
  return brokers.map((b) => formatAddress(parseBrokerAddress(b)));
}

export function formatKafkaBootstrap(brokers: readonly string[]): string {
  return `${KAFKA_SCHEME}${brokers.join(',')}`;
}
