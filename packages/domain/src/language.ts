/**
 * Picks the best supported language for an `Accept-Language` header (RFC 9110): ranges by q-value, highest first
 * (ties keep header order); `uk-UA` and the POSIX `uk_UA` or `uk_UA.UTF-8` match `uk`; `q=0` refuses what its range
 * matches as RFC 4647 filters (`de;q=0` all German, `de-AT;q=0` only Austrian German, so `de` stays acceptable);
 * `*` matches the first supported language not refused. Returns null when nothing in the header is usable, so the
 * caller can fall back (profile, then `en`).
 */
export function negotiateLanguage(header: string | undefined, supported: readonly string[]): string | null {
  if (!header) return null;
  const ranges = header
    .split(',')
    .map((part, index) => {
      const [range = '', ...params] = part.trim().split(';');
      const q = params.map((p) => p.trim()).find((p) => /^q=/i.test(p));
      const quality = q === undefined ? 1 : Number(q.slice(2));
      return { range: normalRange(range), quality: Number.isFinite(quality) ? quality : 0, index };
    })
    .filter((r) => r.range.length > 0 && r.range.length <= 64)
    .sort((a, b) => b.quality - a.quality || a.index - b.index);

  // A refused range refuses the tags it is a prefix of (RFC 4647 basic filtering): `pt-PT;q=0` leaves `pt`, which the
  // service serves as Brazilian Portuguese, acceptable; `pt;q=0` refuses it, and with it every `pt-…` asked for.
  const refused = ranges.filter((r) => r.quality <= 0 && r.range !== '*').map((r) => r.range);
  const excluded = (code: string) => refused.some((r) => r === code || code.startsWith(`${r}-`));
  for (const { range, quality } of ranges) {
    if (quality <= 0) continue;
    if (range === '*') {
      const any = supported.find((code) => !excluded(code));
      if (any) return any;
      continue;
    }
    const tag = primaryTag(range);
    if (supported.includes(tag) && !excluded(tag)) return tag;
  }
  return null;
}

/** A range as a lower-case tag, with the POSIX forms Android and shells send (`ru_RU`, `pt_BR.UTF-8`) as tags. */
function normalRange(range: string): string {
  return range.trim().toLowerCase().split(/[.@]/)[0]!.replaceAll('_', '-');
}

/** The language of a range: `uk-ua` is `uk`. */
function primaryTag(range: string): string {
  return range.split('-')[0] ?? range;
}
