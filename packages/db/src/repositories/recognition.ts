import type { Queryable } from '../client.ts';
import type { JobError } from '../schema/recognition.ts';
import type { JobStatus, Plan, ProductJobType, RecognitionKind } from '@nutrition/domain';
import { lockOwner } from './ownership.ts';

/** The API NOTIFYs here in the submitting transaction, so an idle worker starts a new job at once. */
export const SUBMITTED_CHANNEL = 'recognition_submitted';

export interface JobRow {
  id: string;
  status: JobStatus;
  job_type?: ProductJobType;
  target_date?: string | null;
  target_meal_type?: string | null;
  result: unknown;
  error: JobError | null;
  /** RFC 3339 in UTC, as sent. */
  created_at: string;
  updated_at: string;
}

export interface UploadedImage {
  contentType: string;
  data: Buffer;
}

/** A job a worker has started: who sent it, what was asked, and its photos in order. */
export interface StartedJob {
  id: string;
  /** Which start this is (the job's `attempts`): only this attempt's outcome is stored, see `finish`. */
  attempt: number;
  user_id: string;
  job_type?: ProductJobType;
  target_date?: string | null;
  target_meal_type?: string | null;
  images: UploadedImage[];
}

const TABLE: Record<RecognitionKind, string> = { dish: 'dish_recognition_jobs', product: 'product_recognition_jobs' };

type Read = { job: JobRow };
const jobs = (rows: Read[]) => rows.map((r) => r.job);

/**
 * The job as the API sends it, built by the SQL function the status trigger uses too (migrations 0012, 0013); with a
 * language, the catalog names in its result are that language's.
 */
const COLUMNS = (sql: Queryable, kind: RecognitionKind, language: string | null = null) =>
  kind === 'dish'
    ? sql`dish_job_json(j, ${language}::text) AS job`
    : sql`product_job_json(j, ${language}::text) AS job`;

/** Recognition jobs and their images; the API reads them scoped by the user, workers by id. */
export function recognitionRepository(sql: Queryable) {
  return {
    /**
     * The job row with the user's current plan and its images, the wake-up call to idle workers (sent on commit), and
     * what the client is told about its wait: one statement of the caller's transaction (the queue entry goes in the
     * same one). Image ids are drawn first, so the job row carries its image references; the first photo is stored by
     * the same statement, and the others follow.
     *
     * `ahead` counts the jobs that will be taken first, in the paid-first order: the tickets of the job's plan issued
     * before its own and not yet taken, and for a free job every paid ticket not yet taken. Tickets (see
     * `queueSeq`) count submissions that are not committed yet, so a burst gets distinct, consecutive positions.
     * `avgSeconds` is the processing time of the jobs finished in the last 15 minutes, weighted by recency (half the
     * weight every ~83 s), or of the last 50 when none finished lately; `processing` is the slots in use now.
     */
    async create(
      kind: RecognitionKind,
      userId: string,
      fields: { jobType?: ProductJobType; targetDate?: string | null; targetMealType?: string | null },
      images: UploadedImage[],
    ): Promise<{ id: string; plan: Plan; ahead: number; avgSeconds: number | null; processing: number }> {
      const table = sql(TABLE[kind]);
      const tickets = (plan: Plan) => `${kind}_jobs_${plan}_tickets`;
      const rows = images
        .map((img, position) => sql`(${position}::int, ${img.contentType}::text, ${img.data.length}::int)`)
        .reduce((all, row) => sql`${all}, ${row}`);
      const [columns, values] =
        kind === 'dish'
          ? [
              sql`target_date, target_meal_type`,
              sql`${fields.targetDate ?? null}::date, ${fields.targetMealType ?? null}::text`,
            ]
          : [sql`job_type`, sql`${fields.jobType!}::text`];
      const jobColumn = sql(kind === 'dish' ? 'dish_job_id' : 'product_job_id');
      const first = images[0]!;
      // The last jobs finished, read in the order of the partial index on finished_at (its NULLS LAST included) and
      // only as many as asked: filtered by age first, the planner sorted every job of the last 15 minutes, thousands
      // on a busy service, on each submission. The limit is a literal: with parameters for it, PostgreSQL planned the
      // submission anew every time (1 ms, more than it takes to run); without, it keeps the generic plan.
      const latestDone = (limit: number) => sql`
        SELECT finished_at, started_at FROM ${table} WHERE status = 'done' AND started_at IS NOT NULL
        ORDER BY finished_at DESC NULLS LAST LIMIT ${sql.unsafe(String(limit))}`;
      const [job] = await sql<
        {
          id: string;
          plan: Plan;
          image_ids: string[];
          ahead: number;
          avg_seconds: number | null;
          processing: number;
        }[]
      >`
        WITH img AS (
          SELECT uuidv7() AS id, v.* FROM (VALUES ${rows}) AS v(position, content_type, byte_size)
        ),
        job AS (
          INSERT INTO ${table} (user_id, plan, ${columns}, images, queue_seq)
          SELECT u.id, u.plan, ${values},
                 (SELECT jsonb_agg(jsonb_build_object('id', id, 'content_type', content_type, 'byte_size', byte_size)
                   ORDER BY position) FROM img),
                 CASE WHEN u.plan = 'paid' THEN nextval(${tickets('paid')}::regclass)
                      ELSE nextval(${tickets('free')}::regclass) END
          FROM users u WHERE u.id = ${userId}
          RETURNING id, plan, queue_seq
        ),
        taken AS (
          SELECT p.plan,
                 COALESCE((SELECT max(queue_seq) FROM ${table} t WHERE t.plan = p.plan AND t.status <> 'queued'), 0)
                   AS last
          FROM (VALUES ('free'), ('paid')) AS p(plan)
        ),
        paid_issued AS (
          SELECT CASE WHEN is_called THEN last_value ELSE 0 END AS last FROM ${sql(tickets('paid'))}
        ),
        first_image AS (
          INSERT INTO job_images (id, ${jobColumn}, position, content_type, byte_size, data)
          SELECT img.id, job.id, 0, img.content_type, img.byte_size, ${first.data}::bytea
          FROM img, job WHERE img.position = 0
        )
        SELECT job.id, job.plan, pg_notify(${SUBMITTED_CHANNEL}, ${kind}),
               (SELECT array_agg(img.id ORDER BY position) FROM img) AS image_ids,
               (greatest(0, job.queue_seq - 1 - (SELECT last FROM taken WHERE taken.plan = job.plan))
                + CASE WHEN job.plan = 'free'
                    -- the paid tickets pending, but at most the paid jobs waiting: a ticket whose job never
                    -- committed or is gone (its user deleted) counted for every free job until a later paid job was
                    -- taken. Counted only when a ticket is pending, so most submissions read nothing more.
                    THEN (SELECT CASE WHEN pending > 0
                                   THEN least(pending, (SELECT count(*) FROM ${table} WHERE plan = 'paid'
                                                                                   AND status = 'queued'))
                                   ELSE 0 END
                          FROM (SELECT (SELECT last FROM paid_issued) - (SELECT last FROM taken WHERE plan = 'paid')
                                  AS pending) p)
                    ELSE 0 END)::int AS ahead,
               COALESCE(
                 (SELECT sum(seconds * weight) / sum(weight) FROM (
                    SELECT extract(epoch FROM finished_at - started_at)::float8 AS seconds,
                           exp(-extract(epoch FROM now() - finished_at)::float8 / 120) AS weight
                    FROM (${latestDone(200)}) latest WHERE finished_at > now() - interval '15 minutes') recent),
                 (SELECT avg(extract(epoch FROM finished_at - started_at))::float8 FROM (${latestDone(50)}) latest)
               ) AS avg_seconds,
               (SELECT count(*)::int FROM ${table} WHERE status = 'processing') AS processing
        FROM job`;
      if (!job) throw new Error(`no user ${userId} to submit a job for`);
      // The first photo went with the job row; a statement per further photo: the driver sends bytea as hex text, so
      // one statement for ten photos would hold all of them twice over in memory at once.
      for (let position = 1; position < images.length; position++)
        await sql`
          INSERT INTO job_images (id, ${jobColumn}, position, content_type, byte_size, data)
          VALUES (${job.image_ids[position]!}, ${job.id}, ${position}, ${images[position]!.contentType},
                  ${images[position]!.data.length}, ${images[position]!.data})`;
      return { id: job.id, plan: job.plan, ahead: job.ahead, avgSeconds: job.avg_seconds, processing: job.processing };
    },

    async get(
      kind: RecognitionKind,
      userId: string,
      jobId: string,
      language: string | null = null,
    ): Promise<JobRow | null> {
      const [row] = await sql<Read[]>`
        SELECT ${COLUMNS(sql, kind, language)} FROM ${sql(TABLE[kind])} j WHERE id = ${jobId} AND user_id = ${userId}`;
      return row?.job ?? null;
    },

    /** Every job of the user of a kind, oldest first (the data export). */
    async allOf(kind: RecognitionKind, userId: string, language: string): Promise<JobRow[]> {
      return jobs(
        await sql<Read[]>`
          SELECT ${COLUMNS(sql, kind, language)} FROM ${sql(TABLE[kind])} j WHERE user_id = ${userId} ORDER BY id`,
      );
    },

    /** A job by id alone: ownership was checked when its stream opened. */
    async byId(kind: RecognitionKind, jobId: string): Promise<JobRow | null> {
      const [row] = await sql<Read[]>`SELECT ${COLUMNS(sql, kind)} FROM ${sql(TABLE[kind])} j WHERE id = ${jobId}`;
      return row?.job ?? null;
    },

    /** Many jobs in one statement, for the SSE hub's batched reads after a burst of notifications. */
    async byIds(kind: RecognitionKind, jobIds: string[]): Promise<JobRow[]> {
      return jobs(
        await sql<Read[]>`SELECT ${COLUMNS(sql, kind)} FROM ${sql(TABLE[kind])} j WHERE id = ANY(${jobIds}::uuid[])`,
      );
    },

    /**
     * The user's dish jobs submitted since `since` (the start of their today) that no diary entry links yet, newest
     * first by id (uuidv7: submission order); `beforeId` continues after a page's last job.
     */
    async unlinkedDishJobsSince(
      userId: string,
      since: Date,
      language: string,
      limit: number,
      beforeId?: string,
    ): Promise<JobRow[]> {
      return jobs(
        await sql<Read[]>`
        SELECT ${COLUMNS(sql, 'dish', language)} FROM dish_recognition_jobs j
        WHERE j.user_id = ${userId} AND j.created_at >= ${since} ${beforeId ? sql`AND j.id < ${beforeId}` : sql``}
          AND NOT EXISTS (SELECT 1 FROM meal_diary d WHERE d.job_id = j.id)
        ORDER BY j.id DESC LIMIT ${limit}`,
      );
    },

    async productJobsSince(
      userId: string,
      since: Date,
      language: string,
      limit: number,
      beforeId?: string,
    ): Promise<JobRow[]> {
      return jobs(
        await sql<Read[]>`
        SELECT ${COLUMNS(sql, 'product', language)} FROM product_recognition_jobs j
        WHERE user_id = ${userId} AND created_at > ${since} ${beforeId ? sql`AND id < ${beforeId}` : sql``}
        ORDER BY id DESC LIMIT ${limit}`,
      );
    },

    async productJobHistory(userId: string, language: string, limit: number, beforeId?: string): Promise<JobRow[]> {
      return jobs(
        await sql<Read[]>`
        SELECT ${COLUMNS(sql, 'product', language)} FROM product_recognition_jobs j
        WHERE user_id = ${userId} ${beforeId ? sql`AND id < ${beforeId}` : sql``}
        ORDER BY id DESC LIMIT ${limit}`,
      );
    },

    /** The user's product job, locked until the transaction ends, with what an `apply` needs. */
    async lockForApply(userId: string, jobId: string) {
      await lockOwner(sql, userId);
      const [row] = await sql<{ status: JobRow['status']; result: unknown; applied_item_ids: string[] | null }[]>`
        SELECT status, result, applied_item_ids FROM product_recognition_jobs
        WHERE id = ${jobId} AND user_id = ${userId} FOR UPDATE`;
      return row ?? null;
    },

    async markApplied(jobId: string, itemIds: string[]) {
      await sql`UPDATE product_recognition_jobs SET applied_at = now(), applied_item_ids = ${itemIds}::uuid[] WHERE id
        = ${jobId}`;
    },

    // --- worker side ---

    /**
     * queued → processing (again, after a retry), with the job's photos in the same statement (none when they were
     * purged); null when the job is already finished or gone. Each start counts an attempt, which the job then belongs
     * to: an earlier attempt still running (its worker stalled past its heartbeat) can no longer finish it.
     */
    async start(kind: RecognitionKind, jobId: string): Promise<StartedJob | null> {
      const rows = await sql<(Omit<StartedJob, 'images'> & { content_type: string | null; data: Buffer | null })[]>`
        WITH started AS (
          UPDATE ${sql(TABLE[kind])} SET status = 'processing', started_at = now(), attempts = attempts + 1, updated_at
            = now()
          WHERE id = ${jobId} AND status IN ('queued', 'processing')
          RETURNING id, attempts AS attempt, user_id
            ${kind === 'product' ? sql`, job_type` : sql`, target_date, target_meal_type`})
        SELECT s.*, i.content_type, i.data FROM started s
        LEFT JOIN job_images i ON i.${sql(kind === 'dish' ? 'dish_job_id' : 'product_job_id')} = s.id
        ORDER BY i.position`;
      if (rows.length === 0) return null;
      const { content_type: _type, data: _data, ...job } = rows[0]!;
      const images = rows.filter((r) => r.data !== null).map((r) => ({ contentType: r.content_type!, data: r.data! }));
      return { ...job, images };
    },

    /**
     * processing → done or failed; true when stored. With the `attempt` its start returned, only while the job is
     * still that attempt's; without (a job given up from the dead-letter queue), any job not yet finished. A finished
     * job is final: the client has seen it end, and a late answer must not turn a failed job done (nor a done one
     * failed).
     */
    async finish(
      kind: RecognitionKind,
      jobId: string,
      outcome: { result: unknown } | { error: JobError },
      attempt?: number,
    ): Promise<boolean> {
      const [status, result, error] =
        'error' in outcome ? ['failed', null, outcome.error] : ['done', outcome.result, null];
      const held =
        attempt === undefined
          ? sql`status IN ('queued', 'processing')`
          : sql`status = 'processing' AND attempts = ${attempt}`;
      const rows = await sql`
        UPDATE ${sql(TABLE[kind])}
        SET status = ${status}, result = ${result === null ? null : JSON.stringify(result)}::jsonb,
            error = ${error === null ? null : JSON.stringify(error)}::jsonb, finished_at = now(), updated_at = now()
        WHERE id = ${jobId} AND ${held}
        RETURNING id`;
      return rows.length > 0;
    },

    /** Deletes uploaded photos older than the retention period; returns how many. */
    async purgeImages(retentionDays: number): Promise<number> {
      const rows =
        await sql`DELETE FROM job_images WHERE created_at < now() - make_interval(days => ${retentionDays}) RETURNING
          id`;
      return rows.length;
    },
  };
}
