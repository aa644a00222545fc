import { createRequire } from 'node:module';
import { readFile } from 'node:fs/promises';

/**
 * A mixed load in its own process: autocannon's connections take the requests of a spec file in turn (one shared
 * sequence, so connections do not send the same request at the same moment). Prints requests a second, p99 and the
 * status counts as JSON.
 */
interface Spec {
  url: string;
  connections: number;
  seconds: number;
  requests: { method: string; path: string; headers: Record<string, string>; body?: string }[];
}

const autocannon = createRequire(import.meta.url)('autocannon') as (opts: object) => Promise<{
  requests: { average: number };
  latency: { p50: number; p99: number };
  non2xx: number;
  errors: number;
  statusCodeStats: Record<string, { count: number }>;
}>;
const spec = JSON.parse(await readFile(process.argv[2]!, 'utf8')) as Spec;
let next = 0;
const result = await autocannon({
  url: spec.url,
  connections: spec.connections,
  duration: spec.seconds,
  requests: [{ setupRequest: (request: object) => ({ ...request, ...spec.requests[next++ % spec.requests.length] }) }],
});
process.stdout.write(
  JSON.stringify({
    rps: result.requests.average,
    p50: result.latency.p50,
    p99: result.latency.p99,
    non2xx: result.non2xx,
    errors: result.errors,
    statuses: Object.fromEntries(Object.entries(result.statusCodeStats).map(([code, s]) => [code, s.count])),
  }),
);
