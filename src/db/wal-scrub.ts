/**
 * Scrubbing a SQLite file's write-ahead log after an erasure. Until a TRUNCATE checkpoint
 * completes, the WAL (and, where an earlier checkpoint copied them, the main file) may still hold
 * page images from before the erasure, words included. Two rules keep that from lasting:
 *
 * - A scrub never waits: the checkpoint runs with no busy timeout, so a reader holding an older
 *   snapshot (a backup, an export) makes it report busy at once instead of freezing the event
 *   loop. A busy scrub is retried off the request path, with backoff, until it completes.
 * - A file whose WAL is not empty when it is opened is scrubbed before it serves: a crash may
 *   have come between an erasure's commit and its scrub, and nothing else would remove the
 *   residue (an idle process keeps its WAL as it is).
 */
import { statSync } from 'node:fs';
import type Database from 'better-sqlite3';

/** What one scrub attempt found. */
export type ScrubAttempt = 'done' | 'busy';

/** The result row of `PRAGMA wal_checkpoint`. */
interface CheckpointRow {
  readonly busy: number;
  readonly log: number;
  readonly checkpointed: number;
}

/**
 * One TRUNCATE checkpoint that does not wait for anyone: `done` once every frame is in the main
 * file and the WAL is empty, `busy` when a reader's snapshot, another writer or this
 * connection's own open transaction stood in the way. A database with no WAL (`:memory:`) is done.
 */
export function truncateWal(db: Database.Database): ScrubAttempt {
  if (!db.open || db.inTransaction) return 'busy';
  const timeout = db.pragma('busy_timeout', { simple: true }) as number;
  db.pragma('busy_timeout = 0');
  try {
    const [row] = db.pragma('wal_checkpoint(TRUNCATE)') as CheckpointRow[];
    // log -1: not in WAL mode, nothing to scrub; log 0: the WAL was reset to nothing.
    return row !== undefined && row.busy === 0 && row.log <= 0 ? 'done' : 'busy';
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code === 'SQLITE_BUSY' || code === 'SQLITE_LOCKED') return 'busy';
    throw error;
  } finally {
    db.pragma(`busy_timeout = ${timeout}`);
  }
}

/**
 * Copies what it can of the write-ahead log into the main file without waiting for anyone
 * (PASSIVE: a reader's snapshot only leaves the rest for later). Background writers call it after
 * their writes, so that the next foreground commit does not checkpoint their pages: SQLite
 * checkpoints on the commit that takes the WAL past 1,000 pages, whoever wrote them.
 */
export function passiveCheckpoint(db: Database.Database): void {
  if (!db.open || db.inTransaction) return;
  try {
    db.pragma('wal_checkpoint(PASSIVE)');
  } catch (error) {
    const code = (error as { code?: unknown }).code;
    if (code !== 'SQLITE_BUSY' && code !== 'SQLITE_LOCKED') throw error;
  }
}

/** True when the file at `path` has a write-ahead log with frames in it. */
export function walHoldsFrames(path: string): boolean {
  if (path === ':memory:' || path === '') return false;
  try {
    return statSync(`${path}-wal`).size > 0;
  } catch {
    return false;
  }
}

/** A scrub not yet completed: since when (epoch ms) and the last reason it could not run. */
export interface PendingScrub {
  readonly since: number;
  readonly reason: string;
}

/** Options of {@link WalScrubber}. */
export interface WalScrubberOptions {
  /** First pause before a busy scrub is tried again; it doubles up to `maxDelayMs`. @defaultValue 10 */
  readonly firstDelayMs?: number;
  /** Longest pause between two attempts. @defaultValue 1000 */
  readonly maxDelayMs?: number;
  /** The clock of `since`. @defaultValue Date.now */
  readonly now?: () => number;
}

/**
 * The scrubs of one connection's file: {@link request} tries at once and, when busy, keeps
 * trying on unref'd timers (they never keep a process alive) until a scrub completes. Listeners
 * hear of each completion, so the owner can clear its durable record of the pending clean-up.
 */
export class WalScrubber {
  private pendingSince: number | undefined;
  private timer: NodeJS.Timeout | undefined;
  private delay: number;
  private waiters: (() => void)[] = [];
  private readonly listeners = new Set<() => void>();
  private readonly firstDelay: number;
  private readonly maxDelay: number;
  private readonly now: () => number;

  constructor(
    private readonly db: Database.Database,
    /** The file, for messages: its path. */
    readonly file: string,
    options: WalScrubberOptions = {},
  ) {
    this.firstDelay = Math.max(1, options.firstDelayMs ?? 10);
    this.maxDelay = Math.max(this.firstDelay, options.maxDelayMs ?? 1000);
    this.now = options.now ?? Date.now;
    this.delay = this.firstDelay;
  }

  /** The scrub waiting for its retry, if any. */
  get pending(): PendingScrub | undefined {
    return this.pendingSince === undefined
      ? undefined
      : {
          since: this.pendingSince,
          reason: `a reader or writer holds an older snapshot of ${this.file}`,
        };
  }

  /**
   * Scrubs now if nothing stands in the way; otherwise schedules retries. Returns what this
   * attempt found (a later request while one is pending tries again at once).
   */
  request(): ScrubAttempt {
    const attempt = this.tryOnce();
    if (attempt === 'busy') this.schedule();
    return attempt;
  }

  /**
   * Resolves once no scrub is pending (at once when none is). While someone waits, the retry
   * timer keeps the process alive (otherwise it never does).
   */
  settled(): Promise<void> {
    if (this.pendingSince === undefined) return Promise.resolve();
    this.timer?.ref();
    return new Promise((resolve) => this.waiters.push(resolve));
  }

  /** Calls `listener` after every scrub that completes; returns its remover. */
  onDone(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Stops retrying (the connection is closing: its last close checkpoints the file itself). */
  stop(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }

  private tryOnce(): ScrubAttempt {
    let attempt: ScrubAttempt;
    try {
      attempt = truncateWal(this.db);
    } catch {
      // An I/O error or a closed connection: nothing to gain by retrying on this connection.
      attempt = this.db.open ? 'busy' : 'done';
    }
    if (attempt === 'busy') {
      this.pendingSince ??= this.now();
      return attempt;
    }
    this.finish();
    return attempt;
  }

  private schedule(): void {
    if (this.timer !== undefined) return;
    this.timer = setTimeout(() => {
      this.timer = undefined;
      if (this.tryOnce() === 'busy') {
        this.delay = Math.min(this.maxDelay, this.delay * 2);
        this.schedule();
      }
    }, this.delay);
    if (this.waiters.length === 0) this.timer.unref();
  }

  private finish(): void {
    clearTimeout(this.timer);
    this.timer = undefined;
    this.delay = this.firstDelay;
    this.pendingSince = undefined;
    for (const listener of [...this.listeners]) listener();
    const waiters = this.waiters;
    this.waiters = [];
    for (const resolve of waiters) resolve();
  }
}
