import { spawn } from "node:child_process";
import { existsSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { createInterface } from "node:readline/promises";
import { fileURLToPath } from "node:url";
import { type ParseArgsConfig, parseArgs } from "node:util";
import { type Api, ApiRefused, connect, type Problem } from "./api.ts";
import { changeLines, type DiffResult, type Imported } from "./print.ts";

/** What the CLI is given by its process (or a test): no global is read past this. */
export interface Io {
  env: Record<string, string | undefined>;
  out(text: string): void;
  err(text: string): void;
  /** Whether a person can answer a question (import asks before it writes, unless --yes). */
  interactive: boolean;
  /** The answer to a yes/no question; a terminal's by default. */
  ask?(question: string): Promise<string>;
}

/** Exit codes: 0 done, 1 the API refused or could not be reached, 2 the command line is wrong. */
export const EXIT = { ok: 0, refused: 1, usage: 2 } as const;

class Usage extends Error {}

const CONNECTION = {
  url: { type: "string" },
  key: { type: "string" },
  help: { type: "boolean", short: "h" },
} as const;
const CONNECTION_HELP = `
  --url URL    the API (default: $LATTICE_URL, else http://127.0.0.1:8787)
  --key KEY    an admin key (default: $LATTICE_ADMIN_KEY; prefer the variable: a flag is seen by ps)`;

interface Command {
  summary: string;
  usage: string;
  options: NonNullable<ParseArgsConfig["options"]>;
  positionals: string[];
  run(args: Args, io: Io): Promise<number>;
}
interface Args {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

const COMMANDS: Record<string, Command> = {
  "tenant create": {
    summary: "create a tenant and print its first admin key (shown once)",
    usage: `lattice tenant create <name> [--operator-secret S] [--json] [--url URL]

  --operator-secret S   the deployment's operator secret (default: $LATTICE_OPERATOR_SECRET, else
                        LATTICE_OPERATOR_SECRET in ./.dev.vars, which npm start writes)
  --json                print {tenantId, name, adminKey} as JSON`,
    options: { ...CONNECTION, "operator-secret": { type: "string" }, json: { type: "boolean" } },
    positionals: ["name"],
    run: tenantCreate,
  },
  export: {
    summary: "print the tenant's configuration document (or write it to a file)",
    usage: `lattice export [--out FILE]
${CONNECTION_HELP}
  --out FILE   write the document to FILE instead of printing it`,
    options: { ...CONNECTION, out: { type: "string" } },
    positionals: [],
    run: exportConfig,
  },
  diff: {
    summary: "show what importing a document would change in the live tenant",
    usage: `lattice diff <file> [--json]
${CONNECTION_HELP}
  --json       print the API's answer as JSON

Exits 1 when the document would be refused (its problems are listed, by field).`,
    options: { ...CONNECTION, json: { type: "boolean" } },
    positionals: ["file"],
    run: diffConfig,
  },
  import: {
    summary: "apply a document to the tenant: shown first, applied whole or not at all",
    usage: `lattice import <file> [--yes]
${CONNECTION_HELP}
  --yes        apply without asking (needed when no one is at a terminal)

The import is sent with the ETag of the diff it shows: if the tenant changes in between, nothing
is applied (412) and the command says so.`,
    options: { ...CONNECTION, yes: { type: "boolean", short: "y" } },
    positionals: ["file"],
    run: importConfig,
  },
  demo: {
    summary: "start the API and the demo apps with a seeded demo tenant (what `npm start` does)",
    usage: `lattice demo

Runs the repository's scripts/start.ts (npm start): the API and the demo apps under wrangler dev,
and a seeded demo tenant whose keys it prints. Stop it with Ctrl-C.`,
    options: { help: { type: "boolean", short: "h" } },
    positionals: [],
    run: demo,
  },
};

const USAGE = `lattice <command> [options]

Commands:
${Object.entries(COMMANDS)
  .map(([name, c]) => `  ${name.padEnd(15)}${c.summary}`)
  .join("\n")}

Each command takes --help. Exit codes: 0 done, 1 refused by the API or unreachable, 2 wrong usage.
The configuration document is described in docs/config-as-code.md.
`;

export async function main(argv: string[], io: Io): Promise<number> {
  const name = argv[0] === "tenant" ? `tenant ${argv[1] ?? ""}`.trim() : argv[0];
  if (name === undefined || name === "--help" || name === "-h" || name === "help") {
    io.out(USAGE);
    return EXIT.ok;
  }
  const command = COMMANDS[name];
  if (!command) {
    io.err(`lattice: no command "${name}"\n\n${USAGE}`);
    return EXIT.usage;
  }
  try {
    const rest = argv.slice(name.split(" ").length);
    const parsed = parseArgs({ args: rest, options: command.options, allowPositionals: true, strict: true });
    if (parsed.values.help) {
      io.out(`${command.usage}\n`);
      return EXIT.ok;
    }
    if (parsed.positionals.length !== command.positionals.length) {
      const wanted = command.positionals.map((p) => `<${p}>`).join(" ") || "no argument";
      throw new Usage(`${name} takes ${wanted}`);
    }
    return await command.run(parsed as Args, io);
  } catch (error) {
    if (error instanceof ApiRefused) {
      io.err(`lattice: ${error.message}\n${problemLines(error.problems)}`);
      return EXIT.refused;
    }
    if (error instanceof Usage || isParseError(error)) {
      io.err(`lattice: ${(error as Error).message}\n\n${command.usage}\n`);
      return EXIT.usage;
    }
    throw error;
  }
}

/** node:util's parseArgs refusals (an unknown option, a missing value) are usage errors. */
const isParseError = (error: unknown) =>
  error instanceof TypeError && "code" in error && String(error.code).startsWith("ERR_PARSE_ARGS");

function problemLines(problems: Problem[]): string {
  // A document's fields are the request body's: named as they stand in the file.
  return problems.map((p) => `  ${p.field.replace(/^body\./, "")}: ${p.message}\n`).join("");
}

function api(args: Args, io: Io): Api {
  const url = (args.values.url as string | undefined) ?? io.env.LATTICE_URL ?? "http://127.0.0.1:8787";
  const key = (args.values.key as string | undefined) ?? io.env.LATTICE_ADMIN_KEY;
  if (!key) throw new Usage("no admin key: set LATTICE_ADMIN_KEY (or pass --key)");
  return connect(url, key);
}

/** The document in a file: JSON, at most the API's 1 MiB body. */
function readDocument(file: string): unknown {
  if (!existsSync(file)) throw new Usage(`no file ${file}`);
  if (statSync(file).size > 1024 * 1024) throw new Usage(`${file} is over 1 MiB, the API's limit`);
  try {
    return JSON.parse(readFileSync(file, "utf8"));
  } catch (error) {
    throw new Usage(`${file} is not JSON: ${(error as Error).message}`);
  }
}

async function tenantCreate(args: Args, io: Io): Promise<number> {
  const name = args.positionals[0]!;
  const secret =
    (args.values["operator-secret"] as string | undefined) ??
    io.env.LATTICE_OPERATOR_SECRET ??
    devVar("LATTICE_OPERATOR_SECRET");
  if (!secret)
    throw new Usage(
      "no operator secret: set LATTICE_OPERATOR_SECRET (or run `npm start` once to write .dev.vars)",
    );
  const url = (args.values.url as string | undefined) ?? io.env.LATTICE_URL ?? "http://127.0.0.1:8787";
  const created = (await connect(url, secret).call("POST", "/v1/operator/tenants", { name })).body as {
    tenantId: string;
    adminKey: { secret: string };
  };
  if (args.values.json)
    io.out(`${JSON.stringify({ tenantId: created.tenantId, name, adminKey: created.adminKey.secret })}\n`);
  else io.out(`tenant ${created.tenantId} (${name})\nadmin key (shown once): ${created.adminKey.secret}\n`);
  return EXIT.ok;
}

function devVar(name: string): string | undefined {
  if (!existsSync(".dev.vars")) return undefined;
  const line = readFileSync(".dev.vars", "utf8")
    .split("\n")
    .find((l) => l.trim().startsWith(`${name}=`));
  return line
    ?.slice(line.indexOf("=") + 1)
    .trim()
    .replace(/^"|"$/g, "");
}

async function exportConfig(args: Args, io: Io): Promise<number> {
  const { body, etag } = await api(args, io).call("GET", "/v1/admin/config");
  const text = `${JSON.stringify(body, null, 2)}\n`;
  const out = args.values.out as string | undefined;
  if (out) {
    writeFileSync(out, text);
    io.err(`wrote ${out} (ETag ${etag})\n`);
  } else io.out(text);
  return EXIT.ok;
}

async function diffConfig(args: Args, io: Io): Promise<number> {
  const file = args.positionals[0]!;
  const document = readDocument(file);
  const result = (await api(args, io).call("POST", "/v1/admin/config/diff", document)).body as DiffResult;
  if (args.values.json) io.out(`${JSON.stringify(result, null, 2)}\n`);
  else io.out(changeLines(result));
  if (!result.problems.length) return EXIT.ok;
  if (!args.values.json)
    io.err(`lattice: ${file} would be refused (nothing applied):\n${problemLines(result.problems)}`);
  return EXIT.refused;
}

async function importConfig(args: Args, io: Io): Promise<number> {
  const file = args.positionals[0]!;
  const document = readDocument(file);
  const client = api(args, io);
  const result = (await client.call("POST", "/v1/admin/config/diff", document)).body as DiffResult;
  io.out(changeLines(result));
  if (result.problems.length) {
    io.err(`lattice: ${file} refused, nothing applied:\n${problemLines(result.problems)}`);
    return EXIT.refused;
  }
  if (result.diff.identical) return EXIT.ok;
  if (!args.values.yes) {
    if (!io.interactive) throw new Usage("no terminal to confirm at: pass --yes to apply");
    const answer = await (io.ask ?? askTerminal)("Apply these changes? [y/N] ");
    if (!/^y(es)?$/i.test(answer.trim())) {
      io.err("not applied\n");
      return EXIT.refused;
    }
  }
  try {
    const done = (await client.call("PUT", "/v1/admin/config", document, { "If-Match": result.etag }))
      .body as Imported;
    io.out(
      `imported ${done.applied.length} change${done.applied.length === 1 ? "" : "s"} (ETag ${done.etag})\n`,
    );
    for (const b of done.broken)
      io.out(`  binding no longer holds: ${b.app}.${b.functionality} → ${b.entry} (rebind it)\n`);
    return EXIT.ok;
  } catch (error) {
    if (error instanceof ApiRefused && error.status === 412)
      throw new ApiRefused(
        412,
        "the tenant changed since this diff: nothing applied; run the import again",
        [],
      );
    throw error;
  }
}

async function askTerminal(question: string): Promise<string> {
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return await rl.question(question);
  } finally {
    rl.close();
  }
}

/** `npm start`, from the repository this CLI is part of (the demo is the repository's). */
async function demo(_args: Args, io: Io): Promise<number> {
  const root = fileURLToPath(new URL("../../../", import.meta.url));
  if (!existsSync(`${root}scripts/start.ts`)) {
    io.err("lattice: the demo runs from the Lattice repository: clone it and run `npm start` there\n");
    return EXIT.usage;
  }
  const child = spawn(process.execPath, ["scripts/start.ts"], { cwd: root, stdio: "inherit" });
  return new Promise((resolve) => child.on("exit", (code) => resolve(code ?? EXIT.refused)));
}
