# The receiver for docker-compose (or any container platform). It expects DATABASE_URL: the
# embedded Postgres is for laptops, and its binaries are left out here (--omit=optional).

FROM node:20-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=optional --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
COPY src ./src
COPY migrations ./migrations
RUN npm run build

FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
# Fewer malloc arenas: glibc otherwise keeps freed memory per thread (lower peak RSS).
ENV MALLOC_ARENA_MAX=2
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts && npm cache clean --force
COPY --from=build /app/dist ./dist
USER node
EXPOSE 3000
# /metrics is on its own listener, METRICS_PORT (9464) on METRICS_HOST (127.0.0.1 by default):
# set METRICS_HOST=0.0.0.0 to scrape it from outside the container, on a private network.
# Same as `npm run start:prod`: compiled JavaScript, a small young generation (lower peak memory).
CMD ["node", "--max-semi-space-size=2", "dist/src/main.js"]
