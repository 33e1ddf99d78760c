# answerdesk: "make run" serves the demo on :8080, "make test" runs every test.
GO        ?= go
BIN       := bin/answerdesk
VERSION   ?= $(shell git describe --tags --always --dirty 2>/dev/null || echo dev)
LDFLAGS   := -s -w -X main.version=$(VERSION)
STATICCHECK_VERSION := v0.8.2

empty :=
space := $(empty) $(empty)

.PHONY: all help build run demo-reset test test-go test-zapier test-short eval lint bench bench-http bench-pg fuzz clean postgres postgres-optional postgres-stop

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
# installed first when it can be (the browser tests skip without it), and so is PostgreSQL:
# the store's tests run on SQLite and PostgreSQL in one pass, and the suites built on
# internal/testapp run a second time on PostgreSQL (PG_SUITES).
PG_SUITES ?= ./rest/ ./mcp/ ./dispatch/ ./oauth/
# Four packages run without the race detector: the bad-input corpus (internal/badinput,
# about 5,000 requests; under -race it took 4 minutes on a quiet machine and passed its
# 9-minute timeout on a busy one), the answerer's evaluation (search: 84 s under -race, 11 s
# without), the demo generator (demo: 156 s against 32 s) and the documentation examples
# (internal/examples, a demo server seeded and started per page: 102 s against 5 s on 2
# cores). Their work is single-threaded or, like the index build and the handlers the
# corpus and the examples drive, raced by the rest, mcp and store packages' tests. The
# corpus runs on both engines.
NORACE    := internal/badinput search demo internal/examples
CORPUS    := ./internal/badinput/
PG_URL     = $$(cat $(PG_URL_FILE) 2>/dev/null || echo '$(PG_DEFAULT)')
test-go: chromium-optional axe-optional deploy-tools-optional postgres-optional ## the Go tests, with the race detector but for four packages (on SQLite and PostgreSQL)
	ANSWERDESK_TEST_POSTGRES="$(PG_URL)" \
		$(GO) test -race -count=1 -timeout 9m $$($(GO) list ./... | grep -v -E '/($(subst $(space),|,$(NORACE)))$$')
	ANSWERDESK_TEST_POSTGRES="$(PG_URL)" $(GO) test -count=1 -timeout 5m $(addprefix ./,$(addsuffix /,$(NORACE)))
	ANSWERDESK_TEST_ENGINE=postgres ANSWERDESK_TEST_POSTGRES="$(PG_URL)" \
		$(GO) test -race -count=1 -timeout 9m $(PG_SUITES)
	ANSWERDESK_TEST_ENGINE=postgres ANSWERDESK_TEST_POSTGRES="$(PG_URL)" \
		$(GO) test -count=1 -timeout 5m $(CORPUS)

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

# The documentation answerer's held-out question sets, never tuned on: each set's accuracy
# against its target and its off-topic questions answered, misses counted by kind only.
# (make test checks the tuning sets against search/testdata/qa/verdicts.tsv.)
eval: ## measure the docs answerer on its held-out question sets
	@out=$$(ANSWERDESK_EVAL=1 $(GO) test -count=1 -run 'TestHeldOutSets|TestAnswerQuality' -v ./search/); status=$$?; \
		printf '%s\n' "$$out" | grep -E '^\s+eval_test.go:[0-9]+: (tune|dev|test|all)|^(ok|FAIL|---)'; exit $$status

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

# Debian's nginx and caddy, for the test that validates deploy/ (nginx -t, caddy validate):
# the packages are downloaded and unpacked under bin/tools, never installed, so no service
# starts. "make test" tries it first and goes on without them: that test then skips (or
# fails when CI=true).
TOOLS := bin/tools
.PHONY: deploy-tools deploy-tools-optional
deploy-tools: ## unpack Debian's nginx and caddy under bin/tools for the deploy/ validation
	@test -x $(TOOLS)/usr/sbin/nginx -a -x $(TOOLS)/usr/bin/caddy || { \
		set -e; mkdir -p $(TOOLS)/debs; cd $(TOOLS)/debs; \
		apt-get download nginx caddy >/dev/null 2>&1 || { \
			sudo=; if [ "$$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo=sudo; fi; \
			$$sudo apt-get update >/dev/null && apt-get download nginx caddy; }; \
		for f in *.deb; do dpkg -x $$f ..; done; }
	@test -x $(TOOLS)/usr/sbin/nginx -a -x $(TOOLS)/usr/bin/caddy || { echo "deploy-tools: nginx or caddy is still missing"; exit 1; }

deploy-tools-optional:
	@$(MAKE) --no-print-directory deploy-tools || echo "!!! WARNING: no nginx or caddy: the validation of deploy/ will be SKIPPED (it fails when CI=true)."

# axe-core, the accessibility checker the site's browser test injects into each page: the
# npm package at a pinned version, checked against its hash and unpacked under bin/tools
# (npm is needed to fetch it, nothing is installed). Without it that check skips (or fails
# when CI=true).
AXE_VERSION := 4.11.0
AXE_SHA256  := 39bed7d72308f6d620789c169d699bfd7e8da80f65b545821a6b2215c3e83107
AXE_JS      := $(TOOLS)/axe-core/axe.min.js
.PHONY: axe axe-optional
axe: ## fetch axe-core (npm) under bin/tools for the site's accessibility check
	@test -f $(AXE_JS) || { \
		set -e; mkdir -p $(TOOLS)/axe-core; cd $(TOOLS)/axe-core; \
		npm pack --silent axe-core@$(AXE_VERSION) >/dev/null; \
		echo "$(AXE_SHA256)  axe-core-$(AXE_VERSION).tgz" | sha256sum -c --quiet; \
		tar xzf axe-core-$(AXE_VERSION).tgz --strip-components=1 package/axe.min.js; }
	@test -f $(AXE_JS) || { echo "axe: $(AXE_JS) is still missing"; exit 1; }

axe-optional:
	@$(MAKE) --no-print-directory axe || echo "!!! WARNING: no axe-core: the accessibility check of the site will be SKIPPED (it fails when CI=true)."

# PostgreSQL for the tests: the server at ANSWERDESK_TEST_POSTGRES (default PG_DEFAULT, the
# local one) when it answers; otherwise Debian's postgresql, installed with apt when missing
# (sudo when not root), runs a throwaway cluster in a temporary directory on a free port
# (make postgres-stop removes it). The URL the tests use is written to PG_URL_FILE. "make
# test" tries it first and goes on without it: the PostgreSQL tests then skip (or fail when
# CI=true).
PG_DEFAULT  := postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable
PG_URL_FILE := bin/postgres-test-url
postgres: ## a PostgreSQL server for the tests (installed and started when none answers)
	@bash internal/testdb/postgres.sh start $(PG_URL_FILE)

postgres-stop: ## stop the throwaway PostgreSQL cluster that make postgres started
	@bash internal/testdb/postgres.sh stop $(PG_URL_FILE)

postgres-optional:
	@$(MAKE) --no-print-directory postgres || { \
		echo ""; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo "!!! WARNING: no PostgreSQL for the tests. Every test on PostgreSQL will be     !!!"; \
		echo "!!! SKIPPED (they fail when CI=true). Start one with: make postgres.          !!!"; \
		echo "!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!!"; \
		echo ""; \
		if [ "$$CI" = true ]; then exit 1; fi; \
	}

# Benchmarks: in-process (go test -bench) and HTTP load against a running server.
bench: build ## benchmarks and the HTTP load generator (SQLite; make bench-pg: beside PostgreSQL)
	$(GO) test -run '^$$' -bench . -benchmem -benchtime 2s ./...
	$(GO) run ./internal/cmd/loadgen -bin $(BIN)

# The customer and public API's busiest endpoints with wrk (Debian's wrk package), each against an in-memory
# ceiling serving the same bytes (MCP tools/call against the same read over REST),
# alternating rounds in the same minutes; medians, shares and the server's RSS.
# VS=path measures another build (say, the previous one) in the same rounds; PROFILE=dir
# writes a CPU profile of the server under each load (serve --pprof-addr); ENGINE=postgres
# serves a fresh database on the make postgres server (dropped at the end) instead of SQLite.
bench-http: build $(if $(filter postgres,$(ENGINE)),postgres) ## wrk against the binary and in-memory ceilings (needs wrk)
	@command -v wrk >/dev/null || { echo "bench-http needs wrk: apt-get install -y wrk"; exit 1; }
	$(GO) run ./internal/cmd/loadgen -bin $(BIN) -wrk "$$(command -v wrk)" -concurrency 32 -duration 5s -rounds 3 -dispatch 0 \
		$(if $(VS),-vs-bin $(VS)) $(if $(PROFILE),-server-profile $(PROFILE)) \
		$(if $(ENGINE),-engine $(ENGINE) -postgres "$$(cat $(PG_URL_FILE) 2>/dev/null || echo '$(PG_DEFAULT)')")

# The same list, by-id and create/dispatch loads on SQLite, PostgreSQL and three PostgreSQL
# replicas sharing one database (fresh databases on the make postgres server, dropped at the
# end), one table at the end.
bench-pg: build postgres ## loadgen on SQLite, PostgreSQL and 3 PostgreSQL replicas, one table
	$(GO) run ./internal/cmd/loadgen -bin $(BIN) -compare -postgres "$$(cat $(PG_URL_FILE) 2>/dev/null || echo '$(PG_DEFAULT)')"

# Longer fuzzing of the query and date parsers (not part of make test).
fuzz: ## fuzz the parsers for 30 s each
	$(GO) test -run '^$$' -fuzz FuzzParseDate -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzMessageFilter -fuzztime 30s .
	$(GO) test -run '^$$' -fuzz FuzzParseMessageCreate -fuzztime 30s .

clean: ## remove bin/ and the Zapier app's node_modules
	rm -rf bin $(ZAPIER_DIR)/node_modules
