import { z } from "@hono/zod-openapi";
import { DestinationsView } from "../../apps/destination-review.ts";
import { Manifest } from "../../apps/manifest.ts";

export const ReviewStateSchema = z.enum(["pending", "approved", "rejected"]);

export const AppVersionSchema = z
  .object({
    version: z.number().int(),
    label: z.string(),
    status: ReviewStateSchema,
    reason: z.string().nullable(),
    clearance: z.string().nullable(),
    submittedAt: z.string(),
    reviewedAt: z.string().nullable(),
    manifest: Manifest,
    bindings: z
      .record(z.string(), z.string())
      .openapi({ description: "Functionality → catalog entry, set at approval" }),
    destinations: DestinationsView,
  })
  .openapi("AppVersion");

export const AppSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    enabled: z.boolean(),
    createdAt: z.string(),
    serving: z.number().int().nullable(),
    versions: z.array(AppVersionSchema),
  })
  .openapi("App");

export const RegisteredAppSchema = z
  .object({
    id: z.string(),
    name: z.string(),
    version: z.literal(1),
    status: z.literal("pending"),
    secret: z.string().openapi({ description: "HMAC-SHA256 signing secret, shown once" }),
    app: AppSchema,
  })
  .openapi("RegisteredApp");
