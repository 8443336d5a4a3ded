/** Binds the registry's LogFactory seam to the storage backends. */
import type { BrokerConfig } from './config.js';
import type { LogFactory } from './log-factory.js';

export function storageLogFactory(_config: BrokerConfig): LogFactory {
  const unavailable = (): never => {
    throw new Error('storage backends are not wired in yet');
  };
  return {
    open: async () => unavailable(),
    readConfig: async () => ({}),
    writeConfig: async () => undefined,
    defaultConfig: () => ({}),
    configProblem: () => undefined,
    applyConfig: () => undefined,
  };
}
