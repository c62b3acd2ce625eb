/**
 * Durable Object calls counted by class and method, for the performance bench only
 * (`LATTICE_COUNT_CALLS=on`): what one query costs in object round trips. Per isolate; off, a stub
 * is returned as it is.
 */
const counts = new Map<string, number>();

export function counted<T extends object>(className: string, stub: T, on: boolean): T {
  if (!on) return stub;
  return new Proxy(stub, {
    get(target, prop) {
      const value: unknown = Reflect.get(target, prop);
      if (typeof value !== "function" || typeof prop !== "string") return value;
      return (...args: unknown[]) => {
        const key = `${className}.${prop}`;
        counts.set(key, (counts.get(key) ?? 0) + 1);
        // Reflect.apply: an RPC method is itself a proxy, on which `.apply` would name a remote method.
        return Reflect.apply(value as (...a: unknown[]) => unknown, target, args);
      };
    },
  });
}

export function callCounts(): Record<string, number> {
  return Object.fromEntries([...counts].sort(([a], [b]) => (a < b ? -1 : 1)));
}
