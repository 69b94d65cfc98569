/**
 * A value per key, held in-process and re-read at most every `checkMs` — so a change made by an
 * admin reaches every process within about that time — without a database round trip on the hot
 * path. Misses (null) are cached too unless `cacheMisses` is false (then a key created a moment ago
 * is found at once); the map is bounded by evicting its oldest entry.
 */
export class RecheckCache<V> {
  private readonly entries = new Map<string, { value: V; at: number }>();

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
    const value = await this.load(key);
    if (value === null && !this.cacheMisses) return value;
    if (!hit && this.entries.size >= this.maxEntries) this.entries.delete(this.entries.keys().next().value!);
    this.entries.set(key, { value, at: this.clock() });
    return value;
  }
}
