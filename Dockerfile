# syntax=docker/dockerfile:1
# One image for every process of the distributed mode: the API (default command) and the workers
# (`node --max-semi-space-size=32 --conditions=compiled workers/dist/main.js`). Built in one stage, run from compiled
# JavaScript in a slim one. Every process starts with a young generation of 32 MB a half (V8's default is 16): a burst
# of work allocates short-lived rows and messages faster than the default collects cheaply (see the README).

FROM node:20-bookworm-slim AS build
ENV CI=true
RUN npm install -g pnpm@12.21.0
WORKDIR /src
COPY package.json pnpm-lock.yaml pnpm-workspace.yaml ./
COPY sql/package.json sql/
COPY agent-protocol/package.json agent-protocol/
COPY workers/package.json workers/
COPY api/package.json api/
COPY api/contracts/package.json api/contracts/
COPY web/package.json web/
COPY bench/package.json bench/
# Every dependency, dev ones included: the build needs TypeScript and Vite.
RUN pnpm install --frozen-lockfile
COPY . .
RUN pnpm build

FROM node:20-bookworm-slim AS runtime
ENV CI=true
RUN npm install -g pnpm@12.21.0
WORKDIR /app
COPY --from=build /src/package.json /src/pnpm-lock.yaml /src/pnpm-workspace.yaml ./
COPY --from=build /src/sql/package.json sql/
COPY --from=build /src/agent-protocol/package.json agent-protocol/
COPY --from=build /src/workers/package.json workers/
COPY --from=build /src/api/package.json api/
COPY --from=build /src/api/contracts/package.json api/contracts/
COPY --from=build /src/web/package.json web/
COPY --from=build /src/bench/package.json bench/
# Only what the API and the workers need at run time.
RUN pnpm install --frozen-lockfile --prod --filter "@farm/api..." --filter "@farm/workers..." && pnpm store prune
COPY --from=build /src/sql/dist sql/dist
COPY --from=build /src/sql/migrations sql/migrations
COPY --from=build /src/agent-protocol/dist agent-protocol/dist
COPY --from=build /src/agent-protocol/recipes agent-protocol/recipes
COPY --from=build /src/workers/dist workers/dist
COPY --from=build /src/api/contracts/dist api/contracts/dist
COPY --from=build /src/api/dist api/dist
COPY --from=build /src/web/dist web/dist
RUN mkdir -p /data && chown node:node /data
ENV NODE_ENV=production DATA_DIR=/data PORT=3000 HOST=0.0.0.0
USER node
EXPOSE 3000
HEALTHCHECK --interval=10s --timeout=3s --start-period=20s CMD node -e "fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/healthz').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
CMD ["node", "--max-semi-space-size=32", "--conditions=compiled", "api/dist/server.js"]
