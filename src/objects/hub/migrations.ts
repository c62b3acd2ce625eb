import { CONSENT_MIGRATIONS } from "./consents.ts";
import { EPHEMERAL_MIGRATIONS } from "./ephemeral.ts";
import { STORE_MIGRATIONS } from "./store.ts";

/** A hub's tables, each module's own list (see sql.ts's keyed migrations). */
export const HUB_MIGRATIONS = {
  ephemeral: EPHEMERAL_MIGRATIONS,
  store: STORE_MIGRATIONS,
  consents: CONSENT_MIGRATIONS,
};
/** The order the modules' lists were spliced in before migrations were keyed (see sql.ts). */
export const HUB_LEGACY_LAYOUT = [
  ["ephemeral", 1],
  ["store", 5],
  ["consents", 3],
] as const;
