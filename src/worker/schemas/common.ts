import { z } from "@hono/zod-openapi";
import { API_ERROR_CODES } from "../errors.ts";

/** An API error's code: the closed union ApiErrorCode, so the document lists every code. */
export const ErrorCodeSchema = z.enum(API_ERROR_CODES).openapi("ErrorCode", { example: "invalid_request" });

export const ErrorSchema = z
  .object({
    error: z.object({
      code: ErrorCodeSchema,
      message: z.string(),
      details: z.unknown().optional(),
    }),
  })
  .openapi("Error");

const errorResponse = (description: string) => ({
  description,
  content: { "application/json": { schema: ErrorSchema } },
});

/** The error responses every authenticated route can give; spread into a route's `responses`. */
export const authErrors = {
  400: errorResponse("Invalid input; details name the field"),
  401: errorResponse("No or bad API key"),
  403: errorResponse("Key of the wrong role"),
  413: errorResponse("Body too large"),
} as const;

export const notFoundError = { 404: errorResponse("Not found, or not yours") } as const;
export const preconditionError = {
  412: errorResponse("If-Match names another version than the one in force"),
} as const;
export const conflictError = { 409: errorResponse("Conflict with the current state") } as const;

export const jsonBody = <T extends z.ZodType>(schema: T, required = true) => ({
  body: { content: { "application/json": { schema } }, required },
});

export const jsonResponse = <T extends z.ZodType>(schema: T, description: string) => ({
  description,
  content: { "application/json": { schema } },
});
