/**
 * `npm run bench:profile [-- --kind tool|qllm] [--steps 8] [--queries 60] [--fresh-sessions]`: where the API Worker's
 * CPU goes on a query. Starts the bench's workerd (bench/perf/workerd.ts), attaches to the API's
 * inspector over the Chrome DevTools Protocol, samples the CPU while the zero-latency scripted model's
 * queries run, and prints the functions with the most self time (and, with --out, writes the
 * .cpuprofile, which Chrome's DevTools opens). A sampling profile: the shares are what count.
 */
import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { ask, finish, openSession, putPolicy, setupTenant } from "./client.ts";
import { benchPolicy, overheadEntries, overheadTag, type StepKind } from "./plans.ts";
import { startWorkerd } from "./workerd.ts";

const { values: args } = parseArgs({
  options: {
    kind: { type: "string", default: "tool" },
    steps: { type: "string", default: "8" },
    queries: { type: "string", default: "60" },
    top: { type: "string", default: "30" },
    out: { type: "string" },
    "fresh-sessions": { type: "boolean", default: false },
  },
});
const kind = args.kind as StepKind;
const steps = Number(args.steps);

interface ProfileNode {
  id: number;
  callFrame: { functionName: string; url: string; lineNumber: number; columnNumber: number };
  hitCount?: number;
  children?: number[];
}
interface Profile {
  nodes: ProfileNode[];
  startTime: number;
  endTime: number;
  samples: number[];
  timeDeltas: number[];
}

/** A DevTools Protocol session over the inspector's WebSocket: send a method, await its result. */
async function devtools(port: number) {
  const targets = (await (await fetch(`http://127.0.0.1:${port}/json`)).json()) as Array<{
    webSocketDebuggerUrl: string;
  }>;
  const target = targets[0];
  if (!target) throw new Error(`no inspector target on port ${port}`);
  // wrangler's inspector proxy wants the Origin of its DevTools page (Node's WebSocket takes headers).
  const ws = new (WebSocket as unknown as new (url: string, init: unknown) => WebSocket)(
    target.webSocketDebuggerUrl,
    { headers: { Origin: "https://devtools.devprod.cloudflare.dev" } },
  );
  await new Promise((resolve, reject) => {
    ws.addEventListener("open", resolve);
    ws.addEventListener("error", reject);
  });
  let next = 1;
  const waiting = new Map<number, (result: unknown) => void>();
  ws.addEventListener("message", (m: { data: unknown }) => {
    const msg = JSON.parse(String(m.data)) as { id?: number; result?: unknown };
    if (msg.id !== undefined) waiting.get(msg.id)?.(msg.result);
  });
  return {
    send: <T>(method: string, params: Record<string, unknown> = {}) =>
      new Promise<T>((resolve) => {
        const id = next++;
        waiting.set(id, resolve as (r: unknown) => void);
        ws.send(JSON.stringify({ id, method, params }));
      }),
    close: () => ws.close(),
  };
}

/** Self time per function (name and place in the bundle), largest first, in ms. */
function selfTimes(profile: Profile): Array<{ fn: string; ms: number; share: number }> {
  const byNode = new Map(profile.nodes.map((n) => [n.id, n]));
  const ms = new Map<string, number>();
  profile.samples.forEach((id, i) => {
    const f = byNode.get(id)!.callFrame;
    const key = `${f.functionName || "(anonymous)"} ${f.url.split("/").pop()}:${f.lineNumber + 1}`;
    ms.set(key, (ms.get(key) ?? 0) + (profile.timeDeltas[i] ?? 0) / 1000);
  });
  const busy = [...ms].filter(([k]) => !k.startsWith("(idle)"));
  const total = busy.reduce((s, [, v]) => s + v, 0);
  return busy
    .map(([fn, v]) => ({ fn, ms: Math.round(v), share: Math.round((v / total) * 1000) / 10 }))
    .sort((a, b) => b.ms - a.ms);
}

const workerd = await startWorkerd();
try {
  const tenant = await setupTenant(workerd, ["contacts"], `profile-${Date.now().toString(36)}`);
  await putPolicy(tenant, benchPolicy(overheadEntries([steps])));
  // Four users' sessions, opened once (steady state, as the throughput bench); with --fresh-sessions
  // each query opens its own (a new conversation: its hub's tables are created on the way).
  const sessions = await Promise.all([0, 1, 2, 3].map((u) => openSession(tenant, `profile-${u}`)));
  const run = async (n: number) => {
    for (let i = 0; i < n; i++) {
      const sid = args["fresh-sessions"] ? await openSession(tenant, `profile-${i % 4}`) : sessions[i % 4]!;
      await finish(tenant, sid, await ask(tenant, sid, overheadTag(kind, steps)), 10);
    }
  };
  await run(5); // warm: JIT, first objects
  const inspector = await devtools(workerd.inspector);
  await inspector.send("Profiler.enable");
  await inspector.send("Profiler.setSamplingInterval", { interval: 200 });
  await inspector.send("Profiler.start");
  const started = Date.now();
  await run(Number(args.queries));
  const { profile } = await inspector.send<{ profile: Profile }>("Profiler.stop");
  inspector.close();
  const wall = Date.now() - started;
  const rows = selfTimes(profile);
  const busy = rows.reduce((s, r) => s + r.ms, 0);
  console.log(
    `${args.queries} queries of ${steps} ${kind} steps: ${wall} ms wall, ${busy} ms sampled busy in the API Worker ` +
      `(${Math.round((busy / Number(args.queries)) * 10) / 10} ms per query)`,
  );
  for (const r of rows.slice(0, Number(args.top)))
    console.log(`${String(r.ms).padStart(6)} ms ${String(r.share).padStart(5)}%  ${r.fn}`);
  if (args.out) writeFileSync(args.out, JSON.stringify(profile));
} finally {
  await workerd.stop();
}
