interface Kept {
  version: string;
  json: string;
  /** What changing the text in place needs besides it (a diary day's entry places); counted in the budget. */
  index: string;
  at: number;
}

/**
 * Response texts kept by one API process: days of the diary, first pages of product search. A kept text is served
 * only while its version is the caller's (a diary day is built at the user's diary version; a search has none) and no
 * catalog change has been heard since (`invalidate`). Bounded by total text length, least recently used out first,
 * and by age, so a missed notification cannot keep a text stale for long. Memory stays flat as the catalog grows: it
 * holds answers, never the catalog.
 */
export class TextCache {
  readonly #entries = new Map<string, Kept>();
  readonly #maxChars: number;
  readonly #maxAgeMs: number;
  #chars = 0;
  #generation = 0;

  constructor(maxChars: number, maxAgeMs: number) {
    this.#maxChars = maxChars;
    this.#maxAgeMs = maxAgeMs;
  }

  /** Read before building a text; `set` drops the text if an invalidation came in between. */
  get generation() {
    return this.#generation;
  }

  get size() {
    return this.#entries.size;
  }

  get(key: string, now = Date.now()): Kept | undefined {
    const kept = this.#entries.get(key);
    if (!kept) return undefined;
    this.#entries.delete(key);
    if (now - kept.at > this.#maxAgeMs) {
      this.#chars -= kept.json.length + kept.index.length;
      return undefined;
    }
    this.#entries.set(key, kept); // most recently used last
    return kept;
  }

  /**
   * Keeps `json` at `version`. `at` is when the rows it was built from were read: a text changed in place keeps its
   * first build's time, so the age bound still holds for the rest of it.
   */
  set(key: string, generation: number, version: string, json: string, { index = '', at = Date.now() } = {}) {
    const chars = json.length + index.length;
    if (generation !== this.#generation || chars > this.#maxChars) return;
    const old = this.#entries.get(key);
    if (old) {
      this.#entries.delete(key);
      this.#chars -= old.json.length + old.index.length;
    }
    this.#entries.set(key, { version, json, index, at });
    this.#chars += chars;
    for (const [oldest, kept] of this.#entries) {
      if (this.#chars <= this.#maxChars) break;
      this.#entries.delete(oldest);
      this.#chars -= kept.json.length + kept.index.length;
    }
  }

  invalidate() {
    this.#generation++;
    this.#entries.clear();
    this.#chars = 0;
  }
}
