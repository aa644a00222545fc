import v8 from 'node:v8';
import { runInNewContext } from 'node:vm';

// A photo upload leaves tens of megabytes of socket chunks and copies behind, held by a few small objects that V8's
// heap never grows enough to collect: five maximum-size uploads left 400 MiB of dead buffers in a 50 MiB heap. A
// collection once that garbage is large gives the memory back (a pause of a few milliseconds with a heap this small).
v8.setFlagsFromString('--expose-gc');
const collect = runInNewContext('gc') as () => void;

/** Dead upload buffers above which a collection runs. */
const GARBAGE_LIMIT = 64 * 1024 * 1024;

/** Collects when the process holds more buffer memory than the limit; called after each photo is stored. */
export function releaseUploadBuffers() {
  if (process.memoryUsage().arrayBuffers > GARBAGE_LIMIT) collect();
}
