import type { Client } from 'openapi-fetch';
import type { components, paths } from './api.generated.ts';
import { ApiError } from './errors.ts';

export type SyncPage = components['schemas']['SyncPage'];
type Changes = SyncPage['changes'];

/** What a pull brought: every page's changes merged in order, the profile if it changed, and the cursor to keep. */
export interface SyncResult {
  /** Per kind: rows to upsert by id (the latest version of each) and ids to delete. */
  changes: { [K in keyof Changes]: { upserted: Changes[K]['upserted']; deleted: string[] } };
  profile: SyncPage['profile'];
  cursor: string;
  /** Pages read. */
  pages: number;
}

/**
 * Pulls the change feed from `cursor` (everything without one) until `has_more` is false. A row that changes and is
 * then deleted within the pull ends up only among the deletions, and the other way round. On `410 sync_reset` (a
 * cursor older than the retention) it throws `ApiError` with that code: drop local data and pull without a cursor.
 */
export async function pullChanges(api: Client<paths>, cursor?: string, limit?: number): Promise<SyncResult> {
  const kinds = ['diary_entries', 'user_products', 'saved_recipes', 'menu_items', 'shopping_items'] as const;
  const rows = new Map(kinds.map((kind) => [kind, new Map<string, { id: string }>()]));
  const deleted = new Map(kinds.map((kind) => [kind, new Set<string>()]));
  let profile: SyncPage['profile'] = null;
  let pages = 0;
  for (;;) {
    const { data, error, response } = await api.GET('/sync', { params: { query: { cursor, limit } } });
    if (!data) throw new ApiError(response.status, error, Number(response.headers.get('retry-after')) || undefined);
    pages++;
    for (const kind of kinds) {
      for (const row of data.changes[kind].upserted) {
        rows.get(kind)!.set(row.id, row);
        deleted.get(kind)!.delete(row.id);
      }
      for (const id of data.changes[kind].deleted) {
        rows.get(kind)!.delete(id);
        deleted.get(kind)!.add(id);
      }
    }
    profile = data.profile ?? profile;
    cursor = data.cursor;
    if (!data.has_more) break;
  }
  const changes = Object.fromEntries(
    kinds.map((kind) => [kind, { upserted: [...rows.get(kind)!.values()], deleted: [...deleted.get(kind)!] }]),
  ) as unknown as SyncResult['changes'];
  return { changes, profile, cursor, pages };
}
