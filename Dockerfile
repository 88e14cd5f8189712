# The receiver for docker-compose (or any container platform). It expects DATABASE_URL: the
# embedded Postgres is for laptops, and its binaries are left out here (--omit=optional).
FROM node:20-bookworm-slim
WORKDIR /app
ENV NODE_ENV=production
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --omit=optional --ignore-scripts && npm cache clean --force
COPY tsconfig.json ./
COPY src ./src
COPY migrations ./migrations
USER node
EXPOSE 3000
CMD ["node", "--import", "tsx", "src/main.ts"]
