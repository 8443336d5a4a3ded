/** Share groups on crater's broker (KIP-932's model; docs/extensions.md for the wire, docs/share-groups.md for decisions). */
export {
  type ShareGroupConfig,
  type ShareOptions,
  ShareConfigDefaults,
  ShareOptionDefaults,
  shareConfigKeys,
} from './config.js';
export { ShareRuntime, shareRuntimeOf } from './runtime.js';
export { describeShareGroup, listShareGroups, resetShareGroup } from './admin.js';
