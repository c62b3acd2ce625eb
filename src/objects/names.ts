/**
 * Durable Object names derive from server-verified ids only (the tenant comes from the API key,
 * never from the request body), so no request can address another tenant's or user's object.
 * Ids are validated before use, so a crafted id cannot collide with another name (no ":" allowed).
 */
const ID = /^[A-Za-z0-9_-]{1,128}$/;

export function isValidId(id: string): boolean {
  return ID.test(id);
}

/**
 * User ids Lattice keeps for itself: a real user's id (UserIdSchema, the edge's one check of a
 * frontend's user ids) may not start with it, so a synthetic user's objects (a developer's try-it
 * spoke) can never be a real user's, whatever id a frontend picks. Compared case-insensitively, so
 * no spelling of the prefix gets through.
 */
export const RESERVED_USER_PREFIX = "_lattice";

export function isReservedUserId(id: string): boolean {
  return id.toLowerCase().startsWith(RESERVED_USER_PREFIX);
}

/** The synthetic user a developer key's try-it calls run as: one per key, never a real user. */
export function tryUserId(keyId: string): string {
  const id = `${RESERVED_USER_PREFIX}_try_${keyId}`;
  if (!isValidId(id)) throw new Error(`a developer key id that cannot name a try-it user: ${keyId}`);
  return id;
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
