# answerdesk: "make run" serves the demo on :8080, "make test" runs every test.
GO        ?= go
BIN       := bin/answerdesk
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

.PHONY: all build run test test-short lint bench fuzz clean

all: build

build:
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/answerdesk

run: build
	$(BIN) serve --demo

# Every test, with the race detector. Fuzz targets run their seed corpus here.
test:
	$(GO) test -race -count=1 -timeout 9m ./...

test-short:
	$(GO) test -count=1 ./...

lint:
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Benchmarks: in-process (go test -bench) and HTTP load against a running server.
bench: build
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./...
	$(GO) run ./internal/cmd/loadgen -bin $(BIN)

# Longer fuzzing of the query and date parsers (not part of make test).
fuzz:
	$(GO) test -run '^$$' -fuzz FuzzParseDate -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzMessageFilter -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzParseMessageCreate -fuzztime 30s .

clean:
	rm -rf bin
