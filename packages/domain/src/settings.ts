import type { Static, TObject } from 'typebox';
import { Value } from 'typebox/value';

/** A configuration that cannot run: every problem names its variable and what it should be. */
export class ConfigError extends Error {
  readonly problems: string[];
  constructor(problems: string[]) {
    super(`invalid configuration:\n${problems.map((p) => `  - ${p}`).join('\n')}`);
    this.problems = problems;
  }
}

/** A whole number in decimal digits, with a sign at most: `3000`, not `3e3`, `0x10`, `2.9`, `true` or `3000ms`. */
const WHOLE_NUMBER = /^[+-]?\d+$/;
/** A decimal number: digits with a fraction and an exponent at most. */
const DECIMAL_NUMBER = /^[+-]?(\d+\.?\d*|\.\d+)(e[+-]?\d+)?$/i;

/**
 * A numeric variable's value as its number, or the problem with it. The whole value, spaces around it aside, must be
 * the number: TypeBox's conversion took `2.9` for 2, `true` for 1 and a value of spaces for 0 (PORT or HEALTH_PORT 0:
 * a random port; a cache size 0: the cache off), all without a word.
 */
function parseNumber(raw: string, integer: boolean): number | string {
  const text = raw.trim();
  if (integer ? !WHOLE_NUMBER.test(text) : !DECIMAL_NUMBER.test(text))
    return `${JSON.stringify(raw)} is not ${integer ? 'a whole number' : 'a number'}`;
  const value = Number(text);
  if (integer && !Number.isSafeInteger(value)) return `${JSON.stringify(raw)} is too large`;
  return value;
}

/**
 * Reads settings from environment variables against a TypeBox schema, the one loader of every process: defaults
 * applied, numbers read strictly, each wrong variable named with its description, then the process's own `rules`
 * (checks across variables). An empty variable counts as unset (compose's `${NAME:-}` gives one); a value of spaces
 * alone is refused, as is a number variable whose value, spaces around it aside, is not a number of its kind.
 */
export function loadSettings<S extends TObject>(
  schema: S,
  env: Record<string, string | undefined>,
  rules: (settings: Static<S>) => string[] = () => [],
): Static<S> {
  const properties = schema.properties as Record<string, { description?: string; type?: unknown; default?: unknown }>;
  const named = (key: string, problem: string) => {
    const description = properties[key]?.description;
    return `${key}: ${problem}${description ? ` (${description})` : ''}`;
  };
  const problems: string[] = [];
  const input: Record<string, unknown> = {};
  for (const key of Object.keys(properties)) {
    const raw = env[key];
    if (raw === undefined || raw === '') continue;
    const type = properties[key]?.type;
    if (raw.trim() === '') {
      const unset = properties[key]?.default === undefined ? '' : ': leave it empty or unset for the default';
      problems.push(named(key, `is only spaces${unset}`));
    } else if (type === 'integer' || type === 'number') {
      const value = parseNumber(raw, type === 'integer');
      if (typeof value === 'number') input[key] = value;
      else problems.push(named(key, value));
    } else input[key] = raw;
  }
  const value = Value.Default(schema, Value.Convert(schema, input));
  for (const e of Value.Errors(schema, value)) {
    const key = e.instancePath.replace(/^\//, '') || Object.values(e.params).flat().join(', ');
    // A variable refused above is missing from the value: its problem is said already.
    if (!problems.some((p) => p.startsWith(`${key}: `))) problems.push(named(key, e.message));
  }
  if (problems.length === 0) problems.push(...rules(value as Static<S>));
  if (problems.length > 0) throw new ConfigError(problems);
  return value as Static<S>;
}

/** Outside production a process listens on this machine only, unless HOST says otherwise. */
export const defaultHost = (nodeEnv: string, host: string) =>
  host || (nodeEnv === 'production' ? '0.0.0.0' : '127.0.0.1');

/** A host name or an address to listen on: `0.0.0.0`, `::`, `localhost`, `api.internal`; no spaces nor brackets. */
const HOST_NAME = /^[A-Za-z0-9._%:-]+$/;

/**
 * HOST and DATABASE_URL, which every process has, checked before they are used: a HOST of no host name's shape ended
 * the API with getaddrinfo's stack trace at listen, and a DATABASE_URL that is no URL failed only at the first query.
 * The URL is never echoed: it may hold a password.
 */
export function connectionProblems(settings: { HOST: string; DATABASE_URL: string }): string[] {
  const problems: string[] = [];
  if (settings.HOST && !HOST_NAME.test(settings.HOST))
    problems.push(`HOST: ${JSON.stringify(settings.HOST)} is not a host name or an address`);
  const url = URL.canParse(settings.DATABASE_URL) ? new URL(settings.DATABASE_URL) : null;
  if (!url || !['postgres:', 'postgresql:'].includes(url.protocol))
    problems.push('DATABASE_URL: not a postgres:// or postgresql:// URL (PostgreSQL 18 connection string)');
  return problems;
}

/**
 * The one line a process prints when it cannot listen, naming the variable to change, instead of the error's stack
 * trace; undefined for an error that is not about the address.
 */
export function listenProblem(
  error: unknown,
  where: { host: string; port: number; portVariable: 'PORT' | 'HEALTH_PORT' },
): string | undefined {
  const code = (error as { code?: unknown } | null)?.code;
  const { host, port, portVariable } = where;
  switch (code) {
    case 'EADDRINUSE':
      return `${portVariable}: port ${port} on ${host} is in use by another process`;
    case 'EACCES':
      return `${portVariable}: port ${port} on ${host} needs privileges this process does not have`;
    case 'ENOTFOUND':
    case 'EAI_AGAIN':
    case 'EAI_NONAME':
      return `HOST: ${host} does not resolve to an address`;
    case 'EADDRNOTAVAIL':
      return `HOST: ${host} is not an address of this machine`;
    default:
      return undefined;
  }
}
