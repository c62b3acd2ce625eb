import { z } from "@hono/zod-openapi";
import { CONSENT_KINDS } from "../../policy/index.ts";
import { ConsentViewSchema, PROVENANCES } from "../../runtime/index.ts";
import { EventSchema } from "./events.ts";

export const SessionSchema = z
  .object({
    id: z.string(),
    tenantId: z.string(),
    userId: z.string(),
    private: z.boolean(),
    roles: z.array(z.string()),
    createdAt: z.string(),
  })
  .openapi("Session");

const Label = z.object({ confidentiality: z.string(), integrity: z.string() });

export const QuerySchema = z
  .object({
    id: z.string(),
    text: z.string(),
    status: z.enum(["planning", "awaiting_consent", "running", "completed", "failed", "rejected"]),
    display: z.array(
      z.object({
        key: z.string(),
        title: z.string().nullable(),
        value: z.unknown().optional(),
        label: Label,
        redacted: z.boolean(),
        untrusted: z.boolean(),
        provenance: z.object({ from: z.array(z.enum(PROVENANCES)), apps: z.array(z.string()) }).openapi({
          description:
            "Where the value came from: the user's query, a literal the planner chose, an app's answer (apps), a model's reading, saved artifacts",
        }),
      }),
    ),
    plan: z.unknown(),
    verdict: z.unknown(),
    trace: z.array(EventSchema),
    consents: z.array(z.unknown()),
    error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }).nullable(),
    createdAt: z.string(),
    updatedAt: z.string(),
  })
  .openapi("Query");

export const ConsentSchema = z
  .object({
    id: z.string(),
    kind: z.enum(CONSENT_KINDS),
    queryId: z.string(),
    stepId: z.string(),
    from: z.array(z.string()).optional(),
    to: z.string().optional(),
    functionality: z.string(),
    data: z.unknown(),
    assessment: z.object({ verdict: z.enum(["expected", "warning"]), reasons: z.array(z.string()) }),
    scopes: z.array(z.enum(["once", "session", "permanent"])),
    options: z.array(z.object({ tool: z.string(), app: z.string(), description: z.string() })).optional(),
    authorization: z
      .object({ url: z.string() })
      .optional()
      .openapi({ description: "An authorize consent: open this URL for the user to sign in to the app" }),
    view: ConsentViewSchema.openapi("ConsentView").optional().openapi({
      description:
        "The consent as a person reads it: typed fields with where each value came from and warnings in words; render this",
    }),
    status: z.enum(["pending", "allowed", "denied", "expired"]),
    scope: z.enum(["once", "session", "permanent"]).nullable(),
    choice: z.string().nullable(),
    grantSubject: z.string().nullable(),
    createdAt: z.string(),
    expiresAt: z.string(),
    request: z.object({ text: z.string() }).optional().openapi({
      description:
        "One consent's read (GET …/consents/{cid}): the query it belongs to, in the user's own words, so a person with two pending requests tells them apart",
    }),
  })
  .openapi("Consent");
