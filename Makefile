# The two commands a newcomer types: `make run` and `make test`. Both install
# what is missing first (make setup), so a fresh Debian machine needs nothing else.
SHELL := /bin/bash
.DEFAULT_GOAL := help
PNPM_VERSION := 10.34.8
STAMP := node_modules/.setup-stamp

.PHONY: help setup run test lint typecheck test-durations test-fuzz test-unit test-integration test-e2e test-kafka replay-dead-letters bench bench-check panel-setup healing-setup suites-real soak release-version upgrade-snapshot upgrade-drill clean

help:
	@echo "make run    start Assay locally (embedded Postgres, every service, gateway on :8080)"
	@echo "make test   lint, type check, unit, integration and end-to-end tests"
	@echo "make soak   the stack under load and faults (SOAK_MINUTES=5), audited; see docs/soak.md"
	@echo "make setup  install what is missing (pnpm, node modules, Chromium headless shell, redis-server, librdkafka-dev)"

# pnpm through corepack, else npm; node modules when the lockfile changed;
# the SDK's types from the OpenAPI document (libs/client, every time: fast);
# the web console (apps/console/dist, served by the gateway at /; a few seconds);
# Chromium (the headless shell, the default browser, and the full browser beside it)
# and redis-server from Debian when apt is there and they are not.
setup: $(STAMP)
	@pnpm --silent --filter @assay/client generate
	@pnpm --silent --filter @assay/console build
	@if { [ ! -x /usr/lib/chromium/chromium-headless-shell ] || [ ! -x /usr/bin/chromium ]; } && command -v apt-get >/dev/null; then \
	  echo "setup: installing Debian's chromium-headless-shell and chromium"; \
	  $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq chromium-headless-shell chromium >/dev/null; \
	fi
	@if ! command -v redis-server >/dev/null && command -v apt-get >/dev/null; then \
	  echo "setup: installing Debian's redis-server"; \
	  $(SUDO) apt-get install -y -qq redis-server >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq redis-server >/dev/null; }; \
	fi

SUDO := $(shell [ "$$(id -u)" = 0 ] || echo sudo)
# @confluentinc/kafka-javascript (optional; its librdkafka mock cluster gives the Kafka bus tests real
# brokers) builds against Debian's librdkafka (CKJS_LINKING=dynamic) with the node headers installed
# beside node, since its prebuilt download and node-gyp's header download are not reachable everywhere.
NODE_HEADERS := $(shell d="$$(dirname "$$(dirname "$$(readlink -f "$$(command -v node)")")")"; [ -e "$$d/include/node/node.h" ] && echo "npm_config_nodedir=$$d")

$(STAMP): pnpm-lock.yaml package.json
	@if ! command -v pnpm >/dev/null || [ "$$(pnpm --version 2>/dev/null)" != "$(PNPM_VERSION)" ]; then \
	  echo "setup: installing pnpm $(PNPM_VERSION)"; \
	  (COREPACK_ENABLE_DOWNLOAD_PROMPT=0 corepack enable pnpm && pnpm --version >/dev/null 2>&1) \
	    || { corepack disable pnpm 2>/dev/null; $(SUDO) npm install -g --silent pnpm@$(PNPM_VERSION); }; \
	fi
	@if [ ! -e /usr/include/librdkafka/rdkafka_mock.h ] && command -v apt-get >/dev/null; then \
	  echo "setup: installing Debian's librdkafka-dev (the Kafka mock cluster of the bus tests)"; \
	  $(SUDO) apt-get install -y -qq librdkafka-dev >/dev/null || { $(SUDO) apt-get update -qq && $(SUDO) apt-get install -y -qq librdkafka-dev >/dev/null; } || true; \
	fi
	CKJS_LINKING=dynamic $(NODE_HEADERS) pnpm install --frozen-lockfile
	@touch $(STAMP)

run: setup
	pnpm --silent --filter @assay/local start

lint: setup
	pnpm --silent lint

typecheck: setup
	pnpm --silent typecheck

test: setup
	pnpm --silent lint
	pnpm --silent typecheck
	pnpm --silent exec jest --ci

# Records how long each test file took (tests/setup/durations.json): make test starts the slowest first.
test-durations: setup
	mkdir -p tests/.tmp
	-pnpm --silent exec jest --ci --json --outputFile=tests/.tmp/jest-report.json
	node tests/setup/write-durations.js tests/.tmp/jest-report.json

# The API fuzz (tests/e2e/fuzz.test.ts) deeper than make test's 12 inputs an operation; FUZZ_SEED=n replays a run.
test-fuzz: setup
	FUZZ_RUNS=$${FUZZ_RUNS:-200} pnpm --silent exec jest --ci tests/e2e/fuzz.test.ts

test-unit: setup
	pnpm --silent exec jest --ci --selectProjects unit

test-integration: setup
	pnpm --silent exec jest --ci --selectProjects integration

test-e2e: setup
	pnpm --silent exec jest --ci --selectProjects e2e

# The e2e webhook and execution cases and the Kafka operations cases on BUS=kafka, with brokers that
# ask for TLS and SASL SCRAM-SHA-512 (the mock cluster behind KafkaFront; see libs/bus/README.md).
# Not part of make test (several minutes). FILES=... runs other jest files on that bus.
test-kafka: setup
	pnpm --silent exec tsx tests/e2e/kafka/stack.ts $(FILES)

# make replay-dead-letters TOPIC=assay.executions.events GROUP=webhook-dispatcher: hands the group's
# dead letters back to it (BUS, DATABASE_URL and KAFKA_* from the environment, as the service has them).
replay-dead-letters: setup
	pnpm --silent exec tsx libs/bus/src/replay-cli.ts --topic "$(TOPIC)" --group "$(GROUP)"

# make bench [BENCH=executions]: Assay against a baseline tool, ratios printed. The discovery panel
# (BENCH=discovery-panel, and a bench of everything) needs panel-setup's Debian packages first.
# BENCH=healing needs healing-setup's npm versions (tests/healing-panel/README.md).
bench: setup $(if $(BENCH),$(if $(filter discovery-panel,$(BENCH)),panel-setup) $(if $(filter healing,$(BENCH)),healing-setup),panel-setup healing-setup)
	pnpm --silent exec tsx tests/bench/run.ts $(BENCH)

# What the discovery panel's Debian apps need (tests/discovery-panel/README.md): PHP for DokuWiki (php-cgi first,
# so Debian's php does not bring Apache), DokuWiki, MkDocs and Sphinx. Its npm apps come with make setup.
PANEL_DEBS := php-cli php-cgi php-xml php-mbstring dokuwiki mkdocs python3-sphinx
panel-setup: setup
	@missing="$$(for p in $(PANEL_DEBS); do dpkg -s $$p >/dev/null 2>&1 || echo $$p; done)"; \
	if [ -n "$$missing" ] && command -v apt-get >/dev/null; then \
	  echo "panel-setup: installing Debian's" $$missing; \
	  $(SUDO) apt-get update -qq && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq php-cli php-cgi php-xml php-mbstring >/dev/null && \
	  $(SUDO) env DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends dokuwiki mkdocs python3-sphinx >/dev/null; \
	fi

# Both versions of every pair of the healing bench, pinned, from the npm registry into tests/healing-panel/.cache.
healing-setup: setup
	pnpm --silent exec tsx tests/healing-panel/setup.ts

# make suites-real: Playwright suites written by others (npm) run through the API and by npx playwright test
# against the same local app; both pass/fail counts printed, exit 1 when they differ (docs/suites.md). Not in make test.
suites-real: setup
	pnpm --silent exec tsx tests/suites-real/run.ts

# make bench-check [BENCH_RECORD=1]: short executions, discovery and webhooks benches (3 interleaved
# rounds each); fails when a figure is more than 15 % worse than tests/bench/recorded.json. Not in
# make test: run it on a quiet machine before merging a change that may cost speed.
bench-check: setup
	BENCH_CASES=$${BENCH_CASES:-30} BENCH_PAGES=$${BENCH_PAGES:-80} BENCH_EVENTS=$${BENCH_EVENTS:-10000} BENCH_WARMUP_EVENTS=$${BENCH_WARMUP_EVENTS:-3000} \
	  pnpm --silent exec tsx tests/bench/run.ts --check $(if $(BENCH_RECORD),--record) $(BENCH)

# make soak [SOAK_MINUTES=5] [SOAK_SEED=n] [BUS=pg|kafka]: the whole stack under a mixed workload while every
# service is killed and Postgres and Redis restart (BUS=kafka: librdkafka's mock cluster behind KafkaFront, whose
# restart resets every consumer mid-batch); audits the database, the webhook receiver's log and the Kafka groups'
# backlog, and prints the figures (README, Soak). Not part of make test; loopback only.
SOAK_MINUTES ?= 5
soak: setup
	SOAK_MINUTES=$(SOAK_MINUTES) $(if $(SOAK_SEED),SOAK_SEED=$(SOAK_SEED)) $(if $(BUS),BUS=$(BUS)) pnpm --silent exec tsx tests/soak/run.ts

clean:
	rm -rf node_modules */*/node_modules tests/node_modules

# make release-version V=x.y.z: the version in every place that carries it (package.json files, the chart's
# version and appVersion, ASSAY_VERSION, the MCP server); deploy/upgrade/src/versions.test.ts checks they agree.
release-version: setup
	pnpm --silent exec tsx deploy/upgrade/src/release-version.ts "$(V)"

# make upgrade-snapshot [FROM=ref]: the previous release's event schemas, envelope and migration hashes into
# deploy/upgrade/previous-release.json, read by the upgrade tests (no git history needed then). FROM: CHANGELOG's last release.
upgrade-snapshot: setup
	pnpm --silent exec tsx deploy/upgrade/src/snapshot.ts $(FROM)

# make upgrade-drill [FROM=ref] [BUS=pg|kafka] [UPGRADE_MINUTES=6]: a rolling upgrade from FROM (default: the commit of
# CHANGELOG.md's last release) to this repository under the soak's workload: migrations while FROM serves, every
# service replaced one at a time with both builds side by side, one rolled back; then the soak's audit (docs/upgrading.md).
upgrade-drill: setup
	$(if $(FROM),FROM=$(FROM)) $(if $(BUS),BUS=$(BUS)) $(if $(UPGRADE_MINUTES),UPGRADE_MINUTES=$(UPGRADE_MINUTES)) pnpm --silent exec tsx tests/upgrade/drill.ts
