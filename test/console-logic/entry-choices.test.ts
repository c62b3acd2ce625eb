/**
 * The bind select's entries on the review page: the entries a functionality's schemas already fit
 * (the proposals route's `fits`) first, so an admin binds to an existing entry instead of creating
 * a duplicate of it; none of them preselected (a fit is by shape: binding stays the admin's choice).
 */
import { describe, expect, it } from "vitest";
import { entryChoices, fitsByFunctionality, type Proposal } from "../../src/console/browser/review-model.ts";

const CATALOG = ["contacts.list", "contacts.lookup", "mail.read", "ride.book", "ride.quote"];

describe("the entries offered to bind a functionality", () => {
  it("puts the one entry it fits first, and leaves it to the admin to choose", () => {
    expect(entryChoices(CATALOG, ["ride.quote"], "")).toEqual({
      fitting: ["ride.quote"],
      others: ["contacts.list", "contacts.lookup", "mail.read", "ride.book"],
      selected: "",
    });
  });

  it("keeps the catalog's order among several fitting entries, and preselects none of them", () => {
    const choices = entryChoices(CATALOG, ["ride.quote", "contacts.lookup"], "");
    expect(choices.fitting).toEqual(["contacts.lookup", "ride.quote"]);
    expect(choices.selected).toBe("");
  });

  it("preselects nothing when no entry fits", () => {
    expect(entryChoices(CATALOG, [], "")).toEqual({ fitting: [], others: CATALOG, selected: "" });
  });

  it("ignores a fit the catalog no longer lists", () => {
    expect(entryChoices(CATALOG, ["gone.entry"], "")).toEqual({ fitting: [], others: CATALOG, selected: "" });
  });

  it("control: a previous binding (or an entry named for it) wins over the entry it fits", () => {
    const choices = entryChoices(CATALOG, ["ride.quote"], "ride.book");
    expect(choices.selected).toBe("ride.book");
    expect(choices.fitting).toEqual(["ride.quote"]);
  });
});

describe("a version's fits by functionality", () => {
  const proposal = (functionality: string, fits: string[]): Proposal => ({
    functionality,
    fits,
    entry: {
      name: `app.${functionality}`,
      description: "",
      request: {},
      response: {},
      irreversible: true,
      output: { confidentiality: "internal" },
      destinations: [],
    },
  });

  it("maps each proposal's functionality to its fits; no proposals (a failed call) is none", () => {
    expect(fitsByFunctionality([proposal("list", ["contacts.list"]), proposal("x", [])])).toEqual({
      list: ["contacts.list"],
      x: [],
    });
    expect(fitsByFunctionality(null)).toEqual({});
  });
});
