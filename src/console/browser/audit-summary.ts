/**
 * An audit row's one-line summary: the event in words and the facts an admin scans for (who, which
 * app, tool or route, what was decided), taken from its detail. The detail itself stays one click
 * away; values in it are data and are shown as such (the summary's facts are ids, names and codes).
 */
const WORDS: Record<string, string> = {
  api_write: "API write",
  operator_key_issued: "Key issued by the operator",
  user_token_issued: "User token issued",
  user_erased: "User data erased",
  app_registered: "App registered",
  app_secret_rotated: "App signing secret rotated",
  app_approved: "App version approved",
  app_rejected: "App version rejected",
  app_enabled: "App enabled",
  app_disabled: "App disabled",
  app_credential_stored: "App credential stored",
  mcp_tools_changed: "MCP server's tools changed",
  catalog_updated: "Catalog updated",
  config_imported: "Configuration imported",
  policy_updated: "Policy updated",
  policy_refused: "Policy refused",
  quota_exceeded: "Quota exceeded",
  plan_invalid: "Plan invalid",
  plan_rejected: "Plan rejected as unsafe",
  display_redacted: "Value withheld from display",
  consent_asked: "Consent asked",
  consent_answered: "Consent answered",
  consent_expired: "Consent expired",
  consent_withdrawn: "Consent withdrawn by the asking app",
  collaboration_refused: "Collaboration refused",
  collaboration_failed: "Collaboration failed",
  query_failed: "Query failed",
  runtime_flow_blocked: "Flow blocked at run time",
  standing_rule_used: "Standing rule used",
  flow_vouched: "Flow vouched for",
  malformed_app_request: "Malformed request to an app",
  malformed_app_response: "Malformed answer from an app",
  egress_refused: "Call to an undeclared host refused",
  app_call_failed: "App call failed",
  mcp_tool_failed: "MCP tool failed",
  visor_exception: "AgentVisor exception",
  app_authorized: "App sign-in completed",
  app_authorization_refused: "App sign-in refused",
};

/** Facts worth a glance, in this order; each is shown only when it is a short plain value. */
const FACTS: Array<[string, (v: string) => string]> = [
  ["userId", (v) => `user ${v}`],
  ["user", (v) => `user ${v}`],
  ["role", (v) => `${v} key`],
  ["app", (v) => `app ${v}`],
  ["appName", (v) => `app ${v}`],
  ["name", (v) => v],
  ["version", (v) => `version ${v}`],
  ["tool", (v) => `tool ${v}`],
  ["kind", (v) => v.replace(/_/g, " ")],
  ["decision", (v) => (v === "allow" ? "allowed" : v === "deny" ? "denied" : v)],
  ["scope", (v) => v],
  ["code", (v) => v],
  ["status", (v) => `status ${v}`],
];

const short = (v: unknown): string | null =>
  (typeof v === "string" && v.length <= 80) || typeof v === "number" || typeof v === "boolean"
    ? String(v)
    : null;

export function auditSummary(e: { type: string; detail: Record<string, unknown> }): string {
  const d = e.detail ?? {};
  const words = WORDS[e.type] ?? e.type.replace(/_/g, " ");
  const facts: string[] = [];
  const method = short(d.method);
  const path = short(d.path);
  if (method && path) facts.push(`${method} ${path}`);
  for (const [key, say] of FACTS) {
    const v = short(d[key]);
    if (v !== null) facts.push(say(v));
  }
  return facts.length ? `${words}: ${facts.join(", ")}` : words;
}
