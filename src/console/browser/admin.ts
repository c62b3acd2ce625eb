/** Admin: pending versions with their diff, binding and clearance at approval; the catalog. */
import type { components } from "@lattice/client";
import { api, call } from "./api.ts";
import { byId, clear, el, focusMain, say, table } from "./dom.ts";
import { type DiffRow, manifestDiff } from "./manifest-diff.ts";
import { cardGrid, discoveredBlock, proposeButton, reviewCard } from "./review-cards.ts";
import {
  discoveredOAuth,
  entryChoices,
  fitsByFunctionality,
  otherChanges,
  type Proposal,
  type ReviewCard,
  type VersionReview,
  withBinding,
} from "./review-model.ts";
import { catalogLabel } from "./words.ts";

type CatalogEntry = components["schemas"]["CatalogEntry"];
interface Destinations {
  declared?: string[];
  inferred: string[];
  confirmed?: string[];
}
interface Version {
  version: number;
  status: string;
  label: string;
  clearance?: string | null;
  bindings: Record<string, string>;
  manifest: { functionalities: Array<{ name: string; tool?: { name: string } }>; mcp?: unknown };
  destinations?: { functionalities?: Record<string, Destinations>; tools?: Record<string, Destinations> };
}
interface AdminApp {
  id: string;
  name: string;
  serving: number | null;
  enabled: boolean;
  versions: Version[];
}

/** Manifest fields outside the cards (the app's name, endpoint, MCP server, agent…) that changed. */
function otherTable(app: AdminApp, rows: DiffRow[]): HTMLElement | null {
  if (!rows.length) return null;
  return el("table", { class: "diff" }, [
    el("caption", {
      text: app.serving ? `Other changes against approved version ${app.serving}` : "What else it declares",
    }),
    el("thead", {}, [
      el(
        "tr",
        {},
        ["Field", "Approved", "Pending"].map((h) => el("th", { scope: "col", text: h })),
      ),
    ]),
    el(
      "tbody",
      {},
      rows.map((r) =>
        el("tr", {}, [
          el("th", { scope: "row", text: r.path }),
          el("td", { class: r.before === undefined ? "" : "diff-del", text: r.before ?? "—" }),
          el("td", { class: r.after === undefined ? "" : "diff-add", text: r.after ?? "(removed)" }),
        ]),
      ),
    ),
  ]);
}

/**
 * A functionality's destinations confirmation: the policy infers destinations from the schema
 * unless the admin confirms the whole list here; only that confirmation turns the inference off.
 */
function confirmBox(box: string, card: ReviewCard): HTMLElement {
  const d = card.destinations;
  const list = d.confirmed ?? [...(d.declared ?? []), ...d.inferred];
  return el("div", { class: "confirm" }, [
    el("input", { id: box, type: "checkbox", name: `confirm:functionalities:${card.name}` }),
    el("label", { for: box, class: "inline", text: "confirm exactly: " }),
    el("input", {
      id: `${box}-paths`,
      type: "text",
      name: `dest:functionalities:${card.name}`,
      value: list.join(", "),
      "aria-label": `Destination paths of ${card.name}`,
    }),
  ]);
}

/** Agent tools have no card (they are not functionalities): their destinations stay a table. */
function toolDestinations(id: string, view: Version["destinations"]): HTMLElement | null {
  const rows = Object.entries(view?.tools ?? {}).map(([name, d], i) => {
    const box = `${id}-dest-tools-${i}`;
    const list = [...(d.declared ?? []), ...d.inferred];
    return el("tr", {}, [
      el("th", { scope: "row", text: `${name} (agent tool)` }),
      el("td", { text: d.declared ? d.declared.join(", ") || "none (declared empty)" : "not declared" }),
      el("td", { text: d.inferred.join(", ") || "—" }),
      el("td", {}, [
        el("input", { id: box, type: "checkbox", name: `confirm:tools:${name}` }),
        el("label", { for: box, text: "confirm exactly: " }),
        el("input", {
          id: `${box}-paths`,
          type: "text",
          name: `dest:tools:${name}`,
          value: (d.confirmed ?? list).join(", "),
          "aria-label": `Destination paths of ${name}`,
        }),
      ]),
    ]);
  });
  if (!rows.length) return null;
  return el("fieldset", {}, [
    el("legend", { text: "Agent tools' destinations (where data, messages or money go)" }),
    el("table", {}, [
      el("thead", {}, [
        el(
          "tr",
          {},
          ["Name", "Declared", "Inferred", "Your confirmation"].map((h) =>
            el("th", { scope: "col", text: h }),
          ),
        ),
      ]),
      el("tbody", {}, rows),
    ]),
  ]);
}

/** The checked destination lists, as the approval's destinations; null when none is checked. */
function confirmedDestinations(
  data: FormData,
): Partial<Record<"functionalities" | "tools", Record<string, string[]>>> | null {
  let out: Partial<Record<"functionalities" | "tools", Record<string, string[]>>> | null = null;
  for (const key of data.keys()) {
    if (!key.startsWith("confirm:")) continue;
    const [, part = "", ...rest] = key.split(":");
    const kind = part === "tools" ? "tools" : "functionalities";
    const name = rest.join(":");
    const paths = String(data.get(`dest:${kind}:${name}`) ?? "")
      .split(",")
      .map((p) => p.trim())
      .filter(Boolean);
    out ??= {};
    const listed = out[kind] ?? {};
    listed[name] = paths;
    out[kind] = listed;
  }
  return out;
}

/**
 * A functionality's bind select: the entries its schemas already fit first, under their own group,
 * then the others; `selected` (a previous binding, or an entry named for it) preselected.
 */
function bindSelect(id: string, fn: string, names: string[], fits: string[], guess: string, hint: boolean) {
  const { fitting, others, selected } = entryChoices(names, fits, guess);
  const option = (n: string) => el("option", { value: n, selected: n === selected, text: n });
  return el("select", { id, name: `bind:${fn}`, "aria-describedby": hint ? `${id}-hint` : null }, [
    el("option", { value: "", selected: selected === "", text: "not bound (cannot be planned)" }),
    ...(fitting.length
      ? [
          el("optgroup", { label: "Fits its schemas" }, fitting.map(option)),
          el("optgroup", { label: "Other entries" }, others.map(option)),
        ]
      : others.map(option)),
  ]);
}

function pendingCard(
  app: AdminApp,
  v: Version,
  review: VersionReview | null,
  fits: Record<string, string[]>,
  catalog: CatalogEntry[],
  levels: string[],
  reload: (m: string) => void,
) {
  const id = `review-${app.id}-${v.version}`;
  const approved = app.versions.find((x) => x.version === app.serving);
  const form = el("form", { class: "review" });
  const names = catalog.map((e) => e.name);
  const cards = (review?.cards ?? []).map((card, i) => {
    if (card.status === "removed") return reviewCard(`${id}-fn-${i}`, card);
    const sel = `${id}-bind-${i}`;
    const guess =
      card.previousBinding ?? (names.includes(`${app.name}.${card.name}`) ? `${app.name}.${card.name}` : "");
    const fitting = fits[card.name] ?? [];
    // Why the fitting entries come first, said where the admin chooses (and read with the select).
    const hint = fitting.length > 0 && !guess;
    const select = bindSelect(sel, card.name, names, fitting, guess, hint);
    const binding = el("div", { class: "card-binding" }, [
      el("label", { for: sel, text: `Bind ${card.name} to` }),
      select,
      hint ? el("p", { id: `${sel}-hint`, class: "hint", text: fitsHint(fitting) }) : null,
    ]);
    // A pending version is bound at approval: the new entry is selected, Approve binds it.
    const propose = guess
      ? null
      : proposeButton(`${id}-fn-${i}`, app.id, v.version, card.name, fitting.length > 0, async (entry) => {
          select.appendChild(el("option", { value: entry, text: entry }));
          select.value = entry;
          return `Created ${entry}: selected, bound when you approve.`;
        });
    return reviewCard(`${id}-fn-${i}`, card, {
      binding,
      confirm: confirmBox(`${id}-dest-${i}`, card),
      propose,
    });
  });
  form.appendChild(
    review
      ? cardGrid(`Functionalities of ${app.name} version ${v.version}`, cards)
      : el("p", { class: "error", text: "Its review could not be loaded." }),
  );
  const tools = toolDestinations(id, v.destinations);
  if (tools) form.appendChild(tools);
  const clearance = `${id}-clearance`;
  form.appendChild(
    el("label", { for: clearance, text: "Clearance (the most confidential data it may receive)" }),
  );
  form.appendChild(
    el(
      "select",
      { id: clearance, name: "clearance" },
      levels.map((l) =>
        el("option", { value: l, selected: l === (approved?.clearance ?? "internal"), text: l }),
      ),
    ),
  );
  const reason = `${id}-reason`;
  form.appendChild(el("label", { for: reason, text: "Reason (shown to the developer if you reject)" }));
  form.appendChild(el("input", { id: reason, name: "reason", type: "text" }));
  const status = el("p", { class: "review-status", role: "alert" });
  const path = { params: { path: { appId: app.id, v: v.version } } };
  async function approve() {
    const data = new FormData(form);
    const b: Record<string, string> = {};
    for (const [key, value] of data.entries())
      if (key.startsWith("bind:") && value) b[key.slice(5)] = String(value);
    const confirmed = confirmedDestinations(data);
    const r = await call(
      api().api.POST("/v1/admin/apps/{appId}/versions/{v}/approve", {
        ...path,
        body: {
          clearance: String(data.get("clearance")),
          bindings: b,
          ...(confirmed && { destinations: confirmed }),
        },
      }),
    );
    if (!r.ok) {
      status.textContent = r.error + (r.details ? `: ${JSON.stringify(r.details)}` : "");
      return;
    }
    status.textContent = `Approved version ${v.version} of ${app.name}`;
    reload(status.textContent);
  }
  async function reject() {
    const why = new FormData(form).get("reason");
    if (!why) {
      status.textContent = "Say why, for the developer.";
      byId(reason).focus();
      return;
    }
    const r = await call(
      api().api.POST("/v1/admin/apps/{appId}/versions/{v}/reject", {
        ...path,
        body: { reason: String(why) },
      }),
    );
    status.textContent = r.ok ? `Rejected version ${v.version} of ${app.name}` : r.error;
    if (r.ok) reload(status.textContent);
  }
  form.appendChild(
    el("div", { class: "buttons" }, [
      el("button", { type: "button", onclick: () => void approve(), text: "Approve" }),
      el("button", { type: "button", onclick: () => void reject(), text: "Reject" }),
    ]),
  );
  form.appendChild(status);
  return el("article", { class: "pending-app", "aria-labelledby": `${id}-title` }, [
    el("h3", { id: `${id}-title`, text: `${app.name} version ${v.version} (${v.label})` }),
    oauthOf(id, v),
    otherTable(app, otherChanges(manifestDiff(approved?.manifest, v.manifest))),
    form,
  ]);
}

/** A version's discovered sign-in, when it has one: the endpoints it will use, reviewed with it. */
function oauthOf(id: string, v: Version): HTMLElement | null {
  const rows = discoveredOAuth(v.manifest.mcp);
  return rows ? discoveredBlock(id, rows) : null;
}

/** Why the entries it fits come first: binding to one serves it as it is, a new entry duplicates it. */
function fitsHint(fitting: string[]): string {
  return fitting.length === 1
    ? `Its schemas fit ${fitting[0]}: bind it there rather than creating a duplicate entry.`
    : `Its schemas fit ${fitting.length} existing entries: bind it to one rather than creating a duplicate.`;
}

/** A version's proposals, fetched once for all its cards; null when they could not be loaded. */
async function proposalsFor(appId: string, version: number): Promise<Proposal[] | null> {
  const r = await call(
    api().api.GET("/v1/admin/apps/{appId}/versions/{v}/proposals", {
      params: { path: { appId, v: version } },
    }),
  );
  return r.ok && r.data ? r.data.proposals : null;
}

async function reviewFor(appId: string, version: number): Promise<VersionReview | null> {
  const r = await call(
    api().api.GET("/v1/admin/apps/{appId}/versions/{v}/review", { params: { path: { appId, v: version } } }),
  );
  return r.ok && r.data ? r.data : null;
}

/** The serving version's functionalities that some binding leaves unbound (removed ones aside). */
function unboundOf(review: VersionReview | null): ReviewCard[] {
  return (review?.cards ?? []).filter((c) => c.status !== "removed" && !c.binding);
}

/**
 * The serving version's unbound functionalities: each is bound at once (the bindings route, no new
 * version from the developer) to an existing entry its schemas fit, or else to a catalog entry made
 * from its proposal. Binding to a fitting entry comes first: a new entry would duplicate it.
 */
function unboundCards(
  app: AdminApp,
  v: Version,
  review: VersionReview | null,
  fits: Record<string, string[]>,
  reload: (m: string) => void,
): HTMLElement | null {
  const open = unboundOf(review);
  if (!open.length) return null;
  const id = `bind-${app.id}-${v.version}`;
  const cards = open.map((card, i) => {
    const status = el("p", { class: "bind-status", role: "alert" });
    const bind = async (entry: string): Promise<string | null> => {
      const r = await call(
        api().api.PUT("/v1/admin/apps/{appId}/versions/{v}/bindings", {
          params: { path: { appId: app.id, v: v.version } },
          body: { bindings: withBinding(v.bindings, card.name, entry) },
        }),
      );
      if (!r.ok) return r.error + (r.details ? `: ${JSON.stringify(r.details)}` : "");
      reload(`Bound ${card.name} of ${app.name} to ${entry}`);
      return null;
    };
    const fitting = fits[card.name] ?? [];
    const binding = fitting.length
      ? el("div", { class: "card-binding" }, [
          el("p", { class: "hint", text: fitsHint(fitting) }),
          el(
            "div",
            { class: "fit-buttons" },
            fitting.map((entry) =>
              el("button", {
                type: "button",
                text: `Bind to ${entry}`,
                "aria-label": `Bind to ${entry} for ${card.name}`,
                onclick: () =>
                  void bind(entry).then((failed) => {
                    if (failed) status.textContent = `Binding ${card.name} to ${entry} failed: ${failed}`;
                  }),
              }),
            ),
          ),
          status,
        ])
      : null;
    return reviewCard(`${id}-fn-${i}`, card, {
      binding,
      propose: proposeButton(
        `${id}-fn-${i}`,
        app.id,
        v.version,
        card.name,
        fitting.length > 0,
        async (entry) => {
          const failed = await bind(entry);
          return failed ? `Created ${entry}, but binding it failed: ${failed}` : null;
        },
      ),
    });
  });
  return el("article", { class: "serving-app", "aria-labelledby": `${id}-title` }, [
    el("h3", { id: `${id}-title`, text: `${app.name} version ${v.version} (serving)` }),
    cardGrid(`Unbound functionalities of ${app.name}`, cards),
  ]);
}

interface Lattices {
  lattices: { confidentiality: string[]; integrity: string[] };
}

export async function adminAppsPage(): Promise<void> {
  const load = async (message: string): Promise<void> => {
    const [apps, catalog, policy] = await Promise.all([
      call(api().api.GET("/v1/admin/apps")),
      call(api().api.GET("/v1/admin/catalog")),
      call(api().api.GET("/v1/admin/policy")),
    ]);
    const failed = [apps, catalog, policy].find((r) => !r.ok);
    if (failed) {
      byId("pending").textContent = failed.error;
      return;
    }
    const list = (apps.data as { apps: AdminApp[] }).apps;
    const entries = catalog.data!.entries;
    const levels = (policy.data!.policy as unknown as Lattices).lattices.confidentiality;
    const pending = clear(byId("pending"));
    // The card whose button was used is gone: focus goes to the heading, the outcome to the live region.
    if (message) {
      pending.appendChild(el("p", { class: "done", text: message }));
      say(message);
      focusMain();
    }
    const pendings = list.flatMap((app) =>
      app.versions.filter((v) => v.status === "pending").map((v) => ({ app, v })),
    );
    const serving = list.flatMap((app) =>
      app.versions.filter((v) => v.version === app.serving).map((v) => ({ app, v })),
    );
    const [pendingReviews, servingReviews] = await Promise.all(
      [pendings, serving].map((group) =>
        Promise.all(group.map(({ app, v }) => reviewFor(app.id, v.version))),
      ),
    );
    // One proposals call per version whose cards offer a binding: their `fits` order each select.
    const noFits = async () => null;
    const [pendingProposals, servingProposals] = await Promise.all([
      Promise.all(pendings.map(({ app, v }) => proposalsFor(app.id, v.version))),
      Promise.all(
        serving.map(({ app, v }, i) =>
          unboundOf(servingReviews?.[i] ?? null).length ? proposalsFor(app.id, v.version) : noFits(),
        ),
      ),
    ]);
    const cards = pendings.map(({ app, v }, i) =>
      pendingCard(
        app,
        v,
        pendingReviews?.[i] ?? null,
        fitsByFunctionality(pendingProposals[i] ?? null),
        entries,
        levels,
        load,
      ),
    );
    if (!cards.length) pending.appendChild(el("p", { text: "No version waits for review." }));
    for (const c of cards) pending.appendChild(c);
    const unbound = clear(byId("unbound"));
    serving.forEach(({ app, v }, i) => {
      const section = unboundCards(
        app,
        v,
        servingReviews?.[i] ?? null,
        fitsByFunctionality(servingProposals[i] ?? null),
        load,
      );
      if (section) unbound.appendChild(section);
    });
    if (!unbound.firstChild)
      unbound.appendChild(el("p", { text: "Every serving version's functionalities are bound." }));
    clear(byId("apps")).appendChild(
      table(
        ["App", "Serving", "Versions", "Enabled"],
        list.map((app) => [
          app.name,
          app.serving ? `version ${app.serving}` : "none",
          app.versions
            .map((v) => `${v.version}: ${v.status}${v.clearance ? ` (${v.clearance})` : ""}`)
            .join("; "),
          app.enabled ? "yes" : "no",
        ]),
      ),
    );
  };
  await load("");
}

export async function catalogPage(): Promise<void> {
  const target = byId("catalog");
  const [r, policy] = await Promise.all([
    call(api().api.GET("/v1/admin/catalog")),
    call(api().api.GET("/v1/admin/policy")),
  ]);
  if (!r.ok || !r.data || !policy.ok || !policy.data) {
    target.textContent = r.ok ? policy.error : r.error;
    return;
  }
  const bottom = (policy.data.policy as unknown as Lattices).lattices.integrity[0] ?? "untrusted";
  target.appendChild(
    el("p", {
      text: `Version ${r.data.version}: ${r.data.entries.length} entries, in your words; planners read only these.`,
    }),
  );
  target.appendChild(
    table(
      ["Entry", "Description", "Irreversible", "Output label (confidentiality / integrity)", "Destinations"],
      r.data.entries.map((e) => [
        e.name,
        e.description,
        e.irreversible ? "yes" : "no",
        catalogLabel(e, bottom),
        (e.destinations ?? []).join(", ") || "—",
      ]),
    ),
  );
}
