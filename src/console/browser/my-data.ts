/**
 * My data: the signed-in user's artifacts (shown within the display policy, erased), grants
 * (revoked), and personal tokens of `user_token` MCP apps (set, removed; never read back).
 */
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
  const tokens = async (): Promise<void> => {
    const target = clear(byId("personal-tokens"));
    const r = await call(
      api().api.GET("/v1/users/{userId}/personal-tokens", { params: { path: { userId } } }),
    );
    if (!r.ok || !r.data) {
      target.textContent = r.error;
      return;
    }
    if (!r.data.apps.length) {
      target.appendChild(el("p", { text: "No app asks for a personal token of yours." }));
      return;
    }
    target.appendChild(
      table(
        ["App", "Your token", "Set a new one", ""],
        r.data.apps.map((a) => {
          const path = { params: { path: { userId, appId: a.appId } } };
          const failed = el("p", { class: "error", role: "alert" });
          const inputId = `token-${a.appId}`;
          // autocomplete off: the browser is not asked to keep it; the value leaves the DOM once sent.
          const input = el("input", {
            id: inputId,
            type: "password",
            autocomplete: "off",
            spellcheck: "false",
            required: true,
            maxlength: 4096,
          });
          const save = async (e: Event) => {
            e.preventDefault();
            const token = input.value;
            if (!token) return;
            // Sent once: the field is emptied and dropped before the request, so no DOM keeps it.
            input.value = "";
            input.remove();
            const d = await call(
              api().api.PUT("/v1/users/{userId}/personal-tokens/{appId}", { ...path, body: { token } }),
            );
            await tokens();
            focusMain();
            say(d.ok ? `Token set for ${a.name}.` : `Not set: ${d.error}`);
          };
          const remove = async () => {
            const d = await call(api().api.DELETE("/v1/users/{userId}/personal-tokens/{appId}", path));
            if (!d.ok) {
              failed.textContent = `Not removed: ${d.error}`;
              return;
            }
            await tokens();
            focusMain();
            say(`Token removed for ${a.name}.`);
          };
          return [
            a.name,
            el("span", {
              class: a.set ? "token-set" : "token-unset",
              text: a.set ? setWords(a.setAt) : "not set",
            }),
            el("form", { class: "token-form", onsubmit: (e) => void save(e) }, [
              el("label", { for: inputId, text: `Personal token for ${a.name}` }),
              input,
              el("button", { type: "submit", text: a.set ? "Replace" : "Set" }),
            ]),
            el("td", {}, [
              a.set
                ? el("button", {
                    type: "button",
                    onclick: () => void remove(),
                    "aria-label": `Remove the token for ${a.name}`,
                    text: "Remove",
                  })
                : null,
              failed,
            ]),
          ];
        }),
      ),
    );
  };
  await Promise.all([artifacts(), grants(), tokens()]);
}

/** "set" with when, in UTC minutes (the API gives an ISO time). */
const setWords = (at: string | null): string =>
  at ? `set since ${at.slice(0, 16).replace("T", " ")} UTC` : "set";
