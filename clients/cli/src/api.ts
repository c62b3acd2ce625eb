/** The CLI's calls to the API: JSON in, JSON out, each bounded in time and size. */
import { readBounded } from "../../../src/bounded-body.ts";

/** A field the API refused, as its error shape names it. */
export interface Problem {
  field: string;
  message: string;
}

/** The API answered with an error (its own words and fields), or could not be reached. */
export class ApiRefused extends Error {
  readonly status: number;
  readonly problems: Problem[];

  constructor(status: number, message: string, problems: Problem[]) {
    super(message);
    this.status = status;
    this.problems = problems;
  }
}

/** An answer is at most this long: a configuration document is at most the API's 1 MiB body. */
const MAX_ANSWER_BYTES = 8 * 1024 * 1024;
const TIMEOUT_MS = 30_000;

export interface Api {
  call(
    method: string,
    path: string,
    body?: unknown,
    headers?: Record<string, string>,
  ): Promise<{ body: unknown; etag: string | null }>;
}

export function connect(url: string, key: string): Api {
  const base = url.replace(/\/+$/, "");
  return {
    async call(method, path, body, headers = {}) {
      let res: Response;
      try {
        res = await fetch(`${base}${path}`, {
          method,
          headers: {
            Authorization: `Bearer ${key}`,
            ...(body !== undefined && { "Content-Type": "application/json" }),
            ...headers,
          },
          ...(body !== undefined && { body: JSON.stringify(body) }),
          signal: AbortSignal.timeout(TIMEOUT_MS),
          redirect: "error",
        });
      } catch (error) {
        const cause = error instanceof Error && error.cause instanceof Error ? error.cause.message : "";
        const why = error instanceof Error ? `${error.message}${cause ? ` (${cause})` : ""}` : String(error);
        throw new ApiRefused(0, `cannot reach ${base}: ${why}`, []);
      }
      const text = await boundedText(res);
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        throw new ApiRefused(res.status, `${base} answered ${res.status} with no JSON: is it Lattice?`, []);
      }
      if (!res.ok) throw refusal(res.status, parsed);
      return { body: parsed, etag: res.headers.get("ETag") };
    },
  };
}

/** The API's error shape `{error: {code, message, details}}`, its fields listed when it names them. */
function refusal(status: number, body: unknown): ApiRefused {
  const error = (body as { error?: { code?: unknown; message?: unknown; details?: unknown } })?.error;
  const message = typeof error?.message === "string" ? error.message : "refused";
  const code = typeof error?.code === "string" ? error.code : "error";
  const problems = Array.isArray(error?.details)
    ? error.details.filter(
        (d): d is Problem => typeof d?.field === "string" && typeof d?.message === "string",
      )
    : [];
  return new ApiRefused(status, `${message} (${status} ${code})`, problems);
}

/** The answer, cut off past the limit: the same bounded read every outbound call of Lattice uses. */
async function boundedText(res: Response): Promise<string> {
  const text = await readBounded(res, MAX_ANSWER_BYTES);
  if (text === "too_large")
    throw new ApiRefused(res.status, `the answer is over ${MAX_ANSWER_BYTES} bytes`, []);
  return text;
}
