import type { OpenAPIHono } from "@hono/zod-openapi";
import { z } from "@hono/zod-openapi";
import { ChatRequest } from "../ai-sdk/request.ts";
import { ChatBody, MODELS } from "../openai/protocol.ts";
import { authErrors, ErrorCodeSchema, notFoundError } from "./common.ts";

/**
 * The chat adapters in the OpenAPI document. They speak other APIs' wire formats (OpenAI's, the AI
 * SDK's), so their routes are plain Hono; this lists them beside the REST API for readers and
 * generated clients. Their own clients (the `openai` SDK, `useChat`) are how they are meant to be called.
 */
const OaiError = z
  .object({
    error: z.object({
      message: z.string(),
      type: z.string(),
      param: z.string().nullable(),
      code: ErrorCodeSchema,
    }),
  })
  .openapi("OpenAIError");
const oaiErrors = Object.fromEntries(
  [400, 401, 403, 404, 429].map((s) => [
    s,
    { description: "OpenAI's error shape", content: { "application/json": { schema: OaiError } } },
  ]),
);
const security = [{ bearer: [] }];

type Registry = OpenAPIHono["openAPIRegistry"];

export function registerChatPaths(registry: Registry): void {
  registry.registerPath({
    method: "get",
    path: "/v1/openai/models",
    tags: ["chat frontends"],
    summary: `OpenAI-compatible model list: ${MODELS.join(", ")}`,
    security,
    responses: {
      200: { description: '`{object: "list", data: [{id, object, created, owned_by}]}`' },
      ...oaiErrors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/openai/chat/completions",
    tags: ["chat frontends"],
    summary:
      "One chat turn as one Lattice query (docs/integrations/openai.md); X-Lattice-Session binds the session",
    security,
    request: {
      body: { content: { "application/json": { schema: ChatBody.openapi("ChatCompletionRequest") } } },
    },
    responses: {
      200: {
        description:
          "A chat.completion with a `lattice` field, or with `stream: true` chat.completion.chunk events",
        content: {
          "application/json": { schema: z.looseObject({}) },
          "text/event-stream": { schema: z.string() },
        },
      },
      ...oaiErrors,
    },
  });
  registry.registerPath({
    method: "post",
    path: "/v1/ai-sdk/chat",
    tags: ["chat frontends"],
    summary: "The AI SDK UI message stream (v1) for useChat (docs/integrations/ai-sdk.md)",
    security,
    request: {
      body: { content: { "application/json": { schema: ChatRequest.openapi("AiSdkChatRequest") } } },
    },
    responses: {
      200: { description: "UI message chunks", content: { "text/event-stream": { schema: z.string() } } },
      ...authErrors,
      ...notFoundError,
    },
  });
}
