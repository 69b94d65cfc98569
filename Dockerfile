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
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
# The typed client before the service's build: scripts/admin.ts compiles against its source, whose
# schema.ts its install generates from openapi.yaml (and whose openapi-fetch it installs).
COPY openapi.yaml ./openapi.yaml
COPY client ./client
RUN npm install --prefix client --no-audit --no-fund
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY scripts ./scripts
RUN npm run build
# The promotions console (/console): built from console/ against the typed client's source.
COPY console ./console
RUN npm install --prefix console --no-audit --no-fund && npm run build --prefix console

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
# Served at /docs; read from /app/openapi.yaml by dist/api/ops/docs.router.js.
COPY openapi.yaml ./openapi.yaml
# Served at /console by dist/api/console/console.router.js.
COPY --from=build /app/console/dist ./console/dist
USER node
EXPOSE 3000 9464
CMD ["node", "dist/api/server.js"]
