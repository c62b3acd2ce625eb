/**
 * The one result shape across subsystems: success carries its fields beside `ok: true`; failure a
 * code from the subsystem's closed union, a message for people, and optional details. Expected
 * outcomes travel as results (over RPC too); only bugs throw.
 */
export type Ok<T extends object = object> = { readonly ok: true } & T;

/**
 * A failure's details, typed where the reader needs them (`D`): required then; absent when `D` is
 * undefined (`failure(code, message)`); anything, if present, when left open.
 */
type Details<D> = [D] extends [undefined]
  ? { readonly details?: undefined }
  : unknown extends D
    ? { readonly details?: unknown }
    : { readonly details: D };

export type Failure<C extends string, D = unknown> = {
  readonly ok: false;
  readonly code: C;
  readonly message: string;
} & Details<D>;

export type Result<T extends object, C extends string, D = unknown> = Ok<T> | Failure<C, D>;

export function failure<C extends string>(code: C, message: string): Failure<C, undefined>;
export function failure<C extends string, D>(code: C, message: string, details: D): Failure<C, D>;
export function failure(code: string, message: string, details?: unknown): Failure<string> {
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
