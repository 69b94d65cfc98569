/**
 * A value per key, held in-process and re-read at most every `checkMs` — so a change made by an
 * admin reaches every process within about that time — without a database round trip on the hot
 * path. Misses (null) are cached too unless `cacheMisses` is false (then a key created a moment ago
 * is found at once); the map is bounded by evicting its oldest entry. Concurrent reads of a key
 * being loaded share that load.
 */
export class RecheckCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();
  private readonly loading = new Map<string, Promise<V>>();

  constructor(
    private readonly load: (key: string) => Promise<V>,
    private readonly checkMs: number,
    private readonly cacheMisses = true,
    private readonly maxEntries = 10_000,
    private readonly clock: () => number = Date.now,
  ) {}

  async get(key: string): Promise<V> {
    const hit = this.entries.get(key);
    if (hit && this.clock() - hit.at < this.checkMs) return hit.value;
    let loaded = this.loading.get(key);
    if (!loaded) {
      const load = this.load(key);
      loaded = load;
      this.loading.set(key, load);
      // Kept only if the key was not forgotten meanwhile (the load may predate the change).
      const settle = (value?: V, ok = false) => {
        if (this.loading.get(key) !== load) return;
        this.loading.delete(key);
        if (ok) this.remember(key, value as V);
      };
      load.then(
        (value) => settle(value, true),
        () => settle(),
      );
    }
    return loaded;
  }

  /** Drops a key (and a load of it in flight): its next read loads it anew. For a process that changed it. */
  forget(key: string): void {
    this.entries.delete(key);
    this.loading.delete(key);
  }

  /** Drops every key `matches` accepts (an application's keys), as {@link forget} does. */
  forgetWhere(matches: (key: string) => boolean): void {
    for (const key of [...this.entries.keys(), ...this.loading.keys()]) if (matches(key)) this.forget(key);
  }

  private remember(key: string, value: V) {
    if (value === null && !this.cacheMisses) return;
    if (!this.entries.has(key) && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: this.clock() });
  }
}
