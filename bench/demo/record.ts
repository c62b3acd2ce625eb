/**
 * What one case study of the demo found, for each system. The demo's tests (in workerd) fill it in as
 * test metadata; the demo reporter (in Node) prints it. Types only: both sides import this file.
 */

export interface Outcome {
  /** Did the attacker get what they wanted? Decided from the apps' state or what the user was shown. */
  attackSucceeded: boolean;
  /** One sentence: what this system did. */
  summary: string;
  /** Facts observed in the run (values shown, consents asked, app state), quoted as they were. */
  evidence: string[];
}

export interface CaseRecord {
  n: number;
  title: string;
  /** What the attacker planted, and where. */
  attack: string;
  /** The user's request. */
  query: string;
  /** The defence the baseline runs without. */
  baselineLacks: string;
  baseline: Outcome;
  lattice: Outcome;
}

declare module "vitest" {
  interface TaskMeta {
    demoCase?: CaseRecord;
  }
}
