# answerdesk: "make run" serves the demo on :8080, "make test" runs every test.
GO        ?= go
BIN       := bin/answerdesk
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

.PHONY: all help build run demo-reset test test-go test-zapier test-short lint bench bench-http fuzz clean

# make run PORT=8081 serves on another port; DB is the database file (kept across runs).
PORT      ?= 8080
DB        ?= ./data/answerdesk.db

all: build

help: ## list the targets
	@awk 'BEGIN {FS = ":.*## "} /^[a-z-]+:.*## / {printf "  %-18s %s\n", $$1, $$2}' $(MAKEFILE_LIST)

build: ## build bin/answerdesk
	$(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN) ./cmd/answerdesk

run: build ## serve the demo on :8080 (make run PORT=8081 for another port)
	$(BIN) serve --demo --addr :$(PORT) --db $(DB)

# Start the demo over: delete the database (and its key file), then serve fresh demo data.
demo-reset: build ## delete the database and serve fresh demo data
	rm -f $(DB) $(DB)-wal $(DB)-shm $(dir $(DB))signing.key
	$(BIN) serve --demo --addr :$(PORT) --db $(DB)

# Every test: the Go tests and the Zapier app's tests.
test: test-go test-zapier ## every test: Go (race detector) and the Zapier app

# The Go tests, with the race detector. Fuzz targets run their seed corpus here. Chromium is
# installed first when it can be (the browser tests skip without it).
test-go: chromium-optional ## the Go tests with the race detector
	$(GO) test -race -count=1 -timeout 9m ./...

# The Zapier app (integrations/zapier) against a real answerdesk on a loopback port. Needs
# node >= 20 and npm; without them it is skipped, loudly, so a Go-only machine still tests Go.
ZAPIER_DIR := integrations/zapier
test-zapier: ## the Zapier app's tests (needs node >= 20 and npm)
	@if ! command -v node >/dev/null 2>&1 || ! command -v npm >/dev/null 2>&1 || \
	    ! node -e 'process.exit(Number(process.versions.node.split(".")[0]) >= 20 ? 0 : 1)'; then \
		echo ""; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo "!!! SKIPPED: the Zapier app tests ($(ZAPIER_DIR)) need node >= 20 and npm, !!!"; \
		echo "!!! which this machine does not have. Nothing of the Zapier app was tested.  !!!"; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo ""; \
	else \
		$(MAKE) --no-print-directory build && \
		cd $(ZAPIER_DIR) && npm ci --prefer-offline --no-audit --no-fund && \
		ANSWERDESK_BIN=$(CURDIR)/$(BIN) npm test; \
	fi

test-short: ## the Go tests without the race detector
	$(GO) test -count=1 ./...

lint: ## go vet, gofmt and staticcheck
	$(GO) vet ./...
	@test -z "$$(gofmt -l $$(git ls-files '*.go'))" || (gofmt -l $$(git ls-files '*.go'); echo "gofmt: files above need formatting"; exit 1)
	$(GO) run honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION) ./...

# Debian's Chromium, for the browser tests (the keys page, the sign-in and consent pages):
# installed with apt when missing, through sudo when not root. "make test" tries it first
# and goes on without it: the browser test then skips (or fails when CI=true).
CHROMIUM := /usr/bin/chromium
.PHONY: chromium chromium-optional
chromium: ## install Debian's chromium for the browser tests
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
		echo "!!! WARNING: could not install chromium. The browser tests (keys, sign-in   !!!"; \
		echo "!!! and consent pages) will be SKIPPED (they fail when CI=true).             !!!"; \
		echo "!!! Install it with: make chromium, or apt-get install chromium.             !!!"; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo ""; \
	}


# Benchmarks: in-process (go test -bench) and HTTP load against a running server.
bench: build ## benchmarks and the HTTP load generator
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./...
	$(GO) run ./internal/cmd/loadgen -bin $(BIN)

# The endpoints of issue 18 with wrk (Debian's wrk package), each against an in-memory
# ceiling serving the same bytes (MCP tools/call against the same read over REST),
# alternating rounds in the same minutes; medians, shares and the server's RSS.
bench-http: build ## wrk against the binary and in-memory ceilings (needs wrk)
	@command -v wrk >/dev/null || { echo "bench-http needs wrk: apt-get install -y wrk"; exit 1; }
	$(GO) run ./internal/cmd/loadgen -bin $(BIN) -wrk "$$(command -v wrk)" -concurrency 32 -duration 5s -rounds 3 -dispatch 0

# Longer fuzzing of the query and date parsers (not part of make test).
fuzz: ## fuzz the parsers for 30 s each
	$(GO) test -run '^$$' -fuzz FuzzParseDate -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzMessageFilter -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzParseMessageCreate -fuzztime 30s .

clean: ## remove bin/ and the Zapier app's node_modules
	rm -rf bin $(ZAPIER_DIR)/node_modules
