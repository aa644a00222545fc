import fp from 'fastify-plugin';
import rateLimit from '@fastify/rate-limit';
import type { FastifyInstance } from 'fastify';
import { HttpError } from '../errors.ts';

export interface RateLimits {
  perUser: number;
  perIp: number;
  model: number;
}

/** Route config that puts a route in the stricter, shared bucket of model-backed routes. */
export const modelRateLimit = (limits: RateLimits) => ({ rateLimit: { max: limits.model, timeWindow: 60_000, groupId: 'model' } });

/**
 * Requests per minute, per user on authenticated routes (counted after authentication, so a forged token cannot
 * spend someone else's budget) and per IP on public ones; model-backed routes have a stricter shared budget.
 * Answers 429 with Retry-After. Health, readiness and metrics are never limited (their routes opt out with
 * `config: { rateLimit: false }`). Counters live in each process.
 */
export default fp(
  async (app: FastifyInstance, limits: RateLimits) => {
    await app.register(rateLimit, {
      global: true,
      hook: 'preHandler',
      timeWindow: 60_000,
      max: (request) => (request.user?.id ? limits.perUser : limits.perIp),
      keyGenerator: (request) => (request.user?.id ? `user:${request.user.id}` : `ip:${request.ip}`),
      errorResponseBuilder: (_request, context) =>
        new HttpError(429, 'rate_limited', `Too many requests, retry in ${context.after}`),
    });
  },
  { name: 'rate-limit' },
);
