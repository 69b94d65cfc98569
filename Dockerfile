# Multi-stage: compile TypeScript with the dev dependencies, then ship only the production
# dependencies, the compiled JavaScript and the OpenAPI description, as the non-root `node` user.
FROM node:20-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json ./
COPY api ./api
COPY worker ./worker
COPY shared ./shared
COPY scripts ./scripts
RUN npm run build

FROM node:20-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm install --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY openapi.yaml ./openapi.yaml
USER node
EXPOSE 3000 9464
# The API; the worker runs the same image with `node dist/worker/main.js`.
CMD ["node", "dist/api/server.js"]
