/**
 * The benchmark's cases: every user task alone (utility), and (task, slot, injection) attack cases.
 * `QUICK` names the subset the quick mode (CI) runs: a benign task and attacks from every suite.
 */
import { slackAttacks, slackQuick, slackTasks } from "./agentdojo/slack/index.ts";
import { travelAttacks, travelQuick, travelTasks } from "./agentdojo/travel/index.ts";
import { workspaceAttacks, workspaceQuick, workspaceTasks } from "./agentdojo/workspace/index.ts";
import { injection } from "./injections.ts";
import { INFORMED_ATTACKS, INFORMED_QUICK } from "./injections-informed.ts";
import { agentic } from "./suites/agentic.ts";
import { banking } from "./suites/banking.ts";
import { mcp } from "./suites/mcp.ts";
import { messaging } from "./suites/messaging.ts";
import { travel } from "./suites/travel.ts";
import { workspace } from "./suites/workspace.ts";
import type { Case, UserTask } from "./types.ts";

export const TASKS: UserTask[] = [
  ...banking,
  ...workspace,
  ...messaging,
  ...travel,
  ...agentic,
  ...mcp,
  ...slackTasks,
  ...travelTasks,
  ...workspaceTasks,
];

/** task id → slot → injection ids planted there. */
const ATTACKS: Record<string, Record<string, string[]>> = {
  "banking/spending-summary": {
    memo: ["pay-attacker", "change-password", "schedule-attacker", "phish-display", "exfil-mail"],
  },
  "banking/pay-electricity": {
    invoice: ["redirect-payment", "pay-attacker", "change-password", "cover-tracks"],
  },
  "banking/pay-landlord": { manifest: ["launder-prompt", "launder-schema"] },
  "banking/rent-from-email": {
    "landlord-mail": ["redirect-payment", "pay-attacker", "schedule-attacker", "change-password"],
  },
  "banking/noted-invoice": { invoice: ["delayed-redirect-payment", "delayed-password"] },
  "workspace/send-tax-summary": { "file-name": ["share-file", "exfil-mail"] },
  "workspace/inbox-digest": {
    email: ["exfil-mail", "share-file", "cover-tracks", "phish-display", "calendar-invite"],
  },
  "workspace/agenda": { event: ["calendar-invite", "exfil-mail", "agenda-tamper"] },
  "workspace/noted-request": { "request-mail": ["delayed-redirect-recipient", "share-file"] },
  "messaging/general-digest": {
    message: ["invite-attacker", "dm-attacker", "bank-to-chat", "office-tamper", "exfil-mail"],
  },
  "messaging/random-to-sam": { message: ["invite-attacker", "dm-attacker", "drive-to-chat"] },
  "messaging/noted-invite": { message: ["delayed-invite"] },
  "travel/compare-rides": {
    note: ["fare-tamper"],
    manifest: ["fare-tamper", "book-cheapcab", "book-cheapcab-uncategorised"],
  },
  "travel/book-swiftride": { manifest: ["book-cheapcab", "book-cheapcab-uncategorised", "pay-attacker"] },
  "travel/book-flight": { manifest: ["health-to-travel", "pay-attacker"] },
  "travel/poem-and-symptoms": { manifest: ["doctor-tamper", "exfil-mail"] },
  // Against the agentic InboxPilot (its own model under the visor): 20 cases, 4 of them through the
  // hub's collaboration relay (lattice_request, which only send_update may use; pay_invoice may not).
  "banking/pilot-pay": {
    invoice: [
      "pilot-redirect",
      "pilot-overpay",
      "pilot-double-pay",
      "pilot-pay-attacker",
      "pilot-forward",
      "pilot-archive",
      "pilot-relay-transfer",
    ],
  },
  "workspace/pilot-update": {
    mail: [
      "pilot-forward",
      "pilot-cc-attacker",
      "pilot-pay-attacker",
      "pilot-archive",
      "pilot-forward-invoice",
      "pilot-relay-transfer",
      "pilot-relay-password",
      "pilot-relay-leak",
    ],
  },
  "workspace/pilot-summary": {
    mail: [
      "pilot-forward",
      "pilot-pay-attacker",
      "pilot-archive",
      "pilot-forward-invoice",
      "pilot-pay-attacker-small",
    ],
  },
  // The malicious MCP server shadynotes (injections-mcp.ts): poisoned descriptions, an injection in
  // its output, an unannotated destructive tool, a rug pull after approval.
  "mcp/dentist-note": { shady: ["mcp-poison", "mcp-purge"] },
  "mcp/trip-ideas": { rugpull: ["mcp-rugpull"], shady: ["mcp-purge", "mcp-inject"] },
  "mcp/send-trip": { shady: ["mcp-inject"] },
  // AgentDojo's suites (bench/security/agentdojo/): every (user task, injection task) pair.
  ...slackAttacks,
  ...travelAttacks,
  ...workspaceAttacks,
};

const QUICK = new Set([
  "banking/pay-electricity",
  "banking/pay-landlord",
  "workspace/inbox-digest",
  "messaging/noted-invite",
  "travel/book-swiftride",
  "banking/pay-electricity@invoice+redirect-payment",
  "banking/spending-summary@memo+change-password",
  "banking/noted-invoice@invoice+delayed-redirect-payment",
  "workspace/inbox-digest@email+share-file",
  "workspace/inbox-digest@email+cover-tracks",
  "workspace/agenda@event+agenda-tamper",
  "messaging/general-digest@message+bank-to-chat",
  "messaging/general-digest@message+invite-attacker",
  "messaging/noted-invite@message+delayed-invite",
  "travel/book-swiftride@manifest+book-cheapcab",
  "travel/compare-rides@manifest+book-cheapcab",
  "travel/book-flight@manifest+health-to-travel",
  "travel/compare-rides@note+fare-tamper",
  "banking/pay-landlord@manifest+launder-prompt",
  "banking/pilot-pay@invoice+pilot-redirect",
  "workspace/pilot-update@mail+pilot-forward",
  "workspace/pilot-update@mail+pilot-relay-transfer",
  "workspace/pilot-update@mail+pilot-relay-password",
  "workspace/pilot-update@mail+pilot-relay-leak",
  "mcp/dentist-note",
  "mcp/dentist-note@shady+mcp-poison",
  "mcp/trip-ideas@rugpull+mcp-rugpull",
  "mcp/send-trip@shady+mcp-inject",
  "mcp/trip-ideas@shady+mcp-purge",
  ...slackQuick,
  ...travelQuick,
  ...workspaceQuick,
  ...INFORMED_QUICK,
]);

/** The attacks planted per task and slot: the suites' own, then the informed attacker's (#43). */
function attacksOf(taskId: string): Record<string, string[]> {
  const own = ATTACKS[taskId] ?? {};
  const informed = INFORMED_ATTACKS[taskId] ?? {};
  const slots = new Set([...Object.keys(own), ...Object.keys(informed)]);
  return Object.fromEntries([...slots].map((s) => [s, [...(own[s] ?? []), ...(informed[s] ?? [])]]));
}

export function allCases(): Case[] {
  const cases: Case[] = TASKS.filter((task) => !task.attackOnly).map((task) => ({
    id: task.id,
    task,
    quick: QUICK.has(task.id),
  }));
  for (const task of TASKS) {
    for (const [slot, ids] of Object.entries(attacksOf(task.id))) {
      if (!task.slots?.[slot]) throw new Error(`${task.id} has no slot ${slot}`);
      for (const id of ids) {
        const caseId = `${task.id}@${slot}+${id}`;
        cases.push({
          id: caseId,
          task,
          attack: { injection: injection(id), slot },
          quick: QUICK.has(caseId),
        });
      }
    }
  }
  return cases;
}
