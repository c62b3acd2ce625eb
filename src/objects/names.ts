/**
 * Durable Object names derive from server-verified ids only (the tenant comes from the API key,
 * never from the request body), so no request can address another tenant's or user's object.
 * Ids are validated before use, so a crafted id cannot collide with another name (no ":" allowed).
 */
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isValidId(id: string): boolean {
  return ID.test(id);
}

function checked(...ids: string[]): string {
  for (const id of ids) if (!isValidId(id)) throw new Error(`invalid object id component: ${id}`);
  return ids.join(":");
}

export const tenantObjectName = (tenantId: string) => `tenant:${checked(tenantId)}`;
export const artifactsObjectName = (tenantId: string, userId: string) =>
  `artifacts:${checked(tenantId, userId)}`;
/** A session id is random and unguessable; the hub records its user and answers for no other. */
export const hubObjectName = (tenantId: string, sessionId: string) => `hub:${checked(tenantId, sessionId)}`;
export const spokeObjectName = (tenantId: string, userId: string, appId: string) =>
  `spoke:${checked(tenantId, userId, appId)}`;
