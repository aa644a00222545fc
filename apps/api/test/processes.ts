import { spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import type { Test } from 'tap';
import postgres from 'postgres';
import { freePort, startEmbeddedPostgres, type EmbeddedServer } from '@nutrition/db';
import { prepareDatabase } from '../src/setup.ts';
import sharp from 'sharp';

const root = fileURLToPath(new URL('../../../', import.meta.url));

export interface Service {
  child: ChildProcess;
  url: string;
  output: () => string;
}

/**
 * Starts an app of the workspace as a real process (as it is deployed) and waits for its ready line. The process is
 * killed when the test ends.
 */
export async function startService(
  t: Test,
  app: 'api' | 'dish-worker' | 'product-worker',
  env: Record<string, string>,
  /** A deployed copy of the app to run instead of the workspace's. */
  dir = `${root}apps/${app}`,
): Promise<Service> {
  const port = await freePort();
  const child = spawn(process.execPath, [`${dir}/src/main.ts`], {
    env: {
      ...process.env,
      NODE_ENV: 'test',
      LOG_LEVEL: 'info',
      ...(app === 'api' ? { PORT: String(port), HOST: '127.0.0.1' } : { HEALTH_PORT: String(port) }),
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  t.teardown(() => {
    if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
  });
  const ready = app === 'api' ? /Server listening/ : /worker ready/;
  const started = Date.now();
  while (!ready.test(output)) {
    if (child.exitCode !== null) throw new Error(`${app} exited early:\n${output}`);
    if (Date.now() - started > 20_000) throw new Error(`${app} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return { child, url: `http://127.0.0.1:${port}`, output: () => output };
}

/**
 * Runs an app of the workspace until it is ready (then it is killed) or exits by itself, for the checks of a process
 * that must refuse to start: its exit code (null when it got ready) and everything it printed.
 */
export function runUntilReady(app: 'api' | 'dish-worker' | 'product-worker', env: Record<string, string>) {
  return new Promise<{ code: number | null; ready: boolean; output: string }>((resolve) => {
    const child = spawn(process.execPath, [`${root}apps/${app}/src/main.ts`], {
      env: { ...process.env, NODE_ENV: 'test', LOG_LEVEL: 'info', ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    let ready = false;
    const onData = (d: Buffer) => {
      output += d;
      if (!ready && /Server listening|worker ready/.test(output)) {
        ready = true;
        child.kill('SIGKILL');
      }
    };
    child.stdout.on('data', onData);
    child.stderr.on('data', onData);
    const timer = setTimeout(() => child.kill('SIGKILL'), 20_000);
    child.on('exit', (code) => {
      clearTimeout(timer);
      resolve({ code: ready ? null : code, ready, output });
    });
  });
}

export interface SseEvent {
  event: string;
  id: string;
  data: any;
  at: number;
}

/** Reads a server-sent event stream over a real socket until the server ends it (or the timeout). */
export function readStream(
  url: string,
  token: string,
  timeoutMs = 30_000,
  headers: Record<string, string> = {},
): Promise<{ status: number; events: SseEvent[]; comments: string[] }> {
  return new Promise((resolve, reject) => {
    const options = { headers: { authorization: `Bearer ${token}`, accept: 'text/event-stream', ...headers } };
    const req = http.get(url, options, (res) => {
      const events: SseEvent[] = [];
      const comments: string[] = [];
      let buffer = '';
      res.setEncoding('utf8');
      res.on('data', (chunk: string) => {
        buffer += chunk;
        for (let end = buffer.indexOf('\n\n'); end >= 0; end = buffer.indexOf('\n\n')) {
          const block = buffer.slice(0, end);
          buffer = buffer.slice(end + 2);
          const fields: Record<string, string> = {};
          for (const line of block.split('\n')) {
            if (line.startsWith(':')) comments.push(line.slice(1).trim());
            else {
              const i = line.indexOf(':');
              if (i > 0) fields[line.slice(0, i)] = line.slice(i + 1).trimStart();
            }
          }
          if (fields.event)
            events.push({
              event: fields.event,
              id: fields.id ?? '',
              data: fields.data ? JSON.parse(fields.data) : null,
              at: Date.now(),
            });
        }
      });
      res.on('end', () => {
        clearTimeout(timer);
        resolve({ status: res.statusCode!, events, comments });
      });
    });
    const timer = setTimeout(() => {
      req.destroy();
      reject(new Error(`stream ${url} did not end within ${timeoutMs} ms`));
    }, timeoutMs);
    req.on('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
  });
}

/** Distinct real photos: 16 × 16 JPEGs whose 2 × 2 blocks spell the seed in black and white, which survives
 * re-encoding. Built once, at load, because tests build their requests synchronously. */
const PHOTOS = await Promise.all(
  Array.from({ length: 1024 }, (_, seed) => {
    const raw = Buffer.alloc(16 * 16 * 3);
    for (let p = 0; p < 256; p++) {
      const block = Math.floor(p / 32) * 8 + Math.floor((p % 16) / 2);
      // Low bits spell the seed; the rest a fixed pattern, so no photo is all black.
      const bit = block < 10 ? (seed >> block) & 1 : block % 3 === 0 ? 1 : 0;
      raw.fill(bit ? 255 : 0, p * 3, p * 3 + 3);
    }
    return sharp(raw, { raw: { width: 16, height: 16, channels: 3 } })
      .jpeg({ quality: 90 })
      .toBuffer();
  }),
);

/**
 * A decodable JPEG, different for each seed below 1024; with `size`, padded after its end marker to `size` + 4 bytes
 * (decoders ignore what follows the image), for the size limits.
 */
export function fakeJpeg(seed: number, size?: number): Buffer {
  const photo = PHOTOS[Math.abs(Math.floor(seed)) % PHOTOS.length]!;
  if (size === undefined || size + 4 <= photo.length) return photo;
  return Buffer.concat([photo, Buffer.alloc(size + 4 - photo.length)]);
}

export async function api(url: string, token: string | null, method: string, path: string, body?: unknown) {
  const res = await fetch(`${url}${path}`, {
    method,
    headers: {
      ...(token ? { authorization: `Bearer ${token}` } : {}),
      ...(body !== undefined ? { 'content-type': 'application/json' } : {}),
    },
    body: body === undefined ? undefined : JSON.stringify(body),
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

export async function loginOver(url: string, subject: string): Promise<string> {
  return (await api(url, null, 'POST', '/auth/login', { id_token: subject })).body.access_token;
}

export function imageJson(data: Buffer) {
  return { content_type: 'image/jpeg', data_base64: data.toString('base64') };
}

/**
 * A PostgreSQL server of the test's own (not the shared one), with one migrated and seeded database, that the test
 * may stop and start again on the same port and data directory; removed when the test ends.
 */
export async function ownPostgres(t: Test, database: string) {
  const dir = await mkdtemp(join(tmpdir(), `nutrition-${database}-`));
  const port = await freePort();
  let pg: EmbeddedServer = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), port });
  t.teardown(async () => {
    await pg.stop().catch(() => {});
    await rm(dir, { recursive: true, force: true });
  });
  const admin = postgres(pg.url(), { max: 1, onnotice: () => {} });
  await admin`CREATE DATABASE ${admin(database)}`;
  await admin.end();
  const url = pg.url(database);
  await prepareDatabase(url);
  return {
    url,
    stop: () => pg.stop(),
    start: async () => {
      pg = await startEmbeddedPostgres({ dataDir: join(dir, 'data'), port });
    },
  };
}
