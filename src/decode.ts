import type * as z from "zod";
import { CodedError } from "./result.ts";

/** Stored state that does not read back as this code wrote it. */
export class StoredStateError extends CodedError<"corrupt_state"> {}

/**
 * Stored JSON read back through a schema, never cast: state written by an older version, or
 * damaged, fails loudly as `corrupt_state` instead of running as something it is not.
 */
export function decode<S extends z.ZodType>(schema: S, text: string, what: string): z.infer<S> {
  let json: unknown;
  try {
    json = JSON.parse(text);
  } catch (cause) {
    throw new StoredStateError("corrupt_state", `${what} is not JSON`, { cause });
  }
  const parsed = schema.safeParse(json);
  if (!parsed.success) {
    throw new StoredStateError("corrupt_state", `${what} does not have the expected shape`, {
      details: parsed.error.issues.slice(0, 5).map((i) => `${i.path.join(".")}: ${i.message}`),
      cause: parsed.error,
    });
  }
  return parsed.data;
}
