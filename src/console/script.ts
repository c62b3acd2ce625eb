import { ADMIN } from "./client/admin.ts";
import { AUDIT } from "./client/audit.ts";
import { CHAT } from "./client/chat.ts";
import { CORE } from "./client/core.ts";
import { DEVELOPER } from "./client/developer.ts";
import { MY_DATA } from "./client/my-data.ts";
import { PLAN } from "./client/plan.ts";
import { POLICY_EDITOR } from "./client/policy-editor.ts";
import { QUERY } from "./client/query.ts";

/** The console's one served script: the core first, each page's part after it, then the boot. */
export const SCRIPT = `${CORE}${QUERY}${CHAT}${PLAN}${MY_DATA}${DEVELOPER}${ADMIN}${POLICY_EDITOR}${AUDIT}\nL.boot();\n`;
