/**
 * The retention cleaner (storage.md §8.1): a tick (5 s by default) pumps a per-topic schedule, and every
 * `cleaner_interval` (topic.config, default 1 h) each partition of a user topic on the segmented backend drops the
 * whole segments older than its retention. Internal `__*` topics are never cleaned here, and commit-log topics are
 * not either: their `delete`/`compact` policy already runs at every roll (storage.md §8.2).
 *
 * Consumers need no telling: every read moves an offset below the log start up to it, so a cursor or committed
 * offset left behind by retention resumes at the oldest record still kept.
 */
import { SegmentedLog } from '../storage/segmented-log.js';
import { DEFAULT_CLEANER_INTERVAL_SECONDS, DEFAULT_RETENTION_SECONDS } from '../storage/topic-config.js';
import type { Logger } from './core.js';
import type { Topic, TopicRegistry } from './topics.js';

export interface CleanerOptions {
  /** How often the schedule is checked. */
  tickMs: number;
  /** The cleaner interval for topics whose sidecar sets none (default `cleaner_interval`'s 1 h). */
  intervalMs?: number | undefined;
  /** Retention for topics whose sidecar sets none (default 7 days). */
  retentionMs?: number | undefined;
  /** Wall clock in ms; the broker's (tests pin it). */
  now: () => number;
  logger: Logger;
  /** After a pass that deleted segments (the transaction coordinator prunes its abort index then). */
  afterPass?: ((pass: CleanerPass) => Promise<unknown>) | undefined;
  /** After every pass, whether or not it found anything to do (the broker's `retention-pass` event). */
  onPass?: ((pass: CleanerPass) => void) | undefined;
}

export interface CleanerPass {
  topics: number;
  deletedSegments: number;
  deletedBytes: number;
}

export class RetentionCleaner {
  /** When each topic was last cleaned (or first seen, so a fresh topic waits one interval). */
  private readonly lastRun = new Map<string, number>();
  private timer: NodeJS.Timeout | undefined;
  private running: Promise<CleanerPass> | undefined;
  private stopped = false;

  constructor(
    private readonly topics: TopicRegistry,
    private readonly options: CleanerOptions,
  ) {}

  start(): void {
    if (this.timer || this.stopped) return;
    const now = this.options.now();
    for (const t of this.topics.all()) if (!t.internal) this.lastRun.set(t.name, now);
    this.timer = setInterval(() => void this.tick(), this.options.tickMs);
    this.timer.unref();
  }

  /** Clears the tick and waits for a pass already running, so the logs can be closed after it. */
  async stop(): Promise<void> {
    this.stopped = true;
    if (this.timer) clearInterval(this.timer);
    this.timer = undefined;
    await this.running?.catch(() => undefined);
  }

  /** One check of the schedule: cleans every user topic whose interval has elapsed. Never rejects. */
  tick(): Promise<CleanerPass> {
    if (this.stopped) return Promise.resolve({ topics: 0, deletedSegments: 0, deletedBytes: 0 });
    this.running ??= this.pass().finally(() => (this.running = undefined));
    return this.running;
  }

  private async pass(): Promise<CleanerPass> {
    const result: CleanerPass = { topics: 0, deletedSegments: 0, deletedBytes: 0 };
    const now = this.options.now();
    const live = new Set<string>();
    for (const topic of [...this.topics.all()]) {
      if (topic.internal) continue;
      live.add(topic.name);
      const last = this.lastRun.get(topic.name);
      if (last === undefined) {
        this.lastRun.set(topic.name, now);
        continue;
      }
      if (now - last < this.intervalMs(topic)) continue;
      this.lastRun.set(topic.name, now);
      result.topics++;
      const retentionMs = this.retentionMs(topic);
      for (const log of [...topic.partitions]) {
        if (this.stopped) return result;
        if (!(log instanceof SegmentedLog)) continue;
        try {
          const r = await log.applyRetention(now, retentionMs);
          result.deletedSegments += r.deletedSegments;
          result.deletedBytes += r.deletedBytes;
          if (r.deletedSegments > 0) {
            this.options.logger.info('retention deleted segments', {
              dir: log.dir,
              segments: r.deletedSegments,
              logStartOffset: String(r.logStartOffset),
            });
          }
        } catch (err) {
          // A topic deleted mid-pass has closed logs; anything else is retried next interval.
          this.options.logger.warn('retention failed', {
            dir: log.dir,
            error: err instanceof Error ? err.message : String(err),
          });
        }
      }
    }
    for (const name of this.lastRun.keys()) if (!live.has(name)) this.lastRun.delete(name);
    if (result.deletedSegments > 0 && this.options.afterPass) {
      await this.options.afterPass(result).catch((err: unknown) => {
        this.options.logger.warn('after-cleaner hook failed', {
          error: err instanceof Error ? err.message : String(err),
        });
      });
    }
    this.options.onPass?.(result);
    return result;
  }

  private intervalMs(topic: Topic): number {
    const seconds = positiveNumber(topic.config.cleaner_interval);
    if (seconds !== undefined) return seconds * 1000;
    return this.options.intervalMs ?? DEFAULT_CLEANER_INTERVAL_SECONDS * 1000;
  }

  private retentionMs(topic: Topic): number {
    const seconds = positiveNumber(topic.config.retention);
    if (seconds !== undefined) return seconds * 1000;
    return this.options.retentionMs ?? DEFAULT_RETENTION_SECONDS * 1000;
  }
}

function positiveNumber(text: string | undefined): number | undefined {
  if (text === undefined) return undefined;
  const n = Number(text);
  return Number.isFinite(n) && n > 0 ? n : undefined;
}
