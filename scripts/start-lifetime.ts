/**
 * How `npm start` ends: its wrangler processes (each with the workerd it started) stop with it,
 * whichever way it is stopped. `npm start` runs npm → sh → node, and a signal sent to npm's pid is
 * not passed on by sh: the stack used to keep running and its ports stayed taken. So the stack stops
 * on SIGTERM, SIGINT and SIGHUP, and also once the npm (or shell) that started it is gone.
 * Node only, not part of the Worker.
 */
import { readFileSync } from "node:fs";
import { createServer } from "node:net";

/** The parent process of `pid` (Linux's /proc; elsewhere undefined: only the direct parent is watched). */
function parentOf(pid: number): number | undefined {
  try {
    // /proc/<pid>/stat: "pid (comm) state ppid …"; comm may hold spaces, so read after its ")".
    const stat = readFileSync(`/proc/${pid}/stat`, "utf8");
    const ppid = Number(stat.slice(stat.lastIndexOf(")") + 2).split(" ")[1]);
    return Number.isInteger(ppid) && ppid > 1 ? ppid : undefined;
  } catch {
    return undefined;
  }
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch (e) {
    return (e as NodeJS.ErrnoException).code === "EPERM";
  }
}

/**
 * Calls `stop` once on SIGTERM, SIGINT or SIGHUP, or when the processes that started this one are
 * gone: the parent (this process is then re-parented) and, under `npm run`, the npm above its shell.
 */
export function stopWithParent(stop: (reason: string) => void): void {
  let stopped = false;
  const once = (reason: string) => {
    if (stopped) return;
    stopped = true;
    stop(reason);
  };
  for (const signal of ["SIGTERM", "SIGINT", "SIGHUP"] as const) process.on(signal, () => once(signal));
  const parent = process.ppid;
  const npm = process.env.npm_lifecycle_event ? parentOf(parent) : undefined;
  const timer = setInterval(() => {
    if (process.ppid !== parent || !alive(parent)) once("its parent process ended");
    else if (npm !== undefined && !alive(npm)) once("the npm that started it ended");
  }, 500);
  timer.unref();
}

/**
 * Null when `port` is free on `host`; otherwise a sentence saying who holds it and how to stop it
 * (an earlier `npm start` whose pid `.lattice/start.pid` holds, or another program).
 */
export function portTaken(host: string, port: number, pidFile: string): Promise<string | null> {
  return new Promise((resolve) => {
    const server = createServer();
    server.once("error", (e: NodeJS.ErrnoException) => {
      if (e.code !== "EADDRINUSE") return resolve(`cannot listen on ${host}:${port}: ${e.message}`);
      let earlier: number | undefined;
      try {
        earlier = Number(readFileSync(pidFile, "utf8").trim()) || undefined;
      } catch {}
      resolve(
        earlier !== undefined && alive(earlier)
          ? `port ${port} is taken: an earlier npm start (pid ${earlier}) is still running; stop it with Ctrl-C in its terminal or \`kill ${earlier}\`, or set PORT to start another beside it`
          : `port ${port} on ${host} is taken by another program (\`lsof -i :${port}\` or \`ss -ltnp\` names it); stop it or set PORT`,
      );
    });
    server.listen(port, host, () => server.close(() => resolve(null)));
  });
}
