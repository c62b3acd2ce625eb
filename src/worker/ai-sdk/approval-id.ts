import { purposeKey } from "../../derive.ts";

/**
 * The approval id an AI SDK client answers with: the consent id bound to its tenant and session by
 * an HMAC, so a client can answer only a consent Lattice showed it in that very session. The consent
 * id is readable (the client may show it); the tag is what cannot be forged.
 */
const PREFIX = "lca1";

const key = (secret: string) =>
  purposeKey(secret, "chat-approvals", { name: "HMAC", hash: "SHA-256", length: 256 }, ["sign", "verify"]);

const message = (tenantId: string, sid: string, consentId: string) =>
  new TextEncoder().encode(`${tenantId}\u0000${sid}\u0000${consentId}`);

const b64 = (bytes: Uint8Array) =>
  btoa(String.fromCharCode(...bytes))
    .replaceAll("+", "-")
    .replaceAll("/", "_")
    .replace(/=+$/, "");

export interface ApprovalScope {
  secret: string;
  tenantId: string;
  sid: string;
}

export async function approvalId(scope: ApprovalScope, consentId: string): Promise<string> {
  const tag = await crypto.subtle.sign(
    "HMAC",
    await key(scope.secret),
    message(scope.tenantId, scope.sid, consentId),
  );
  return `${PREFIX}.${consentId}.${b64(new Uint8Array(tag))}`;
}

/** The consent id an approval id names, if it was issued for this tenant and session; else null. */
export async function consentOf(scope: ApprovalScope, id: string): Promise<string | null> {
  const [prefix, consentId, tag, ...rest] = id.split(".");
  if (prefix !== PREFIX || !consentId || !tag || rest.length || consentId.length > 64) return null;
  let bytes: Uint8Array;
  try {
    bytes = Uint8Array.from(atob(tag.replaceAll("-", "+").replaceAll("_", "/")), (c) => c.charCodeAt(0));
  } catch {
    return null;
  }
  const ok = await crypto.subtle.verify(
    "HMAC",
    await key(scope.secret),
    bytes,
    message(scope.tenantId, scope.sid, consentId),
  );
  return ok ? consentId : null;
}
