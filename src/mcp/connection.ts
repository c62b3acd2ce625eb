import {
  Client,
  type FetchLike,
  SdkError,
  SdkHttpError,
  StreamableHTTPClientTransport,
  UnauthorizedError,
} from "@modelcontextprotocol/client";
import { CfWorkerJsonSchemaValidator } from "@modelcontextprotocol/client/validators/cf-worker";
import { McpToolDefinition } from "../apps/manifest.ts";
import { definitionOf } from "./definitions.ts";

/**
 * One conversation with an MCP server, through the v2 client SDK (workerd-safe: no code generation;
 * `auto` negotiation speaks 2026-07-28 and falls back to 2025-11-25). Lattice declares no client
 * capabilities, so a server's sampling or elicitation request is refused by the SDK and never reaches
 * a model. Every HTTP exchange has the call's deadline and shares one byte budget; requests go only
 * to the approved URL and redirects are not followed.
 */

export interface McpLimits {
  /** Each exchange (connect, a page of the tool list, the call). */
  timeoutMs: number;
  /** The whole conversation, however many exchanges: default three exchanges' worth. */
  totalMs?: number;
  /** Every response body of the conversation together, listing and call. */
  maxResponseBytes: number;
}

export const MCP_LIMITS: McpLimits = { timeoutMs: 10_000, maxResponseBytes: 1024 * 1024 };
/** A server listing more tools than a manifest can hold is refused, not truncated. */
const MAX_TOOLS = 256;
const MAX_PAGES = 16;

export type McpFailureCode =
  | "app_timeout"
  | "app_error"
  | "app_response_too_large"
  | "authorization_required";
export class McpFailure extends Error {
  readonly code: McpFailureCode;
  constructor(code: McpFailureCode, message: string) {
    super(message);
    this.code = code;
  }
}

/** A server's progress on a call: its numbers only (its `message` is the server's words, not kept). */
export interface McpProgress {
  progress: number;
  total?: number;
}

export interface McpConnection {
  listTools(): Promise<McpToolDefinition[]>;
  /**
   * The raw result; the caller checks it against the pinned definition. With `onProgress`, the call
   * asks for progress (a progressToken) and is told each `notifications/progress` as it arrives.
   */
  callTool(
    name: string,
    args: Record<string, unknown>,
    onProgress?: (progress: McpProgress) => void,
  ): Promise<unknown>;
  close(): Promise<void>;
}

/** Connects (negotiating the protocol era) within the limits; throws `McpFailure`. */
export async function connectMcp(
  url: string,
  headers: Record<string, string>,
  limits: McpLimits = MCP_LIMITS,
  transportFetch: FetchLike = fetch,
): Promise<McpConnection> {
  // Each operation (connect, list, call) has its own deadline; the byte budget is the conversation's.
  const overall = AbortSignal.timeout(limits.totalMs ?? 3 * limits.timeoutMs);
  const clock = { deadline: AbortSignal.any([AbortSignal.timeout(limits.timeoutMs), overall]) };
  const budget = { left: limits.maxResponseBytes };
  const client = new Client(
    { name: "lattice", version: "1" },
    {
      capabilities: {},
      versionNegotiation: { mode: "auto" },
      jsonSchemaValidator: new CfWorkerJsonSchemaValidator(),
    },
  );
  const transport = new StreamableHTTPClientTransport(new URL(url), {
    fetch: limitedFetch(url, clock, budget, transportFetch),
    requestInit: { headers },
  });
  const op = <T>(run: (request: { signal: AbortSignal; timeout: number }) => Promise<T>) => {
    clock.deadline = AbortSignal.any([AbortSignal.timeout(limits.timeoutMs), overall]);
    return guarded(
      () => run({ signal: clock.deadline, timeout: limits.timeoutMs }),
      clock.deadline,
      budget,
      limits,
    );
  };
  await op((request) => client.connect(transport, request));
  return {
    async listTools() {
      const tools: McpToolDefinition[] = [];
      let cursor: string | undefined;
      for (let page = 0; page < MAX_PAGES; page++) {
        const listed = await op((request) => client.listTools(cursor ? { cursor } : undefined, request));
        tools.push(
          ...listed.tools.map((t) =>
            checkedDefinition(definitionOf(t as Parameters<typeof definitionOf>[0])),
          ),
        );
        if (tools.length > MAX_TOOLS)
          throw new McpFailure("app_error", `the server lists more than ${MAX_TOOLS} tools`);
        // Two tools of one name would share a pin: a change to one could hide behind the other.
        if (new Set(tools.map((t) => t.name)).size !== tools.length)
          throw new McpFailure("app_error", "the server lists two tools of one name");
        cursor = listed.nextCursor;
        if (!cursor) return tools;
      }
      throw new McpFailure("app_error", `the server's tool list runs past ${MAX_PAGES} pages`);
    },
    callTool: (name, args, onProgress) =>
      op((request) =>
        client.callTool(
          { name, arguments: args },
          onProgress ? { ...request, onprogress: (p) => onProgress(progressOf(p)) } : request,
        ),
      ),
    close: () => client.close().catch(() => undefined),
  };
}

/** The numbers of a progress notification, whatever else the server put in it. */
const progressOf = (p: { progress: number; total?: number }): McpProgress =>
  p.total === undefined ? { progress: p.progress } : { progress: p.progress, total: p.total };

/** A definition within the limits a stored manifest holds (names, text, schema sizes), or a refusal. */
function checkedDefinition(def: McpToolDefinition): McpToolDefinition {
  if (!McpToolDefinition.safeParse(def).success) {
    throw new McpFailure(
      "app_error",
      `a tool definition exceeds Lattice's limits (${def.name.slice(0, 64)})`,
    );
  }
  return def;
}

/** The SDK's errors (and ours from inside its fetch) as one of the spoke's failure codes. */
async function guarded<T>(
  run: () => Promise<T>,
  deadline: AbortSignal,
  budget: { left: number },
  limits: McpLimits,
): Promise<T> {
  try {
    return await run();
  } catch (error) {
    if (error instanceof McpFailure) throw error;
    if (budget.left < 0) {
      throw new McpFailure(
        "app_response_too_large",
        `the server's answers exceed ${limits.maxResponseBytes} bytes`,
      );
    }
    if (error instanceof UnauthorizedError || (error instanceof SdkHttpError && error.status === 401)) {
      throw new McpFailure(
        "authorization_required",
        "the MCP server refused Lattice's credentials (HTTP 401)",
      );
    }
    if (deadline.aborted || (error instanceof SdkError && /timeout/i.test(String(error.code)))) {
      throw new McpFailure("app_timeout", `the MCP server did not answer within ${limits.timeoutMs} ms`);
    }
    // The server's own words stay out of the message: it may be read by a planner or a user.
    const kind = error instanceof Error ? error.constructor.name : "error";
    throw new McpFailure("app_error", `the MCP server failed (${kind})`);
  }
}

function limitedFetch(
  url: string,
  clock: { deadline: AbortSignal },
  budget: { left: number },
  inner: FetchLike,
): FetchLike {
  const approved = new URL(url);
  return async (input, init) => {
    const target = new URL(input instanceof Request ? input.url : String(input));
    if (target.origin !== approved.origin || target.pathname !== approved.pathname) {
      throw new McpFailure("app_error", "the MCP client was sent to another URL than the approved one");
    }
    const signal = init?.signal ? AbortSignal.any([init.signal, clock.deadline]) : clock.deadline;
    const response = await inner(input, { ...init, redirect: "manual", signal });
    if (!response.body) return response;
    const counted = response.body.pipeThrough(
      new TransformStream<Uint8Array, Uint8Array>({
        transform(chunk, controller) {
          budget.left -= chunk.byteLength;
          if (budget.left < 0) controller.error(new McpFailure("app_response_too_large", "answer too large"));
          else controller.enqueue(chunk);
        },
      }),
    );
    return new Response(counted, {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}
