import type { Queryable } from '../client.ts';
import type { SYNC_KINDS } from '../schema/personal.ts';

export type SyncKind = (typeof SYNC_KINDS)[number];

/** One entry of the change feed: a row of a kind, changed (or deleted) by transaction `xid`. */
export interface ChangeRow {
  kind: SyncKind;
  row_id: string;
  deleted: boolean;
  xid: string;
}

/** Where a page of the feed ends, in feed order. */
export interface FeedPosition {
  xid: string;
  kind: string;
  id: string;
}

/** The tables whose creates take a client-made id. */
const CLIENT_ID_TABLES = {
  diary_entries: 'meal_diary',
  user_products: 'user_products',
  saved_recipes: 'user_saved_recipes',
  shopping_items: 'shopping_list_items',
} as const;
export type ClientIdKind = keyof typeof CLIENT_ID_TABLES;

/**
 * The change feed (`sync_changes`, written by triggers). A cursor's lower bound is a snapshot (`pg_snapshot` text):
 * the changes since are those whose transaction that snapshot did not see and the reader's does, so a transaction
 * that began before the cursor and committed after it is still found.
 */
export function syncRepository(sql: Queryable) {
  return {
    /**
     * The user's changes not seen by `since` (without it, every row that exists: a first pull needs no deletions)
     * and seen by `upTo` (a page's fixed upper bound; rows changed again after it wait for the next round), after
     * `after`, in feed order; with the snapshot the statement read them in (the next round's lower bound).
     */
    async changes(
      userId: string,
      opts: { since: string | null; upTo: string | null; after: FeedPosition | null; limit: number },
    ): Promise<{ snapshot: string; rows: ChangeRow[] }> {
      const [page] = await sql<{ snapshot: string; rows: ChangeRow[] }[]>`
        SELECT pg_current_snapshot()::text AS snapshot, COALESCE((SELECT json_agg(c) FROM (
          SELECT kind, row_id, deleted, xid::text AS xid FROM sync_changes f
          WHERE user_id = ${userId}
            ${
              opts.since === null
                ? sql`AND NOT deleted`
                : sql`AND xid >= pg_snapshot_xmin(${opts.since}::pg_snapshot)
                      AND NOT pg_visible_in_snapshot(xid, ${opts.since}::pg_snapshot)`
            }
            ${opts.upTo === null ? sql`` : sql`AND pg_visible_in_snapshot(xid, ${opts.upTo}::pg_snapshot)`}
            ${
              opts.after === null
                ? sql``
                : sql`AND (xid, kind, row_id) > (${opts.after.xid}::xid8, ${opts.after.kind}, ${opts.after.id}::uuid)`
            }
          -- f.xid: the bare name is the text column above, where "1000" sorts before "999"
          ORDER BY f.xid, f.kind, f.row_id
          LIMIT ${opts.limit}) c), '[]') AS rows`;
      return page!;
    },

    /**
     * The sync streams' poll, read at one snapshot (returned: the next poll's `since`). `users`: whose changes
     * committed since the snapshot `since` (what began after it, or was still running at it), read through the xid
     * index, so the cost follows the changes, not the streams. `changed`: of `watched` (streams with a snapshot of
     * their own: opened or resumed since), the positions of those with changes since it.
     */
    async changedSince(
      since: string | null,
      watched: { userId: string; since: string }[],
    ): Promise<{ snapshot: string; users: string[]; changed: number[] }> {
      const [row] = await sql<{ snapshot: string; users: string[]; changed: number[] }[]>`
        SELECT pg_current_snapshot()::text AS snapshot,
          ${
            since === null
              ? sql`'{}'::text[]`
              : sql`ARRAY(
                  SELECT user_id FROM sync_changes WHERE xid >= pg_snapshot_xmax(${since}::pg_snapshot)
                  UNION
                  SELECT c.user_id FROM pg_snapshot_xip(${since}::pg_snapshot) x
                  CROSS JOIN LATERAL (SELECT user_id FROM sync_changes WHERE xid = x) c)::text[]`
          } AS users,
          ARRAY(
            SELECT w.i - 1
            FROM unnest(${watched.map((w) => w.userId)}::uuid[], ${watched.map((w) => w.since)}::pg_snapshot[])
              WITH ORDINALITY AS w(user_id, since, i)
            WHERE EXISTS (SELECT 1 FROM sync_changes c
                          WHERE c.user_id = w.user_id AND c.xid >= pg_snapshot_xmin(w.since)
                            AND NOT pg_visible_in_snapshot(c.xid, w.since)))::int[] AS changed`;
      return row!;
    },

    /** The current snapshot: the feed's head, as a cursor's lower bound. */
    async snapshot(): Promise<string> {
      const [row] = await sql<{ snapshot: string }[]>`SELECT pg_current_snapshot()::text AS snapshot`;
      return row!.snapshot;
    },

    /** Forgets deletions older than the retention period; returns how many. */
    async purgeTombstones(retentionDays: number): Promise<number> {
      const rows = await sql`
        DELETE FROM sync_changes WHERE deleted AND changed_at < now() - make_interval(days => ${retentionDays})
        RETURNING row_id`;
      return rows.length;
    },

    /**
     * A row created with a client-made id: its owner and the fingerprint of its create; `deleted` when only its
     * tombstone is left; null when the id is unknown.
     */
    async clientRow(
      kind: ClientIdKind,
      id: string,
    ): Promise<{ user_id: string; client_hash: string | null; deleted: boolean } | null> {
      const [row] = await sql<{ user_id: string; client_hash: string | null; deleted: boolean }[]>`
        SELECT user_id, client_hash, false AS deleted FROM ${sql(CLIENT_ID_TABLES[kind])} WHERE id = ${id}
        UNION ALL
        SELECT user_id, NULL, true FROM sync_changes WHERE row_id = ${id} AND kind = ${kind} AND deleted
        LIMIT 1`;
      return row ?? null;
    },

    /** Which of the client-made `ids` name menu items deleted since (their tombstones): such an id is not reused. */
    async deletedMenuItems(ids: string[]): Promise<string[]> {
      if (ids.length === 0) return [];
      const rows = await sql<{ row_id: string }[]>`
        SELECT row_id FROM sync_changes WHERE kind = 'menu_items' AND deleted AND row_id = ANY(${ids}::uuid[])`;
      return rows.map((r) => r.row_id);
    },
  };
}
