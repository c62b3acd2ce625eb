import { describe, expect, it } from "vitest";
import { ATTACKER, SHADY_INJECT_MARKER } from "../../examples/apps/src/manifests.ts";
import { api, readAudit } from "./helpers.ts";
import {
  answer,
  ask,
  display,
  hubWorld,
  lit,
  modelLog,
  nextConsent,
  openSession,
  qllm,
  ref,
  script,
  settle,
  startWith,
  tool,
} from "./hub-kit.ts";
import { pullRug, registerDemoMcp, SHADY_POISON_MARKER, shadyState } from "./mcp-kit.ts";

const findNotes = {
  steps: [tool("found", "shadynotes.find_notes", { query: lit("groceries") }), display(ref("found", "text"))],
};

interface AdminApp {
  id: string;
  serving: number | null;
  drift: {
    version: number;
    pending: number | null;
    changes: Array<{ tool: string; change: string; fields?: string[] }>;
  } | null;
  versions: Array<{
    version: number;
    status: string;
    toolChanges?: Array<{ tool: string; change: string; fields?: string[] }>;
  }>;
}

async function adminApp(w: Awaited<ReturnType<typeof hubWorld>>, id: string): Promise<AdminApp> {
  const res = await api("GET", "/v1/admin/apps", { key: w.tenant.adminKey });
  return (res.body as { apps: AdminApp[] }).apps.find((a) => a.id === id)!;
}

describe("MCP rug pull: definitions pinned at approval", () => {
  it("refuses calls once the server changes a tool, files a pending version with the diff, and audits it", async () => {
    const w = await hubWorld([]);
    const id = await registerDemoMcp(w, "shadynotes");
    await script(w.models.planner, [{ respond: findNotes }]);
    const first = await openSession(w);
    const before = await settle(w, first, await ask(w, first, "find my grocery notes"));
    expect(before.status, JSON.stringify(before.error)).toBe("completed");

    await pullRug(w.world);
    const sid = await openSession(w); // a new session: the spoke lists the tools again
    const after = await settle(w, sid, await ask(w, sid, "find my grocery notes"));
    expect(after.status).toBe("failed");
    expect(after.error?.code).toBe("tool_drift");

    const app = await adminApp(w, id);
    expect(app.drift).toMatchObject({ version: 1, pending: 2 });
    const pending = app.versions.find((v) => v.version === 2);
    expect(pending?.status).toBe("pending");
    expect(pending?.toolChanges).toEqual([
      {
        tool: "find_notes",
        change: "changed",
        fields: expect.arrayContaining(["description", "inputSchema", "annotations"]),
        // What the review approves, beside the raw fields: the new idempotentHint allows retries.
        effects: ["idempotent: false → true"],
      },
    ]);
    const audit = await readAudit(w.tenant.tenantId);
    expect(audit.map((e) => e.type)).toContain("mcp_tools_changed");

    // The drifted app is out of planning too, until the admin reviews the new definitions.
    const again = await settle(w, sid, await ask(w, sid, "find my grocery notes"));
    expect(again.status).not.toBe("completed");
    const approved = await api("POST", `/v1/admin/apps/${id}/versions/2/approve`, { key: w.tenant.adminKey });
    expect(approved.status).toBe(200);
    expect((await adminApp(w, id)).drift).toBeNull();
    const reviewed = await settle(w, sid, await ask(w, sid, "find my grocery notes"));
    expect(reviewed.status, JSON.stringify(reviewed.error)).toBe("completed");
  });

  it("control: with pinning off, the changed tool runs", async () => {
    const w = await hubWorld([]);
    const id = await registerDemoMcp(w, "shadynotes");
    await script(w.models.planner, [{ respond: findNotes }]);
    await pullRug(w.world);
    const sid = await openSession(w);
    const q = await settle(w, sid, await startWith(w, sid, "find my grocery notes", { pins: "off" }));
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect((await adminApp(w, id)).drift).toBeNull();
  });
});

describe("MCP tool poisoning: the planner never reads a server's text in catalog mode", () => {
  const catalog = [
    {
      name: "notes.find",
      description: "Search the user's notes by a query",
      request: {
        type: "object",
        properties: { query: { type: "string", maxLength: 200 } },
        required: ["query"],
        additionalProperties: false,
      },
      response: { type: "object", properties: { text: { type: "string" } }, required: ["text"] },
    },
  ];

  async function poisoned(mode: "catalog" | "apps") {
    const w = await hubWorld([], mode === "catalog" ? { planning: { mode: "catalog" } } : {});
    if (mode === "catalog") {
      const put = await api("PUT", "/v1/admin/catalog", {
        key: w.tenant.adminKey,
        body: { entries: catalog },
      });
      expect(put.status, JSON.stringify(put.body)).toBe(200);
    }
    await registerDemoMcp(
      w,
      "shadynotes",
      mode === "catalog" ? { bindings: { find_notes: "notes.find" } } : {},
    );
    const plan =
      mode === "catalog"
        ? { steps: [tool("found", "notes.find", { query: lit("groceries") }), display(ref("found", "text"))] }
        : findNotes;
    await script(w.models.planner, [{ respond: plan }]);
    const sid = await openSession(w);
    const q = await settle(w, sid, await ask(w, sid, "find my grocery notes"));
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    return JSON.stringify(await modelLog(w.models.planner));
  }

  it("no poisoned title or description reaches a planner request (canary)", async () => {
    expect(await poisoned("catalog")).not.toContain(SHADY_POISON_MARKER);
  });

  it("control: a planner that reads app text (apps mode) gets the poison", async () => {
    expect(await poisoned("apps")).toContain(SHADY_POISON_MARKER);
  });
});

describe("MCP output injection: text a tool returns cannot steer a later step", () => {
  /** The user's notes, read through find_notes (its output tells the model to mail them to the attacker). */
  const exfiltrate = {
    steps: [
      tool("found", "shadynotes.find_notes", { query: lit("groceries") }),
      qllm(
        "mail",
        { notes: ref("found", "text") },
        "Who should these notes be sent to, and with what text?",
        {
          to: { type: "string" },
          body: { type: "string" },
        },
      ),
      tool("sent", "shadynotes.send_note", { to: ref("mail", "to"), body: ref("mail", "body") }),
      display(ref("sent", "text")),
    ],
  };

  async function injected() {
    const w = await hubWorld([]);
    await registerDemoMcp(w, "shadynotes");
    await script(w.models.planner, [{ respond: exfiltrate }]);
    // The obedient q-llm does what the tool's output says.
    await script(w.models.qllm, [{ respond: { to: ATTACKER.email, body: "all of the user's notes" } }]);
    return w;
  }

  it("rejects the plan: the send's recipient would come from the tool's untrusted text", async () => {
    const w = await injected();
    const sid = await openSession(w);
    const q = await settle(w, sid, await ask(w, sid, "find my grocery notes and share them"));
    expect(q.status).toBe("rejected");
    expect(JSON.stringify(q.error?.details)).toContain("shadynotes.send_note");
    expect((await shadyState(w.world)).sent).toEqual([]);
  });

  it("control: with the flow check off, the injected text mails the notes to the attacker", async () => {
    const w = await injected();
    const sid = await openSession(w);
    const qid = await startWith(w, sid, "find my grocery notes and share them", { ifc: "off" });
    const consent = await nextConsent(w, sid); // send_note has no annotations: irreversible, asked
    expect(consent.kind).toBe("irreversible");
    expect((await answer(w, sid, consent.id, { decision: "allow" })).status).toBe(200);
    expect((await settle(w, sid, qid)).status).toBe("completed");
    const sent = (await shadyState(w.world)).sent;
    expect(sent.map((s) => s.to)).toContain(ATTACKER.email);
    const found = await modelLog(w.models.qllm);
    expect(JSON.stringify(found)).toContain(SHADY_INJECT_MARKER); // the q-llm did read the injection
  });

  it("a destructive tool without annotations is irreversible: it is never called without the user", async () => {
    const w = await hubWorld([]);
    await registerDemoMcp(w, "shadynotes");
    await script(w.models.planner, [
      { respond: { steps: [tool("gone", "shadynotes.purge_notes", {}), display(ref("gone", "text"))] } },
    ]);
    const sid = await openSession(w);
    const qid = await ask(w, sid, "tidy up");
    const consent = await nextConsent(w, sid);
    expect(consent.kind).toBe("irreversible");
    expect((await answer(w, sid, consent.id, { decision: "deny" })).status).toBe(200);
    expect((await settle(w, sid, qid)).status).toBe("failed");
    expect((await shadyState(w.world)).notes.length).toBeGreaterThan(0);
  });

  it("control: with consents off, the same plan purges the notes", async () => {
    const w = await hubWorld([]);
    await registerDemoMcp(w, "shadynotes");
    await script(w.models.planner, [
      { respond: { steps: [tool("gone", "shadynotes.purge_notes", {}), display(ref("gone", "text"))] } },
    ]);
    expect((await shadyState(w.world)).notes.length).toBeGreaterThan(0);
    const sid = await openSession(w);
    const q = await settle(w, sid, await startWith(w, sid, "tidy up", { consent: "off" }));
    expect(q.status, JSON.stringify(q.error)).toBe("completed");
    expect((await shadyState(w.world)).notes).toEqual([]);
  });
});
