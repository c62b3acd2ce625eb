/** The one error the client throws: the API's error body (`{error: {code, message, details}}`) with its status. */
export class LatticeError extends Error {
  readonly status: number;
  readonly code: string;
  readonly details: unknown;

  constructor(status: number, code: string, message: string, details?: unknown) {
    super(message);
    this.name = "LatticeError";
    this.status = status;
    this.code = code;
    this.details = details;
  }

  static async from(response: Response, body?: unknown): Promise<LatticeError> {
    const parsed = (body ?? (await response.json().catch(() => null))) as {
      error?: { code?: string; message?: string; details?: unknown };
    } | null;
    const e = parsed?.error;
    return new LatticeError(
      response.status,
      e?.code ?? `http_${response.status}`,
      e?.message ?? `HTTP ${response.status}`,
      e?.details,
    );
  }
}
