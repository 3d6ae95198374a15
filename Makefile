# STE — two commands matter: `make demo` and `make test`. Everything a fresh
# machine lacks is installed here, idempotently, into caches:
#   Go modules (module cache), staticcheck (bin/), the Apache Kafka 4 broker
#   and tools jars from Maven Central and libchdb from npm (~/.cache/ste).
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)
STE_CACHE ?= $(HOME)/.cache/ste
export STE_CACHE
STATICCHECK_VERSION := v0.8.2
CHDB_LIB := $(STE_CACHE)/chdb/26.7.3-stable.1/libchdb.so

.PHONY: all build test unit demo bench lint fuzz deps tools kafka chdb clean chaos failover

all: build

deps:
	$(GO) mod download

# bin/ste and, beside it, bin/ste-chdb (the embedded ClickHouse endpoint,
# kept out of ste because chdb-go loads its library at start-up).
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
LDFLAGS := -X github.com/ste-utility/ste/instance.version=$(VERSION)

build: deps
	@mkdir -p $(BIN)
	$(GO) build -ldflags "$(LDFLAGS)" -o $(BIN)/ste ./cmd/ste
	$(GO) build -o $(BIN)/ste-chdb ./cmd/ste-chdb

tools: $(BIN)/staticcheck

$(BIN)/staticcheck:
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

# The real Kafka 4 broker jars and Kafka's own command-line tools (the
# kafka-tools jar: kafka-topics, kafka-consumer-groups, ...), needs java and
# mvn; cached. Run a tool with deploy/kafka/kafka.sh tool NAME ARG...
kafka:
	deploy/kafka/kafka.sh fetch >/dev/null
	deploy/kafka/kafka.sh fetch-tools >/dev/null

# libchdb.so for the embedded ClickHouse (needs npm; ~170 MB once, cached).
chdb: $(CHDB_LIB)

$(CHDB_LIB):
	deploy/chdb/fetch.sh

lint: tools
	$(GO) vet ./...
	$(BIN)/staticcheck ./...

# Every test: unit, fuzz seed corpora, contract conformance, the end-to-end
# suite on the embedded broker and on real Kafka 4 (STE_KAFKA=1), and the
# analytics suite on the embedded ClickHouse. Packages run one at a time:
# several suites start brokers and measure, and the machine has two cores.
test: build lint kafka chdb
	STE_KAFKA=1 STE_CHDB_BIN=$(BIN)/ste-chdb CHDB_LIB_PATH=$(CHDB_LIB) \
		$(GO) test -count=1 -p 1 -timeout 30m ./...

# The chaos suite (e2e/chaos): 20,000 realistic trades through 3 instances
# while instances are killed with kill -9 20 times and the broker once, on
# the embedded broker and on Kafka 4; outputs held to ste match. The seed is
# logged; STE_CHAOS_SEED=N replays a schedule. (make test runs a reduced
# run: kfake, 3,000 trades, 5 kills.)
chaos: kafka
	STE_KAFKA=1 STE_CHAOS=full $(GO) test -count=1 -v -timeout 90m -run TestChaos ./e2e/chaos/

# Failover times (docs/benchmarks.md): kill -9 with and without restart,
# 20 rounds each, on both brokers (~1 hour).
failover: kafka
	STE_KAFKA=1 STE_FAILOVER=1 $(GO) test -count=1 -v -timeout 3h -run TestFailover ./e2e/chaos/

# The fast part only (no brokers, no analytics): the edit-test loop.
unit:
	$(GO) test -short ./...

demo: build chdb
	CHDB_LIB_PATH=$(CHDB_LIB) $(BIN)/ste demo

# Per-message Go benchmarks (see docs/benchmarks.md for the experiments).
bench:
	$(GO) test -run '^$$' -bench . -benchmem ./schemas/... ./processors/...

# Fuzz each target for FUZZTIME (default 5m); corpora live in testdata/fuzz.
FUZZTIME ?= 5m
fuzz:
	$(GO) test ./schemas/xmltext -run '^$$' -fuzz FuzzParseDifferential -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./schemas/xmltext -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./schemas -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME) -parallel 1
	$(GO) test ./processors/validation -run '^$$' -fuzz FuzzInspect -fuzztime $(FUZZTIME) -parallel 1

clean:
	rm -rf $(BIN)
