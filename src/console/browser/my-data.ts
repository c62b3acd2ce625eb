/** My data: the signed-in user's artifacts (shown within the display policy, erased) and grants (revoked). */
import { prettyText } from "./answer.ts";
import { api, call } from "./api.ts";
import { byId, clear, el, focusMain, say, table } from "./dom.ts";

export async function dataPage(user: string): Promise<void> {
  const userId = user;
  const artifacts = async (): Promise<void> => {
    const target = clear(byId("artifacts"));
    const r = await call(api().api.GET("/v1/users/{userId}/artifacts", { params: { path: { userId } } }));
    if (!r.ok || !r.data) {
      target.textContent = r.error;
      return;
    }
    if (!r.data.artifacts.length) {
      target.appendChild(el("p", { text: "Nothing saved." }));
      return;
    }
    target.appendChild(
      table(
        ["Name", "What it is", "From the query", "Label", "Saved", "Actions"],
        r.data.artifacts.map((a) => {
          const shown = el("div", { "aria-live": "polite" });
          const path = { params: { path: { userId, aid: a.id } } };
          const show = async () => {
            const v = await call(api().api.GET("/v1/users/{userId}/artifacts/{aid}", path));
            const body = v.data as { withheld?: boolean; value?: unknown } | undefined;
            clear(shown).appendChild(
              !v.ok || !body
                ? el("p", { text: v.error })
                : body.withheld
                  ? el("p", {
                      class: "withheld",
                      text: "Withheld: its label is above what the display policy shows.",
                    })
                  : el("pre", { class: "value", text: prettyText(body.value) }),
            );
          };
          const erase = async () => {
            if (!confirm(`Erase ${a.name}? It cannot be undone.`)) return;
            const d = await call(api().api.DELETE("/v1/users/{userId}/artifacts/{aid}", path));
            if (!d.ok) {
              shown.textContent = d.error;
              return;
            }
            // The focused button is gone with its row: focus goes to the page's heading.
            await artifacts();
            focusMain();
            say(`Erased ${a.name}.`);
          };
          return [
            a.name,
            a.semantics || a.intent,
            a.query,
            `${a.label.confidentiality} / ${a.label.integrity}`,
            a.createdAt,
            el("td", {}, [
              el("button", {
                type: "button",
                onclick: () => void show(),
                "aria-label": `Show ${a.name}`,
                text: "Show",
              }),
              el("button", {
                type: "button",
                onclick: () => void erase(),
                "aria-label": `Erase ${a.name}`,
                text: "Erase",
              }),
              shown,
            ]),
          ];
        }),
      ),
    );
  };
  const grants = async (): Promise<void> => {
    const target = clear(byId("grants"));
    const r = await call(api().api.GET("/v1/users/{userId}/grants", { params: { path: { userId } } }));
    if (!r.ok || !r.data) {
      target.textContent = r.error;
      return;
    }
    if (!r.data.grants.length) {
      target.appendChild(el("p", { text: "No standing permissions: every consent is asked when needed." }));
      return;
    }
    target.appendChild(
      table(
        ["Permission", "Kind", "Given", ""],
        r.data.grants.map((g) => {
          const failed = el("p", { class: "error", role: "alert" });
          const revoke = async () => {
            const d = await call(
              api().api.DELETE("/v1/users/{userId}/grants/{gid}", {
                params: { path: { userId, gid: g.id } },
              }),
            );
            if (!d.ok) {
              failed.textContent = `Not revoked: ${d.error}`;
              return;
            }
            await grants();
            focusMain();
            say(`Revoked: ${g.description}.`);
          };
          return [
            g.description,
            g.kind,
            g.createdAt,
            el("td", {}, [
              el("button", {
                type: "button",
                onclick: () => void revoke(),
                "aria-label": `Revoke: ${g.description}`,
                text: "Revoke",
              }),
              failed,
            ]),
          ];
        }),
      ),
    );
  };
  await Promise.all([artifacts(), grants()]);
}
