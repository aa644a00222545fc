import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance, FastifyRequest } from 'fastify';
import { HttpError } from '../errors.ts';

export interface RateLimits {
  perUser: number;
  perIp: number;
  model: number;
}

declare module 'fastify' {
  interface FastifyInstance {
    /**
     * Counts one model call of the request's user against the model budget (per user and minute), or throws `429`.
     * Called where a model is really asked: cached answers and names found in the catalog cost nothing.
     */
    spendModelBudget: (request: FastifyRequest) => void;
  }
}

const MINUTE_MS = 60_000;

/**
 * Requests per minute, per user on authenticated routes (keyed by the verified token's user, so a forged token
 * cannot spend someone else's budget) and per IP on public ones. A request refused for its token (401) is not
 * counted: the token check is all the work it costs. Counted in `onRequest`, before a body is read: a
 * client over its budget cannot make the process parse a large upload. Model calls have a stricter budget of their
 * own. Answers 429 with Retry-After. Health, readiness and metrics are never limited (their routes opt out with
 * `config: { rateLimit: false }`). Counters live in each process.
 */
export default fp(
  async (app: FastifyInstance, limits: RateLimits) => {
    // The user `authenticate` verified: it runs before this route-level hook on every protected route. Public routes
    // have none, whatever token comes with them: a token neither lifts such a route off its per-IP limit nor spends
    // the budget of a user who logged it out (looking the token up here did both).
    const userOf = (request: FastifyRequest) => request.user?.id;
    await app.register(rateLimit, {
      global: true,
      hook: 'onRequest',
      timeWindow: MINUTE_MS,
      max: (request) => (userOf(request) ? limits.perUser : limits.perIp),
      keyGenerator: (request) => {
        const user = userOf(request);
        return user ? `user:${user}` : `ip:${request.ip}`;
      },
      errorResponseBuilder: (_request, context) =>
        new HttpError(429, 'rate_limited', `Too many requests, retry in ${context.after}`),
    });

    // user id -> the current minute's start and calls counted in it
    const windows = new Map<string, { start: number; used: number }>();
    app.decorate('spendModelBudget', (request: FastifyRequest) => {
      const now = Date.now();
      if (windows.size > 10_000) for (const [user, w] of windows) if (now - w.start >= MINUTE_MS) windows.delete(user);
      const kept = windows.get(request.user.id);
      const window = kept && now - kept.start < MINUTE_MS ? kept : { start: now, used: 0 };
      windows.set(request.user.id, window);
      if (window.used >= limits.model) {
        const seconds = Math.max(1, Math.ceil((window.start + MINUTE_MS - now) / 1000));
        throw new HttpError(
          429,
          'rate_limited',
          `Too many model requests, retry in ${seconds} seconds`,
          undefined,
          seconds,
        );
      }
      window.used++;
    });
  },
  { name: 'rate-limit', dependencies: ['auth'] },
);
