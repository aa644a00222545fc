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
 * Node flags of the API process (its Dockerfile's CMD, `pnpm start` and the bench).
 *
 * V8 sizes the young generation from the machine's memory: 64 MiB on one of 24 GiB. With 10,000 event streams open,
 * each scavenge of it paused the API 30-55 ms while it copied what the streams had left there, and every event due
 * in that pause waited (the `sse` rows of `pnpm bench`). A 16 MiB one is scavenged more often in shorter pauses.
 * 8 MiB shortened them further but cost the `app-mixed` mix requests (promotions, and scavenges of about 5 ms each).
 */
export const API_NODE_FLAGS = ['--max-semi-space-size=16'] as const;
