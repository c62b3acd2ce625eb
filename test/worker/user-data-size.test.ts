/**
 * A user's export is bounded by bytes, not only counts (#34): large artifact values past the
 * export's byte cap are left out and `truncated` says so, so a heavy user's export never fails.
 * Control: the same values under the cap all come, untruncated.
 */
import { env } from "cloudflare:workers";
import { describe, expect, it } from "vitest";
import { EXPORT_MAX_BYTES } from "../../src/objects/artifacts/index.ts";
import { artifactsObjectName } from "../../src/objects/names.ts";
import { api } from "./helpers.ts";
import { hubWorld } from "./hub-kit.ts";

/** A value under a DO row's size limit; a handful of them pass the export's cap. */
const BIG = 1_500_000;

async function heavyUser(count: number) {
  const w = await hubWorld([]);
  const artifacts = env.ARTIFACTS.getByName(artifactsObjectName(w.tenant.tenantId, "alice"));
  for (let i = 0; i < count; i++) {
    await artifacts.put({
      id: `a_big_${i}`,
      name: `big${i}`,
      intent: "a large saved value",
      semantics: "text",
      query: "q",
      label: { confidentiality: "public", integrity: "trusted" },
      sessionId: "ses_x",
      queryId: "q_x",
      plannedIn: "apps",
      value: `${i}`.padEnd(BIG, "x"),
    });
  }
  const res = await api("GET", "/v1/users/alice/export", { key: w.tenant.adminKey });
  expect(res.status).toBe(200);
  return res.body as { artifacts: unknown[]; truncated: { artifacts: boolean } };
}

describe("a heavy user's export", () => {
  it("stops at the byte cap and says it was truncated", async () => {
    const count = Math.ceil(EXPORT_MAX_BYTES / BIG) + 1;
    const doc = await heavyUser(count);
    expect(doc.truncated.artifacts).toBe(true);
    expect(doc.artifacts.length).toBe(Math.floor(EXPORT_MAX_BYTES / BIG));
    expect(JSON.stringify(doc).length).toBeLessThanOrEqual(EXPORT_MAX_BYTES + 64 * 1024);
  });

  it("control: under the cap, every large value comes, untruncated", async () => {
    const count = Math.floor(EXPORT_MAX_BYTES / BIG) - 1;
    const doc = await heavyUser(count);
    expect(doc.truncated.artifacts).toBe(false);
    expect(doc.artifacts.length).toBe(count);
  });
});
