import createClient from 'openapi-fetch';
import type { components, paths } from './api.generated.ts';
import { jobEvents, type StreamOptions } from './job-stream.ts';
import { joinUrl, Session, type SessionOptions } from './session.ts';
import { type Photo, type UploadOptions, uploadPhotos } from './uploads.ts';
import { pullChanges } from './sync.ts';

export type { components, operations, paths } from './api.generated.ts';
export { ApiError } from './errors.ts';
export type { JobEvent, StreamOptions } from './job-stream.ts';
export { Session, type SessionOptions, type TokenPair } from './session.ts';
export type { JobAccepted, Photo, UploadOptions } from './uploads.ts';
export type { SyncPage, SyncResult } from './sync.ts';

export type Schemas = components['schemas'];
export type MealType = NonNullable<Schemas['DiaryEntry']['meal_type']>;

export interface ClientOptions extends SessionOptions {
  /** Sent as Accept-Language on every request (a BCP 47 tag such as `uk` or `pt-BR`). */
  language?: string;
}

/**
 * The typed client: `api` is openapi-fetch over the generated types (every operation, typed paths, bodies and
 * answers); the rest is what a generator does not cover: the session with its refresh, photo uploads and job streams.
 */
export function createNutritionClient(options: ClientOptions) {
  const session = new Session(options);
  const send = (request: Request) => {
    if (options.language && !request.headers.has('accept-language'))
      request.headers.set('accept-language', options.language);
    return session.fetch(request);
  };
  const url = (path: string) => joinUrl(options.baseUrl, path);
  const job = (path: string, id: string) => url(`${path}/${encodeURIComponent(id)}/stream`);
  const api = createClient<paths>({ baseUrl: options.baseUrl.replace(/\/$/, ''), fetch: send });
  return {
    api,
    session,
    /** Pulls the change feed from `cursor` until it is up to date; keep the returned cursor for the next pull. */
    sync: (cursor?: string, limit?: number) => pullChanges(api, cursor, limit),
    recognizeDish: (
      photo: Photo,
      fields: { target_date?: string; target_meal_type?: MealType } = {},
      upload?: UploadOptions,
    ) => uploadPhotos(send, url('/ai/recognize-dish'), 'image', [photo], fields, upload),
    recognizeReceipt: (photos: Photo[], upload?: UploadOptions) =>
      uploadPhotos(send, url('/ai/recognize-receipt'), 'images', photos, {}, upload),
    recognizeProducts: (photos: Photo[], upload?: UploadOptions) =>
      uploadPhotos(send, url('/ai/recognize-products'), 'images', photos, {}, upload),
    dishJobEvents: (id: string, stream?: StreamOptions) =>
      jobEvents<Schemas['DishJob']>(send, job('/ai/jobs', id), stream),
    productJobEvents: (id: string, stream?: StreamOptions) =>
      jobEvents<Schemas['ProductJob']>(send, job('/ai/product-jobs', id), stream),
  };
}

export type NutritionClient = ReturnType<typeof createNutritionClient>;
