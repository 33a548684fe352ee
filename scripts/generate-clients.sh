#!/usr/bin/env bash
# Regenerates the two generated clients from openapi.yaml (see docs/openapi.md):
#   clients/go/adcampapi/adcampapi.gen.go  oapi-codegen, default settings (types + client)
#   clients/typescript/src/openapi.ts      openapi-typescript, money typed as exact strings
# Needs Go and the npm packages of the repository (npm ci at its root).
set -euo pipefail
cd "$(dirname "$0")/.."
(cd clients/go && go generate ./...)
node clients/typescript/scripts/generate.mjs
