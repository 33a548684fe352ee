# The README's commands, and a few more.
.PHONY: run test lint ci bench bench-go generate lint-openapi

run:
	go run ./cmd/adcamp serve

test:
	go test ./... && go test -C client ./...

# gofmt, vet and staticcheck (pinned in go.mod as a tool) over both modules.
lint:
	test -z "$$(gofmt -l $$(git ls-files '*.go'))"
	go vet ./... && go vet -C client ./...
	go tool staticcheck ./... github.com/adcamp/adcamp/client/...

ci:
	bash .ci/run

# Side by side with the SQLite ceiling of ../shared/bench; see bench/README.md.
bench:
	bash bench/sitting.sh

# Go benchmarks of the hot paths (PostgreSQL too when ADCAMP_TEST_POSTGRES_URL is set).
bench-go:
	go test -run '^$$' -bench . -benchmem ./...
	go test -C client -run '^$$' -bench . -benchmem ./...

# Regenerate the clients generated from openapi.yaml (docs/openapi.md); needs npm ci.
generate:
	bash scripts/generate-clients.sh

# Lint openapi.yaml with Redocly and Spectral, as CI does; needs npm ci.
lint-openapi:
	npx redocly lint openapi.yaml
	npx spectral lint --fail-severity=warn openapi.yaml
