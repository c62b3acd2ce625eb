import { afterEach, describe, expect, it, vi } from "vitest";
import type { AuditType } from "../../src/audit-types.ts";
import { sendAudit } from "../../src/objects/audit-sink.ts";

afterEach(() => vi.restoreAllMocks());

describe("sendAudit: the one way an audit row is sent", () => {
  it("writes the row as given", async () => {
    const rows: Array<[AuditType, Record<string, unknown>]> = [];
    await sendAudit({ audit: async (type, detail) => void rows.push([type, detail]) }, "query_failed", {
      queryId: "q1",
    });
    expect(rows).toEqual([["query_failed", { queryId: "q1" }]]);
  });

  it.each([
    ["rejects", { audit: () => Promise.reject(new Error("tenant unreachable")) }],
    [
      "throws",
      {
        audit: () => {
          throw new Error("tenant unreachable");
        },
      },
    ],
  ])("never throws when the log %s, and logs the failure instead of dropping it", async (_how, log) => {
    const logged = vi.spyOn(console, "error").mockImplementation(() => {});
    await expect(sendAudit(log, "consent_expired", {})).resolves.toBeUndefined();
    expect(logged).toHaveBeenCalledTimes(1);
    expect(logged.mock.calls[0]?.[0]).toContain("consent_expired");
    expect(logged.mock.calls[0]?.[1]).toBeInstanceOf(Error);
  });
});
