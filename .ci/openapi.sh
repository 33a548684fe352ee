#!/usr/bin/env bash
# CI for openapi.yaml and the clients generated from it (docs/openapi.md): the
# linters, the generators' defaults, regeneration matching what is committed,
# ajv over the exchanges the Go tests record, and both generated clients
# against a live adcamp serve. Called by .ci/run after the Go tests.
set -euo pipefail
cd "$(dirname "$0")/.."
export REDOCLY_TELEMETRY=off REDOCLY_SUPPRESS_UPDATE_NOTICE=true SCARF_ANALYTICS=false
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

echo "== npm ci (the tools of package.json, and clients/typescript)"
npm ci --no-audit --no-fund

echo "== Redocly lint (redocly.yaml: recommended-strict, every warning an error)"
npx redocly lint openapi.yaml

echo "== Spectral lint (.spectral.yaml: spectral:oas, failing on warnings)"
npx spectral lint --fail-severity=warn openapi.yaml

echo "== openapi-typescript with its defaults, then tsc --strict"
npx openapi-typescript openapi.yaml -o "$tmp/openapi.d.ts"
npx tsc --strict --noEmit "$tmp/openapi.d.ts"

echo "== regenerating the clients gives the committed code"
bash scripts/generate-clients.sh
if ! git diff --exit-code -- clients/ || [ -n "$(git status --porcelain -- clients/)" ]; then
  echo "clients/ differs from what openapi.yaml generates: run scripts/generate-clients.sh and commit the result"
  exit 1
fi

echo "== ajv (strict) over the exchanges of internal/httpapi's tests"
ADCAMP_OPENAPI_EXCHANGES="$tmp/exchanges.jsonl" go test -count=1 -timeout 30m ./internal/httpapi/
node scripts/openapi-ajv.mjs openapi.yaml "$tmp/exchanges.jsonl"
node --test scripts/openapi-ajv.test.mjs

echo "== build adcamp for the live clients"
go build -o "$tmp/adcamp" ./cmd/adcamp
export ADCAMP_BIN="$tmp/adcamp"

echo "== Go: the oapi-codegen client against adcamp serve"
(cd clients/go && go vet ./... && go test -count=1 ./...)

echo "== TypeScript: tsc --strict, then node --test (signing vectors, money, the API live)"
npm run build -w @adcamp/client
npm test -w @adcamp/client
