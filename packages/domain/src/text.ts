/** Control characters (C0 and C1, and DEL), except tab, line feed and carriage return, which free text may hold. */
const CONTROL_IN_TEXT = /(?![\t\n\r])\p{Cc}/u;
/** Every control character: for single-line values (query strings, headers, path parameters). */
const CONTROL_IN_LINE = /\p{Cc}/u;
/** `CONTROL_IN_TEXT`, every one: what text read from elsewhere (an import) loses. */
const CONTROL_IN_TEXT_ALL = new RegExp(CONTROL_IN_TEXT.source, 'gu');
/** A UTF-16 surrogate without its pair: no character at all, and not storable as UTF-8. */
const LONE_SURROGATE = /[\uD800-\uDBFF](?![\uDC00-\uDFFF])|(?<![\uD800-\uDBFF])[\uDC00-\uDFFF]/;

/**
 * Text from a source the service cleans rather than refuses (a food-database dump), made to pass the rule for free
 * text: control characters other than tab, line feed and carriage return removed, NUL among them, which PostgreSQL
 * text cannot hold.
 */
export function withoutControlCharacters(value: string): string {
  return value.replace(CONTROL_IN_TEXT_ALL, '');
}

/**
 * Every string in a parsed JSON value (a model's answer) made to pass the rule for free text, as an import's names
 * are: control characters other than tab, line feed and carriage return removed, and a lone surrogate replaced by
 * U+FFFD. Property names are kept; other values are returned as they are.
 */
export function withCleanText(value: unknown): unknown {
  if (typeof value === 'string') return withoutControlCharacters(value).toWellFormed();
  if (Array.isArray(value)) return value.map(withCleanText);
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([key, child]) => [key, withCleanText(child)]));
}

/** Why a string is not acceptable text, or null when it is. */
export function textProblem(value: string, kind: 'text' | 'line'): string | null {
  if ((kind === 'text' ? CONTROL_IN_TEXT : CONTROL_IN_LINE).test(value)) return 'must not contain control characters';
  if (LONE_SURROGATE.test(value)) return 'must be valid Unicode text';
  return null;
}

/** Deeper than any request the service takes; a body of 10,000 nested arrays would overflow the stack below. */
export const MAX_NESTING = 32;

/**
 * The first string (or property name) in a parsed JSON value that is not acceptable text, or the first value nested
 * deeper than MAX_NESTING, as a JSON Pointer below `base`, with the reason; null when every string is acceptable.
 */
export function findTextProblem(
  value: unknown,
  base: string,
  kind: 'text' | 'line',
  depth = 0,
): { path: string; message: string } | null {
  if (typeof value === 'string') {
    const message = textProblem(value, kind);
    return message ? { path: base, message } : null;
  }
  if (value === null || typeof value !== 'object') return null;
  if (depth === MAX_NESTING) return { path: base, message: `must not nest more than ${MAX_NESTING} levels deep` };
  for (const [key, child] of Object.entries(value)) {
    const path = `${base}/${key.replace(/~/g, '~0').replace(/\//g, '~1')}`;
    const keyMessage = textProblem(key, 'line');
    if (keyMessage) return { path, message: `name ${keyMessage}` };
    const found = findTextProblem(child, path, kind, depth + 1);
    if (found) return found;
  }
  return null;
}

const CYRILLIC = /\p{Script=Cyrillic}/u;
const HAN_OR_KANA = /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/u;
const KANA = /[\p{Script=Hiragana}\p{Script=Katakana}]/u;

/** Words of a text by script: Latin and Cyrillic words, and CJK characters (which have no spaces between words). */
function scriptCounts(text: string) {
  const words = text.match(/\p{L}+/gu) ?? [];
  const count = (re: RegExp) => words.filter((w) => re.test(w)).length;
  return {
    latin: count(/^\p{Script=Latin}{2,}$/u),
    cyrillic: count(/^\p{Script=Cyrillic}+$/u),
    latinLetters: (text.match(/\p{Script=Latin}/gu) ?? []).length,
    cjk: (text.match(/[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}]/gu) ?? []).length,
  };
}

/**
 * Why `text` cannot be wholly in `language` judging by its scripts, or null when it can. Russian and Ukrainian text
 * is mostly Cyrillic, Chinese and Japanese mostly CJK (Chinese without kana), the other languages have no Cyrillic or
 * CJK at all. A Latin brand or cheese name in a Russian sentence, numbers and units pass; an English sentence around a
 * Russian name does not.
 */
export function scriptProblem(text: string, language: string): string | null {
  const c = scriptCounts(text);
  switch (language) {
    case 'ru':
    case 'uk':
      return c.latin > 1 && c.latin > c.cyrillic ? 'is not written in Cyrillic' : null;
    case 'zh':
      if (KANA.test(text)) return 'has Japanese kana';
      return c.latin > 1 && c.latinLetters > c.cjk ? 'is not written in Chinese characters' : null;
    case 'ja':
      return c.latin > 1 && c.latinLetters > c.cjk ? 'is not written in Japanese' : null;
    default:
      return CYRILLIC.test(text) || HAN_OR_KANA.test(text) ? 'is not written in Latin letters' : null;
  }
}
