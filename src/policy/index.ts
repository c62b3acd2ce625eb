/**
 * The policy core: labels and lattices, the tenant policy, the plan DSL, its validator and the
 * information-flow verifier. Pure: it imports zod and nothing else.
 */
import type { PlanContext } from "./context.ts";
import type { PlanError } from "./plan-errors.ts";
import { type ValidPlan, validatePlan } from "./validate.ts";
import { type Verdict, verifyPlan } from "./verify.ts";

export type { CallFinding, SinkFinding } from "./call-check.ts";
export { checkCall, sinkFindings } from "./call-check.ts";
export type {
  ArtifactIndex,
  ArtifactMeta,
  Catalog,
  CatalogEntry,
  PlanContext,
  SchemaChecker,
} from "./context.ts";
export { DEFAULT_CLEARANCE, defaultClearance } from "./context.ts";
export type { Correction, CorrectionItem } from "./correction.ts";
export { buildCorrection } from "./correction.ts";
export { at as valuesAtPath, leavesAt, pathResolves, scalars, valuesAt } from "./destinations.ts";
export type {
  CompareOp,
  ConditionStep,
  DisplayStep,
  Expr,
  JsonValue,
  LoopStep,
  PathElement,
  Plan,
  Pred,
  QllmStep,
  RetrieveStep,
  SelectPick,
  SelectStep,
  SelectWhere,
  Step,
  ToolStep,
} from "./dsl.ts";
export {
  ExprSchema,
  NAME_PATTERN,
  PlanSchema,
  PredSchema,
  planJsonSchema,
  RESERVED_NAMES,
  SELECT_PICKS,
  StepSchema,
} from "./dsl.ts";
export {
  argumentRequirement,
  callRequirement,
  clearanceOf,
  displayRequirement,
  isSchemaDestination,
  outputBaseline,
  sanitisedDestinations,
} from "./endpoints.ts";
export type { Flow, Source } from "./flow.ts";
export { ibanChecksumHolds } from "./iban.ts";
export type { Destination, DestinationSource } from "./inferred-destinations.ts";
export {
  addressKind,
  callDestinations,
  DESTINATION_FORMATS,
  DESTINATION_WORDS,
  inferredDestinations,
  isDestinationName,
  namedDestinations,
  schemaDestinations,
} from "./inferred-destinations.ts";
export { deepFreeze, isRecord } from "./json.ts";
export type { FlowRule, Label, Requirement } from "./labels.ts";
export {
  bottomLabel,
  flowAllowed,
  flowsTo,
  flowViolations,
  join,
  joinAll,
  labelEquals,
  normalizeLabel,
  topLabel,
} from "./labels.ts";
export type { Lattice, Lattices } from "./lattice.ts";
export {
  DEFAULT_CONFIDENTIALITY,
  DEFAULT_INTEGRITY,
  DEFAULT_LATTICES,
  highest,
  makeLattice,
  makeLattices,
  totalOrderProblem,
} from "./lattice.ts";
export type { PlanError, ValidationRule } from "./plan-errors.ts";
export type {
  ArgumentPolicy,
  ModelRole,
  ParsePolicyResult,
  Policy,
  PolicyInput,
  PolicyIssue,
  ToolPolicy,
} from "./policy-schema.ts";
export {
  DEFAULT_POLICY,
  PolicySchema,
  parseNewPolicy,
  parsePolicy,
  policyLattices,
} from "./policy-schema.ts";
export type { QueryIndex } from "./provenance.ts";
export { indexQuery, isStated, literalLabel, plannerLabel } from "./provenance.ts";
export type { Reference, UnreadableKind } from "./references.ts";
export { isUnreadable, references } from "./references.ts";
export {
  constructedLabel,
  displayLabel,
  exprLabel,
  guardedPc,
  initialPc,
  loopOutLabel,
  loopVarLabel,
  predLabel,
  projectionLabel,
  qllmInstructionLabel,
  qllmOutputLabel,
  selectOutputLabel,
  selectPathsLabel,
  sinkLabel,
  toolOutputLabel,
} from "./runtime-labels.ts";
export type {
  RuleCall,
  RuleCondition,
  StandingRule,
  StandingRuleDraft,
  StandingRuleInput,
} from "./standing-rules.ts";
export {
  describeRule,
  parseStandingRule,
  ruleCovers,
  StandingRuleInputSchema,
  standingRulesAllowed,
} from "./standing-rules.ts";
export type { StrictDecode } from "./strict-plan.ts";
export { decodeStrictPlan, strictPlanJsonSchema } from "./strict-plan.ts";
export {
  AUTHOR_NAMES,
  type AuthorName,
  authoredName,
  authoredPathMessage,
  trustedLeaves,
} from "./trusted-paths.ts";
export type { ArgStanding, UnaskedRefusal } from "./unasked.ts";
export { unaskedRefusal } from "./unasked.ts";
export type { ValidationResult, ValidPlan } from "./validate.ts";
export { validatePlan } from "./validate.ts";
export type { DisplayCheck, Verdict, Violation } from "./verify.ts";
export { verifyPlan } from "./verify.ts";
export type { PoolSource, Remedy, Vouch } from "./vouch.ts";
export { remedyOf, TrustedPool, vouch } from "./vouch.ts";

export type PlanCheck =
  | { readonly stage: "validate"; readonly ok: false; readonly errors: readonly PlanError[] }
  | { readonly stage: "verify"; readonly ok: boolean; readonly plan: ValidPlan; readonly verdict: Verdict };

/** Validate, then verify: what the hub runs on the planner's output before any step executes. */
export function checkPlan(input: unknown, ctx: PlanContext): PlanCheck {
  const v = validatePlan(input, ctx);
  if (!v.ok) return { stage: "validate", ok: false, errors: v.details };
  const verdict = verifyPlan(v.plan, ctx);
  return { stage: "verify", ok: verdict.ok, plan: v.plan, verdict };
}
export type { Assessment, CallFacts, ConsentKind, ConsentNeed, Remedied, Scope } from "./permissions.ts";
export { allowedScopes, assess, CONSENT_KINDS, consentFor, SCOPES } from "./permissions.ts";
export type { SemanticException, VisorCheck, VisorInput, VisorTool } from "./visor.ts";
export { audit as visorAudit } from "./visor.ts";
