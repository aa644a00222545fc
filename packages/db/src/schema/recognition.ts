import { sql } from 'drizzle-orm';
import { bigint, check, date, index, integer, jsonb, pgSequence, pgTable, text, uuid } from 'drizzle-orm/pg-core';
import {
  bytea,
  createdAt,
  id,
  JOB_STATUSES,
  MEAL_TYPES,
  oneOf,
  PLANS,
  PRODUCT_JOB_TYPES,
  timestamptz,
} from './columns.ts';
import { users } from './users.ts';

export interface JobError {
  code: string;
  message: string;
}

export interface ImageRef {
  id: string;
  content_type: string;
  byte_size: number;
}

const jobColumns = () => ({
  id: id(),
  userId: uuid()
    .notNull()
    .references(() => users.id, { onDelete: 'cascade' }),
  status: text().notNull().default('queued'),
  /** The user's plan when the job was submitted: paid jobs are taken first. */
  plan: text().notNull().default('free'),
  images: jsonb().$type<ImageRef[]>().notNull().default([]),
  result: jsonb(),
  error: jsonb().$type<JobError>(),
  /**
   * The job's ticket in its plan's line (a sequence per queue and plan, drawn at submission): the jobs ahead of a new
   * one are counted from ticket numbers, which concurrent submissions never share, rather than from rows, which
   * uncommitted submissions do not see yet.
   */
  queueSeq: bigint({ mode: 'number' }),
  attempts: integer().notNull().default(0),
  startedAt: timestamptz(),
  finishedAt: timestamptz(),
  createdAt: createdAt(),
  updatedAt: timestamptz().notNull().defaultNow(),
});

// Ticket sequences of the recognition queues, one per queue and plan (see `queueSeq`).
export const dishJobsFreeTickets = pgSequence('dish_jobs_free_tickets');
export const dishJobsPaidTickets = pgSequence('dish_jobs_paid_tickets');
export const productJobsFreeTickets = pgSequence('product_jobs_free_tickets');
export const productJobsPaidTickets = pgSequence('product_jobs_paid_tickets');

export const dishRecognitionJobs = pgTable(
  'dish_recognition_jobs',
  {
    ...jobColumns(),
    targetDate: date({ mode: 'string' }),
    targetMealType: text(),
  },
  (t) => [
    index('dish_jobs_user_created_idx').on(t.userId, t.createdAt),
    // The last ticket taken per plan, and the jobs being processed (the workers' slots in use).
    index('dish_jobs_taken_idx').on(t.plan, t.queueSeq).where(sql`status <> 'queued'`),
    index('dish_jobs_processing_idx').on(t.plan).where(sql`status = 'processing'`),
    index('dish_jobs_finished_idx').on(t.finishedAt.desc()).where(sql`status = 'done'`),
    check('dish_jobs_status_check', oneOf('status', JOB_STATUSES)),
    check('dish_jobs_plan_check', oneOf('plan', PLANS)),
    check('dish_jobs_meal_type_check', oneOf('target_meal_type', MEAL_TYPES)),
  ],
);

export const productRecognitionJobs = pgTable(
  'product_recognition_jobs',
  {
    ...jobColumns(),
    jobType: text().notNull(),
    /** Set once, by the first `apply`: the pantry items it created, which every later call answers with. */
    appliedAt: timestamptz(),
    appliedItemIds: uuid().array(),
  },
  (t) => [
    index('product_jobs_user_created_idx').on(t.userId, t.createdAt),
    // The last ticket taken per plan, and the jobs being processed (the workers' slots in use).
    index('product_jobs_taken_idx').on(t.plan, t.queueSeq).where(sql`status <> 'queued'`),
    index('product_jobs_processing_idx').on(t.plan).where(sql`status = 'processing'`),
    index('product_jobs_finished_idx').on(t.finishedAt.desc()).where(sql`status = 'done'`),
    check('product_jobs_status_check', oneOf('status', JOB_STATUSES)),
    check('product_jobs_plan_check', oneOf('plan', PLANS)),
    check('product_jobs_type_check', oneOf('job_type', PRODUCT_JOB_TYPES)),
  ],
);

/** Uploaded photos, kept in PostgreSQL with their job and purged after the retention period. */
export const jobImages = pgTable(
  'job_images',
  {
    id: id(),
    dishJobId: uuid().references(() => dishRecognitionJobs.id, { onDelete: 'cascade' }),
    productJobId: uuid().references(() => productRecognitionJobs.id, { onDelete: 'cascade' }),
    position: integer().notNull().default(0),
    contentType: text().notNull(),
    byteSize: integer().notNull(),
    data: bytea().notNull(),
    createdAt: createdAt(),
  },
  (t) => [
    index('job_images_dish_job_idx').on(t.dishJobId),
    index('job_images_product_job_idx').on(t.productJobId),
    index('job_images_created_idx').on(t.createdAt),
    check('job_images_one_job_check', sql`(${t.dishJobId} IS NULL) <> (${t.productJobId} IS NULL)`),
  ],
);
