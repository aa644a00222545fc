/**
 * glibc malloc settings every process of the service runs with (set in each Dockerfile and by `pnpm start`).
 *
 * libvips decodes photos on its own threads, and glibc gives each thread an arena of its own that is rarely given
 * back: one 10-photo upload left the API 140 MiB larger for good. Two arenas keep that down. Blocks of 64 KiB and
 * more are taken from and returned to the system directly. From 128 KiB, glibc's main heap kept 94 MB after the
 * `uploads` rows of `pnpm bench` (most likely the bodies' 64 KiB chunks, freed by the garbage collector in another
 * order than they came); from 64 KiB the API ends them under its start.
 */
export const ALLOCATOR_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '65536' } as const;

/**
 * Node flags of the API process (its Dockerfile's CMD, its own start script, `pnpm start` and the bench).
 *
 * V8 sizes the young generation from the machine's memory: 64 MiB on one of 24 GiB. With 10,000 event streams open,
 * each scavenge of it paused the API 30-55 ms while it copied what the streams had left there, and every event due
 * in that pause waited (the `sse` rows of `pnpm bench`). With 16 MiB that p99 measured 9-18 ms in five of six
 * SSE-only runs (183 in one), against 25-41 with 64. 8 MiB cost the `app-mixed` mix requests: it was scavenged
 * four times as often, 5 ms a time.
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=16'] as const;
