/**
 * glibc malloc settings every process of the service runs with (set in each Dockerfile and by `pnpm start`).
 *
 * libvips decodes photos on its own threads, and glibc gives each thread an arena of its own that is rarely given
 * back: one 10-photo upload left the API 140 MiB larger for good. Two arenas, and blocks of 128 KiB and more taken
 * from and returned to the system directly, keep that under 50 MiB (see the `uploads` rows of `pnpm bench`).
 */
export const ALLOCATOR_ENV = { MALLOC_ARENA_MAX: '2', MALLOC_MMAP_THRESHOLD_: '131072' } as const;
