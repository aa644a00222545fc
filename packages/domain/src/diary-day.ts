/**
 * A day of the diary as an API process keeps it: the JSON text PostgreSQL built (`"entries":[...],"totals":{...}`,
 * see diaryRepository.dayJson) and its entries' places in the same order, DIARY_PLACE_LENGTH characters each: the
 * meal type's position (one digit), the time logged to the microsecond (20 digits), the id. Places sort as the
 * entries do.
 */
export interface KeptDay {
  json: string;
  places: string;
}

/** A new entry as the day's JSON has it, its place, and its nutrition as the day's totals add it. */
export interface DayEntry {
  json: string;
  place: string;
  nutrients: Record<(typeof DAY_TOTALS)[number][0], number | null>;
}

export const DIARY_PLACE_LENGTH = 57;
const ID_LENGTH = 36;
/** What PostgreSQL's json_agg writes between two rows. */
const ENTRY_SEPARATOR = ', \n ';
const ENTRIES = '"entries":';
const TOTALS = ',"totals":';

/**
 * The nutrients of a diary entry and of a day's totals, in the order PostgreSQL builds them, with their decimals (an
 * entry's values are rounded to them too; see diaryRepository). The first four totals are 0 when no entry states
 * them; the others are null when entries exist and none states them, 0 on an empty day.
 */
export const DAY_TOTALS = [
  ['calories', 1, true],
  ['protein_g', 1, true],
  ['fat_g', 1, true],
  ['carbs_g', 1, true],
  ['fiber_g', 1, false],
  ['sugars_g', 1, false],
  ['saturated_fat_g', 1, false],
  ['salt_g', 2, false],
] as const;

/**
 * The kept day with one more entry, as PostgreSQL would build the day with it: the entry in its place and the totals
 * with its nutrition added. Entries' values are rounded to the totals' decimals, so the sums are exact whatever their
 * order. Null when the kept text is not of that shape (the day is then built again).
 */
export function dayWithEntry(day: KeptDay, entry: DayEntry): KeptDay | null {
  const totalsAt = day.json.lastIndexOf(TOTALS);
  const count = day.places.length / DIARY_PLACE_LENGTH;
  if (
    !day.json.startsWith(ENTRIES) ||
    totalsAt < 0 ||
    !Number.isInteger(count) ||
    entry.place.length !== DIARY_PLACE_LENGTH
  )
    return null;
  const entries = day.json.slice(ENTRIES.length, totalsAt);
  const totals = JSON.parse(day.json.slice(totalsAt + TOTALS.length)) as Record<string, number | null>;

  // The first entry placed after the new one (binary search over the fixed-width places).
  let low = 0;
  let high = count;
  while (low < high) {
    const middle = (low + high) >> 1;
    const place = day.places.slice(middle * DIARY_PLACE_LENGTH, (middle + 1) * DIARY_PLACE_LENGTH);
    if (place < entry.place) low = middle + 1;
    else high = middle;
  }
  let next: string;
  if (count === 0) next = `[${entry.json}]`;
  else if (low === count) next = `${entries.slice(0, -1)}${ENTRY_SEPARATOR}${entry.json}]`;
  else {
    const end = (low + 1) * DIARY_PLACE_LENGTH;
    // A row starts with its id; `{"id":"` cannot occur inside a JSON string, whose quotes are escaped.
    const at = entries.indexOf(`{"id":"${day.places.slice(end - ID_LENGTH, end)}"`);
    if (at < 0) return null;
    next = `${entries.slice(0, at)}${entry.json}${ENTRY_SEPARATOR}${entries.slice(at)}`;
  }

  const sums = DAY_TOTALS.map(([name, decimals, zeroWhenUnknown]) => {
    const added = entry.nutrients[name];
    const before = count === 0 ? null : totals[name];
    const sum = before === null || before === undefined ? added : added === null ? before : before + added;
    const value = sum ?? (zeroWhenUnknown ? 0 : null);
    return `"${name}" : ${value === null ? 'null' : value.toFixed(decimals)}`;
  });
  const at = low * DIARY_PLACE_LENGTH;
  return {
    json: `${ENTRIES}${next}${TOTALS}{${sums.join(', ')}}`,
    places: `${day.places.slice(0, at)}${entry.place}${day.places.slice(at)}`,
  };
}
