import type { HubStore } from "./store.ts";

/**
 * A progress report from a spoke: numbers only, as the app's server sent them. The hub writes it as
 * a whole percent of `total`, or without a total as the count of reports so far.
 */
export interface ProgressReport {
  progress: number;
  total?: number;
}

interface Running {
  queryId: string;
  key: string;
  tool: string;
  app: string;
  /** Progress events this call wrote so far. */
  written: number;
  last: number;
  /** The last whole percent written (-1: none yet). */
  lastPercent: number;
}

/** A call's progress events are capped: a server that reports without end fills no log. */
export const MAX_PROGRESS_EVENTS = 50;

/**
 * The plan steps' calls in flight in this hub instance, by the call id the hub gave each: a spoke
 * reports an MCP server's progress under that id while the call runs, and the hub writes it to the
 * query's log as `step_progress`. Only a call the hub is waiting on is known, so a late report, a
 * relay's, or one naming an id the hub never gave is dropped. In memory: an evicted hub's calls are
 * gone with the calls themselves.
 */
export class CallProgress {
  private readonly running = new Map<string, Running>();
  private readonly store: HubStore;

  constructor(store: HubStore) {
    this.store = store;
  }

  /** Runs the call with its progress reports taken under `callId`. */
  async during<T>(
    callId: string,
    step: { queryId: string; key: string; tool: string; app: string },
    run: () => Promise<T>,
  ): Promise<T> {
    this.running.set(callId, { ...step, written: 0, last: -1, lastPercent: -1 });
    try {
      return await run();
    } finally {
      this.running.delete(callId);
    }
  }

  /** Writes one report as the step's progress; false when dropped (unknown call, bad numbers, cap). */
  report(callId: string, report: ProgressReport): boolean {
    const call = this.running.get(callId);
    if (!call || !validReport(report) || call.written >= MAX_PROGRESS_EVENTS) return false;
    // A report that goes backwards or repeats says nothing new (the spec has progress increase).
    if (report.progress <= call.last) return false;
    // Only a whole percent (with a total) or the count of reports (without) leaves: an app's raw
    // numbers could carry anything it read, digit by digit (#43).
    const percent =
      report.total === undefined ? null : Math.floor(Math.min(report.progress / report.total, 1) * 100);
    if (percent !== null && percent <= call.lastPercent) return false;
    call.written++;
    call.last = report.progress;
    if (percent !== null) call.lastPercent = percent;
    const { queryId, key, tool, app } = call;
    this.store.emit(queryId, "step_progress", {
      key,
      kind: "tool",
      tool,
      app,
      ...(percent === null ? { progress: call.written } : { progress: percent, total: 100 }),
    });
    return true;
  }
}

const validReport = (r: ProgressReport): boolean =>
  typeof r === "object" &&
  r !== null &&
  Number.isFinite(r.progress) &&
  r.progress >= 0 &&
  (r.total === undefined || (Number.isFinite(r.total) && r.total > 0));
