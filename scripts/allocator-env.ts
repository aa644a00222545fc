/**
 * glibc malloc settings every process of the service runs with (set in each Dockerfile and by `pnpm start`).
 *
 * libvips decodes photos on its own threads, and glibc gives each thread an arena of its own that is rarely given
 * back: one 10-photo upload left the API 140 MiB larger for good. Two arenas, and blocks of 128 KiB and more taken
 * from and returned to the system directly, keep that under 50 MiB (see the `uploads` rows of `pnpm bench`).
 */
export const ALLOCATOR_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as const;

/**
 * Node flags of the API process (its Dockerfile's CMD, `pnpm start` and the bench).
 *
 * V8 sizes the young generation from the machine's memory: 64 MiB on one of 24 GiB. With 10,000 event streams open,
 * each scavenge of it paused the API 30-55 ms while it copied what the streams had left there, and every event due
 * in that pause waited (the `sse` rows of `pnpm bench`). An 8 MiB one is scavenged more often in pauses of 4-15 ms,
 * with no loss of requests per second measured in the `api`, `search-load` and `app-mixed` rows.
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=8'] as const;
