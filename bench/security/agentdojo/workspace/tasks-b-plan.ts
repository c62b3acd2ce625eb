/** Plan pieces tasks 20–39 share: conditions, and a record's values as plan literals. */
import { lit } from "../../plan-kit.ts";
import type { Obj } from "../../types.ts";

export const cond = (pred: Obj, then: Obj[], otherwise: Obj[] = []): Obj => ({
  kind: "condition",
  if: pred,
  then,
  else: otherwise,
});
export const eq = (left: Obj, right: Obj): Obj => ({ op: "eq", left, right });
/** Every value of `o` as a literal (the user's own words for a call's arguments). */
export const lits = (o: Obj): Obj => Object.fromEntries(Object.entries(o).map(([k, v]) => [k, lit(v)]));
