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

# Debian's Chromium, for the browser test of the keys page (rest/keys_browser_test.go):
# installed with apt when missing, through sudo when not root. "make test" tries it first
# and goes on without it: the browser test then skips (or fails when CI=true).
CHROMIUM := /usr/bin/chromium
.PHONY: chromium chromium-optional
chromium:
	@test -x $(CHROMIUM) || { \
		sudo=; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo=sudo; fi; \
		echo "$(CHROMIUM) is missing: installing Debian's chromium with apt-get"; \
		$$sudo apt-get update && \
		$$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends chromium; \
	}
	@test -x $(CHROMIUM) || { echo "chromium: $(CHROMIUM) is still missing"; exit 1; }

chromium-optional:
	@$(MAKE) --no-print-directory chromium || { \
		echo ""; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo "!!! WARNING: could not install chromium. The browser test of the keys page  !!!"; \
		echo "!!! (rest/keys_browser_test.go) will be SKIPPED (it fails when CI=true).     !!!"; \
		echo "!!! Install it with: make chromium, or apt-get install chromium.             !!!"; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo ""; \
	}

test: chromium-optional

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
