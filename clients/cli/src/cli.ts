#!/usr/bin/env node
// Runs as TypeScript under Node 22.18+ (type stripping): `npx lattice` finds the project's `node`
// devDependency first on PATH. The work is in main.ts, which tests call without a process.
import { main } from "./main.ts";

process.exitCode = await main(process.argv.slice(2), {
  env: process.env,
  out: (text) => process.stdout.write(text),
  err: (text) => process.stderr.write(text),
  interactive: Boolean(process.stdin.isTTY),
});
