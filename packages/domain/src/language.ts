/**
 * Picks the best supported language for an `Accept-Language` header (RFC 9110): ranges by q-value, highest first
 * (ties keep header order); `uk-UA` and the POSIX `uk_UA` or `uk_UA.UTF-8` match `uk`; `q=0` excludes; `*` matches
 * the first supported language not excluded. Returns null when nothing in the header is usable, so the caller can
 * fall back (profile, then `en`).
 */
export function negotiateLanguage(header: string | undefined, supported: readonly string[]): string | null {
  if (!header) return null;
  const ranges = header
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => /^q=/i.test(p));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { range: range.trim().toLowerCase(), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.range.length > 0 && r.range.length <= 64)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);

  const excluded = new Set(ranges.filter((r) => r.quality <= 0).map((r) => primaryTag(r.range)));
  for (const { range, quality } of ranges) {
    if (quality <= 0) continue;
    if (range === '*') {
      const any = supported.find((code) => !excluded.has(code));
      if (any) return any;
      continue;
    }
    const tag = primaryTag(range);
    if (supported.includes(tag) && !excluded.has(tag)) return tag;
  }
  return null;
}

/** The language of a range: `uk-UA` and the POSIX forms Android and shells send (`ru_RU`, `pt_BR.UTF-8`) alike. */
function primaryTag(range: string): string {
  return range.split(/[-_.@]/)[0] ?? range;
}
