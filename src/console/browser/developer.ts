/** Developer: my apps with their versions and review state, signing-secret rotation, and try-it. */
import type { components } from "@lattice/client";
import { api, call } from "./api.ts";
import { byId, clear, el, table } from "./dom.ts";

type App = components["schemas"]["App"];
type TryResult = components["schemas"]["TryResult"];
type Verdict = components["schemas"]["TryVerdict"];

export async function developerPage(): Promise<void> {
  const target = byId("apps");
  const r = await call(api().api.GET("/v1/apps"));
  if (!r.ok || !r.data) {
    target.textContent = r.error;
    return;
  }
  if (!r.data.apps.length) {
    target.appendChild(el("p", { text: "No apps registered with this key." }));
    return;
  }
  tryPanel(byId("try"), r.data.apps);
  for (const app of r.data.apps) {
    const id = `app-${app.id}`;
    // Not a live region: a secret read aloud is a secret spoken in the room. Focus moves to it instead.
    const secret = el("div", { class: "secret" });
    const immediate = `${id}-immediate`;
    const rotate = async () => {
      const now = byId<HTMLInputElement>(immediate).checked;
      if (
        now &&
        !confirm(
          `Rotate the signing secret of ${app.name} immediately? Calls signed with the old secret fail at once.`,
        )
      ) {
        return;
      }
      const x = await call(
        api().api.POST("/v1/apps/{appId}/secret", {
          params: { path: { appId: app.id } },
          body: { immediate: now },
        }),
      );
      if (!x.ok || !x.data) {
        clear(secret).appendChild(el("p", { class: "error", role: "alert", text: x.error }));
        return;
      }
      const until = x.data.previousValidUntil;
      const note = el("p", {
        tabindex: "-1",
        text: `New signing secret (shown once, copy it now; ${until ? `the old one is valid until ${until}` : "the old one no longer works"}):`,
      });
      clear(secret).appendChild(note);
      secret.appendChild(el("pre", { class: "value", text: x.data.secret }));
      note.focus();
    };
    target.appendChild(
      el("article", { "aria-labelledby": `${id}-title` }, [
        el("h3", { id: `${id}-title`, text: app.name }),
        el("p", {
          text: `Id ${app.id} · serving ${app.serving ? `version ${app.serving}` : "no version yet"}${app.enabled ? "" : " · disabled by the admin"}`,
        }),
        table(
          ["Version", "Label", "Review", "Reason", "Clearance", "Submitted", "Reviewed"],
          app.versions.map((v) => [
            String(v.version),
            v.label,
            v.status,
            v.reason ?? "",
            v.clearance ?? "",
            v.submittedAt,
            v.reviewedAt ?? "",
          ]),
        ),
        el("div", { class: "option" }, [
          el("input", { type: "checkbox", id: immediate }),
          el("label", { for: immediate, text: "Immediately (a leaked secret: the old one stops at once)" }),
        ]),
        el("button", {
          type: "button",
          onclick: () => void rotate(),
          text: `Rotate the signing secret of ${app.name}`,
        }),
        secret,
      ]),
    );
  }
}

/**
 * The try-it form (POST /v1/apps/{id}/versions/{v}/try): a version, one of its functionalities, a
 * JSON input; the answer shows the request as sent, the verdicts in Lattice's words, and the app's
 * answer quoted as the app's words.
 */
function tryPanel(target: HTMLElement, apps: App[]): void {
  const versions = apps.flatMap((app) =>
    app.versions
      .filter((v) => v.status === "pending" || v.status === "approved")
      .map((v) => ({ app, v, key: `${app.id}@${v.version}` })),
  );
  if (!versions.length) {
    target.appendChild(el("p", { text: "No pending or approved version to try." }));
    return;
  }
  const versionSelect = el(
    "select",
    { id: "try-version" },
    versions.map(({ app, v, key }) =>
      el("option", { value: key, text: `${app.name} version ${v.version} (${v.status})` }),
    ),
  );
  const fnSelect = el("select", { id: "try-functionality" });
  const input = el("textarea", { id: "try-input", rows: 8, spellcheck: "false" });
  input.value = "{}";
  const errors = el("div", { id: "try-errors" });
  const result = el("div", { id: "try-result", tabindex: "-1" });
  const chosen = () => versions.find((x) => x.key === versionSelect.value) ?? versions[0]!;
  const fillFunctionalities = () => {
    clear(fnSelect);
    for (const f of chosen().v.manifest.functionalities)
      fnSelect.appendChild(el("option", { value: f.name, text: f.name }));
  };
  versionSelect.addEventListener("change", fillFunctionalities);
  fillFunctionalities();

  const run = async (e: Event) => {
    e.preventDefault();
    clear(errors);
    clear(result);
    input.removeAttribute("aria-invalid");
    let parsed: unknown;
    try {
      parsed = JSON.parse(input.value);
    } catch (err) {
      input.setAttribute("aria-invalid", "true");
      errors.appendChild(
        el("p", { class: "error", role: "alert", text: `Not JSON: ${(err as Error).message}` }),
      );
      return;
    }
    const { app, v } = chosen();
    const x = await call(
      api().api.POST("/v1/apps/{appId}/versions/{version}/try", {
        params: { path: { appId: app.id, version: v.version } },
        body: { functionality: fnSelect.value, input: parsed },
      }),
    );
    if (!x.ok || !x.data) {
      errors.appendChild(el("p", { class: "error", role: "alert", text: x.error }));
      return;
    }
    showTried(result, x.data);
    result.focus();
  };

  target.appendChild(
    el("form", { id: "try-form", onsubmit: (e) => void run(e) }, [
      el("label", { for: "try-version", text: "Version" }),
      versionSelect,
      el("label", { for: "try-functionality", text: "Functionality" }),
      fnSelect,
      el("label", { for: "try-input", text: "Input (JSON, as a plan step would send it)" }),
      input,
      el("button", { type: "submit", text: "Try it" }),
      errors,
    ]),
  );
  target.appendChild(result);
}

const VERDICT_WORDS: Record<Verdict["verdict"], string> = {
  passed: "passed",
  failed: "failed",
  not_reached: "not reached",
};

function verdictText(name: string, v: Verdict): string {
  const why = [...(v.problems ?? []), ...(v.reason ? [v.reason] : [])];
  return `${name}: ${VERDICT_WORDS[v.verdict]}${why.length ? ` (${why.join("; ")})` : ""}`;
}

function showTried(target: HTMLElement, t: TryResult): void {
  const j = t.judgement;
  const ok = t.outcome === "ok";
  target.appendChild(el("h3", { text: `Outcome: ${t.outcome}` }));
  target.appendChild(el("p", { class: ok ? "" : "error", role: "status", text: t.message }));
  target.appendChild(
    el("ul", { "aria-label": "Judgement" }, [
      el("li", { text: verdictText("Input against the request schema", j.input) }),
      el("li", { text: verdictText("Egress", j.egress) }),
      el("li", { text: verdictText("Answer against the response schema", j.output) }),
      el("li", {
        text: `Label the answer would carry: ${j.labels.confidentiality} / ${j.labels.integrity}${j.labels.boundTo ? ` (bound to ${j.labels.boundTo})` : " (not bound to a catalog entry yet)"}`,
      }),
      el("li", { text: `Took ${j.durationMs} ms, as user ${t.user}` }),
    ]),
  );
  target.appendChild(el("h4", { text: "Request sent" }));
  if (!t.request) {
    target.appendChild(el("p", { text: "Nothing was sent." }));
  } else {
    const req = t.request;
    target.appendChild(el("p", {}, [el("code", { text: `${req.method} ${req.url}` })]));
    target.appendChild(
      table(
        ["Header", "Value"],
        Object.entries(req.headers).map(([k, val]) => [k, el("code", { text: val })]),
        { "aria-label": "Request headers" },
      ),
    );
    target.appendChild(el("pre", { class: "value", "aria-label": "Request body", text: pretty(req.body) }));
  }
  target.appendChild(el("h4", { text: "The app's answer" }));
  if (!t.answer) {
    target.appendChild(el("p", { text: "No answer." }));
    return;
  }
  // The app's words, quoted and marked so: never shown as Lattice's.
  target.appendChild(
    el("figure", { class: "app-words" }, [
      el("figcaption", {
        text: `HTTP ${t.answer.status}, the app's words, not Lattice's${t.answer.truncated ? " (cut short)" : ""}:`,
      }),
      el("blockquote", {}, [el("pre", { class: "value", text: pretty(t.answer.body) })]),
    ]),
  );
}

function pretty(text: string): string {
  try {
    return JSON.stringify(JSON.parse(text), null, 2);
  } catch {
    return text;
  }
}
