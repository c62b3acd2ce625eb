import type { AuditType } from "../../audit-types.ts";
import {
  type Consent,
  type ConsentAsk,
  type ConsentEvent,
  type ConsentOrigin,
  type ConsentStep,
  consentNext,
  type QueryEvent,
} from "../../runtime/index.ts";
import { randomId } from "../crypto.ts";
import type { ConsentStore } from "./consents.ts";
import type { HubStore } from "./store.ts";

/**
 * The hub's side of the consent path (runtime/consent-path.ts): every consent is asked, answered,
 * expired and withdrawn here, whoever reached it (an answer, the alarm, a spoke asking after its
 * request, a spoke giving up). The path decides; this writes the status, and only the write that
 * moved a consent from pending sends its records: to the query machine when the event may move
 * the query (which takes the same records from the path), else straight to the trace and the log.
 */
export class ConsentPath {
  private readonly consents: ConsentStore;
  private readonly store: HubStore;
  private readonly audit: (type: AuditType, detail: Record<string, unknown>) => void;
  private readonly query: (queryId: string, event: QueryEvent) => Promise<boolean>;

  constructor(input: {
    consents: ConsentStore;
    store: HubStore;
    audit(type: AuditType, detail: Record<string, unknown>): void;
    /** Brings an event to the consent's query's machine; false when the query or the session is gone. */
    query(queryId: string, event: QueryEvent): Promise<boolean>;
  }) {
    this.consents = input.consents;
    this.store = input.store;
    this.audit = input.audit;
    this.query = input.query;
  }

  /**
   * Records a consent asked, pending from now. A spoke's request is announced here (its step runs
   * on); a plan step's by the query machine's `asked`, which the caller brings (the query waits).
   */
  ask(
    queryId: string,
    input: Omit<ConsentAsk, "tool">,
    timeoutSeconds: number,
    origin: ConsentOrigin,
  ): Consent {
    const id = randomId("con");
    const facts = {
      id,
      queryId,
      kind: input.kind,
      stepId: input.stepKey,
      assessment: input.request.assessment,
      relay: input.request.relay,
      status: "unasked" as const,
    };
    const step = consentNext(facts, { type: "asked", origin });
    if (!step.ok) throw new Error(`a new consent was refused: ${step.code}`);
    const consent = this.consents.ask(id, queryId, input, timeoutSeconds, step.write.status);
    if ("from" in origin) this.send(queryId, step);
    return consent;
  }

  /**
   * Settles a pending consent. The status is written only if it is still pending, so of two
   * timers (the alarm, a spoke's lazy look) or an answer and a timer, one settles and is audited;
   * the other is refused. `won` runs once the write stands, before the query hears of it (an
   * answer's standing grant is kept before the query it lets go on runs).
   */
  async settle(
    consent: Consent,
    event: Exclude<ConsentEvent, { type: "asked" }>,
    won?: () => Promise<void>,
  ): Promise<ConsentStep> {
    const step = consentNext(consent, event);
    if (!step.ok) return step;
    if (!this.consents.settle(consent.id, step.write)) {
      const now = this.consents.get(consent.id)?.status ?? consent.status;
      return { ok: false, code: "already_settled", status: now };
    }
    await won?.();
    const queryEvent = this.queryEvent(consent, event);
    if (queryEvent && (await this.query(consent.queryId, queryEvent))) return step;
    // No query to move (a withdrawal, or its query already pruned): the records go as they are.
    this.send(consent.queryId, step);
    return step;
  }

  private queryEvent(consent: Consent, event: Exclude<ConsentEvent, { type: "asked" }>): QueryEvent | null {
    switch (event.type) {
      case "answered": {
        const pending = this.consents.list({ status: "pending", queryId: consent.queryId }).length;
        return {
          type: "answered",
          consent,
          answer: event.answer,
          pending,
          ...(event.by && { by: event.by }),
        };
      }
      case "expired":
        return { type: "expired", consent };
      case "withdrawn":
        return null;
    }
  }

  private send(queryId: string, step: Extract<ConsentStep, { ok: true }>): void {
    for (const { type, data } of step.events) this.store.emit(queryId, type, data);
    for (const { type, detail } of step.audit) this.audit(type, detail);
  }
}
