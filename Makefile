# The README's commands, and a few more.
.PHONY: run test lint ci bench bench-go

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
