# Multi-stage: compile TypeScript with the dev dependencies, then ship only the production
# dependencies, the compiled JavaScript and the OpenAPI description, as the non-root `node` user.
# API:    docker run … coupon-wallet-service            (CMD below, port 3000)
# Worker: docker run … coupon-wallet-service node dist/worker/main.js   (metrics port 9464)
#
# `npm install` from the lock file rather than `npm ci`: package-lock.json lacks msgpackr-extract's
# other-platform optional binaries (the registry mirror it was locked against does not carry them),
# so `npm ci` rejects it as out of sync. `npm install` keeps every locked version. Switch back to
# `npm ci` once the lock file is regenerated against the public registry (docs/operations.md).
FROM node:20-slim AS build
WORKDIR /app
# The root package with its two workspaces, the typed client and the console (package.json
# "workspaces"): one install from the one lock file. Only their manifests first, so that this layer
# is rebuilt when the dependencies change, not when a source does. --ignore-scripts: the client's
# `prepare` (its build) needs its sources, copied below; no dependency's install script is needed
# to compile and bundle.
COPY package.json package-lock.json ./
COPY client/package.json ./client/
COPY console/package.json ./console/
RUN npm install --no-audit --no-fund --ignore-scripts
COPY tsconfig.json tsconfig.build.json ./
# The typed client's types before the service's build: scripts/admin.ts compiles against its
# source, whose src/schema.ts is generated from openapi.yaml.
COPY openapi.yaml ./openapi.yaml
COPY client ./client
RUN npm run generate --workspace client
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY scripts ./scripts
RUN npm run build
# The promotions console (/console): built from console/ against the typed client's source.
COPY console ./console
RUN npm run build --workspace console

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
# --no-workspaces: the root package's production dependencies only (the client and the console
# are not in this stage: the console's dependencies are bundled into console/dist, and the client's
# one, openapi-fetch, is the service's too, for the client source compiled into dist/client/).
RUN npm install --omit=dev --no-workspaces --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Served at /docs; read from /app/openapi.yaml by dist/api/ops/docs.router.js.
COPY openapi.yaml ./openapi.yaml
# Served at /console by dist/api/console/console.router.js.
COPY --from=build /app/console/dist ./console/dist
USER node
EXPOSE 3000 9464
CMD ["node", "dist/api/server.js"]
