/**
 * Waiting on a promise another request started, for at most `ms`. The Workers runtime cancels a
 * request as hung when it waits on nothing of its own, so a request that joins another's call (a
 * state refresh, a key check, a batch being sent) must not wait on that call alone: if the request
 * that started it is cancelled, the call never settles. With a timer of its own pending, the joiner
 * is never hung; when the timer wins, it goes on without the shared call (null).
 */
export async function joinFor<T>(shared: Promise<T>, ms: number): Promise<{ value: T } | null> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<null>((resolve) => {
    timer = setTimeout(() => resolve(null), ms);
  });
  try {
    return await Promise.race([shared.then((value) => ({ value })), late]);
  } finally {
    clearTimeout(timer);
  }
}

/** How long a request waits on a call another request started before making its own. */
export const JOIN_MS = 2_000;
