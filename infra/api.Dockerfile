# syntax=docker/dockerfile:1
# The API image: the workspace is built in the first stage, then `pnpm deploy` copies just this app, its workspace
# packages (compiled to JavaScript) and its production dependencies into a small final stage run as a non-root user.
# Build from the repository root: docker build -f infra/api.Dockerfile -t nutrition/api .
ARG NODE_IMAGE=node:24-slim

FROM ${NODE_IMAGE} AS build
WORKDIR /src
RUN npm install -g pnpm@10.34.9
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml tsconfig.json ./
# Patched dependencies (pnpm-workspace.yaml patchedDependencies) are applied by the install.
COPY patches patches
COPY apps/api/package.json apps/api/
COPY apps/dish-worker/package.json apps/dish-worker/
COPY apps/product-worker/package.json apps/product-worker/
COPY packages/ai/package.json packages/ai/
COPY packages/catalog/package.json packages/catalog/
COPY packages/client/package.json packages/client/
COPY packages/db/package.json packages/db/
COPY packages/domain/package.json packages/domain/
COPY packages/worker/package.json packages/worker/
RUN pnpm install --frozen-lockfile
COPY apps/api apps/api
COPY packages packages
COPY drizzle drizzle
RUN pnpm --filter './packages/*' build \
 && pnpm --filter @nutrition/api deploy --legacy --prod /out \
 && cp -r drizzle /out/drizzle

FROM ${NODE_IMAGE}
# Workspace packages run from their compiled dist/ (the "production" export condition); the app's own TypeScript
# runs through Node's type stripping.
ENV NODE_ENV=production NODE_OPTIONS=--conditions=production MIGRATIONS_DIR=/app/drizzle
# glibc malloc: two arenas, large blocks returned at once (scripts/allocator-env.ts says why; a test keeps them equal).
ENV MALLOC_ARENA_MAX=2 MALLOC_MMAP_THRESHOLD_=65536
WORKDIR /app
COPY --from=build --chown=node:node /out ./
USER node
ENV PORT=3000
EXPOSE 3000
HEALTHCHECK --interval=15s --timeout=3s --start-period=15s --retries=3 \
  CMD node -e "fetch('http://127.0.0.1:' + (process.env.PORT || 3000) + '/health/live').then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"
# The same image runs the one-shot migration: docker run ... nutrition/api node src/migrate.ts
CMD ["node", "--max-semi-space-size=16", "src/main.ts"]
