# One image for every service; SERVICES picks what a container runs.
# Build stage: install everything, compile TypeScript.
FROM node:24-bookworm-slim AS build
WORKDIR /app
COPY package.json package-lock.json ./
# Install scripts stay on: better-sqlite3 fetches or builds its native module.
RUN npm ci --no-audit --no-fund
COPY tsconfig.json tsconfig.build.json moleculer.config.ts server.ts ./
COPY lib ./lib
COPY broker ./broker
COPY cache ./cache
COPY gateway ./gateway
COPY middlewares ./middlewares
COPY domain ./domain
COPY mixins ./mixins
COPY store ./store
COPY net ./net
COPY services ./services
COPY bench ./bench
COPY locales ./locales
COPY docs/api-policy.md ./docs/api-policy.md
RUN npx tsc -p tsconfig.build.json

# Runtime stage: production dependencies and the compiled code only.
FROM node:24-bookworm-slim AS runtime
ENV NODE_ENV=production
WORKDIR /app
COPY package.json package-lock.json ./
RUN npm ci --omit=dev --no-audit --no-fund && npm cache clean --force
COPY --from=build /app/dist ./dist
COPY locales ./locales
COPY docs/api-policy.md ./docs/api-policy.md
USER node
EXPOSE 3000 3030
HEALTHCHECK --interval=10s --timeout=3s --retries=3 CMD node -e "const p=process.env.SERVICES||'all';if(!/api|all/.test(p))process.exit(0);fetch('http://127.0.0.1:'+(process.env.PORT||3000)+'/health/live').then(r=>process.exit(r.ok?0:1),()=>process.exit(1))"
# the heap limit as `npm start` sets it (HEAP_MB, README "Configuration"); exec: node receives the signals
CMD ["sh", "-c", "exec node --max-old-space-size=${HEAP_MB:-512} dist/server.js"]
