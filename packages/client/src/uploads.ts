import type { components } from './api.generated.ts';
import { ApiError } from './errors.ts';

export type JobAccepted = components['schemas']['JobAccepted'];

/** A photo as the app has it: a Blob/File, or bytes with their media type. */
export type Photo = Blob | { data: Uint8Array; type: string; name?: string };

export interface UploadOptions {
  /** Reused for every resend of this upload; a random one by default. Pass your own to survive an app restart. */
  idempotencyKey?: string;
  /** Sends in all, counting resends after a lost connection or a 503 (default 3). */
  attempts?: number;
  signal?: AbortSignal;
}

/**
 * Sends photos as multipart/form-data (file fields, no base64). A lost answer or a 503 is resent with the same
 * Idempotency-Key, so the job is created once however often the network fails.
 */
export async function uploadPhotos(
  fetchFn: (request: Request) => Promise<Response>,
  url: URL,
  field: 'image' | 'images',
  photos: Photo[],
  fields: Record<string, string | undefined>,
  options: UploadOptions = {},
): Promise<JobAccepted> {
  const form = new FormData();
  for (const [name, value] of Object.entries(fields)) if (value !== undefined) form.append(name, value);
  for (const [i, photo] of photos.entries()) form.append(field, toBlob(photo), fileName(photo, i));
  const key = options.idempotencyKey ?? crypto.randomUUID();
  const attempts = options.attempts ?? 3;
  for (let attempt = 1; ; attempt++) {
    let response: Response;
    try {
      const headers = { 'idempotency-key': key };
      response = await fetchFn(new Request(url, { method: 'POST', body: form, headers, signal: options.signal }));
    } catch (error) {
      if (options.signal?.aborted || attempt >= attempts) throw error;
      await delay(500 * 2 ** attempt);
      continue;
    }
    if (response.ok) return (await response.json()) as JobAccepted;
    const error = await ApiError.from(response);
    if (response.status !== 503 || attempt >= attempts) throw error;
    await delay((error.retryAfter ?? 1) * 1000);
  }
}

function toBlob(photo: Photo): Blob {
  return photo instanceof Blob ? photo : new Blob([photo.data as Uint8Array<ArrayBuffer>], { type: photo.type });
}

function fileName(photo: Photo, index: number): string {
  if (typeof File !== 'undefined' && photo instanceof File) return photo.name;
  if (!(photo instanceof Blob) && photo.name) return photo.name;
  return `photo-${index + 1}`;
}

const delay = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
