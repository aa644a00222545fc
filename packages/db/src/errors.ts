/** The unique index (or primary key) a failed statement violated; null for any other error. */
export function violatedUnique(err: unknown): string | null {
  const { code, constraint_name } = err as { code?: string; constraint_name?: string };
  return code === '23505' ? (constraint_name ?? '') : null;
}

/** The name of the foreign key a failed statement violated, if that is why it failed. */
export function violatedForeignKey(err: unknown): string | null {
  const { code, constraint_name } = err as { code?: string; constraint_name?: string };
  return code === '23503' ? (constraint_name ?? '') : null;
}
