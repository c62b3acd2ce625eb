import { Lru } from "../../lru.ts";
import { JOIN_MS, joinFor } from "../join.ts";

/** A fetch's answer: the state's stamp, and the state itself unless it is the one the stamp asked with. */
export interface Fetched<V> {
  stamp: string;
  value: V | null;
}

/**
 * Tenant state held in this isolate, each tenant's for at most `boundMs` from the moment it was
 * asked for: a read within the bound costs no call; past it, one call per tenant goes out (readers
 * arriving meanwhile wait on that one), carrying the stamp held so that an unchanged state comes
 * back as its stamp alone. The staleness bound is measured from when the fetch *started*, so what a
 * reader is given never reflects the tenant's state of more than `boundMs` ago. A failed fetch is
 * not served around: past the bound the reader gets the error (the edge answers it 503).
 * Pure: the clock is given.
 */
export class Bounded<V> {
  private readonly held: Lru<string, { stamp: string; value: V; asked: number }>;
  private readonly inflight = new Map<string, { fetched: Promise<V>; started: number }>();
  private readonly boundMs: number;
  private readonly now: () => number;

  constructor(boundMs: number, maxTenants: number, now: () => number = Date.now) {
    this.boundMs = boundMs;
    this.now = now;
    this.held = new Lru(maxTenants);
  }

  async get(key: string, fetch: (stamp: string | null) => Promise<Fetched<V>>): Promise<V> {
    const hit = this.held.get(key);
    if (hit && this.now() - hit.asked < this.boundMs) return hit.value;
    const running = this.inflight.get(key);
    // Another request's fetch is joined for a bounded time only (join.ts): if that request was
    // cancelled, its fetch never settles, and this one goes on with a fetch of its own.
    if (running && this.now() - running.started < JOIN_MS) {
      const joined = await joinFor(running.fetched, JOIN_MS);
      if (joined) return joined.value;
    }
    return this.start(key, hit, fetch);
  }

  private start(
    key: string,
    hit: { stamp: string; value: V } | undefined,
    fetch: (stamp: string | null) => Promise<Fetched<V>>,
  ): Promise<V> {
    const asked = this.now();
    const fetched = fetch(hit?.stamp ?? null).then((answer) => {
      const value = answer.value ?? (hit && answer.stamp === hit.stamp ? hit.value : null);
      if (value === null) throw new Error("the tenant sent no state for a stamp it was not asked with");
      // A `forget` while this was under way dropped it: what it read may predate the write.
      if (this.inflight.get(key)?.fetched === fetched)
        this.held.set(key, { stamp: answer.stamp, value, asked });
      return value;
    });
    this.inflight.set(key, { fetched, started: asked });
    const done = () => {
      if (this.inflight.get(key)?.fetched === fetched) this.inflight.delete(key);
    };
    fetched.then(done, done);
    return fetched;
  }

  /** Drops what is held for `key`: the next read asks again (a write made through this isolate). */
  forget(key: string): void {
    this.held.delete(key);
    this.inflight.delete(key);
  }
}
