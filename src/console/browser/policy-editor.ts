/** Admin: the policy editor, with the API's validation errors shown at their field (policy-paths.ts). */
import { api, call } from "./api.ts";
import { byId, clear, el } from "./dom.ts";
import { spanOf } from "./policy-paths.ts";

/** Selects the field an error names (or its nearest enclosing field that is in the text). */
function goTo(field: string) {
  const text = byId<HTMLTextAreaElement>("policy-text");
  const span = spanOf(text.value, field);
  text.focus();
  if (!span) return;
  text.setSelectionRange(span[0], span[1]);
  // A textarea does not scroll to a selection made by script: bring its line into view.
  const line = text.value.slice(0, span[0]).split("\n").length;
  text.scrollTop = Math.max(0, (line - 3) * (Number.parseFloat(getComputedStyle(text).lineHeight) || 20));
}

export async function policyPage(): Promise<void> {
  const text = byId<HTMLTextAreaElement>("policy-text");
  const errors = byId("policy-errors");
  const r = await call(api().api.GET("/v1/admin/policy"));
  if (!r.ok || !r.data) {
    errors.textContent = r.error;
    return;
  }
  text.value = JSON.stringify(r.data.policy, null, 2);
  byId("policy-status").textContent = `Version ${r.data.version} in force.`;
  byId("policy-form").addEventListener("submit", async (e) => {
    e.preventDefault();
    clear(errors);
    text.removeAttribute("aria-invalid");
    let doc: unknown;
    try {
      doc = JSON.parse(text.value) as unknown;
    } catch (err) {
      text.setAttribute("aria-invalid", "true");
      errors.appendChild(el("p", { class: "field-error", text: `Not JSON: ${(err as Error).message}` }));
      return;
    }
    // A policy is an object; anything else is the API's to refuse, with its field errors.
    const body = (doc && typeof doc === "object" ? doc : { policy: doc }) as Record<string, unknown>;
    const saved = await call(api().api.PUT("/v1/admin/policy", { body }));
    if (saved.ok && saved.data) {
      byId("policy-status").textContent = `Saved: version ${saved.data.version} in force.`;
      text.value = JSON.stringify(saved.data.policy, null, 2);
      return;
    }
    text.setAttribute("aria-invalid", "true");
    const details = (Array.isArray(saved.details) ? saved.details : []) as Array<{
      field: string;
      message: string;
    }>;
    errors.appendChild(el("p", { class: "error", text: saved.error }));
    errors.appendChild(
      el(
        "ul",
        {},
        details.map((d) => {
          const field = d.field.replace(/^body\.?/, "") || "(the whole document)";
          return el("li", { class: "field-error", "data-field": field }, [
            el("code", { text: field }),
            `: ${d.message} `,
            el("button", { type: "button", onclick: () => goTo(d.field), text: `Go to ${field}` }),
          ]);
        }),
      ),
    );
    if (details[0]) goTo(details[0].field);
  });
}
