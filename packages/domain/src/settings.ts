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

/**
 * Reads settings from environment variables against a TypeBox schema, the one loader of every process: defaults
 * applied, numbers converted, each wrong variable named with its description, then the process's own `rules` (checks
 * across variables). An empty variable counts as unset.
 */
export function loadSettings<S extends TObject>(
  schema: S,
  env: Record<string, string | undefined>,
  rules: (settings: Static<S>) => string[] = () => [],
): Static<S> {
  const properties = schema.properties as Record<string, { description?: string }>;
  const input = Object.fromEntries(
    Object.keys(properties)
      .filter((k) => env[k] !== undefined && env[k] !== '')
      .map((k) => [k, env[k]]),
  );
  const value = Value.Default(schema, Value.Convert(schema, input));
  const problems = Value.Errors(schema, value).map((e) => {
    const key = e.instancePath.replace(/^\//, '') || Object.values(e.params).flat().join(', ');
    const description = properties[key]?.description;
    return `${key}: ${e.message}${description ? ` (${description})` : ''}`;
  });
  if (problems.length === 0) problems.push(...rules(value as Static<S>));
  if (problems.length > 0) throw new ConfigError(problems);
  return value as Static<S>;
}

/** Outside production a process listens on this machine only, unless HOST says otherwise. */
export const defaultHost = (nodeEnv: string, host: string) =>
  host || (nodeEnv === 'production' ? '0.0.0.0' : '127.0.0.1');
