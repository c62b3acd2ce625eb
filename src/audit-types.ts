/**
 * Every type of event the tenant's audit log records, in one closed union: the runtime and the
 * objects write them, an admin filters by them (GET /v1/admin/audit). A new kind of event is added
 * here first. Rows written before a type was renamed read back as plain strings (AuditEvent.type).
 */
export const AUDIT_TYPES = [
  // The API's own writes (the access log, keys and tokens issued at the edge).
  "api_write",
  "operator_key_issued",
  "user_token_issued",
  // A user's data erased (#34): what was cleared, who asked.
  "user_erased",
  // The tenant: its apps, catalog, policy, model keys and quotas.
  "app_registered",
  "app_secret_rotated",
  "app_approved",
  "app_bindings_changed",
  "app_rejected",
  "app_enabled",
  "app_disabled",
  "app_credential_stored",
  // A developer's try-it call of their own app version (POST /v1/apps/{id}/versions/{v}/try).
  "app_tried",
  "mcp_tools_changed",
  "catalog_updated",
  "policy_updated",
  "policy_refused",
  "config_imported",
  "quota_exceeded",
  "model_key_unreadable",
  "model_key_migration_failed",
  // A query in the hub: its plan, consents, collaborations and failure.
  "plan_invalid",
  "plan_rejected",
  "display_redacted",
  "consent_asked",
  "consent_answered",
  "consent_expired",
  "consent_withdrawn",
  "collaboration_refused",
  "collaboration_failed",
  "forged_ephemeral_id",
  "query_failed",
  // The runtime's information-flow gate.
  "runtime_flow_blocked",
  "standing_rule_used",
  "flow_vouched",
  // A spoke's call of its app.
  "malformed_app_request",
  "malformed_app_response",
  "egress_refused",
  "app_call_failed",
  "mcp_tool_failed",
  "visor_exception",
  "app_authorized",
  "personal_token_set",
  "personal_token_dropped",
  "app_authorization_refused",
] as const;

export type AuditType = (typeof AUDIT_TYPES)[number];
