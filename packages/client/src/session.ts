import type { components } from './api.generated.ts';
import { ApiError } from './errors.ts';

export type TokenPair = components['schemas']['TokenPair'];

export interface SessionOptions {
  baseUrl: string;
  /** A stored pair from an earlier run, if any. */
  tokens?: TokenPair | null;
  /** Called with every new pair: persist it (the old refresh token stops working 30 s later). */
  onTokens?: (tokens: TokenPair) => void;
  /** Called once when the session has ended (refresh refused): show the sign-in screen. */
  onSignedOut?: () => void;
  fetch?: typeof fetch;
  now?: () => number;
}

/** Refresh this long before the access token expires, so a request does not race its expiry. */
const EARLY_MS = 60_000;
/** A refresh whose answer was lost is sent again with the same token: the server's 30 s grace answers it. */
const REFRESH_ATTEMPTS = 3;

/**
 * The signed-in state of one app: attaches the access token, refreshes it shortly before it expires or when a
 * request is refused with 401, and resends that request once. Concurrent requests share one refresh.
 */
export class Session {
  readonly #options: SessionOptions;
  readonly #fetch: typeof fetch;
  readonly #now: () => number;
  #tokens: TokenPair | null;
  #expiresAt = 0;
  #refreshing: Promise<boolean> | null = null;

  constructor(options: SessionOptions) {
    this.#options = options;
    this.#fetch = options.fetch ?? fetch;
    this.#now = options.now ?? Date.now;
    this.#tokens = null;
    if (options.tokens) this.#store(options.tokens, false);
  }

  get tokens(): TokenPair | null {
    return this.#tokens;
  }

  /** Exchanges an identity-provider token for a session. */
  async signIn(idToken: string): Promise<TokenPair> {
    const response = await this.#fetch(this.#url('/auth/login'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ id_token: idToken }),
    });
    if (!response.ok) throw await ApiError.from(response);
    const tokens = (await response.json()) as TokenPair;
    this.#store(tokens, true);
    return tokens;
  }

  /** Ends the session on the server (its access tokens stop working within a second) and forgets it here. */
  async signOut(): Promise<void> {
    const tokens = this.#tokens;
    this.#tokens = null;
    if (!tokens) return;
    const response = await this.#fetch(this.#url('/auth/logout'), {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify({ refresh_token: tokens.refresh_token }),
    });
    if (!response.ok && response.status !== 401) throw await ApiError.from(response);
  }

  /**
   * Refreshes now (one refresh at a time: callers during a refresh share it). False when it could not: signed out
   * (then `onSignedOut` was called) or the server is unreachable (the tokens are kept for a later try).
   */
  refresh(): Promise<boolean> {
    this.#refreshing ??= this.#refresh().finally(() => {
      this.#refreshing = null;
    });
    return this.#refreshing;
  }

  /** The `fetch` of the generated client: authorised, refreshed, resent once after a 401. */
  readonly fetch = async (request: Request): Promise<Response> => {
    if (this.#tokens && this.#now() >= this.#expiresAt - EARLY_MS) await this.refresh();
    const sent = this.#tokens?.access_token;
    // The body can be read once: keep a copy in case the request is sent again.
    const retry = sent ? request.clone() : undefined;
    const response = await this.#fetch(withToken(request, sent));
    if (response.status !== 401 || !retry) return response;
    // Another request may have refreshed meanwhile; otherwise refresh now.
    const fresh = this.#tokens?.access_token !== sent || (await this.refresh());
    if (!fresh || !this.#tokens) return response;
    await response.body?.cancel();
    return this.#fetch(withToken(retry, this.#tokens.access_token));
  };

  async #refresh(): Promise<boolean> {
    const tokens = this.#tokens;
    if (!tokens) return false;
    for (let attempt = 1; ; attempt++) {
      let response: Response;
      try {
        response = await this.#fetch(this.#url('/auth/refresh'), {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ refresh_token: tokens.refresh_token }),
        });
      } catch {
        if (attempt >= REFRESH_ATTEMPTS) return false;
        await delay(250 * 2 ** attempt);
        continue;
      }
      if (response.ok) {
        this.#store((await response.json()) as TokenPair, true);
        return true;
      }
      await response.body?.cancel();
      if (response.status === 401) {
        // Only the pair this refresh started from ends here: a sign-in meanwhile keeps its new one.
        if (this.#tokens === tokens) {
          this.#tokens = null;
          this.#options.onSignedOut?.();
        }
        return false;
      }
      // 429 or 5xx: the session is still valid; keep it and let the caller see its own answer.
      return false;
    }
  }

  #store(tokens: TokenPair, announce: boolean) {
    this.#tokens = tokens;
    this.#expiresAt = this.#now() + tokens.expires_in * 1000;
    // A stored pair's age is unknown: its access token is used until the server refuses it.
    if (!announce) this.#expiresAt = Number.POSITIVE_INFINITY;
    else this.#options.onTokens?.(tokens);
  }

  #url(path: string) {
    return joinUrl(this.#options.baseUrl, path);
  }
}

function withToken(request: Request, token: string | undefined): Request {
  if (token) request.headers.set('authorization', `Bearer ${token}`);
  return request;
}

/** `path` under `base`, keeping a base path such as `https://host/api`. */
export function joinUrl(base: string, path: string): URL {
  return new URL(path.replace(/^\//, ''), base.endsWith('/') ? base : `${base}/`);
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
