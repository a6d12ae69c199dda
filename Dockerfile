# Junction's container image: the server and the console, built once, run as an unprivileged
# user. One image serves every host of a deployment; see docs/deployment.md.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY . .
# `npm ci` builds the console (web/dist) and the server (build/); the dev tools go afterwards.
RUN npm ci --no-audit --no-fund && npm prune --omit=dev --no-audit --no-fund

FROM node:24-bookworm-slim
# The MALLOC_* pair as `npm start` sets it: freed memory goes back to the system.
ENV NODE_ENV=production \
    HOST=0.0.0.0 \
    PORT=8080 \
    JUNCTION_DATA_DIR=/data \
    MALLOC_MMAP_THRESHOLD_=131072 \
    MALLOC_TRIM_THRESHOLD_=4194304
WORKDIR /app
COPY --from=build --chown=node:node /app /app
# The embedded store's folder, and on PostgreSQL the settlement journal kept through outages.
RUN mkdir /data && chown node:node /data
VOLUME /data
USER node
EXPOSE 8080
HEALTHCHECK --interval=10s --timeout=3s --start-period=30s \
  CMD ["node", "-e", "fetch(`http://127.0.0.1:${process.env.PORT}/healthz`).then((r) => process.exit(r.ok ? 0 : 1), () => process.exit(1))"]
# Node itself is PID 1 (not npm), so SIGTERM reaches the server and starts its drain.
CMD ["node", "scripts/start.mjs"]
