import sharp from 'sharp';
import type { UploadedImage } from '@nutrition/db/repositories';
import { detectImageType } from '@nutrition/domain';
import { badRequest, HttpError } from './errors.ts';

/** The long edge vision models read at full detail; larger photos only cost memory, storage and tokens. */
export const MAX_EDGE_PX = 2048;
/** Larger declared sizes are refused before decoding (a 16k × 16k "photo" is a decompression bomb). */
const MAX_INPUT_PIXELS = 100_000_000;

// Decoded images are used once: libvips' operation cache would only keep their memory.
sharp.cache(false);

// One photo decoded at a time per process (libvips already spreads one over every core): a burst of maximum-size
// uploads then needs one decoder's memory instead of one each, which glibc would keep after the burst.
let decoding: Promise<unknown> = Promise.resolve();
function oneAtATime<T>(work: () => Promise<T>): Promise<T> {
  const turn = decoding.then(work, work);
  decoding = turn.catch(() => {});
  return turn;
}

/**
 * A photo as it is stored and sent to the model: accepted by its magic bytes, then decoded, turned upright (EXIF
 * orientation), shrunk to fit `MAX_EDGE_PX`, flattened onto white and re-encoded as JPEG. Re-encoding drops every
 * metadata block (GPS position, camera serial, thumbnails); the original bytes are not kept.
 */
export async function normalisePhoto(data: Buffer): Promise<UploadedImage> {
  const type = detectImageType(data);
  if (!type) throw new HttpError(415, 'unsupported_media_type', 'images must be JPEG, PNG, WebP or HEIC');
  if (type === 'image/heic')
    // The prebuilt libvips decodes AVIF but not HEVC (patent licensing): say what to send instead.
    throw new HttpError(
      415,
      'unsupported_media_type',
      'HEIC photos cannot be decoded here: send JPEG (on iPhone, Settings › Camera › Formats › Most Compatible)',
    );
  try {
    const jpeg = await oneAtATime(() =>
      sharp(data, { failOn: 'error', limitInputPixels: MAX_INPUT_PIXELS })
        .rotate()
        .resize(MAX_EDGE_PX, MAX_EDGE_PX, { fit: 'inside', withoutEnlargement: true })
        .flatten({ background: '#ffffff' })
        .jpeg({ quality: 85 })
        .toBuffer(),
    );
    return { contentType: 'image/jpeg', data: jpeg };
  } catch {
    throw badRequest('the image could not be decoded (damaged or truncated file)', 'invalid_image');
  }
}
