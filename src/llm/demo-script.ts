import type { ScriptEntry } from "./types.ts";

/** The offline demo's scripted model (filled with the demo scenarios by the hub issue). */
export const DEMO_SCRIPT: ScriptEntry[] = [];
