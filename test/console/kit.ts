/** What the console tests share: the stack's URLs and keys, user tokens, and signing a page in. */
import { afterAll, beforeAll, expect, inject } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { type Browser, openBrowser } from "./browser.ts";

export const stack = () => inject("stack");

/**
 * A fresh browser for the calling describe block: opened (then `setup` run) before its tests and
 * closed after them. The object is filled in by beforeAll, so use it only inside tests.
 */
export function useBrowser(setup?: (b: Browser) => Promise<void>): Browser {
  const b = {} as Browser;
  let opened = false;
  beforeAll(async () => {
    Object.assign(b, await openBrowser(stack().api));
    opened = true;
    await setup?.(b);
  });
  afterAll(async () => {
    if (opened) await b.close();
  });
  return b;
}

/** A user token as the chat product's server mints it with the frontend key (which stays in Node). */
export async function userToken(userId: string): Promise<string> {
  const { api, demo } = stack();
  const body = (await apiCall(api, demo.keys.frontend, "POST", `/v1/users/${userId}/tokens`, {
    ttlSeconds: 900,
  })) as { token: string };
  return body.token;
}

/** Opens a console page and signs in through its form, as a person would. */
export async function signIn(b: Browser, path: string, credential: string): Promise<void> {
  await b.page.goto(`${stack().api}${path}`);
  // Each test signs in afresh: whatever an earlier test left in the tab is forgotten.
  await b.page.evaluate(() => sessionStorage.clear());
  await b.page.reload();
  // A field by its role: a section of the page may be labelled with "token" too (My data's).
  await b.page.getByRole("textbox", { name: /token|key/i }).fill(credential);
  await b.page.getByRole("button", { name: "Sign in" }).click();
  await b.page.locator("#content").waitFor({ state: "visible" });
}

/**
 * Waits for the page's query to end, then returns the query's whole text: its status and, for a
 * failed query, its error, so an assertion on it says why a query did not complete.
 */
export async function ended(b: Browser, timeout = 30_000): Promise<string> {
  // The status line's class, not #query's data-status: that outlives a sign-out, the line does not.
  const status = b.page.locator("#query .status");
  await expect
    .poll(async () => ((await status.count()) ? status.getAttribute("class") : ""), { timeout })
    .toMatch(/\bstatus-(completed|failed|rejected)\b/);
  return (await b.page.locator("#query").textContent()) ?? "";
}

/**
 * A turn as Open WebUI sends it (ENABLE_FORWARD_USER_INFO_HEADERS): the frontend key, the user and
 * chat in its headers, no `user`, the whole history; returns Lattice's reply, added to the history.
 */
export async function openWebUiTurn(history: Array<{ role: string; content: string }>, chatId: string) {
  const res = await fetch(`${stack().api}/v1/openai/chat/completions`, {
    method: "POST",
    headers: {
      Authorization: `Bearer ${stack().demo.keys.frontend}`,
      "Content-Type": "application/json",
      "X-OpenWebUI-User-Name": "Alex Demo",
      "X-OpenWebUI-User-Id": "alex",
      "X-OpenWebUI-User-Email": "alex@example.com",
      "X-OpenWebUI-User-Role": "user",
      "X-OpenWebUI-Chat-Id": chatId,
    },
    body: JSON.stringify({ model: "lattice", messages: history }),
  });
  expect(res.status).toBe(200);
  const body = (await res.json()) as { choices: Array<{ message: { content: string } }> };
  const content = body.choices[0]!.message.content;
  history.push({ role: "assistant", content });
  return content;
}
