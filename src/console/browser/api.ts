/**
 * The public API from the browser through the typed client (@lattice/client: openapi-fetch over the
 * generated types), with the credential the person signed in with. The credential lives in the
 * tab's sessionStorage only; a 401 signs out. Nothing here holds a secret of Lattice's own.
 */
import { createLattice, type Lattice, type LatticeEvent } from "@lattice/client";
import { takeFrames } from "./sse.ts";

/** Which credential a page needs (the shell's data-needs). */
export type Needs = "user" | "admin" | "developer";
export const STORE: Record<Needs, string> = {
  user: "lattice.user",
  admin: "lattice.admin",
  developer: "lattice.developer",
};
const WHY = "lattice.signed-out";

export const needs = (): Needs => (document.body.dataset.needs as Needs | undefined) ?? "user";
export const credential = (): string | null => sessionStorage.getItem(STORE[needs()]);

/** The reason the last sign-out gave, once (it is carried over the reload in the tab's storage). */
export function takeSignOutReason(): string {
  const why = sessionStorage.getItem(WHY) ?? "";
  sessionStorage.removeItem(WHY);
  return why;
}

let signingOut = false;
/**
 * Signing out reloads the page: nothing of the last user (DOM, streams, listeners, timers) can
 * outlive it. A chat session's address names the last user's session: the next user starts anew.
 */
export function signOut(why: string): void {
  if (signingOut) return;
  signingOut = true;
  sessionStorage.removeItem(STORE[needs()]);
  if (why) sessionStorage.setItem(WHY, why);
  location.replace(document.body.dataset.page === "chat" ? "/console" : location.pathname);
}

const EXPIRED = "Your sign-in expired or was refused; sign in again.";

/** A typed client with `key`; `onUnauthorized` runs on any 401 (the page's own credential signs out). */
export function clientFor(key: string, onUnauthorized: () => void): Lattice {
  const watched = async (input: RequestInfo | URL, init?: RequestInit) => {
    const res = await fetch(input, init);
    if (res.status === 401) onUnauthorized();
    return res;
  };
  return createLattice({ baseUrl: location.origin, key, fetch: watched });
}

let pageClient: Lattice | null = null;
/** The client for the page's own credential (made once per page load: a new sign-in reloads). */
export function api(): Lattice {
  pageClient ??= clientFor(credential() ?? "", () => signOut(EXPIRED));
  return pageClient;
}

export interface Result<T> {
  ok: boolean;
  status: number;
  data: T | undefined;
  /** The API's error message, or what failed. */
  error: string;
  details: unknown;
}

interface ApiErrorBody {
  error?: { message?: string; details?: unknown };
}

/** One call's outcome: its data, or its error in words (an error without a JSON body says its status). */
export async function call<T>(
  request: Promise<{ data?: T; error?: unknown; response: Response }>,
): Promise<Result<T>> {
  try {
    const { data, error, response } = await request;
    const body = (error && typeof error === "object" ? error : {}) as ApiErrorBody;
    return {
      ok: response.ok,
      status: response.status,
      data,
      error: response.ok ? "" : (body.error?.message ?? `request failed (${response.status})`),
      details: body.error?.details,
    };
  } catch (e) {
    return {
      ok: false,
      status: 0,
      data: undefined,
      error: `request failed (${String(e)})`,
      details: undefined,
    };
  }
}

/**
 * The session's server-sent events, resumed with Last-Event-ID after any break, until stop(). A 401
 * signs out (through the client), a 429 waits its Retry-After, a 403 or 404 ends it, and a frame that
 * is not JSON is skipped (re-reading it would fail the same way forever).
 */
export function follow(client: Lattice, sid: string, onEvent: (e: LatticeEvent) => void): { stop(): void } {
  const controller = new AbortController();
  let last = 0;
  const run = async () => {
    while (!controller.signal.aborted) {
      let wait = 1000;
      try {
        const { data, response } = await client.api.GET("/v1/sessions/{sid}/events", {
          params: { path: { sid } },
          headers: { Accept: "text/event-stream", "Last-Event-ID": String(last) },
          parseAs: "stream",
          signal: controller.signal,
        });
        if (response.ok && data) {
          const reader = (data as ReadableStream<Uint8Array>).getReader();
          const decoder = new TextDecoder();
          let buffer = "";
          for (;;) {
            const chunk = await reader.read();
            if (chunk.done) break;
            const taken = takeFrames(buffer + decoder.decode(chunk.value, { stream: true }));
            buffer = taken.rest;
            for (const frame of taken.frames) {
              if (frame.id !== null && frame.id > last) last = frame.id;
              if (!frame.data) continue;
              let event: LatticeEvent;
              try {
                const parsed = JSON.parse(frame.data) as unknown;
                // A frame without the event's envelope is skipped like one that is not JSON.
                if (
                  !parsed ||
                  typeof parsed !== "object" ||
                  typeof (parsed as { type?: unknown }).type !== "string"
                )
                  continue;
                event = parsed as LatticeEvent;
              } catch {
                continue;
              }
              if (typeof event.seq === "number" && event.seq > last) last = event.seq;
              onEvent(event);
            }
          }
        } else if (response.status === 401 || response.status === 403 || response.status === 404) return;
        else if (response.status === 429)
          wait = Math.max(1, Number(response.headers.get("Retry-After")) || 5) * 1000;
      } catch {
        if (controller.signal.aborted) return;
      }
      await new Promise((r) => setTimeout(r, wait));
    }
  };
  void run();
  return { stop: () => controller.abort() };
}
