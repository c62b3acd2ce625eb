/** npm run console:build: writes the console's bundled script as src/console/script.gen.ts (see console-bundle.ts). */
import { writeFileSync } from "node:fs";
import { join } from "node:path";
import { bundleConsole, consoleModule, OUT } from "./console-bundle.ts";

const text = consoleModule(bundleConsole());
writeFileSync(join(import.meta.dirname, "..", OUT), text);
console.log(`wrote ${OUT} (${text.length} characters)`);
