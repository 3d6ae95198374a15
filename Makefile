# STE — two commands matter: `make demo` and `make test`. Everything a fresh
# machine lacks is installed here, idempotently, into caches:
#   Go modules (module cache), staticcheck and helm (bin/, built from their Go
#   modules), promtool and chromium (Debian packages), the Apache Kafka 4
#   broker and tools jars from Maven Central and libchdb from npm (~/.cache/ste).
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)
STE_CACHE ?= $(HOME)/.cache/ste
export STE_CACHE
STATICCHECK_VERSION := v0.8.2
HELM_VERSION := v3.22.0
CHDB_LIB := $(STE_CACHE)/chdb/26.7.3-stable.1/libchdb.so

.PHONY: all build test unit demo bench lint fuzz deps tools kafka chdb promtool chromium clients clean replay-kafka chaos chaos-cluster failover acl gateway-client

all: build

deps:
	$(GO) mod download

# bin/ste and, beside it, bin/ste-chdb (the embedded ClickHouse endpoint,
# kept out of ste because chdb-go loads its library at start-up). Built as
# deploy/Dockerfile builds them (static, no cgo, -trimpath), so the
# Dockerfile check in make test finds the packages compiled already.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/ste-utility/ste/instance.version=$(VERSION)

build: deps
	@mkdir -p $(BIN)
	CGO_ENABLED=0 $(GO) build -trimpath -ldflags "$(LDFLAGS)" -o $(BIN)/ste ./cmd/ste
	CGO_ENABLED=0 $(GO) build -trimpath -o $(BIN)/ste-chdb ./chendpoint/cmd/ste-chdb

tools: $(BIN)/staticcheck $(BIN)/helm

$(BIN)/staticcheck:
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# helm for the chart checks (deploy/helm), from its Go module, once.
$(BIN)/helm:
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install helm.sh/helm/v3/cmd/helm@$(HELM_VERSION)

# apt-install COMMAND,PACKAGE installs a Debian package only where its
# command is missing (apt-get as root, else through sudo; the package lists
# are updated only when the first try fails).
apt-install = command -v $(1) >/dev/null 2>&1 || { \
	SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; \
	$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(2) >/dev/null || \
	{ $$SUDO apt-get update >/dev/null && $$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends $(2) >/dev/null; }; }

# promtool for the alert-rule checks: Debian's prometheus package.
promtool:
	@$(call apt-install,promtool,prometheus)
	@promtool --version 2>&1 | head -n1

# Chromium for the console's browser tests (e2e, chromedp): Debian's
# chromium package. Under CI=true the tests fail without it.
chromium:
	@$(call apt-install,chromium,chromium)
	@chromium --version 2>/dev/null | head -n1

# The real Kafka 4 broker jars and Kafka's own command-line tools (the
# kafka-tools jar: kafka-topics, kafka-consumer-groups, ...), needs java and
# mvn; cached. Run a tool with deploy/kafka/kafka.sh tool NAME ARG...
kafka:
	deploy/kafka/kafka.sh fetch >/dev/null
	deploy/kafka/kafka.sh fetch-tools >/dev/null

# ClickHouse's official clients for the client conformance suite
# (chendpoint/clientconformance): a Python venv with clickhouse-connect and
# pandas, the JDBC driver jdbc-v2 (Maven), @clickhouse/client (npm); cached
# in ~/.cache/ste/clients, fetched in parallel.
clients: gateway-client
	@chendpoint/clientconformance/install.sh >/dev/null

# libchdb.so for the embedded ClickHouse (needs npm; ~170 MB once, cached).
chdb: $(CHDB_LIB)

$(CHDB_LIB):
	chendpoint/libchdb/fetch.sh

# The gateway suite's independent RFC 9421 client (e2e/gateway): Python's
# requests-http-signature and http-message-signatures in a virtual
# environment, pinned, installed once (a fresh Debian gets python3-venv).
GATEWAY_VENV := $(STE_CACHE)/venv-gateway-1
GATEWAY_PY := $(GATEWAY_VENV)/bin/python
gateway-client: $(GATEWAY_VENV)/.installed

$(GATEWAY_VENV)/.installed:
	@$(call apt-install,python3,python3)
	@python3 -m venv $(GATEWAY_VENV) 2>/dev/null || { rm -rf $(GATEWAY_VENV); \
		SUDO=; [ "$$(id -u)" = 0 ] || SUDO=sudo; $$SUDO apt-get update >/dev/null; \
		$$SUDO env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends python3-venv >/dev/null; \
		python3 -m venv $(GATEWAY_VENV); }
	$(GATEWAY_VENV)/bin/pip install -q --disable-pip-version-check requests-http-signature==2.0.0 http-message-signatures==3.0.0
	@touch $@

lint: tools
	$(GO) vet ./...
	$(BIN)/staticcheck ./...

# Every test: unit, fuzz seed corpora, contract conformance, the end-to-end
# suite on the embedded broker and on real Kafka 4 (STE_KAFKA=1), the
# analytics suite on the embedded ClickHouse, the console in Chromium, and
# the deploy/ checks (helm, promtool: STE_DEPLOY_CHECKS=1 makes a missing
# tool a failure). Packages run one at a time: several suites start brokers
# and measure, and the machine has two cores. Files the tests keep (the
# console's screenshots) go under test-output/_artifacts/, one directory
# per test, named in the test's output ("=== ARTIFACTS"). Last, the tests of
# the patches of the goka fork (third_party/goka/PATCHES.md: a nested module
# ./... does not reach; ~3 s).
test: build lint kafka chdb promtool chromium gateway-client clients $(BIN)/helm
	@mkdir -p $(CURDIR)/test-output
	STE_KAFKA=1 STE_CHDB_BIN=$(BIN)/ste-chdb CHDB_LIB_PATH=$(CHDB_LIB) STE_CLIENTS=$(STE_CACHE)/clients \
		STE_DEPLOY_CHECKS=1 STE_HELM=$(BIN)/helm STE_GATEWAY_PYTHON=$(GATEWAY_PY) \
		$(GO) test -count=1 -p 1 -timeout 30m -artifacts -outputdir $(CURDIR)/test-output ./...
	$(GO) test -count=1 -run TestPatch github.com/lovoo/goka

# The backtest and scale-out scenarios (ste replay, ste diff, ste migrate) on
# real Kafka 4 as well; make test runs them on the embedded broker only.
replay-kafka: build kafka chdb
	STE_KAFKA=1 STE_REPLAY_KAFKA=1 STE_CHDB_BIN=$(BIN)/ste-chdb CHDB_LIB_PATH=$(CHDB_LIB) \
		$(GO) test -count=1 -p 1 -timeout 30m ./e2e -run 'TestBacktest|TestMigrateScaleOut' -v

# The ACL test on Apache Kafka 4 with the StandardAuthorizer: the users and
# ACLs of topics/access (what ste topics manifest renders) enforced, the
# processors under their own user, a participant refused everyone else's
# topics (~2 minutes: its own target, beside make test's budget).
acl: kafka
	STE_KAFKA=1 STE_ACL=1 $(GO) test -count=1 -timeout 10m -run TestACLsOnKafka ./topics/access/ -v

# The chaos suite (e2e/chaos): 20,000 realistic trades through 3 instances
# while instances are killed with kill -9 20 times and the broker once, on
# the embedded broker and on Kafka 4; outputs held to ste match. The seed is
# logged; STE_CHAOS_SEED=N replays a schedule. (make test runs a reduced
# run: kfake, 3,000 trades, 5 kills.)
chaos: kafka
	STE_KAFKA=1 STE_CHAOS=full $(GO) test -count=1 -v -timeout 90m -run TestChaos ./e2e/chaos/

# The cluster chaos suite (e2e/chaos TestChaosCluster): 20,000 realistic
# trades through 3 instances on three embedded brokers (replication 3, min
# ISR 2) while the leader of a busy partition is lost 10 times, instances are
# killed, the cluster drops below min ISR and the instances restart one by
# one; outputs held to ste match. Not in make test: a reduced run (1,000
# trades, 4 leader losses, kfake only; STE_CHAOS_CLUSTER=1) once lost
# outputs (docs/ARCHITECTURE.md, "Several brokers"). On Kafka 4: three KRaft nodes
# (deploy/kafka/kafka.sh cluster-start), a leader's loss a kill -9 of its JVM.
chaos-cluster: kafka
	STE_KAFKA=1 STE_CHAOS=full $(GO) test -count=1 -v -timeout 60m -run TestChaosCluster ./e2e/chaos/

# Failover times (docs/benchmarks.md): kill -9 with and without restart,
# 20 rounds each, with two instances and with three, on both brokers
# (~2 hours; STE_FAILOVER_ROUNDS, _BROKER, _INSTANCES, _MODES narrow it).
failover: kafka
	STE_KAFKA=1 STE_FAILOVER=1 $(GO) test -count=1 -v -timeout 3h -run TestFailover ./e2e/chaos/

# The fast part only (no brokers, no analytics): the edit-test loop.
unit:
	$(GO) test -short ./...

demo: build chdb
	CHDB_LIB_PATH=$(CHDB_LIB) $(BIN)/ste demo
	@echo "The same with the operator console kept running: CHDB_LIB_PATH=$(CHDB_LIB) $(BIN)/ste demo --console (then http://127.0.0.1:8080)"

# Per-message Go benchmarks (see docs/benchmarks.md for the experiments).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./schemas/... ./processors/...

# Fuzz each target for FUZZTIME (default 5m); corpora live in testdata/fuzz.
# The inbound path end to end: XML scanner, decoder, validation, the three
# stages (FuzzPipeline, sequences of records) and internal-topic decoding.
# FuzzPipeline runs about a millisecond per input: minimising each new input
# for go's default 60 s would leave no time to fuzz, hence FUZZMINIMIZE.
FUZZTIME ?= 5m
FUZZMINIMIZE ?= 5s
fuzz:
	$(GO) test ./schemas/xmltext -run '^$$' -fuzz FuzzParseDifferential -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./schemas/xmltext -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./schemas -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./processors/validation -run '^$$' -fuzz FuzzInspect -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./processors/pipeline -run '^$$' -fuzz FuzzPipeline -fuzztime $(FUZZTIME) -fuzzminimizetime $(FUZZMINIMIZE) -parallel 1
	$(GO) test ./processors/pipeline -run '^$$' -fuzz FuzzEnvelope -fuzztime $(FUZZTIME) -parallel 1

clean:
	rm -rf $(BIN) test-output
