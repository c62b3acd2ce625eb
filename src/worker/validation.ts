import type { Hook } from "@hono/zod-openapi";
import type { z } from "zod";
import { invalid } from "./errors.ts";

/**
 * The zod-openapi hook for every route: a failed validation becomes our 400 with one entry per
 * problem, naming the field as `<where>.<path>` (e.g. `body.role`, `param.id`).
 */
// biome-ignore lint/suspicious/noExplicitAny: Hook's generics are the library's; the hook ignores them.
export const validationHook: Hook<any, any, any, any> = (result) => {
  if (result.success) return;
  const where = result.target === "json" ? "body" : result.target;
  throw invalid("request failed validation", fieldIssues(result.error, where));
};

export function fieldIssues(error: z.ZodError, where: string) {
  return error.issues.map((issue) => ({
    field: [where, ...issue.path.map(String)].join("."),
    message: issue.message,
  }));
}
