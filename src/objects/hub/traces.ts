import * as z from "zod";
import { decode } from "../../decode.ts";
import type { Consent, HubEvent } from "../../runtime/index.ts";
import {
  formatTraceparent,
  type OpenSpan,
  parseTraceparent,
  type TraceContext,
  type Tracer,
  traceHex,
} from "../tracing.ts";

/**
 * A hub's spans of its queries (docs/traces.md). The query's own span gets its id at admission
 * (kept on the row as `trace`, so every later advance, alarm or consent hangs its spans under it
 * though the object was evicted meanwhile) and is written when the query ends, with its whole life.
 * Steps and consents are read off the hub's events as they are written: the events are where the
 * runtime says what it decided, and reading only their ids, kinds and labels keeps values out.
 */

/** What a query row keeps of its trace: its span's context, and the frontend's span it continues. */
const StoredTraceSchema = z.object({
  traceparent: z.string(),
  tracestate: z.string().optional(),
  parent: z.string().optional(),
});
type StoredTrace = z.infer<typeof StoredTraceSchema>;

export function storedTrace(context: TraceContext, parent: TraceContext | null): string {
  const stored: StoredTrace = {
    traceparent: formatTraceparent(context),
    ...(context.state && { tracestate: context.state }),
    ...(parent && { parent: parent.spanId }),
  };
  return JSON.stringify(stored);
}

/** The query span's context and its parent's span id, from the row (null: untraced, or unreadable). */
export function queryTrace(text: string | null): { context: TraceContext; parent?: string } | null {
  if (!text) return null;
  try {
    // A trace that does not read back is lost, never the query: its spans start a new trace.
    const stored = decode(StoredTraceSchema, text, "a query's trace");
    const context = parseTraceparent(stored.traceparent, stored.tracestate);
    if (!context) return null;
    return { context, ...(typeof stored.parent === "string" && { parent: stored.parent }) };
  } catch {
    return null;
  }
}

interface QueryFacts {
  trace: string | null;
  createdAt: string;
}

export class HubTraces {
  readonly tracer: Tracer;
  /** Steps begun and not yet finished, by query and step key (in memory: an eviction loses their spans). */
  private readonly steps = new Map<string, OpenSpan>();
  /** Steps whose consent was answered before they ran (the gate asks first): their verdict. */
  private readonly consented = new Map<string, string>();
  private readonly queryOf: (queryId: string) => QueryFacts | null;
  private readonly consentOf: (consentId: string) => Consent | null;

  constructor(
    tracer: Tracer,
    lookups: {
      query(queryId: string): QueryFacts | null;
      consent(consentId: string): Consent | null;
    },
  ) {
    this.tracer = tracer;
    this.queryOf = lookups.query;
    this.consentOf = lookups.consent;
  }

  /** The query span's context: the parent of everything the query does. */
  context(queryId: string): TraceContext | null {
    if (!this.tracer.on) return null;
    return queryTrace(this.queryOf(queryId)?.trace ?? null)?.context ?? null;
  }

  /** Where a step's work hangs: its step span while open, else the query's. */
  stepContext(queryId: string, key: string): TraceContext | null {
    return this.steps.get(`${queryId}\u0000${key}`)?.context ?? this.context(queryId);
  }

  /** Reads one written event: spans begin, gain attributes or end. Only ids, kinds, labels, codes. */
  event(event: HubEvent): void {
    if (!this.tracer.on) return;
    const { queryId, data } = event;
    const key = typeof data.key === "string" ? `${queryId}\u0000${data.key}` : null;
    switch (event.type) {
      case "step_started": {
        const parent = this.context(queryId);
        if (!parent || !key) return;
        const verdict = this.consented.get(key) ?? "allowed";
        this.consented.delete(key);
        this.steps.set(
          key,
          this.tracer.start("lattice.step", parent, {
            "lattice.query_id": queryId,
            "lattice.step.key": str(data.key),
            "lattice.step.kind": str(data.kind),
            "lattice.step.tool": str(data.tool),
            "lattice.step.app": str(data.app),
            "lattice.verdict": verdict,
          }),
        );
        return;
      }
      case "step_finished": {
        if (!key) return;
        const span = this.steps.get(key);
        this.steps.delete(key);
        const label = (data.label ?? {}) as Record<string, unknown>;
        span?.end("ok", {
          "lattice.label.confidentiality": str(label.confidentiality),
          "lattice.label.integrity": str(label.integrity),
        });
        return;
      }
      case "consent_requested": {
        if (key)
          this.steps.get(key)?.set({ "lattice.verdict": "consent", "lattice.consent.kind": str(data.kind) });
        return;
      }
      case "visor_exception": {
        const exception = (data.exception ?? {}) as Record<string, unknown>;
        if (key)
          this.steps.get(key)?.set({ "lattice.verdict": "refused", "lattice.rule": str(exception.type) });
        return;
      }
      case "consent_answered":
        this.consent(queryId, str(data.consentId), str(data.decision), str(data.scope));
        return;
      case "query_finished":
        this.finished(queryId, str(data.status), str(data.code));
        return;
      default:
        return;
    }
  }

  /** A consent's span, written when it is answered: from its ask to now, its wait in ms. */
  private consent(queryId: string, consentId: string | undefined, decision?: string, scope?: string): void {
    const consent = consentId ? this.consentOf(consentId) : null;
    if (!consent) return;
    const parent = this.stepContext(queryId, consent.stepId);
    if (!parent) return;
    const key = `${queryId}\u0000${consent.stepId}`;
    if (!this.steps.has(key)) this.consented.set(key, decision === "allow" ? "consented" : "denied");
    const startMs = Date.parse(consent.createdAt);
    const endMs = Date.now();
    this.tracer.record({
      name: "lattice.consent",
      context: { ...parent, spanId: traceHex(8) },
      parentSpanId: parent.spanId,
      startMs,
      endMs,
      attributes: {
        "lattice.query_id": queryId,
        "lattice.consent.id": consent.id,
        "lattice.consent.kind": consent.kind,
        "lattice.consent.decision": decision,
        "lattice.consent.scope": scope,
        "lattice.consent.wait_ms": endMs - startMs,
        "lattice.step.key": consent.stepId,
        "lattice.app.functionality": consent.functionality,
      },
      outcome: "ok",
    });
  }

  /** The query's span, with the id it was given at admission: its whole life, admission to end. */
  private finished(queryId: string, status?: string, code?: string): void {
    const facts = this.queryOf(queryId);
    const trace = queryTrace(facts?.trace ?? null);
    if (!facts || !trace) return;
    for (const key of this.consented.keys())
      if (key.startsWith(`${queryId}\u0000`)) this.consented.delete(key);
    for (const [key, span] of this.steps) {
      if (!key.startsWith(`${queryId}\u0000`)) continue;
      span.end(code ?? "ended");
      this.steps.delete(key);
    }
    this.tracer.record({
      name: "lattice.query",
      context: trace.context,
      ...(trace.parent && { parentSpanId: trace.parent }),
      startMs: Date.parse(facts.createdAt),
      endMs: Date.now(),
      attributes: { "lattice.query_id": queryId, "lattice.query.status": status, "lattice.error.code": code },
      outcome: status === "completed" ? "ok" : (code ?? status ?? "ended"),
    });
  }
}

function str(value: unknown): string | undefined {
  return typeof value === "string" ? value : undefined;
}
