import {
  highest,
  join,
  type Label,
  type Lattices,
  type PoolSource,
  type ToolPolicy,
  trustedLeaves,
} from "../policy/index.ts";
import type { Pc } from "./run-context.ts";
import type { Labeled } from "./values.ts";

/**
 * What an app's answer is once it arrives: its final label (what the agent that wrote it read) and
 * the trusted values it may add to the query's pool. Pure: the interpreter calls these for a fresh
 * answer and for one replayed from the journal, so both reach the same label and the same pool.
 */

/** The journal info mark of a tool answer from an agent that read content, other apps' answers or memory. */
export const AGENT_READ = "agentRead";

/** What the spoke says the app's agent read while answering. */
export interface AgentReads {
  readUntrusted?: boolean;
  relayed?: readonly string[];
  remembered?: readonly string[];
}

/**
 * The answer's label: the computed one, no more than untrusted for an agent that read content, and
 * raised to the confidentiality of other apps' answers it was relayed (collaboration) and of memory
 * (counted only under `ifc`: what it was given, not what its label carries). `agentRead` holds
 * whenever it read any of these, `ifc` or not.
 */
export function answerLabel(
  l: Lattices,
  computed: Label,
  reads: AgentReads,
  ifc: boolean,
): { final: Label; agentRead: boolean } {
  const conf = l.confidentiality;
  const read = [...(reads.relayed ?? []), ...(ifc ? (reads.remembered ?? []) : [])];
  const base = reads.readUntrusted ? { ...computed, integrity: l.integrity.bottom } : computed;
  const final = join(l, base, {
    confidentiality: highest(conf, read, conf.bottom),
    integrity: l.integrity.top,
  });
  const agentRead = reads.readUntrusted === true || !!reads.relayed?.length || !!reads.remembered?.length;
  return { final, agentRead };
}

/**
 * A journaled answer's `agentRead`: its mark, or, in a journal written before the mark existed, a
 * label other than the computed one (the agent read something).
 */
export function replayedAgentRead(
  info: Readonly<Record<string, unknown>> | null | undefined,
  final: Label,
  computed: Label,
): boolean {
  return info?.[AGENT_READ] === true || !sameLabel(final, computed);
}

const sameLabel = (a: Label, b: Label) =>
  a.confidentiality === b.confidentiality && a.integrity === b.integrity;

/**
 * The trusted values an answer adds to the query's pool, or null. They are the app's own records
 * (a channel that exists), trusted as values whatever step reads them later; never an agent's
 * answer once it read content, another app's answer or its memory, since a hijacked agent writes
 * `{email: "attacker@evil.test"}` at the very path the policy trusts (#43, M1). A path through a
 * sender or author vouches nothing, though a stored policy may list it (`trustedLeaves`). A record
 * made from content (a file whose words a q-llm wrote) is content's: its id may still be matched,
 * but no stored answer takes it for the user's (unasked.ts).
 */
export function answerPoolSource(input: {
  l: Lattices;
  key: string;
  tool: string;
  toolPolicy: ToolPolicy | undefined;
  /** A comparison's answers are read, never trusted as lists: any bound provider may have written them. */
  comparison: boolean;
  value: unknown;
  final: Label;
  agentRead: boolean;
  args: Readonly<Record<string, Labeled>>;
  pc: Pc;
}): PoolSource | null {
  const paths = (!input.comparison && input.toolPolicy?.trustedValues) || [];
  if (!paths.length || input.agentRead) return null;
  const top = input.l.integrity.top;
  const contentMade =
    input.pc.label.integrity !== top || Object.values(input.args).some((a) => a.label.integrity !== top);
  return {
    name: input.key,
    value: undefined,
    label: input.final,
    tool: input.tool,
    trusted: trustedLeaves(input.value, paths),
    contentMade,
  };
}
