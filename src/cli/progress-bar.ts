/** A progress bar on stderr, shown only when stderr is a terminal and the work is long. */
import cliProgress from 'cli-progress';

/** A bar to `update(done)` and `stop()`; a no-op when not shown. */
export interface ProgressBar {
  update(done: number, total: number): void;
  stop(): void;
}

/** `<verb> [bar] 42% | done/total events | ETA`; `enabled: false` shows nothing. */
export function progressBar(verb: string, enabled: boolean): ProgressBar {
  if (!enabled || !process.stderr.isTTY) return { update: () => undefined, stop: () => undefined };
  const bar = new cliProgress.SingleBar(
    {
      stream: process.stderr,
      format: `${verb} [{bar}] {percentage}% | {value}/{total} events | ETA {eta_formatted}`,
      hideCursor: true,
    },
    cliProgress.Presets.shades_classic,
  );
  let started = false;
  return {
    update(done, total) {
      if (!started) bar.start(total, done);
      else bar.setTotal(total);
      started = true;
      bar.update(done);
    },
    stop: () => started && bar.stop(),
  };
}
