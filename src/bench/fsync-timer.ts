/**
 * Times every asynchronous fsync the bench broker child issues (the group committers' fsyncs of partition logs),
 * from the call to its callback: the threadpool queueing and the disk's flush together, as a produce waiting on it
 * sees them. A produce phase reads the window since its start, so a report can say whether its latency was the
 * disk's (a loaded machine's fsyncs take milliseconds) or the broker's own. It wraps the storage's file layer
 * (storage/file-io.ts), so it sees exactly the broker's fsyncs and adds one closure per call.
 */
import { type FileLayer, installFileLayer, nodeFileLayer } from '../storage/file-io.js';
import { type Percentiles, percentiles } from './stats.js';

/** Durations kept per window; past it the window keeps counting but stops sampling (a 10^7-record run). */
const MAX_SAMPLES = 1_000_000;

export interface FsyncWindow {
  /** fsyncs completed in the window. */
  count: number;
  /** Their summed duration, ms. */
  totalMs: number;
  /** Duration percentiles, ms (of the first MAX_SAMPLES). */
  ms: Percentiles;
}

export class FsyncTimer {
  private samples: number[] = [];
  private count = 0;
  private totalMs = 0;

  /** Installs the timing layer over node:fs for every file opened from now on; returns the uninstaller. */
  install(base: FileLayer = nodeFileLayer): () => void {
    return installFileLayer({
      ...base,
      fsync: (fd, callback) => {
        const t0 = performance.now();
        base.fsync(fd, (err) => {
          this.record(performance.now() - t0);
          callback(err);
        });
      },
    });
  }

  record(ms: number): void {
    this.count++;
    this.totalMs += ms;
    if (this.samples.length < MAX_SAMPLES) this.samples.push(ms);
  }

  /** Starts a new window. */
  reset(): void {
    this.samples = [];
    this.count = 0;
    this.totalMs = 0;
  }

  window(): FsyncWindow {
    const ms =
      this.samples.length > 0 ? percentiles(this.samples) : { p50: 0, p90: 0, p99: 0, p999: 0, max: 0, count: 0 };
    return { count: this.count, totalMs: this.totalMs, ms };
  }
}
