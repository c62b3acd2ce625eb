/**
 * The one result shape across subsystems: success carries its fields beside `ok: true`; failure a
 * code from the subsystem's closed union, a message for people, and optional details. Expected
 * outcomes travel as results (over RPC too); only bugs throw.
 */
export type Ok<T extends object = object> = { readonly ok: true } & T;

export interface Failure<C extends string> {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
  readonly details?: unknown;
}

export type Result<T extends object, C extends string> = Ok<T> | Failure<C>;

export function failure<C extends string>(code: C, message: string, details?: unknown): Failure<C> {
  return details === undefined ? { ok: false, code, message } : { ok: false, code, message, details };
}

/**
 * An internal error that ends a unit of work (a query, a call): a closed code, and the error that
 * caused it where there was one, so a log keeps the whole chain.
 */
export class CodedError<C extends string> extends Error {
  readonly code: C;
  readonly details: unknown;

  constructor(code: C, message: string, options: { details?: unknown; cause?: unknown } = {}) {
    super(message, options.cause === undefined ? undefined : { cause: options.cause });
    this.code = code;
    this.details = options.details;
  }
}
