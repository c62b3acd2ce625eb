import { type CatalogDocument, catalogProblems } from "../../apps/catalog.ts";
import type { FieldProblem } from "../../apps/check.ts";
import { confirmationProblems } from "../../apps/destination-review.ts";
import type { Mode } from "../../apps/egress.ts";
import { canonicalJson, pinsOf } from "../../mcp/definitions.ts";
import { isRecord, type Policy, parseNewPolicy } from "../../policy/index.ts";
import { type Failure, failure, type Ok } from "../../result.ts";
import type { Sql } from "../sql.ts";
import { bindingsProblems, putCatalog, sanitisedDestinationProblems } from "./catalog-store.ts";
import { type LiveApp, normalPolicy, type TenantConfig } from "./config-document.ts";
import { dropKey, type KeyBinding } from "./model-keys.ts";
import {
  MASKED_KEY,
  MODEL_SETTINGS,
  type PreparedPolicy,
  preparePolicy,
  storePolicy,
} from "./policy-store.ts";
import * as registry from "./registry.ts";

/**
 * An import, checked whole before anything is written: every problem in the document is named by
 * its field (`body.catalog.entries.3.request`), each checked exactly as the route that makes that
 * change alone checks it (PUT policy, PUT catalog, approve, reject, bindings), against the policy
 * and catalog the document brings. Only a document with no problem becomes a plan, and a plan is
 * written in one storage transaction (applyPlan), so an import is applied whole or not at all.
 */

type Step =
  | { kind: "approve"; appId: string; version: number; approval: Approval }
  | { kind: "reject"; appId: string; version: number; reason: string }
  | { kind: "bind"; appId: string; version: number; before: registry.Bindings; bindings: registry.Bindings }
  | { kind: "enable"; appId: string; enabled: boolean };
type Approval = registry.Approval & { pins: Record<string, string> | null };

export interface ImportPlan {
  policy: PreparedPolicy | null;
  catalog: CatalogDocument | null;
  apps: Step[];
}

export interface ImportContext {
  mode: Mode;
  /** The tenant as exported now. */
  live: TenantConfig;
  liveApps: LiveApp[];
  policy: Policy;
  storedKeys: readonly KeyBinding[];
}

export async function planImport(
  doc: TenantConfig,
  ctx: ImportContext,
): Promise<Ok<{ plan: ImportPlan }> | Failure<"invalid_config">> {
  const problems: FieldProblem[] = [];
  const same = (a: unknown, b: unknown) => canonicalJson(a) === canonicalJson(b);

  // The policy: its own route's checks, against the document's catalog. A key is a secret, never
  // configuration: the document may only keep a stored one (the mask) or drop it (no apiKey).
  let policy: PreparedPolicy | null = null;
  let newPolicy = ctx.policy;
  const models = isRecord(doc.policy.models) ? doc.policy.models : {};
  for (const setting of MODEL_SETTINGS) {
    const model = models[setting];
    if (isRecord(model) && model.apiKey !== undefined && model.apiKey !== MASKED_KEY)
      problems.push({
        field: `body.policy.models.${setting}.apiKey`,
        message: `a key is a secret, not configuration: set it with PUT /v1/admin/policy; "${MASKED_KEY}" keeps the stored one`,
      });
  }
  const schemas = new Map(doc.catalog.entries.map((e) => [e.name, e.request]));
  if (!problems.length && !same(normalPolicy(doc.policy), normalPolicy(ctx.live.policy))) {
    const prepared = preparePolicy(doc.policy, {
      mode: ctx.mode,
      stored: ctx.storedKeys,
      canSeal: false,
      requestSchemas: schemas,
    });
    if (!prepared.ok)
      for (const i of prepared.details)
        problems.push({ field: i.path ? `body.policy.${i.path}` : "body.policy", message: i.message });
    else {
      policy = prepared;
      const parsed = parseNewPolicy(doc.policy);
      if (parsed.ok) newPolicy = parsed.policy;
    }
  }

  // The catalog: PUT /v1/admin/catalog's checks, against the document's policy.
  const catalogChanged = !same(doc.catalog.entries, ctx.live.catalog.entries);
  if (catalogChanged || policy) {
    const found = [
      ...catalogProblems(doc.catalog, newPolicy.lattices),
      ...sanitisedDestinationProblems(doc.catalog, newPolicy),
    ];
    for (const p of found) problems.push({ ...p, field: p.field.replace(/^body\./, "body.catalog.") });
  }

  // The apps: each decision as its route takes it, against the document's catalog and policy.
  const steps: Step[] = [];
  const live = new Map(ctx.liveApps.map((a) => [a.appId, a]));
  const levels = newPolicy.lattices.confidentiality;
  for (const [i, app] of doc.apps.entries()) {
    const at = `body.apps.${i}`;
    const was = live.get(app.appId);
    if (!was) {
      problems.push({ field: `${at}.appId`, message: "no such app: apps are registered by their developer" });
      continue;
    }
    if (app.name !== was.name)
      problems.push({ field: `${at}.name`, message: `this app is "${was.name}": its developer names it` });
    if (app.enabled !== was.enabled) steps.push({ kind: "enable", appId: app.appId, enabled: app.enabled });
    const versions = new Map(was.versions.map((v) => [v.version, v]));
    // The version that serves after the import: only its bindings may change (as PUT bindings).
    const newest = Math.max(
      0,
      ...app.versions.filter((v) => v.status === "approved").map((v) => v.version),
      ...was.versions.filter((v) => v.status === "approved").map((v) => v.version),
    );
    const seen = new Set<number>();
    for (const [j, v] of app.versions.entries()) {
      const vat = `${at}.versions.${j}`;
      const stored = versions.get(v.version);
      if (seen.has(v.version)) problems.push({ field: `${vat}.version`, message: "listed twice" });
      seen.add(v.version);
      if (!stored) {
        problems.push({ field: `${vat}.version`, message: "no such version: its developer submits it" });
        continue;
      }
      if (v.manifestDigest !== stored.manifestDigest) {
        problems.push({
          field: `${vat}.manifestDigest`,
          message: `the registered manifest is ${stored.manifestDigest}: this document was written for another`,
        });
        continue;
      }
      const bindingIssues = () =>
        bindingsProblems(stored, doc.catalog, v.bindings).map((p) => ({
          ...p,
          field: p.field.replace(/^body\./, `${vat}.`),
        }));
      if (stored.status === "pending") {
        if (v.status === "approved") {
          if (v.clearance === null || !levels.includes(v.clearance))
            problems.push({ field: `${vat}.clearance`, message: `one of ${levels.join(", ")}` });
          problems.push(...bindingIssues());
          for (const p of confirmationProblems(stored.manifest, v.destinations))
            problems.push({ ...p, field: p.field.replace(/^body\./, `${vat}.`) });
          const definitions = stored.manifest.mcp?.definitions;
          steps.push({
            kind: "approve",
            appId: app.appId,
            version: v.version,
            approval: {
              approve: true,
              clearance: v.clearance ?? "",
              bindings: v.bindings,
              destinations: v.destinations,
              pins: definitions ? await pinsOf(definitions) : null,
            },
          });
        } else if (v.status === "rejected") {
          if (!v.reason?.trim())
            problems.push({ field: `${vat}.reason`, message: "a rejection gives its reason" });
          else steps.push({ kind: "reject", appId: app.appId, version: v.version, reason: v.reason });
        } else if (v.clearance !== null || v.reason !== null || Object.keys(v.bindings).length) {
          problems.push({
            field: `${vat}.status`,
            message:
              'still pending: its clearance, bindings or reason apply once it is "approved" or "rejected"',
          });
        }
        continue;
      }
      // Reviewed: the decision stands; only the serving version's bindings may change.
      if (v.status !== stored.status) {
        problems.push({
          field: `${vat}.status`,
          message: `already ${stored.status}: a review is not undone (disable the app, or approve a new version)`,
        });
        continue;
      }
      for (const field of ["clearance", "reason", "destinations"] as const)
        if (!same(v[field], stored[field]))
          problems.push({
            field: `${vat}.${field}`,
            message: "set at review: a new version is reviewed with another",
          });
      if (!same(v.bindings, stored.bindings)) {
        if (v.version !== newest) {
          problems.push({
            field: `${vat}.bindings`,
            message: "only the newest approved version's bindings can change",
          });
        } else {
          problems.push(...bindingIssues());
          steps.push({
            kind: "bind",
            appId: app.appId,
            version: v.version,
            before: stored.bindings,
            bindings: v.bindings,
          });
        }
      }
    }
  }
  if (problems.length) return failure("invalid_config", "configuration refused", problems);
  return { ok: true, plan: { policy, catalog: catalogChanged ? doc.catalog : null, apps: steps } };
}

/**
 * One decision an import applied, as the audit row its own route writes (review, enable/disable,
 * bindings: TenantDO), so whatever watches `app_approved` sees an import's approval too.
 */
export type AppliedDecision =
  | { kind: "app_approved"; detail: { appId: string; version: number } & registry.Approval & Via }
  | { kind: "app_rejected"; detail: { appId: string; version: number; approve: false; reason: string } & Via }
  | { kind: "app_enabled" | "app_disabled"; detail: { appId: string } & Via }
  | {
      kind: "app_bindings_changed";
      detail: {
        appId: string;
        version: number;
        before: registry.Bindings;
        bindings: registry.Bindings;
      } & Via;
    };
type Via = { via: "config_import" };
const via = "config_import" as const;

function decisionOf(step: Step): AppliedDecision {
  const { appId } = step;
  switch (step.kind) {
    case "enable":
      return { kind: step.enabled ? "app_enabled" : "app_disabled", detail: { appId, via } };
    case "bind":
      return {
        kind: "app_bindings_changed",
        detail: { appId, version: step.version, before: step.before, bindings: step.bindings, via },
      };
    case "approve": {
      // The pins stay out, as the approve route's row leaves them out: they are in the version.
      const { pins: _, ...approval } = step.approval;
      return { kind: "app_approved", detail: { appId, version: step.version, ...approval, via } };
    }
    case "reject":
      return {
        kind: "app_rejected",
        detail: { appId, version: step.version, approve: false, reason: step.reason, via },
      };
  }
}

/**
 * Writes a checked plan; the caller runs it inside one storage transaction, and audits the
 * decisions returned once it has committed.
 */
export function applyPlan(
  sql: Sql,
  plan: ImportPlan,
): { policyVersion: number | null; catalogVersion: number | null; decisions: AppliedDecision[] } {
  let policyVersion: number | null = null;
  if (plan.policy) {
    for (const k of plan.policy.keys) if ("drop" in k) dropKey(sql, k.setting);
    policyVersion = storePolicy(sql, plan.policy);
  }
  const catalogVersion = plan.catalog ? putCatalog(sql, plan.catalog) : null;
  for (const step of plan.apps) {
    if (step.kind === "enable") registry.setEnabled(sql, step.appId, step.enabled);
    else if (step.kind === "bind") registry.setBindings(sql, step.appId, step.version, step.bindings);
    else {
      const decision =
        step.kind === "approve" ? step.approval : { approve: false as const, reason: step.reason };
      const done = registry.review(sql, step.appId, step.version, decision);
      // Checked pending in this same turn: anything else is a bug, and rolls the transaction back.
      if (!done.ok) throw new Error(`config import: ${done.message}`);
    }
  }
  return { policyVersion, catalogVersion, decisions: plan.apps.map(decisionOf) };
}
