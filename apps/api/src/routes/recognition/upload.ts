import { buffer } from 'node:stream/consumers';
import type { FastifyRequest } from 'fastify';
import type { UploadedImage } from '@nutrition/db/repositories';
import { badRequest, HttpError } from '../../errors.ts';
import { normalisePhoto } from '../../images.ts';
import { releaseUploadBuffers } from '../../upload-memory.ts';
import { MAX_IMAGE_BYTES, MAX_IMAGES } from './schemas.ts';

const tooLarge = () =>
  new HttpError(413, 'payload_too_large', `each image may be at most ${MAX_IMAGE_BYTES / 1024 / 1024} MiB`);

/**
 * What the multipart parser throws for a body it cannot read (no boundary, cut short before its end) is the
 * client's error; its own limits' errors carry their status (413).
 */
function unreadable(err: Error): never {
  if ((err as { statusCode?: number }).statusCode) throw err;
  throw badRequest(`the multipart body cannot be read: ${err.message}`, 'validation_failed');
}

/** An image within the size limit, normalised (see `normalisePhoto`). */
async function accept(data: Buffer): Promise<UploadedImage> {
  if (data.length > MAX_IMAGE_BYTES) throw tooLarge();
  const image = await normalisePhoto(data);
  releaseUploadBuffers();
  return image;
}

/**
 * The images and text fields of a submission, from multipart/form-data (file fields `image` / `images`) or from
 * the JSON form (`image` / `images` with base64 data), with the count between `min` and `max`. The photos come back
 * normalised: upright, at most 2048 px on the long edge, JPEG, without metadata.
 */
export async function readSubmission(
  request: FastifyRequest,
  count: { min: number; max: number },
): Promise<{ images: UploadedImage[]; fields: Record<string, unknown> }> {
  const images: UploadedImage[] = [];
  let fields: Record<string, unknown> = {};
  if (request.isMultipart()) {
    const limits = { fileSize: MAX_IMAGE_BYTES, files: MAX_IMAGES + 1, fields: 20, fieldSize: 1024 };
    const parts = request.parts({ limits })[Symbol.asyncIterator]();
    for (;;) {
      const next = await parts.next().catch(unreadable);
      if (next.done) break;
      const part = next.value;
      if (part.type === 'file') {
        if (part.fieldname !== 'image' && part.fieldname !== 'images')
          throw badRequest(`unexpected file field ${part.fieldname}`, 'validation_failed');
        // One original at a time: each is decoded and shrunk before the next file is read.
        // Not `part.toBuffer()`: @fastify/multipart caches its result on the part, and the part on the request's
        // fields, so every original of a submission (ten of 8 MiB) would stay in memory until the request ends.
        const data = await buffer(part.file).catch(unreadable);
        if (part.file.truncated) throw tooLarge();
        if (images.length >= count.max) throw badRequest(`at most ${count.max} image(s)`, 'too_many_images');
        images.push(await accept(data));
      } else {
        fields[part.fieldname] = part.value;
      }
    }
  } else {
    const body = (request.body ?? {}) as { image?: { data_base64: string }; images?: { data_base64: string }[] };
    fields = { ...body };
    delete fields.image;
    delete fields.images;
    for (const img of body.images ?? (body.image ? [body.image] : [])) {
      if (!/^[A-Za-z0-9+/\r\n]*={0,2}\s*$/.test(img.data_base64))
        throw badRequest('data_base64 is not base64', 'validation_failed');
      images.push(await accept(Buffer.from(img.data_base64, 'base64')));
    }
  }
  if (images.length < count.min)
    throw badRequest(
      `send ${count.min === count.max ? 'one image' : `${count.min}-${count.max} images`}`,
      'missing_image',
    );
  if (images.length > count.max) throw badRequest(`at most ${count.max} image(s)`, 'too_many_images');
  return { images, fields };
}
