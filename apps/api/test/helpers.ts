import { Writable } from 'node:stream';
import type { Test } from 'tap';
import type { InjectOptions } from 'fastify';
import postgres from 'postgres';
import { createTestDatabase } from '@nutrition/db/testing';
import { buildApp, type App, type AppOptions } from '../src/app.ts';
import { loadConfig } from '../src/config.ts';

export interface TestContext {
  app: App;
  url: string;
  /** Direct access to the test database, for arranging and inspecting rows. */
  sql: postgres.Sql;
  /** The server's maintenance database, for statements about the test database itself. */
  adminUrl: string;
}

/** A log destination (the `stream` of a logger option) that keeps every line written, for tests that read the logs. */
export function logCapture() {
  const lines: string[] = [];
  const stream = new Writable({
    write(chunk, _encoding, done) {
      lines.push(String(chunk));
      done();
    },
  });
  return { lines, stream };
}

/** The API on a fresh copy of the template database; closed and dropped when the test ends. */
export async function buildTestApp(
  t: Test,
  env: Record<string, string> = {},
  options: AppOptions = {},
): Promise<TestContext> {
  const db = await createTestDatabase();
  const config = loadConfig({ NODE_ENV: 'test', LOG_LEVEL: 'silent', DATABASE_URL: db.url, ...env });
  const app = await buildApp(config, options);
  const sql = postgres(db.url, { max: 2, onnotice: () => {} });
  t.teardown(async () => {
    await app.close();
    await sql.end();
    await db.drop();
  });
  return { app, url: db.url, sql, adminUrl: db.adminUrl };
}

export interface Session {
  access_token: string;
  refresh_token: string;
  user: { id: string; email: string | null; is_new: boolean };
}

/** Signs in through the noop verifier: the same subject is always the same user. */
export async function login(app: App, subject: string): Promise<Session> {
  const res = await app.inject({ method: 'POST', url: '/auth/login', payload: { id_token: subject } });
  if (res.statusCode !== 200) throw new Error(`login failed: ${res.statusCode} ${res.body}`);
  return res.json();
}

/** `app.inject` with the session's bearer token. */
export function as(app: App, session: Session | string) {
  const token = typeof session === 'string' ? session : session.access_token;
  return (opts: InjectOptions) =>
    app.inject({ ...opts, headers: { authorization: `Bearer ${token}`, ...(opts.headers ?? {}) } });
}

/** Asserts the contract's error shape and returns the body. */
export function assertError(
  t: Test,
  res: { statusCode: number; json: () => any; headers: Record<string, unknown> },
  status: number,
  code?: string,
) {
  t.equal(res.statusCode, status, `status ${status}`);
  const body = res.json();
  t.match(body, { statusCode: status, error: String, code: String, message: String, request_id: String });
  t.equal(body.request_id, res.headers['x-request-id'], 'error body carries the request id');
  if (code) t.equal(body.code, code, `code ${code}`);
  t.notMatch(JSON.stringify(body), /at .*\.ts:\d+|SELECT |INSERT /, 'no stack trace or SQL in the body');
  return body;
}

/** The served OpenAPI document with its component references inlined, for tests that walk request schemas. */
export async function inlinedDocument(app: App) {
  const doc = (await app.inject({ method: 'GET', url: '/openapi.json' })).json();
  const inline = (node: unknown): unknown => {
    if (Array.isArray(node)) return node.map(inline);
    if (node === null || typeof node !== 'object') return node;
    const ref = (node as { $ref?: unknown }).$ref;
    if (typeof ref === 'string' && ref.startsWith('#/components/schemas/'))
      return inline(doc.components.schemas[ref.slice('#/components/schemas/'.length)]);
    return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, inline(v)]));
  };
  return { ...doc, paths: inline(doc.paths) };
}
