import t from 'tap';
import { syncRepository } from '../src/repositories/sync.ts';
import { openTestDatabase } from '../src/testing.ts';

t.test('the change feed pages in transaction order across a power of ten (such as 999, then 1000)', async (t) => {
  const { sql } = await openTestDatabase(t, { max: 1 });
  const [user] = await sql<{ id: string }[]>`
    INSERT INTO users (identity_provider, external_subject) VALUES ('dev', 'pager') RETURNING id`;
  // The user's row recorded by the last transaction before a power of ten, an item by the one at it (both past).
  const [xact] = await sql<{ current: string }[]>`SELECT pg_current_xact_id()::text AS current`;
  const power = 10 ** Math.floor(Math.log10(Number(xact!.current) - 1));
  const [before, at] = [String(power - 1), String(power)];
  await sql`UPDATE sync_changes SET xid = ${before}::xid8 WHERE user_id = ${user!.id}`;
  const item = crypto.randomUUID();
  await sql`
    INSERT INTO sync_changes (row_id, kind, user_id, xid, deleted, changed_at)
    VALUES (${item}, 'user_products', ${user!.id}, ${at}::xid8, false, now())`;

  const feed = syncRepository(sql);
  const first = await feed.changes(user!.id, { since: null, upTo: null, after: null, limit: 1 });
  t.same(
    first.rows.map((r) => [r.kind, r.xid]),
    [['profile', before]],
    'the first page holds the earlier change',
  );
  const last = first.rows[0]!;
  const second = await feed.changes(user!.id, {
    since: null,
    upTo: first.snapshot,
    after: { xid: last.xid, kind: last.kind, id: last.row_id },
    limit: 1,
  });
  t.same(
    second.rows.map((r) => [r.kind, r.xid, r.row_id]),
    [['user_products', at, item]],
    'the next page holds the later change; none is skipped',
  );
});
