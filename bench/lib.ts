import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import http from 'node:http';
import { readdirSync, readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { freePort } from '@nutrition/db';
import { ALLOCATOR_ENV, API_NODE_FLAGS } from '../scripts/allocator-env.ts';

export const root = fileURLToPath(new URL('../', import.meta.url));

export interface Row {
  id: string;
  figure: string;
  value: number;
  unit: string;
  baseline: number | null;
  ratio: number | null;
  goal: string;
  met: boolean | null;
}

export interface Proc {
  child: ChildProcess;
  url: string;
  port: number;
  output: () => string;
  stop: () => Promise<void>;
}

/** Starts a node script as its own process and waits until `ready` (a line it prints, or a path that answers 200). */
export async function startProcess(
  script: string,
  env: Record<string, string>,
  ready: RegExp | string,
  portVar = 'PORT',
): Promise<Proc> {
  const port = await freePort();
  const flags = script.endsWith('apps/api/src/main.ts') ? API_NODE_FLAGS : [];
  const child = spawn(process.execPath, [...flags, script], {
    // As deployed: the allocator settings and Node flags of the Dockerfiles and `pnpm start`.
    env: { ...process.env, ...ALLOCATOR_ENV, LOG_LEVEL: 'warn', ...env, [portVar]: String(port), HOST: '127.0.0.1' },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.on('data', (d) => (output += d));
  child.stderr!.on('data', (d) => (output += d));
  const started = Date.now();
  const isReady = async () => {
    if (ready instanceof RegExp) return ready.test(output);
    return fetch(`http://127.0.0.1:${port}${ready}`).then(
      (r) => r.ok,
      () => false,
    );
  };
  while (!(await isReady())) {
    if (child.exitCode !== null) throw new Error(`${script} exited:\n${output}`);
    if (Date.now() - started > 30_000) throw new Error(`${script} did not start:\n${output}`);
    await new Promise((r) => setTimeout(r, 50));
  }
  return {
    child,
    port,
    url: `http://127.0.0.1:${port}`,
    output: () => output,
    stop: () =>
      new Promise((resolve) => {
        if (child.exitCode !== null) return resolve();
        child.once('exit', () => resolve());
        child.kill('SIGTERM');
        setTimeout(() => child.kill('SIGKILL'), 15_000).unref();
      }),
  };
}

/** Resident memory of a process, in KiB (Linux). */
export function rssKiB(pid: number): number {
  const status = readFileSync(`/proc/${pid}/status`, 'utf8');
  return Number(/VmRSS:\s+(\d+)/.exec(status)?.[1] ?? 0);
}

/** Clock ticks a second of /proc's CPU times. */
let ticksPerSecond: number | undefined;

/** A process's /proc stat fields after its command name: state is [0], the parent [1], CPU ticks [11]-[14]. */
const statFields = (pid: number) => readFileSync(`/proc/${pid}/stat`, 'utf8').split(') ')[1]!.split(' ');

/**
 * CPU time a process has used so far (user and system, every thread), in ms; with `reaped`, also that of its children
 * that have exited (a load generator the benchmark ran and waited for).
 */
function cpuMs(pid: number, reaped = false): number {
  ticksPerSecond ??= Number(execFileSync('getconf', ['CLK_TCK'], { encoding: 'utf8' }));
  const f = statFields(pid).map(Number);
  return ((f[11]! + f[12]! + (reaped ? f[13]! + f[14]! : 0)) * 1000) / ticksPerSecond;
}

/**
 * PostgreSQL's CPU time so far, in ms: the server process, its backends and other children alive now, and those that
 * have exited. `backendPid` is any backend's (`pg_backend_pid()`), which leads to the server.
 */
function postgresCpuMs(backendPid: number): number {
  const server = Number(statFields(backendPid)[1]);
  let total = cpuMs(server, true);
  for (const entry of readdirSync('/proc')) {
    if (!/^\d+$/.test(entry)) continue;
    try {
      if (Number(statFields(Number(entry))[1]) === server) total += cpuMs(Number(entry));
    } catch {
      // a process that ended meanwhile: its time is now the server's (reaped)
    }
  }
  return total;
}

/**
 * CPU time so far, in ms, by name: each of `servers` (name to pid), PostgreSQL, and the load client (this process
 * with the load processes it ran and waited for).
 */
export function cpuTimes(backendPid: number, servers: Record<string, number> = {}): Record<string, number> {
  const times: Record<string, number> = {};
  for (const [name, pid] of Object.entries(servers)) times[name] = cpuMs(pid);
  times.PostgreSQL = postgresCpuMs(backendPid);
  times['load client'] = cpuMs(process.pid, true);
  return times;
}

/** The CPU time between two `cpuTimes` per unit of work: the total, and each name's share as text. */
export function cpuPerUnit(before: Record<string, number>, after: Record<string, number>, units: number) {
  const each = Object.entries(after).map(([name, ms]) => [name, (ms - before[name]!) / units] as const);
  return {
    total: each.reduce((sum, [, ms]) => sum + ms, 0),
    text: `${each.map(([name, ms]) => `${name} ${ms.toFixed(2)}`).join(', ')} ms`,
  };
}

/** A figure shown for what it tells, without a goal. */
export const reported = (row: Row): Row => ({ ...row, goal: 'reported (no goal)', met: null });

export function percentile(values: number[], p: number): number {
  if (values.length === 0) return NaN;
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)]!;
}

export const round = (x: number, digits = 2) => Math.round(x * 10 ** digits) / 10 ** digits;

/** A row whose goal is "value at least `min` × baseline". */
export function ratioRow(id: string, figure: string, value: number, unit: string, baseline: number, min: number): Row {
  const ratio = round(value / baseline, 3);
  return {
    id,
    figure,
    value: round(value),
    unit,
    baseline: round(baseline),
    ratio,
    goal: `>= ${min} x baseline`,
    met: ratio >= min,
  };
}

/** A row whose goal is an upper bound on the value. */
export function maxRow(
  id: string,
  figure: string,
  value: number,
  unit: string,
  max: number,
  baseline: number | null = null,
): Row {
  return {
    id,
    figure,
    value: round(value),
    unit,
    baseline: baseline === null ? null : round(baseline),
    ratio: baseline ? round(value / baseline, 3) : null,
    goal: `<= ${max} ${unit}`,
    met: value <= max,
  };
}

export async function json(url: string, init: RequestInit & { token?: string; body?: string } = {}) {
  const res = await fetch(url, {
    ...init,
    headers: {
      'content-type': 'application/json',
      ...(init.token ? { authorization: `Bearer ${init.token}` } : {}),
      ...(init.headers ?? {}),
    },
  });
  const text = await res.text();
  return { status: res.status, body: text ? JSON.parse(text) : null };
}

const keepAlive = new http.Agent({ keepAlive: true, maxSockets: 1 });

/**
 * A GET over one kept-alive node:http socket: for timing requests one at a time. fetch() adds 0.2-0.5 ms of its own
 * per request here (hello-world: 0.82 against 0.60 ms at p50), which is the client's cost, not the service's.
 */
export function timedGet(url: string, headers: Record<string, string> = {}): Promise<{ status: number; body: any }> {
  return new Promise((resolve, reject) => {
    http
      .get(url, { agent: keepAlive, headers }, (res) => {
        let text = '';
        res.setEncoding('utf8');
        res.on('data', (chunk: string) => (text += chunk));
        res.on('end', () => resolve({ status: res.statusCode!, body: text ? JSON.parse(text) : null }));
      })
      .on('error', reject);
  });
}

export async function login(url: string, subject: string): Promise<string> {
  const res = await json(`${url}/auth/login`, { method: 'POST', body: JSON.stringify({ id_token: subject }) });
  if (!res.body?.access_token) throw new Error(`login as ${subject}: ${res.status} ${JSON.stringify(res.body)}`);
  return res.body.access_token;
}

/** autocannon in its own process against one URL; returns mean requests a second and p99 latency. */
export async function autocannon(
  url: string,
  opts: { seconds: number; connections: number; headers?: Record<string, string> },
) {
  const args = [
    `${root}node_modules/autocannon/autocannon.js`,
    '-j',
    '-c',
    String(opts.connections),
    '-d',
    String(opts.seconds),
  ];
  for (const [k, v] of Object.entries(opts.headers ?? {})) args.push('-H', `${k}=${v}`);
  args.push(url);
  const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  child.stdout.on('data', (d) => (out += d));
  await new Promise((r) => child.on('exit', r));
  const result = JSON.parse(out) as {
    requests: { average: number };
    latency: { p99: number };
    non2xx: number;
    errors: number;
  };
  if (result.non2xx > 0 || result.errors > 0)
    throw new Error(`autocannon saw ${result.non2xx} non-2xx and ${result.errors} errors on ${url}`);
  return { rps: result.requests.average, p99: result.latency.p99 };
}

export interface LoadRequest {
  method: string;
  path: string;
  headers: Record<string, string>;
  body?: string;
}

/**
 * autocannon (bench/load.ts, its own process) over a list of requests taken in turn by all connections; the status
 * counts come back so a run that answered errors is never reported as fast.
 */
export async function mixedLoad(
  url: string,
  requests: LoadRequest[],
  opts: { seconds: number; connections: number },
): Promise<{ rps: number; p50: number; p99: number; statuses: Record<string, number> }> {
  const dir = await mkdtemp(join(tmpdir(), 'nutrition-load-'));
  const spec = join(dir, 'spec.json');
  try {
    await writeFile(spec, JSON.stringify({ url, ...opts, requests }));
    const child = spawn(process.execPath, [`${root}bench/load.ts`, spec], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (d) => (out += d));
    await new Promise((r) => child.on('exit', r));
    const result = JSON.parse(out) as { rps: number; p50: number; p99: number; errors: number; non2xx: number };
    if (result.errors > 0 || result.non2xx > 0)
      throw new Error(`load on ${url}: ${result.errors} errors, ${result.non2xx} non-2xx (${out})`);
    return result as never;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}

/**
 * `mixedLoad` with what each of its requests cost the machine: CPU of `server` (shown as `name`), of PostgreSQL
 * (`backendPid`, any backend) and of the load client (`cpuPerUnit`).
 */
export async function loadWithCpu(
  backendPid: number,
  name: string,
  server: Proc,
  requests: LoadRequest[],
  opts: { seconds: number; connections: number },
) {
  const servers = { [name]: server.child.pid! };
  const before = cpuTimes(backendPid, servers);
  const result = await mixedLoad(server.url, requests, opts);
  return { ...result, cpu: cpuPerUnit(before, cpuTimes(backendPid, servers), result.rps * opts.seconds) };
}

/**
 * A server's warm-up before its measured load: its own load for half the time, at least 1 s (JIT, pools and caches
 * filling), so that the figures with goals are the steady state that follows.
 */
export function warmUp(measured: { seconds: number; connections: number }) {
  return { seconds: Math.max(1, Math.round(measured.seconds / 2)), connections: measured.connections };
}

/** The API's warm-up as reported rows: its rate against hello-world's, and its p99; `label` names one of several. */
export function warmUpRows(
  id: string,
  warm: { seconds: number },
  cold: { rps: number; p99: number },
  baseRps: number,
  label?: string,
): Row[] {
  return [
    reported(
      ratioRow(
        id,
        `${label ?? 'the same'}, its first ${warm.seconds} s (warm-up), req/s`,
        cold.rps,
        'req/s',
        baseRps,
        0,
      ),
    ),
    reported(maxRow(id, label ? `p99 in the warm-up, ${label}` : 'p99 in the warm-up', cold.p99, 'ms', 0)),
  ];
}

/** A deterministic shuffle (the same order every run). */
export function shuffle<T>(items: T[]): T[] {
  let state = 7;
  for (let i = items.length - 1; i > 0; i--) {
    state = (Math.imul(state, 1664525) + 1013904223) >>> 0;
    const j = state % (i + 1);
    [items[i], items[j]] = [items[j]!, items[i]!];
  }
  return items;
}
