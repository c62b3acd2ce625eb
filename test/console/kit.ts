/** What the console tests share: the stack's URLs and keys, user tokens, and signing a page in. */
import { inject } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import type { Browser } from "./browser.ts";

export const stack = () => inject("stack");

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
  await b.page.getByLabel(/token|key/i).fill(credential);
  await b.page.getByRole("button", { name: "Sign in" }).click();
  await b.page.locator("#content").waitFor({ state: "visible" });
}
