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
