/**
 * Writes an object makes just after its reply has left. A Durable Object holds every outgoing
 * message, an RPC's reply too, until its writes are durable (the output gate): about 1.5 ms per
 * commit under local workerd, more where storage replicates, on every step a query runs. For a write
 * whose loss in a crash costs only a count or a memory record (a quota's use, an agent's memory),
 * that wait bought nothing, so such writes go here instead.
 *
 * The bound: a crash in the moment between the reply and the commit forgets the writes queued in it.
 * Nothing else changes: a reader in the same object sees every queued write, by calling `flush()`
 * first (a spoke's memory) or by adding what is queued to what it reads (usage.ts's Counters).
 */
export class WriteBehind {
  private queued: Array<() => void> = [];

  /** Runs `write` in a task of its own right after this one (or at the next `flush`). */
  defer(write: () => void): void {
    this.queued.push(write);
    if (this.queued.length === 1) setTimeout(() => this.flush(), 0);
  }

  /** Runs every queued write now, in order. */
  flush(): void {
    const queued = this.queued;
    this.queued = [];
    for (const write of queued) {
      try {
        write();
      } catch (error) {
        // One failed write (storage full, a bug) must not drop the ones queued after it.
        console.error("a deferred write failed", error);
      }
    }
  }
}
