# A shared mock server for a team: one container serving one SQLite file kept in a volume.
#   docker build -t mockapi .
#   docker run -p 3000:3000 -v mockapi-data:/data mockapi
FROM node:20-bookworm-slim
# better-sqlite3 compiles from source where no prebuilt binary can be fetched.
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY bin bin
COPY src src
COPY schema schema
COPY templates templates
COPY scripts scripts
COPY tsconfig.json tsconfig.build.json ./
# npm ci runs the build (prepare); dev dependencies go once it is done.
RUN npm ci && npm prune --omit=dev && npm cache clean --force
ENV MOCKAPI_DB=/data/mockapi.db
VOLUME /data
EXPOSE 3000 50051
CMD ["node", "bin/mockapi.js", "serve", "--host", "0.0.0.0", "--port", "3000"]
