/** Developer: my apps with their versions and review state, and signing-secret rotation. */
import { api, call } from "./api.ts";
import { byId, clear, el, table } from "./dom.ts";

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
