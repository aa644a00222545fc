import type { FastifyPluginAsyncTypebox } from '@fastify/type-provider-typebox';
import type { FastifySchemaCompiler, FastifyReply, FastifyRequest } from 'fastify';
import { Type, type Static, type TSchema } from 'typebox';
import { TypeBoxValidatorCompiler } from '@fastify/type-provider-typebox';
import type { Queryable } from '@nutrition/db';
import { enqueueRecognition, type RecognitionKind } from '@nutrition/worker';
import { pantryRepository, recognitionRepository, type JobRow, type UploadedImage } from '@nutrition/db/repositories';
import { estimatedSeconds, implausibleQuantity, isValidDate, MEAL_TYPES, startOfDayIn } from '@nutrition/domain';
import { Cursor, errors, IdParams, Limit, Page } from '../../schemas.ts';
import { conflict, HttpError, notFound, validationFailed } from '../../errors.ts';
import { callerScope, isUuid } from '../../cursor.ts';
import { openEventStream } from '../../sse.ts';
import { jobState, type JobState } from '../../plugins/events.ts';
import { fingerprint, idempotent } from '../../idempotency.ts';
import type { Config } from '../../config.ts';
import { readSubmission } from './upload.ts';
import { uploadSlots } from '../../upload-slots.ts';
import {
  Accepted,
  ApplyBody,
  DishJob,
  DishSubmission,
  MAX_BASE64,
  MAX_IMAGES,
  ProductJob,
  ProductSubmission,
} from './schemas.ts';

const TERMINAL = new Set(['done', 'failed']);

/** How far along its life a job is: statuses only move forward (a retry starts a job that is processing again). */
const STAGE: Record<JobState['status'], number> = { queued: 0, processing: 1, done: 2, failed: 2 };

/** What an event id names: a job's status and when it last changed. */
type Version = Pick<JobState, 'status' | 'updatedAt'>;

/** Whether `state` comes after `than`: a later stage, or the same one changed later (a retry's new start). */
const isLater = (state: Version, than: Version) =>
  STAGE[state.status] > STAGE[than.status] ||
  (STAGE[state.status] === STAGE[than.status] && state.updatedAt > than.updatedAt);

/** A multipart request has no parsed body: only a JSON body is validated by the schema. */
const jsonBodyOnly: FastifySchemaCompiler<TSchema> = (route) => {
  const validate = TypeBoxValidatorCompiler(route);
  return (value) =>
    route.httpPart === 'body' && (value === undefined || value === null) ? { value } : validate(value);
};

const MULTIPART = { consumes: ['application/json', 'multipart/form-data'] };

/** The largest valid submission of `images` photos: each at its limit as base64 in JSON (larger than multipart). */
const bodyLimitFor = (images: number) => images * MAX_BASE64 + 64 * 1024;

/** Photo recognition: submissions (job row, images and queue entry in one transaction), job reads, SSE streams. */
const recognition: FastifyPluginAsyncTypebox<{ config: Config }> = async (app, { config }) => {
  const jobs = recognitionRepository(app.sql);
  const pantry = pantryRepository(app.sql);
  app.addHook('onRequest', app.authenticate);
  const slots = uploadSlots(config.UPLOAD_CONCURRENCY);
  // Taken before the body is read (routes' preParsing below), given back however the request ends.
  const takeSlot = async (request: FastifyRequest) => slots.acquire(request);
  app.addHook('onResponse', async (request) => slots.release(request));
  app.addHook('onRequestAbort', async (request) => slots.release(request));
  // A submission is a model call: counted before its body (up to a hundred megabytes) is read.
  const modelBudget = (request: FastifyRequest, _reply: FastifyReply, done: (err?: Error) => void) => {
    app.spendModelBudget(request);
    done();
  };

  /** The job row, its photos and its queue entry, in the caller's transaction. */
  async function submit(
    tx: Queryable,
    kind: RecognitionKind,
    userId: string,
    images: UploadedImage[],
    fields: Parameters<typeof jobs.create>[2],
  ) {
    const job = await recognitionRepository(tx).create(kind, userId, fields, images);
    await enqueueRecognition(app.boss, tx, kind, job.plan, job.id);
    // One worker's slots as configured, or every replica's as seen now: the jobs being processed at this moment.
    const slots = Math.max(
      kind === 'dish' ? config.DISH_WORKER_CAPACITY : config.PRODUCT_WORKER_CAPACITY,
      job.processing,
    );
    return {
      job_id: job.id,
      status: 'queued' as const,
      queue_position: job.ahead,
      estimated_seconds: estimatedSeconds(job.ahead, job.avgSeconds, slots),
    };
  }

  app.post(
    '/ai/recognize-dish',
    {
      bodyLimit: bodyLimitFor(1),
      validatorCompiler: jsonBodyOnly,
      onRequest: modelBudget,
      preParsing: takeSlot,
      schema: {
        tags: ['recognition'],
        summary: 'Recognise a dish on one photo (multipart or JSON/base64)',
        description:
          'JPEG, PNG or WebP by magic bytes (else 415; HEIC is recognised and refused with 415), at most 8 MiB ' +
          '(else 413). The photo is stored normalised: upright, at most 2048 px, JPEG, without metadata (GPS). ' +
          'Large uploads beyond the per-process limit are answered 503 busy with Retry-After.',
        ...MULTIPART,
        body: DishSubmission,
        response: { 202: Accepted, ...errors(400, 401, 409, 413, 415, 429, 503) },
      },
    },
    async (request, reply) => {
      const { images, fields } = await readSubmission(request, { min: 1, max: 1 });
      const targetDate =
        fields.target_date === undefined ? (await app.userTime(request)).today : String(fields.target_date);
      if (!isValidDate(targetDate)) throw validationFailed('/body/target_date', 'is not a calendar date');
      const mealType = fields.target_meal_type === undefined ? null : String(fields.target_meal_type);
      if (mealType !== null && !(MEAL_TYPES as readonly string[]).includes(mealType))
        throw validationFailed('/body/target_meal_type', 'is not a meal type');
      const unknown = Object.keys(fields).filter((k) => !['target_date', 'target_meal_type'].includes(k));
      if (unknown.length) throw validationFailed(`/body/${unknown[0]}`, 'is not a known field');
      return idempotent(
        app,
        request,
        reply,
        // What the client sent: a default date would change at the user's midnight and refuse a retry sent after it.
        () => fingerprint('dish', fields.target_date ?? null, mealType, ...images.map((i) => i.data)),
        async (tx) => ({
          status: 202,
          body: await submit(tx, 'dish', request.user.id, images, { targetDate, targetMealType: mealType }),
        }),
      );
    },
  );

  for (const [path, jobType, summary] of [
    ['/ai/recognize-receipt', 'receipt', 'Read a shop receipt from 1-10 photos'],
    ['/ai/recognize-products', 'products', 'Recognise food products on 1-10 photos'],
  ] as const) {
    app.post(
      path,
      {
        bodyLimit: bodyLimitFor(MAX_IMAGES),
        validatorCompiler: jsonBodyOnly,
        onRequest: modelBudget,
        preParsing: takeSlot,
        schema: {
          tags: ['recognition'],
          summary,
          description:
            'Multipart file fields `images` or JSON `images`; the photos are recognised in parallel and merged.',
          ...MULTIPART,
          body: ProductSubmission,
          response: { 202: Accepted, ...errors(400, 401, 409, 413, 415, 429, 503) },
        },
      },
      async (request, reply) => {
        const { images, fields } = await readSubmission(request, { min: 1, max: MAX_IMAGES });
        const unknown = Object.keys(fields);
        if (unknown.length) throw validationFailed(`/body/${unknown[0]}`, 'is not a known field');
        return idempotent(
          app,
          request,
          reply,
          () => fingerprint(jobType, ...images.map((i) => i.data)),
          async (tx) => ({
            status: 202,
            body: await submit(tx, 'product', request.user.id, images, { jobType }),
          }),
        );
      },
    );
  }

  // Rows carry the job's JSON columns as stored; the response schemas of the routes check and shape them.
  const asDishJob = (row: JobRow) => row as unknown as Static<typeof DishJob>;
  const asProductJob = (row: JobRow) => row as unknown as Static<typeof ProductJob>;
  /** The user's job, with the catalog names in its result in the request language. */
  const findJob = async (kind: RecognitionKind, userId: string, id: string, language: string) => {
    const job = await jobs.get(kind, userId, id, language);
    if (!job) throw notFound(kind === 'dish' ? 'Dish job' : 'Product job');
    return job;
  };

  /** Current state first, then every change, until done or failed; another user's job is a 404 before any stream. */
  const stream =
    (kind: RecognitionKind) => async (request: FastifyRequest<{ Params: { id: string } }>, reply: FastifyReply) => {
      const userId = request.user.id;
      const job = await findJob(kind, userId, request.params.id, request.language);
      const events = openEventStream(request, reply);
      // Event ids name a job state (`<updated_at ms>-<status>`). A client reconnecting with `Last-Event-ID` is not sent
      // that state again, nor an earlier one, only what came after; a final state is always sent, since it is what ends
      // the stream.
      const resumed = /^(\d+)-(queued|processing)$/.exec(String(request.headers['last-event-id'] ?? ''));
      let last: Version | null = resumed
        ? { status: resumed[2] as JobState['status'], updatedAt: Number(resumed[1]) }
        : null;
      const send = (state: JobState) => {
        // The same state can come both from a read and from its notification, and a read begun before a change can
        // answer after the change's notification: only a state later than the last one sent goes out.
        if (last && !isLater(state, last)) return;
        last = state;
        events.send('status', state.json, `${state.updatedAt}-${state.status}`);
        if (TERMINAL.has(state.status)) events.close();
      };
      // A finished job is read again in the stream's language: notifications carry its names as stored.
      const read = () => jobs.get(kind, userId, job.id, request.language);
      const deliver = (state: JobState) => {
        if (state.status !== 'done') return send(state);
        read().then(
          (row) => send(row ? jobState(row) : state),
          () => send(state),
        );
      };
      events.onClose(app.jobEvents.watch(kind, job.id, deliver));
      // Re-read after subscribing: a change between the first read and the subscription is not lost.
      send(jobState(job));
      if (!events.closed) {
        const fresh = await read();
        if (fresh) send(jobState(fresh));
      }
    };

  const PageQuery = Type.Object(
    { limit: Type.Optional(Limit), cursor: Type.Optional(Cursor) },
    { additionalProperties: false },
  );
  /** One page of a newest-first job list, read with one row more than the limit to know whether more follow. */
  const page = async <T extends { id: string }>(
    request: FastifyRequest<{ Querystring: { limit?: number; cursor?: string } }>,
    read: (limit: number, beforeId: string | undefined) => Promise<T[]>,
  ) => {
    const limit = request.query.limit ?? 20;
    const scope = callerScope(request);
    const rows = await read(limit + 1, app.cursors.after(scope, request.query.cursor, isUuid));
    const items = rows.slice(0, limit);
    return { items, next_cursor: rows.length > limit ? app.cursors.next(scope, items.at(-1)!.id) : null };
  };

  app.get(
    '/ai/jobs',
    {
      schema: {
        tags: ['recognition'],
        summary: "Today's dish jobs (today on the user's clock) not yet linked to a diary entry",
        description: 'Newest first, paged by `cursor`.',
        querystring: PageQuery,
        response: { 200: Page(DishJob), ...errors(400, 401) },
      },
    },
    async (request) => {
      const { zone, today } = await app.userTime(request);
      const since = startOfDayIn(zone, today);
      return page(request, async (limit, before) =>
        (await jobs.unlinkedDishJobsSince(request.user.id, since, request.language, limit, before)).map(asDishJob),
      );
    },
  );

  app.get(
    '/ai/jobs/:id',
    {
      schema: {
        tags: ['recognition'],
        summary: 'One dish job',
        params: IdParams,
        response: { 200: DishJob, ...errors(400, 401, 404) },
      },
    },
    async (request) => asDishJob(await findJob('dish', request.user.id, request.params.id, request.language)),
  );

  app.get(
    '/ai/jobs/:id/stream',
    {
      schema: {
        tags: ['recognition'],
        summary: 'Server-sent events of a dish job (`event: status`)',
        description:
          'The current state first, then every change, until `done` or `failed`. Each event id names the state; ' +
          'reconnecting with `Last-Event-ID` skips the state the client already has.',
        params: IdParams,
        produces: ['text/event-stream'],
        response: { ...errors(400, 401, 404) },
      },
    },
    stream('dish'),
  );

  app.get(
    '/ai/product-jobs',
    {
      schema: {
        tags: ['recognition'],
        summary: 'Product jobs of the last 24 hours',
        description: 'Newest first, paged by `cursor`.',
        querystring: PageQuery,
        response: { 200: Page(ProductJob), ...errors(400, 401) },
      },
    },
    async (request) => {
      const since = new Date(app.now().getTime() - 24 * 3600_000);
      return page(request, async (limit, before) =>
        (await jobs.productJobsSince(request.user.id, since, request.language, limit, before)).map(asProductJob),
      );
    },
  );

  app.get(
    '/ai/product-jobs/history',
    {
      schema: {
        tags: ['recognition'],
        summary: 'All product jobs, newest first',
        querystring: PageQuery,
        response: { 200: Page(ProductJob), ...errors(400, 401) },
      },
    },
    async (request) =>
      page(request, async (limit, before) =>
        (await jobs.productJobHistory(request.user.id, request.language, limit, before)).map(asProductJob),
      ),
  );

  app.get(
    '/ai/product-jobs/:id',
    {
      schema: {
        tags: ['recognition'],
        summary: 'One product job',
        params: IdParams,
        response: { 200: ProductJob, ...errors(400, 401, 404) },
      },
    },
    async (request) => asProductJob(await findJob('product', request.user.id, request.params.id, request.language)),
  );

  app.get(
    '/ai/product-jobs/:id/stream',
    {
      schema: {
        tags: ['recognition'],
        summary: 'Server-sent events of a product job (`event: status`)',
        description:
          'The current state first, then every change, until `done` or `failed`. Each event id names the state; ' +
          'reconnecting with `Last-Event-ID` skips the state the client already has.',
        params: IdParams,
        produces: ['text/event-stream'],
        response: { ...errors(400, 401, 404) },
      },
    },
    stream('product'),
  );

  app.post(
    '/ai/product-jobs/:id/apply',
    {
      validatorCompiler: jsonBodyOnly,
      schema: {
        tags: ['recognition'],
        summary: 'Add the recognised items (or those at item_indexes) to the pantry, once',
        description:
          'Idempotent: the first call adds the items in one transaction and marks the job applied; every later call ' +
          '(a retry, a double tap, with any body) answers 200 with the items that call added and adds nothing. ' +
          'The body is optional. An item whose quantity no purchase holds (800 cans; a bound per unit) is refused ' +
          'with 422 implausible_quantity, one detail per item, and nothing is added.',
        params: IdParams,
        body: ApplyBody,
        response: {
          200: Type.Object({ items: Type.Array(Type.Object({}, { additionalProperties: true })) }),
          ...errors(400, 401, 404, 409, 422),
        },
      },
    },
    async (request) => {
      const userId = request.user.id;
      const time = await app.userTime(request);
      const ids = await app.transaction(async (tx) => {
        const txJobs = recognitionRepository(tx);
        // Locked: a parallel apply waits here and then finds the job applied.
        const job = await txJobs.lockForApply(userId, request.params.id);
        if (!job) throw notFound('Product job');
        if (job.applied_item_ids) return job.applied_item_ids;
        if (job.status !== 'done') throw conflict('The job has not finished recognising', 'job_not_done');
        const items = (
          job.result as {
            items: {
              name: string;
              product_id: string | null;
              quantity: number;
              unit_code: string;
              storage_days: number;
            }[];
          }
        ).items;
        const indexes = [...new Set(request.body?.item_indexes ?? items.map((_, i) => i))];
        const bad = indexes.find((i) => i >= items.length);
        if (bad !== undefined) throw validationFailed('/body/item_indexes', `no item ${bad}`);
        // A model can misread a receipt ("800 can"): such items are not stored; the app may apply the others.
        const implausible = indexes.flatMap((i) => {
          const problem = implausibleQuantity(items[i]!.quantity, items[i]!.unit_code);
          return problem ? [{ path: `/result/items/${i}/quantity`, message: `${items[i]!.name}: ${problem}` }] : [];
        });
        if (implausible.length > 0)
          throw new HttpError(
            422,
            'implausible_quantity',
            'Some recognised quantities cannot be right: leave those items out with item_indexes',
            implausible,
          );
        const txPantry = pantryRepository(tx);
        const created = [];
        for (const i of indexes) {
          const item = items[i]!;
          created.push(
            await txPantry.insert(userId, {
              productId: item.product_id,
              name: item.product_id ? null : item.name,
              quantity: item.quantity,
              unitCode: item.unit_code,
              storageDays: item.storage_days,
              addedAt: time.now,
            }),
          );
        }
        await txJobs.markApplied(request.params.id, created);
        return created;
      });
      const items = [];
      for (const id of ids) {
        const item = await pantry.get(userId, id, request.language, time);
        if (item) items.push(item);
      }
      return { items };
    },
  );
};

export default recognition;
