/** The benchmarks' public surface: each returns a report object and never prints. */
export {
  runBatchVsSingle,
  BatchVsSingleDefaults,
  type BatchVsSingleOptions,
  type BatchVsSingleReport,
  type ModeFigures,
  type SweepPoint,
} from './batch-vs-single.js';
export { runShareBench, ShareBenchDefaults, type ShareBenchOptions, type ShareBenchReport } from './share.js';
export {
  runThroughput,
  ThroughputDefaults,
  type PhaseFigures,
  type ThroughputOptions,
  type ThroughputReport,
} from './throughput.js';
export { EmbeddedBroker, type BrokerStats, type EmbeddedBrokerOptions } from './embedded-broker.js';
export { LatencyRecorder } from './latency.js';
export { type Percentiles, type Spread, percentileOfSorted, percentiles, perSecond, spread } from './stats.js';
export { type BenchCodec, type BrokerInfo, type TargetOptions, openTarget } from './target.js';
export { runStorageBench, type StorageBenchOptions, type StorageBenchReport } from './storage-bench.js';
export {
  runConsumerBench,
  ConsumerBenchDefaults,
  type ConsumePhase,
  type ConsumerBenchOptions,
  type ConsumerBenchReport,
  type ExecPhaseRunner,
} from './consumer-bench.js';
export {
  runScale,
  SCALE_PARAMETERS,
  type ScaleCurve,
  type ScaleOptions,
  type ScaleParameter,
  type ScalePoint,
  type ScaleReport,
} from './scale.js';
export { runStartupCurve, type StartupCurve, type StartupOptions, type StartupPoint } from './scale-startup.js';
