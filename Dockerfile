# The receiver's production image: compiled JavaScript and production dependencies only, run as
# a non-root user. How to run it (Compose, Kubernetes, TLS, secrets): docs/deploy.md.
#
#   docker build -t monoova-webhook-receiver:0.1.0 .
#   docker run --rm -e DATABASE_URL=… -e WEBHOOK_SECRETS=… -p 3000:3000 monoova-webhook-receiver:0.1.0
#   docker run --rm -e DATABASE_URL=… monoova-webhook-receiver:0.1.0 node dist/src/cli/main.js migrate
#
# It needs DATABASE_URL (or DATABASE_URL_FILE): the embedded Postgres is a development
# dependency, for laptops, and is not in the image. Neither is tsx: nothing here runs TypeScript.
# The build context is limited by .dockerignore (no .data/, .env, keys, captures or .git).

ARG NODE_IMAGE=node:20-bookworm-slim

# 1. Compile: every dependency the build needs (TypeScript and types are development ones).
#    --omit=optional leaves out the platform binaries (embedded Postgres, esbuild) tsc never uses.
FROM ${NODE_IMAGE} AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=optional --ignore-scripts --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build

# 2. Production dependencies alone: no tsx, no embedded Postgres, no test or build tools.
FROM ${NODE_IMAGE} AS production-dependencies
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --ignore-scripts --no-audit --no-fund && npm cache clean --force

# 3. What runs: package.json (the service finds its folder by it), production node_modules and
#    dist/ (the service and its compiled migrations). Files stay owned by root: the service
#    cannot change its own code.
FROM ${NODE_IMAGE}
WORKDIR /app
ENV NODE_ENV=production
# Fewer malloc arenas: glibc otherwise keeps freed memory per thread (lower peak RSS).
ENV MALLOC_ARENA_MAX=2
COPY package.json ./
COPY --from=production-dependencies /app/node_modules ./node_modules
COPY --from=build /app/dist ./dist
# The one folder the service may write to: CAPTURE_DIR=.data/captured (a volume in Compose).
RUN mkdir -p /app/.data/captured && chown -R 1000:1000 /app/.data
# The base image's `node` user, by number so that Kubernetes' runAsNonRoot can check it.
USER 1000:1000
# 3000: deliveries, /healthz, /readyz. 9464: /metrics (METRICS_HOST=0.0.0.0 to reach it from
# outside the container; keep it on a private network). 3002: GET /feed, with FEED_TOKEN and
# FEED_HOST=0.0.0.0.
EXPOSE 3000 9464 3002
# Same as `npm run start:prod`, without npm in between (signals go straight to the service):
# compiled JavaScript, a small young generation and an old generation capped at 1 GB, which
# also makes V8 grow it in smaller steps (lower peak memory). Every command goes through
# the one entry, dist/src/cli/main.js <command> (`node dist/src/cli/main.js --help` lists them):
# migrate, feed, quarantine, provider, recover, prune. Exit 2: bad usage or configuration;
# 1: a failure at run time.
CMD ["node", "--max-semi-space-size=2", "--max-old-space-size=1024", "dist/src/cli/main.js", "serve"]
