import type { McpProgress } from "../../mcp/connection.ts";

/** At most one progress report per this interval leaves a spoke for its hub. */
export const PROGRESS_INTERVAL_MS = 500;
/** How long the end of a call waits for its last report to reach the hub. */
const END_WAIT_MS = 1_000;

export interface ProgressRelay {
  report(progress: McpProgress): void;
  /** Sends a report still held, and waits (bounded) until every report sent has been taken. */
  end(): Promise<void>;
}

/**
 * An app's progress on one call, passed on while the call runs, one report per interval at most: a
 * report within the interval of the last one is held (a newer one replaces it) and sent when the
 * interval is over, or when the call ends. Reports leave one after the other, and the call's
 * answer waits for them (`end`), so the hub has written every report before it sees the answer.
 * A report the hub does not take is lost, never retried: progress is only ever a hint.
 */
export function progressRelay(
  send: (progress: McpProgress) => Promise<unknown>,
  intervalMs = PROGRESS_INTERVAL_MS,
): ProgressRelay {
  let lastSent = Number.NEGATIVE_INFINITY;
  let held: McpProgress | null = null;
  let timer: ReturnType<typeof setTimeout> | undefined;
  let chain: Promise<void> = Promise.resolve();
  const release = () => {
    timer = undefined;
    if (!held) return;
    const report = held;
    held = null;
    lastSent = Date.now();
    chain = chain
      .then(() => send(report))
      .then(
        () => {},
        () => {},
      );
  };
  return {
    report(progress) {
      held = progress;
      if (timer) return;
      const wait = lastSent + intervalMs - Date.now();
      if (wait <= 0) release();
      else timer = setTimeout(release, wait);
    },
    async end() {
      clearTimeout(timer);
      release();
      let bound: ReturnType<typeof setTimeout> | undefined;
      await Promise.race([chain, new Promise((resolve) => (bound = setTimeout(resolve, END_WAIT_MS)))]);
      clearTimeout(bound);
    },
  };
}
