import type postgres from 'postgres';
import type { Queryable } from './client.ts';

/**
 * The text of a statement written as postgres.js fragments whose values are all `slots` (placeholders, each with its
 * key): `$n` for each slot, numbered by first use and the same `$n` at every later use, and the slots' keys in `$n`
 * order. A statement whose text depends on a few choices alone is built this way once per choice, then sent as text
 * with each run's values: building product search's fragments on every run cost Node about 0.3 ms of CPU a query, a
 * fifth of the API's whole share of it. Any other value throws, since it would be fixed into every later run's text.
 * The walk reads postgres.js 3's fragment objects: tagged templates and `unsafe` text (`strings` with `args` between
 * them), lists of fragments, and identifiers.
 */
export function statementText(
  fragment: postgres.Fragment,
  slots: ReadonlyMap<unknown, string>,
): { text: string; keys: string[] } {
  const keys: string[] = [];
  const walk = (part: unknown): string => {
    const key = slots.get(part);
    if (key !== undefined) {
      const at = keys.indexOf(key);
      return `$${at >= 0 ? at + 1 : keys.push(key)}`;
    }
    if (isFragment(part) && (part.tagged || part.args.length === 0)) {
      let text = part.strings[0]!;
      for (let i = 1; i < part.strings.length; i++) text += walk(part.args[i - 1]) + part.strings[i];
      return text;
    }
    if (Array.isArray(part) && isFragment(part[0])) return part.map((f) => ` ${walk(f)}`).join('');
    if (isIdentifier(part)) return part.value;
    throw new Error(`a value that is not a slot in a statement built once: ${String(part)}`);
  };
  return { text: walk(fragment), keys };
}

/** Runs a statement built by statementText as a prepared statement, each `$n` given its slot's value by name. */
export function runStatementText<T extends object[]>(
  sql: Queryable,
  statement: { text: string; keys: string[] },
  values: Partial<Record<string, postgres.SerializableParameter>>,
) {
  return sql.unsafe<T>(
    statement.text,
    statement.keys.map((key) => values[key]!),
    { prepare: true },
  );
}

/** A slot for each of `names` (to write a statement's fragments with), and the names by slot for statementText. */
export function statementSlots<Name extends string>(sql: Queryable, names: readonly Name[]) {
  const keys = new Map<unknown, string>();
  const slots = {} as Record<Name, postgres.Parameter>;
  for (const name of names) {
    slots[name] = sql.typed(null, 0);
    keys.set(slots[name], name);
  }
  return { slots, keys };
}

/** A tagged template, or `unsafe` text (without values of its own: their `$n` would clash with the slots'). */
function isFragment(part: unknown): part is { strings: readonly string[]; args: readonly unknown[]; tagged: boolean } {
  return part instanceof Promise && Array.isArray((part as { strings?: unknown }).strings);
}

/** `sql('name')`: an object whose only field is the quoted name. */
function isIdentifier(part: unknown): part is { value: string } {
  return (
    typeof part === 'object' &&
    part !== null &&
    part.constructor.name === 'Identifier' &&
    typeof (part as { value?: unknown }).value === 'string'
  );
}
