import { createPublicKey, type JsonWebKey, type KeyObject } from 'node:crypto';
import { request } from 'undici';

const DEFAULT_MAX_AGE_MS = 60 * 60 * 1000;
/** An unknown `kid` triggers a refetch (keys rotate), but not more often than this. */
const MIN_REFETCH_MS = 30 * 1000;

interface CachedSet {
  keys: Map<string, KeyObject>;
  fetchedAt: number;
  maxAgeMs: number;
}

/**
 * Fetches and caches JSON Web Key Sets over undici, honouring `Cache-Control: max-age`, so verifying a login costs no
 * network round trip while the keys are fresh.
 */
export class JwksCache {
  private readonly sets = new Map<string, CachedSet>();
  private readonly inflight = new Map<string, Promise<CachedSet>>();

  private readonly timeoutMs: number;
  constructor(timeoutMs = 5000) {
    this.timeoutMs = timeoutMs;
  }

  async key(url: string, kid: string | undefined): Promise<KeyObject | undefined> {
    let set = this.sets.get(url);
    const now = Date.now();
    if (!set || now - set.fetchedAt > set.maxAgeMs) set = await this.fetch(url);
    const pick = (s: CachedSet) => (kid ? s.keys.get(kid) : s.keys.size === 1 ? [...s.keys.values()][0] : undefined);
    let key = pick(set);
    if (!key && now - set.fetchedAt > MIN_REFETCH_MS) key = pick(await this.fetch(url));
    return key;
  }

  private fetch(url: string): Promise<CachedSet> {
    let pending = this.inflight.get(url);
    if (!pending) {
      pending = this.load(url).finally(() => this.inflight.delete(url));
      this.inflight.set(url, pending);
    }
    return pending;
  }

  private async load(url: string): Promise<CachedSet> {
    // One deadline for the whole answer: bodyTimeout bounds only the pause between chunks, so a body sent a byte a
    // second held every login waiting on this fetch for minutes.
    const res = await request(url, { signal: AbortSignal.timeout(this.timeoutMs) });
    if (res.statusCode !== 200) {
      await res.body.dump();
      throw new Error(`JWKS ${url} answered ${res.statusCode}`);
    }
    const body = (await res.body.json()) as { keys?: (JsonWebKey & { kid?: string; use?: string })[] };
    const keys = new Map<string, KeyObject>();
    for (const jwk of body.keys ?? []) {
      if (jwk.use && jwk.use !== 'sig') continue;
      try {
        keys.set(jwk.kid ?? '', createPublicKey({ key: jwk, format: 'jwk' }));
      } catch {
        // A key type this Node cannot read is skipped; the others still work.
      }
    }
    const cacheControl = String(res.headers['cache-control'] ?? '');
    const maxAge = /max-age=(\d+)/.exec(cacheControl);
    const set = { keys, fetchedAt: Date.now(), maxAgeMs: maxAge ? Number(maxAge[1]) * 1000 : DEFAULT_MAX_AGE_MS };
    this.sets.set(url, set);
    return set;
  }
}
