/**
 * A Durable Object's RPC surface with the object's own method types. The generated stub types map
 * every value through Rpc.Serializable, which chokes on recursive JSON (manifests, plans); our RPC
 * values are plain JSON data, which structured clone carries unchanged, so the object's types hold.
 */
export type Rpc<T> = {
  [K in keyof T as T[K] extends (...args: never[]) => unknown ? K : never]: T[K] extends (
    ...args: infer A
  ) => infer R
    ? (...args: A) => Promise<Awaited<R>>
    : never;
};

export function rpc<T>(stub: unknown): Rpc<T> {
  return stub as Rpc<T>;
}
