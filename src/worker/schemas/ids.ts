import { z } from "@hono/zod-openapi";
import { isReservedUserId, RESERVED_USER_PREFIX } from "../../objects/names.ts";

/** A session id in a path. */
export const SessionParam = z.object({ sid: z.string().regex(/^ses_[a-f0-9]{32}$/, "a session id") });

/** The frontend's own user ids: opaque, but restricted so they can name a Durable Object safely. */
export const UserIdSchema = z
  .string()
  .regex(/^[A-Za-z0-9_-]{1,128}$/, "letters, digits, _ and -, at most 128")
  // Lattice's own synthetic users (a developer's try-it calls) start so: no frontend may name one.
  .refine((id) => !isReservedUserId(id), `ids starting with ${RESERVED_USER_PREFIX} are reserved`)
  .openapi({ example: "user_42" });
