# The connector's image (docs/deployment.md): docker build -t eudi-connector:local .
# Both stages are Debian bookworm with the same Node major, so the native modules compiled in the
# build stage (better-sqlite3, pkcs11js) match the runtime's glibc and Node ABI. No secret is
# given to the build or kept in the image: keys and API keys come at run time.
ARG NODE_VERSION=20

FROM node:${NODE_VERSION}-bookworm AS build
# The full image has python3, make and g++ for node-gyp. npm 11 as on the build machines and in
# CI: it runs only the install scripts package.json approves (allowScripts).
ARG NPM_VERSION=11
RUN npm install --global --no-audit --no-fund npm@${NPM_VERSION}
WORKDIR /build
COPY . .
# The one build script, the one test/release-build.test.ts runs in a clean clone: npm ci, the
# build, production dependencies only, no compiled tests.
RUN ops/build-release.sh

FROM node:${NODE_VERSION}-bookworm-slim AS runtime
# tini as PID 1 hands SIGTERM to node and reaps what exits; node itself as PID 1 would ignore a
# SIGTERM that came before its handler is installed (while it catches up with the store).
RUN apt-get update \
 && apt-get install --yes --no-install-recommends tini \
 && rm -rf /var/lib/apt/lists/*
# DATA_DIR: the embedded store and this instance's read models. The key-encryption key file, when
# DATA_KEY_ENCRYPTION_KEY is not given, is made under XDG_CONFIG_HOME: a volume of its own, apart
# from DATA_DIR, as docs/operations.md requires. Both listeners bind every interface of the
# container: publish the management port on an internal interface only.
ENV NODE_ENV=production \
    DATA_DIR=/var/lib/eudi-connector \
    XDG_CONFIG_HOME=/etc/eudi-connector \
    MANAGEMENT_HOST=0.0.0.0 \
    PUBLIC_HOST=0.0.0.0
# Under /srv/eudi-connector, what instances share is mounted (compose.yaml): blobs (BLOB_DIR) and
# identities (the certificate and key files). A volume mounted there first takes this owner and mode.
RUN mkdir -p /var/lib/eudi-connector /etc/eudi-connector /srv/eudi-connector/blobs /srv/eudi-connector/identities \
 && chown node:node /var/lib/eudi-connector /etc/eudi-connector /srv/eudi-connector/blobs /srv/eudi-connector/identities \
 && chmod 0700 /var/lib/eudi-connector /etc/eudi-connector /srv/eudi-connector/blobs /srv/eudi-connector/identities
WORKDIR /app
# Owned by root, so the service cannot change its own code.
COPY --from=build /build/package.json ./
COPY --from=build /build/node_modules ./node_modules
COPY --from=build /build/dist ./dist
VOLUME ["/var/lib/eudi-connector", "/etc/eudi-connector"]
# 8080 the wallet-facing listener (PUBLIC_PORT), 8081 the management API (MANAGEMENT_PORT).
EXPOSE 8080 8081
# The node image's unprivileged user, by number so that runAsNonRoot can check it.
USER 1000:1000
HEALTHCHECK --interval=10s --timeout=5s --start-period=60s --retries=3 CMD ["node", "dist/ops/healthcheck.js"]
# On SIGTERM the service stops taking connections, lets requests in flight finish within
# SHUTDOWN_TIMEOUT_MS (default 10 s; with WORKERS > 1 a worker is killed 5 s after that), then
# closes the store: give the container a stop timeout above that (docker run --stop-timeout,
# compose's stop_grace_period, Kubernetes' terminationGracePeriodSeconds).
STOPSIGNAL SIGTERM
ENTRYPOINT ["tini", "--"]
CMD ["node", "dist/src/main.js"]
