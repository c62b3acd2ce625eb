import { z } from "@hono/zod-openapi";
import { SPOKE_ERROR_CODES } from "../../contracts.ts";

/** A developer's try-it call (POST /v1/apps/{appId}/versions/{version}/try): what is sent and seen. */

export const TryRequestSchema = z
  .object({
    functionality: z.string().min(1).max(64),
    input: z.unknown().openapi({ description: "The request, as a plan step would send it" }),
  })
  .strict()
  .openapi("TryRequest");

/** How a try ended: `ok`, or the code a plan step's call would have failed with (a closed union). */
export const TRY_OUTCOMES = ["ok", ...SPOKE_ERROR_CODES] as const;
export type TryOutcome = (typeof TRY_OUTCOMES)[number];
export const TryOutcomeSchema = z.enum(TRY_OUTCOMES).openapi("TryOutcome");

export const VerdictSchema = z
  .object({
    verdict: z.enum(["passed", "failed", "not_reached"]),
    /** Places in the declared schema that did not hold (the app's own keys and values stay out). */
    problems: z.array(z.string()).optional(),
    /** Why, in Lattice's words. */
    reason: z.string().optional(),
  })
  .openapi("TryVerdict");

export const TryResultSchema = z
  .object({
    appId: z.string(),
    version: z.number().int(),
    status: z.enum(["pending", "approved"]),
    functionality: z.string(),
    user: z.string().openapi({ description: "The synthetic user the call ran as (never a real user)" }),
    outcome: TryOutcomeSchema,
    message: z.string().openapi({ description: "What happened, in Lattice's words" }),
    request: z
      .object({
        method: z.string(),
        url: z.string(),
        headers: z.record(z.string(), z.string()),
        body: z.string(),
      })
      .nullable()
      .openapi({ description: "The request as it left; secret headers redacted (null: nothing left)" }),
    answer: z
      .object({ status: z.number().int(), body: z.string(), truncated: z.boolean() })
      .nullable()
      .openapi({ description: "The app's answer as it came, bounded: the app's words, not Lattice's" }),
    judgement: z.object({
      input: VerdictSchema,
      egress: VerdictSchema,
      output: VerdictSchema,
      labels: z
        .object({
          confidentiality: z.string(),
          integrity: z.string(),
          boundTo: z.string().nullable().openapi({ description: "The catalog entry it is bound to" }),
        })
        .openapi({ description: "The label a plan step's answer from this call would carry" }),
      durationMs: z.number().int(),
    }),
  })
  .openapi("TryResult");
export type TryResult = z.infer<typeof TryResultSchema>;
