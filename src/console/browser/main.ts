/**
 * The console's one served script (bundled by `npm run console:build` into script.gen.ts): each
 * page's part, chosen by the shell's data-page, started once signed in. The renderers are also on
 * `window.L`, so the browser tests can give them what the scripted demo never asks.
 */
import { adminAppsPage, catalogPage } from "./admin.ts";
import { api } from "./api.ts";
import { apiReferenceFilter } from "./api-reference-filter.ts";
import { auditPage } from "./audit.ts";
import { boot, linkNameOf, type Page, userOf } from "./boot.ts";
import { chatPage } from "./chat.ts";
import { renderConsent } from "./consent.ts";
import { consentPage, takeLinkToken } from "./consent-page.ts";
import { developerPage } from "./developer.ts";
import { el } from "./dom.ts";
import { manifestDiff } from "./manifest-diff.ts";
import { dataPage } from "./my-data.ts";
import { planPage, renderPlan } from "./plan.ts";
import { policyPage } from "./policy-editor.ts";
import { jsonPaths, pathSegments } from "./policy-paths.ts";
import { type Audience, renderQuery } from "./query.ts";
import { discoveredBlock } from "./review-cards.ts";
import { discoveredOAuth } from "./review-model.ts";
import type { Consent, Query } from "./words.ts";

const PAGES: Record<string, Page> = {
  chat: (user) => chatPage(user ?? ""),
  consent: () => consentPage(null),
  plan: () => planPage(),
  data: (user) => dataPage(user ?? ""),
  developer: () => developerPage(),
  "admin-apps": () => adminAppsPage(),
  catalog: () => catalogPage(),
  policy: () => policyPage(),
  audit: () => auditPage(),
};

(window as unknown as { L: unknown }).L = {
  el,
  renderConsent: (sid: string, consent: Consent, done: (c: Consent) => void) =>
    renderConsent(api(), sid, consent, done),
  renderQuery: (
    target: HTMLElement,
    sid: string,
    query: Query,
    done: () => void,
    audience: Audience = "person",
  ) => renderQuery(target, sid, query, done, { client: api(), audience }),
  renderPlan,
  pathSegments,
  jsonPaths,
  diff: manifestDiff,
  oauthBlock: (id: string, mcp: unknown) => {
    const rows = discoveredOAuth(mcp);
    return rows ? discoveredBlock(id, rows) : null;
  },
};

// Names apart from boot's own (`page`, `link`): the bundle keeps boot's as written, which
// link-signin.test.ts's control relies on when it patches the served script.
const pageName = document.body.dataset.page ?? "";
const consentLink = pageName === "consent" ? takeLinkToken() : null;
// The API reference needs no sign-in: the script only adds its filter.
if (pageName === "docs") apiReferenceFilter();
else
  boot(
    PAGES[pageName],
    consentLink
      ? { user: userOf(consentLink), name: linkNameOf(consentLink), run: () => consentPage(consentLink) }
      : undefined,
  );
