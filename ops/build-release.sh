#!/bin/sh
# The release build, in one place: the Dockerfile's build stage runs it, and
# test/release-build.test.ts runs it in a clean clone of the repository, so what the image
# ships is what CI proves (docs/deployment.md).
#
# From the repository root's own directory, whatever the caller's: install exactly the locked
# dependencies (native modules, better-sqlite3 and pkcs11js, compiled here for this machine's
# libc), compile, then drop what only development needs: the development dependencies and the
# compiled tests and benchmarks, which import them. Left: package.json, node_modules and dist/
# (src, streams, projections, ops, demo, wallet), all of it runnable with production
# dependencies alone.
set -eu
cd "$(dirname "$0")/.."
npm ci --no-audit --no-fund
npm run build
npm prune --omit=dev --no-audit --no-fund
rm -rf dist/test dist/bench
