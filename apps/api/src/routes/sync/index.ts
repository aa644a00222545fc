import { createHmac, timingSafeEqual } from 'node:crypto';
import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import { Type } from 'typebox';
import {
  diaryRepository,
  menuRepository,
  pantryRepository,
  profileRepository,
  savedRecipeRepository,
  shoppingRepository,
  syncRepository,
  type ChangeRow,
  type FeedPosition,
  type SyncKind,
} from '@nutrition/db/repositories';
import { HttpError } from '../../errors.ts';
import { invalidCursor } from '../../cursor.ts';
import { errors, named, Nullable, Uuid } from '../../schemas.ts';
import { openEventStream } from '../../sse.ts';
import { DiaryEntry } from '../diary/schemas.ts';
import { MenuItem } from '../menu/schemas.ts';
import { Profile } from '../profile/schemas.ts';
import { present } from '../profile/present.ts';
import { PantryItem } from '../user-products/index.ts';
import { Bookmark } from '../saved-recipes/index.ts';
import { ShoppingItem } from '../shopping-list/index.ts';

/** Deletions are remembered this long; an older cursor must start over. */
const SYNC_RETENTION_DAYS = 30;
const RETENTION_MS = SYNC_RETENTION_DAYS * 24 * 3600_000;
/** Tombstones are purged a day after a cursor that could need them has expired. */
const PURGE_AFTER_DAYS = SYNC_RETENTION_DAYS + 1;

/**
 * A cursor: the snapshot the client has seen everything of (`s`, taken at `st` ms; null before the first pull) and,
 * while a round is paged, the round's snapshot (`h`, taken at `ht`) and the last row sent (`a`). Signed, and bound to
 * its user, so a tampered or borrowed cursor is a 400.
 */
interface FeedCursor {
  u: string;
  s: string | null;
  st: number | null;
  h?: string;
  ht?: number;
  a?: FeedPosition;
}

const SNAPSHOT = /^\d{1,20}:\d{1,20}:(\d{1,20}(,\d{1,20})*)?$/;
const isCursor = (v: unknown, userId: string): v is FeedCursor => {
  const c = v as FeedCursor;
  return (
    typeof c === 'object' &&
    c !== null &&
    c.u === userId &&
    (c.s === null ? c.st === null : typeof c.s === 'string' && SNAPSHOT.test(c.s) && Number.isSafeInteger(c.st)) &&
    (c.h === undefined ||
      (typeof c.h === 'string' &&
        SNAPSHOT.test(c.h) &&
        Number.isSafeInteger(c.ht) &&
        typeof c.a === 'object' &&
        c.a !== null &&
        /^\d{1,20}$/.test(c.a.xid) &&
        typeof c.a.kind === 'string' &&
        /^[0-9a-f-]{36}$/.test(c.a.id)))
  );
};

const changes = <T extends Parameters<typeof Type.Array>[0]>(row: T) =>
  Type.Object({
    upserted: Type.Array(row, { description: 'created or changed since the cursor, as their own endpoint shows them' }),
    deleted: Type.Array(Uuid, { description: 'ids deleted since the cursor' }),
  });

const SyncPage = named(
  'SyncPage',
  Type.Object({
    changes: Type.Object({
      diary_entries: changes(DiaryEntry),
      user_products: changes(PantryItem),
      saved_recipes: changes(Bookmark),
      menu_items: changes(MenuItem),
      shopping_items: changes(ShoppingItem),
    }),
    profile: Nullable(Profile),
    cursor: Type.String({ description: 'opaque: send it as `cursor` for the next page, or later for what changed' }),
    has_more: Type.Boolean({ description: 'true: pull again with `cursor` at once; false: the client is up to date' }),
  }),
);

/** The change feed of an offline-first app, and a stream that tells it when to pull. */
const sync: FastifyPluginAsyncTypebox<{ secret: string; pollMs: number }> = async (app, opts) => {
  app.addHook('onRequest', app.authenticate);
  const key = createHmac('sha256', opts.secret).update('sync cursor').digest();
  const sign = (payload: string) => createHmac('sha256', key).update(payload).digest('base64url');
  const encode = (cursor: FeedCursor) => {
    const payload = Buffer.from(JSON.stringify(cursor)).toString('base64url');
    return `${payload}.${sign(payload)}`;
  };
  const decode = (text: string, userId: string): FeedCursor | null => {
    const [payload, signature, extra] = text.split('.');
    if (!payload || !signature || extra !== undefined) return null;
    const expected = Buffer.from(sign(payload));
    const given = Buffer.from(signature);
    if (expected.length !== given.length || !timingSafeEqual(expected, given)) return null;
    try {
      const value: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString());
      return isCursor(value, userId) ? value : null;
    } catch {
      return null;
    }
  };
  const purge = async () => {
    try {
      const purged = await syncRepository(app.sql).purgeTombstones(PURGE_AFTER_DAYS);
      if (purged) app.log.info({ purged }, 'old sync tombstones purged');
    } catch (err) {
      app.log.error({ err }, 'sync tombstone purge failed');
    }
  };
  const purgeTimer = setInterval(purge, 3600_000);
  purgeTimer.unref();
  app.addHook('onClose', async () => clearInterval(purgeTimer));

  app.get(
    '/sync',
    {
      config: { deferLanguage: true },
      schema: {
        tags: ['sync'],
        summary: "What changed in the caller's rows since a cursor: full rows and ids of deleted ones",
        description:
          'Without `cursor`, everything (paged). Pull until `has_more` is false and keep the last `cursor`. A row ' +
          'committed after a cursor was issued is never skipped, even when its transaction began earlier. A row ' +
          'may come again in a later pull (apply upserts by id). `profile` is the profile when it changed (always ' +
          'on a first pull), else null. Deletions are kept ' +
          `${SYNC_RETENTION_DAYS} days: an older cursor is 410 \`sync_reset\` (pull again without a cursor).`,
        querystring: Type.Object(
          {
            cursor: Type.Optional(Type.String({ minLength: 1, maxLength: 2000 })),
            limit: Type.Optional(Type.Integer({ minimum: 1, maximum: 1000, default: 500 })),
          },
          { additionalProperties: false },
        ),
        response: { 200: SyncPage, ...errors(400, 401, 410) },
      },
    },
    async (request) => {
      const userId = request.user.id;
      const limit = request.query.limit ?? 500;
      const given = request.query.cursor;
      const cursor = given === undefined ? null : decode(given, userId);
      if (given !== undefined && !cursor) throw invalidCursor();
      if (cursor?.st != null && app.now().getTime() - cursor.st > RETENTION_MS)
        throw new HttpError(410, 'sync_reset', 'The cursor is older than the deletions kept: pull without a cursor');
      // The feed and its snapshot in one statement; the rows are read after it, so a row may come newer than the
      // snapshot (it comes again next round, harmless to an upsert) or be gone (its tombstone comes next round). The
      // profile's language and time zone (one read) come meanwhile.
      const [{ snapshot, rows }, time, language] = await Promise.all([
        syncRepository(app.sql).changes(userId, {
          since: cursor?.s ?? null,
          upTo: cursor?.h ?? null,
          after: cursor?.a ?? null,
          limit: limit + 1,
        }),
        app.userTime(request),
        request.languageReady ?? request.language,
      ]);
      // A round's upper bound is the snapshot of its first page; later pages keep it, so rows changed meanwhile wait
      // for the next round instead of shifting the order under the pages.
      const upTo = cursor?.h ?? snapshot;
      const upToAt = cursor?.ht ?? app.now().getTime();
      const page = rows.slice(0, limit);
      const hasMore = rows.length > limit;
      const ids = (kind: SyncKind) => page.filter((r) => r.kind === kind && !r.deleted).map((r) => r.row_id);
      const deleted = (kind: SyncKind) => page.filter((r) => r.kind === kind && r.deleted).map((r) => r.row_id);
      const some = async <T>(list: string[], read: (ids: string[]) => Promise<T[]>) =>
        list.length === 0 ? [] : read(list);
      const sql = app.keyedSql;
      const [diary, pantry, bookmarks, menu, shopping, profile] = await Promise.all([
        some(ids('diary_entries'), (list) => diaryRepository(sql).byIds(userId, list, language)),
        some(ids('user_products'), (list) => pantryRepository(sql).byIds(userId, list, language, time)),
        some(ids('saved_recipes'), (list) => savedRecipeRepository(sql).byIds(userId, list, language)),
        some(ids('menu_items'), (list) => menuRepository(sql).itemsByIds(userId, list, language)),
        some(ids('shopping_items'), (list) => shoppingRepository(sql).itemsByIds(userId, list, language)),
        page.some((r) => r.kind === 'profile') ? profileRepository(sql).get(userId) : null,
      ]);
      const last: ChangeRow | undefined = page.at(-1);
      const next: FeedCursor =
        hasMore && last
          ? {
              u: userId,
              s: cursor?.s ?? null,
              st: cursor?.st ?? null,
              h: upTo,
              ht: upToAt,
              a: { xid: last.xid, kind: last.kind, id: last.row_id },
            }
          : { u: userId, s: upTo, st: upToAt };
      return {
        changes: {
          diary_entries: { upserted: diary, deleted: deleted('diary_entries') },
          user_products: { upserted: pantry, deleted: deleted('user_products') },
          saved_recipes: { upserted: bookmarks, deleted: deleted('saved_recipes') },
          menu_items: { upserted: menu, deleted: deleted('menu_items') },
          shopping_items: { upserted: shopping, deleted: deleted('shopping_items') },
        },
        profile: profile && present(profile, time.today),
        cursor: encode(next),
        has_more: hasMore,
      };
    },
  );

  // The open sync streams of this process, each with the snapshot its changes are told since. While any is open, one
  // statement every `pollMs` asks the feed which of them have changes: writes do not NOTIFY (migration 0025), since
  // PostgreSQL lets one notifying commit through at a time.
  const streams = new Set<{ userId: string; since: string; send: (cursor: string) => void }>();
  // The last poll's snapshot, and so the `since` of every stream it polled.
  let head: string | null = null;
  let timer: NodeJS.Timeout | undefined;
  let polling = false;
  let failing = false;
  let closed = false;
  const schedule = () => {
    if (timer === undefined && !polling && !closed && streams.size > 0) timer = setTimeout(poll, opts.pollMs);
  };
  const poll = async () => {
    timer = undefined;
    polling = true;
    const polled = [...streams];
    const own = polled.filter((stream) => stream.since !== head);
    try {
      const { snapshot, users, changed } = await syncRepository(app.sql).changedSince(head, own);
      const changedUsers = new Set(users);
      const changedOwn = new Set(changed.map((i) => own[i]));
      const at = app.now().getTime();
      for (const stream of polled) {
        if (stream.since === head ? changedUsers.has(stream.userId) : changedOwn.has(stream))
          stream.send(encode({ u: stream.userId, s: snapshot, st: at }));
        stream.since = snapshot;
      }
      head = snapshot;
      if (failing) app.log.info('sync streams read the change feed again');
      failing = false;
    } catch (err) {
      // Nothing is lost: the next poll asks again from the same snapshots. Logged once an outage, not every poll.
      if (!failing) app.log.warn({ err }, 'sync streams cannot read the change feed; polling on');
      failing = true;
    } finally {
      polling = false;
      schedule();
    }
  };
  app.addHook('onClose', async () => {
    closed = true;
    clearTimeout(timer);
  });

  app.get(
    '/sync/stream',
    {
      schema: {
        tags: ['sync'],
        summary: "Server-sent events: `event: changed` whenever the caller's rows change",
        produces: ['text/event-stream'],
        response: { ...errors(400, 401) },
      },
    },
    async (request, reply) => {
      const userId = request.user.id;
      // A client reconnecting with the last event's cursor hears of what changed since (at the first poll); a new
      // stream of what commits once it is open.
      const resumed = request.headers['last-event-id'];
      const since =
        (typeof resumed === 'string' ? decode(resumed, userId)?.s : null) ?? (await syncRepository(app.sql).snapshot());
      const events = openEventStream(request, reply);
      const stream = {
        userId,
        since,
        send: (cursor: string) => events.send('changed', JSON.stringify({ cursor }), cursor),
      };
      streams.add(stream);
      events.onClose(() => streams.delete(stream));
      schedule();
    },
  );
};

export default sync;
