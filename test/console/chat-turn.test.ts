import { Marked } from "marked";
import { describe, expect, it } from "vitest";
import { apiCall } from "../../scripts/lib.ts";
import { checkPage } from "./browser.ts";
import { openWebUiTurn, stack, useBrowser, userToken } from "./kit.ts";

/**
 * The chat turns a person meets in Open WebUI, as it renders them: the demo's real turns from the
 * OpenAI-compatible endpoint (sent as Open WebUI sends them), rendered with `marked` (GFM, line
 * breaks kept) into a chat's bubbles, then looked at in Chromium: screenshots for docs/console/
 * (chat-turn-consent.png, chat-turn-outcome.png) and axe on the page.
 */

const DEMO = "Email the total of this month's invoices to my accountant";
const NEXT = "Who is my landlord?";
const openWebUi = new Marked({ gfm: true, breaks: true, async: false });

const escapeHtml = (s: string) =>
  s.replace(/[&<>"]/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;" })[c]!);

/** A chat page in Open WebUI's manner: the user's words in a bubble, the assistant's as rendered Markdown. */
function chatPage(title: string, turns: Array<{ role: string; content: string }>): string {
  const bubbles = turns
    .map((t) =>
      t.role === "user"
        ? `<div class="user"><p>${escapeHtml(t.content)}</p></div>`
        : `<div class="assistant"><div class="name">Lattice</div><div class="prose">${openWebUi.parse(t.content) as string}</div></div>`,
    )
    .join("\n");
  return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>${escapeHtml(title)}</title>
<style>
  body { margin: 0; background: #fff; color: #171717; font: 16px/1.6 system-ui, sans-serif; }
  main { max-width: 760px; margin: 0 auto; padding: 24px 16px; }
  .caption { color: #525252; font-size: 13px; border-bottom: 1px solid #e5e5e5; padding-bottom: 8px; }
  .user { display: flex; justify-content: flex-end; margin: 24px 0; }
  .user p { background: #f3f4f6; border-radius: 20px; padding: 8px 18px; margin: 0; max-width: 75%; }
  .assistant { margin: 24px 0; }
  .name { font-weight: 600; font-size: 14px; color: #404040; }
  .prose p { margin: 0 0 12px; }
  .prose ul { margin: 0 0 12px; padding-left: 24px; }
  .prose li { margin: 4px 0; }
  .prose a { color: #1d4ed8; text-decoration: underline; font-weight: 600; }
  .prose code { background: #f3f4f6; border-radius: 4px; padding: 1px 4px; font-size: 14px; }
  .prose pre { background: #f3f4f6; border-radius: 8px; padding: 12px; overflow-x: auto; }
  .prose pre code { padding: 0; }
  .prose hr { border: 0; border-top: 1px solid #e5e5e5; margin: 16px 0; }
</style></head>
<body><main>
<h1 class="caption">${escapeHtml(title)}: rendered as Open WebUI renders Markdown (marked, GFM, line breaks kept)</h1>
${bubbles}
</main></body></html>`;
}

describe("the demo's chat turns as Open WebUI shows them", () => {
  const b = useBrowser();

  it("a consent turn, and after Allow the outcome before the next message's answer", async () => {
    const chatId = crypto.randomUUID();
    const history = [{ role: "user", content: DEMO }];
    const asked = await openWebUiTurn(history, chatId);
    const link =
      /\]\((http:\/\/[^)\s]+\/sessions\/(ses_[a-f0-9]{32})\/consents\/([A-Za-z0-9_-]+)#link=[^)\s]+)\)/.exec(
        asked,
      );
    expect(link, asked).not.toBeNull();

    await b.page.setContent(chatPage("A consent turn", history));
    const anchor = b.page.getByRole("link", { name: "Review and answer" });
    expect(await anchor.getAttribute("href")).toBe(link![1]);
    expect(await b.page.locator(".prose").textContent()).not.toMatch(/POST|\/v1\//);
    await checkPage(b, "chat-turn-consent");

    // Allowed on the consent's page (here through the API, as that page does), then the next message.
    const token = await userToken("alex");
    await apiCall(stack().api, token, "POST", `/v1/sessions/${link![2]}/consents/${link![3]}`, {
      decision: "allow",
      scope: "once",
    });
    history.push({ role: "user", content: NEXT });
    const outcome = await openWebUiTurn(history, chatId);
    expect(outcome).toMatch(/✓ Done: the e-mail to “[^”]+” was sent\./);
    expect(outcome).not.toMatch(/not run|could not answer/);

    await b.page.setContent(chatPage("The outcome turn after Allow", history.slice(2)));
    const said = await b.page.locator(".assistant .prose").textContent();
    expect(said!.indexOf("✓ Done")).toBeLessThan(said!.indexOf("Morgan"));
    await checkPage(b, "chat-turn-outcome");
  });
});
