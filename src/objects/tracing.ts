import { type Attributes, SpanKind, SpanStatusCode } from "@opentelemetry/api";
import { JsonTraceSerializer } from "@opentelemetry/otlp-transformer";
import { type Resource, resourceFromAttributes } from "@opentelemetry/resources";
import type { ReadableSpan } from "@opentelemetry/sdk-trace";

/**
 * Traces of queries (docs/traces.md), exported over OTLP/HTTP (JSON) to `LATTICE_OTLP_ENDPOINT`.
 *
 * Spans are records of ours, not the SDK's live `Span`s: a query's life crosses requests, alarms and
 * objects (its `lattice.query` span is written when it ends, with the id it was given at admission;
 * a consent's span when it is settled, perhaps days later, in another isolate), which the SDK's
 * in-process spans cannot be. The wire format is the OpenTelemetry project's own serializer
 * (`@opentelemetry/otlp-transformer`), fed `ReadableSpan`s built here.
 *
 * Attributes say what was decided and why (labels, rules, verdicts, codes, ids); never a value: no
 * query text, argument, app output or user-written text is ever an attribute (test/worker/traces.test.ts).
 */

/** Every span Lattice writes: a closed list, documented in docs/traces.md. */
export const SPAN_NAMES = [
  "lattice.request",
  "lattice.query",
  "lattice.admission",
  "lattice.plan",
  "lattice.verify",
  "lattice.step",
  "lattice.app_call",
  "lattice.qllm",
  "lattice.consent",
  "lattice.artifact.write",
] as const;
export type SpanName = (typeof SPAN_NAMES)[number];

/** A W3C trace context: where a span's children hang. */
export interface TraceContext {
  traceId: string;
  spanId: string;
  /** The trace-flags byte (01: sampled). */
  flags: number;
  /** The vendor's `tracestate`, passed on unread. */
  state?: string;
}

const TRACEPARENT = /^00-([0-9a-f]{32})-([0-9a-f]{16})-([0-9a-f]{2})$/;
/** W3C: at most 32 list members of `key=value`; bounded here by length (512 is the spec's floor). */
const TRACESTATE = /^[\x20-\x7e]{1,512}$/;

/**
 * A `traceparent` (and `tracestate`) as W3C Trace Context writes them, or null: a malformed header,
 * an all-zero id, or another version is ignored (the query starts its own trace), never an error.
 */
export function parseTraceparent(
  header: string | null | undefined,
  state?: string | null,
): TraceContext | null {
  const m = header ? TRACEPARENT.exec(header.trim()) : null;
  if (!m) return null;
  const [, traceId, spanId, flags] = m as unknown as [string, string, string, string];
  if (/^0+$/.test(traceId) || /^0+$/.test(spanId)) return null;
  const trimmed = state?.trim();
  return {
    traceId,
    spanId,
    flags: Number.parseInt(flags, 16),
    ...(trimmed && TRACESTATE.test(trimmed) && { state: trimmed }),
  };
}

export function formatTraceparent(context: TraceContext): string {
  return `00-${context.traceId}-${context.spanId}-${context.flags.toString(16).padStart(2, "0")}`;
}

/**
 * The `traceparent` an app is sent for its call: the app-call span's, only where the deployment
 * opted in (LATTICE_TRACE_APPS=on). One trace id across the apps of a query (and across queries,
 * if the frontend keeps one trace per chat) is a handle apps could join what each saw of a user on.
 */
export function appTraceparent(env: { LATTICE_TRACE_APPS?: string }, span: TraceContext): string | undefined {
  return env.LATTICE_TRACE_APPS === "on" ? formatTraceparent(span) : undefined;
}

/**
 * Whether a trace is recorded: its `sampled` flag (W3C trace-flags bit 0). A frontend that samples
 * one trace in a hundred gets one in a hundred from Lattice too; a trace Lattice starts is sampled.
 */
export function sampled(context: TraceContext): boolean {
  return (context.flags & 1) === 1;
}

/** Random lowercase hex of `bytes` bytes (a trace id: 16, a span id: 8). */
export function traceHex(bytes: 8 | 16): string {
  const b = crypto.getRandomValues(new Uint8Array(bytes));
  return Array.from(b, (x) => x.toString(16).padStart(2, "0")).join("");
}

/** A new context under `parent` (or a new trace), for a span whose id must be known before it ends. */
export function childContext(parent: TraceContext | null): TraceContext {
  return {
    traceId: parent?.traceId ?? traceHex(16),
    spanId: traceHex(8),
    flags: parent?.flags ?? 1,
    ...(parent?.state && { state: parent.state }),
  };
}

/** Only numbers, booleans and short identifier-like strings: what a decision is named by. */
export type SpanAttributes = Record<string, string | number | boolean | undefined>;

/** A span as written: its own context, its parent's span id, times in epoch ms. */
export interface SpanRecord {
  name: SpanName;
  context: TraceContext;
  parentSpanId?: string;
  startMs: number;
  endMs: number;
  attributes: SpanAttributes;
  /** The span's outcome code; anything but "ok" sets the span's status to error. */
  outcome: string;
}

/** The ids a log line and a span's resource carry: whose query this is. */
export interface TraceScope {
  /** Which Lattice object wrote the span (service.instance-like: worker, hub, spoke, artifacts). */
  object: "worker" | "hub" | "spoke" | "artifacts";
  tenant?: string;
  session?: string;
  user?: string;
}

/** A span begun now, ended once (a second `end` is ignored). */
export interface OpenSpan {
  readonly context: TraceContext;
  /** Attributes learned while it runs (a verdict, a version). */
  set(attributes: SpanAttributes): void;
  end(outcome?: string, attributes?: SpanAttributes): void;
}

const NOOP_SPAN: OpenSpan = {
  context: { traceId: "0".repeat(32), spanId: "0".repeat(16), flags: 0 },
  set() {},
  end() {},
};

/** An export's bounds: it never holds a request up, and never grows without end. */
const EXPORT_TIMEOUT_MS = 5_000;
/** Spans held for one export; past it, the oldest are dropped (and counted in the next log line). */
const MAX_BUFFERED = 512;
/** Attribute strings are ids and codes: anything longer is cut, so no attribute carries a text. */
const MAX_ATTRIBUTE_CHARS = 128;

/**
 * One object's tracer: begins and ends spans, logs one JSON line per span, and exports what ended in
 * a batch under `waitUntil` (so a span is sent though the invocation that ended it returns). Off
 * (no `LATTICE_OTLP_ENDPOINT`): every call is a no-op and nothing is buffered or logged.
 */
export class Tracer {
  readonly on: boolean;
  private readonly endpoint: string | undefined;
  private readonly headers: Record<string, string>;
  private readonly scope: TraceScope;
  private readonly waitUntil: (promise: Promise<unknown>) => void;
  private buffer: SpanRecord[] = [];
  private dropped = 0;
  private scheduled = false;

  constructor(env: Env, scope: TraceScope, waitUntil: (promise: Promise<unknown>) => void) {
    this.endpoint = env.LATTICE_OTLP_ENDPOINT || undefined;
    this.on = this.endpoint !== undefined;
    this.headers = this.on ? headersOf(env.LATTICE_OTLP_HEADERS) : {};
    this.scope = scope;
    this.waitUntil = waitUntil;
  }

  /** The ids this tracer's spans and log lines carry, once they are known (a hub learns its session). */
  identify(ids: Omit<TraceScope, "object">): void {
    Object.assign(this.scope, ids);
  }

  /** Begins a span under `parent` (none: a new trace), or with the context given (`at`) when its id was fixed before. */
  start(
    name: SpanName,
    parent: TraceContext | null,
    attributes: SpanAttributes = {},
    at?: TraceContext,
  ): OpenSpan {
    if (!this.on) return NOOP_SPAN;
    const context = at ?? childContext(parent);
    // Parent-based sampling: a trace its caller did not sample is passed on, never recorded.
    if (!sampled(context)) return { context, set() {}, end() {} };
    const startMs = Date.now();
    const held = { ...attributes };
    let ended = false;
    return {
      context,
      set: (more) => Object.assign(held, more),
      end: (outcome = "ok", more = {}) => {
        if (ended) return;
        ended = true;
        this.record({
          name,
          context,
          ...(parent && { parentSpanId: parent.spanId }),
          startMs,
          endMs: Date.now(),
          attributes: { ...held, ...more },
          outcome,
        });
      },
    };
  }

  /** Writes a span whose life was not one call here (a query's, a consent's wait): times given. */
  record(span: SpanRecord): void {
    if (!this.on || !sampled(span.context)) return;
    this.log(span);
    this.buffer.push(span);
    if (this.buffer.length > MAX_BUFFERED) {
      this.dropped += this.buffer.length - MAX_BUFFERED;
      this.buffer.splice(0, this.buffer.length - MAX_BUFFERED);
    }
    if (!this.scheduled) {
      this.scheduled = true;
      // A turn later: the spans ended by the same work go in one request.
      this.waitUntil(new Promise((resolve) => setTimeout(resolve, 0)).then(() => this.flush()));
    }
  }

  /** Sends what is buffered; a failure is logged and the spans are gone (a trace is not a ledger). */
  async flush(): Promise<void> {
    this.scheduled = false;
    const spans = this.buffer;
    this.buffer = [];
    if (!spans.length || !this.endpoint) return;
    const body = JsonTraceSerializer.serializeRequest(spans.map((s) => readable(s, this.resource())));
    if (!body) return;
    try {
      const response = await fetch(this.endpoint, {
        method: "POST",
        headers: { ...this.headers, "content-type": "application/json" },
        body,
        signal: AbortSignal.timeout(EXPORT_TIMEOUT_MS),
      });
      // The receiver's answer is not read past its status (a partial success is only counted there).
      await response.body?.cancel();
      if (!response.ok)
        console.warn(JSON.stringify({ event: "otlp_export_failed", status: response.status }));
    } catch (error) {
      const reason = error instanceof Error ? error.name : "error";
      console.warn(JSON.stringify({ event: "otlp_export_failed", reason, spans: spans.length }));
    }
  }

  private cached: Resource | undefined;

  private resource(): Resource {
    this.cached ??= resourceFromAttributes({
      "service.name": "lattice",
      "lattice.object": this.scope.object,
      ...(this.scope.tenant && { "lattice.tenant": this.scope.tenant }),
    });
    return this.cached;
  }

  /** One JSON line per span, with the span's ids: the same ids a trace viewer shows. */
  private log(span: SpanRecord): void {
    const { tenant, session, user, object } = this.scope;
    const line = {
      event: span.name,
      outcome: span.outcome,
      trace_id: span.context.traceId,
      span_id: span.context.spanId,
      ...(span.parentSpanId && { parent_span_id: span.parentSpanId }),
      object,
      ...(tenant && { tenant }),
      ...(session && { session }),
      ...(user && { user }),
      duration_ms: span.endMs - span.startMs,
      ...clean(span.attributes),
      ...(this.dropped && { dropped_spans: this.dropped }),
    };
    this.dropped = 0;
    console.log(JSON.stringify(line));
  }
}

/** `key=value` pairs, comma-separated, as the OTel exporters' `OTEL_EXPORTER_OTLP_HEADERS` reads. */
function headersOf(text: string | undefined): Record<string, string> {
  const headers: Record<string, string> = {};
  for (const pair of (text ?? "").split(",")) {
    const at = pair.indexOf("=");
    if (at <= 0) continue;
    const name = pair.slice(0, at).trim();
    const value = pair.slice(at + 1).trim();
    if (!/^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/.test(name)) continue;
    // Percent-encoded as OTEL_EXPORTER_OTLP_HEADERS is; a malformed escape is taken as written.
    try {
      headers[name] = decodeURIComponent(value);
    } catch {
      headers[name] = value;
    }
  }
  return headers;
}

function clean(attributes: SpanAttributes): Attributes {
  const out: Attributes = {};
  for (const [key, value] of Object.entries(attributes)) {
    if (value === undefined) continue;
    out[key] = typeof value === "string" ? value.slice(0, MAX_ATTRIBUTE_CHARS) : value;
  }
  return out;
}

function hr(ms: number): [number, number] {
  const seconds = Math.floor(ms / 1000);
  return [seconds, Math.round((ms - seconds * 1000) * 1e6)];
}

/** The Worker serves a request; a spoke calls an app; every other span is Lattice's own work. */
const KINDS: Partial<Record<SpanName, SpanKind>> = {
  "lattice.request": SpanKind.SERVER,
  "lattice.app_call": SpanKind.CLIENT,
  "lattice.qllm": SpanKind.CLIENT,
};

/** Our record as the serializer reads a finished SDK span. */
function readable(span: SpanRecord, resource: Resource): ReadableSpan {
  const { context } = span;
  const spanContext = { traceId: context.traceId, spanId: context.spanId, traceFlags: context.flags };
  const error = span.outcome !== "ok";
  return {
    name: span.name,
    kind: KINDS[span.name] ?? SpanKind.INTERNAL,
    spanContext: () => spanContext,
    ...(span.parentSpanId && {
      parentSpanContext: { traceId: context.traceId, spanId: span.parentSpanId, traceFlags: context.flags },
    }),
    startTime: hr(span.startMs),
    endTime: hr(span.endMs),
    duration: hr(span.endMs - span.startMs),
    status: error ? { code: SpanStatusCode.ERROR, message: span.outcome } : { code: SpanStatusCode.OK },
    attributes: { ...clean(span.attributes), "lattice.outcome": span.outcome },
    links: [],
    events: [],
    ended: true,
    resource,
    instrumentationScope: { name: "lattice" },
    droppedAttributesCount: 0,
    droppedEventsCount: 0,
    droppedLinksCount: 0,
  };
}
