/** Control characters (C0 and C1, and DEL), except tab, line feed and carriage return, which free text may hold. */
const CONTROL_IN_TEXT = /(?![\t\n\r])\p{Cc}/u;
/** Every control character: for single-line values (query strings, headers, path parameters). */
const CONTROL_IN_LINE = /\p{Cc}/u;
/** A UTF-16 surrogate without its pair: no character at all, and not storable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/** Why a string is not acceptable text, or null when it is. */
export function textProblem(value: string, kind: 'text' | 'line'): string | null {
  if ((kind === 'text' ? CONTROL_IN_TEXT : CONTROL_IN_LINE).test(value)) return 'must not contain control characters';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text';
  return null;
}

/**
 * The first string (or property name) in a parsed JSON value that is not acceptable text, as a JSON Pointer below
 * `base`, with the reason; null when every string is.
 */
export function findTextProblem(
  value: unknown,
  base: string,
  kind: 'text' | 'line',
): { path: string; message: string } | null {
  if (typeof value === 'string') {
    const message = textProblem(value, kind);
    return message ? { path: base, message } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  for (const [key, child] of Object.entries(value)) {
    const path = `${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const keyMessage = textProblem(key, 'line');
    if (keyMessage) return { path, message: `name ${keyMessage}` };
    const found = findTextProblem(child, path, kind);
    if (found) return found;
  }
  return null;
}
