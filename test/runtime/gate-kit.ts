/** What runtime tests give a Gate besides the case at hand: every defence on, ports that answer nothing. */
import type { GatePorts } from "../../src/runtime/gate.ts";
import type { Defences } from "../../src/runtime/records.ts";

export const ALL_DEFENCES: Defences = {
  ifc: true,
  consent: true,
  isolation: true,
  visor: { S: true, T: true, I: true },
  pins: true,
  boundary: true,
  namedArtifacts: true,
  ruleScope: true,
  endorseFirst: true,
};

/** No grants, rules or answers yet, every app authorized, audits dropped; `over` replaces any of them. */
export function quietPorts(over: Partial<GatePorts> = {}): GatePorts {
  return {
    standing: async () => null,
    standingRules: async () => [],
    consent: () => null,
    authorization: async () => ({ authorized: true as const }),
    audit: () => {},
    ...over,
  };
}
