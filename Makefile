# STE — two commands matter: `make demo` and `make test`. Everything a fresh
# machine lacks is installed here, idempotently, into caches.
SHELL := /bin/bash
GO ?= go
BIN := $(CURDIR)/bin
export PATH := $(BIN):$(PATH)
STE_CACHE ?= $(HOME)/.cache/ste
export STE_CACHE
STATICCHECK_VERSION := v0.8.2

.PHONY: all build test unit demo bench lint fuzz deps tools kafka chdb clean

all: build

deps:
	$(GO) mod download

build: deps
	@mkdir -p $(BIN)
	$(GO) build -o $(BIN)/ste ./cmd/ste

tools: $(BIN)/staticcheck

$(BIN)/staticcheck:
	@mkdir -p $(BIN)
	GOBIN=$(BIN) $(GO) install honnef.co/go/tools/cmd/staticcheck@$(STATICCHECK_VERSION)

lint: tools
	$(GO) vet ./...
	$(BIN)/staticcheck ./...

# Every test: unit, fuzz seeds, conformance, and the end-to-end suites.
test: build lint
	$(GO) test -count=1 -timeout 25m ./...

# The fast part only (no brokers): for the edit-test loop.
unit:
	$(GO) test -short ./...

demo: build
	$(BIN)/ste demo

bench: build
	$(GO) test -run '^$$' -bench . -benchmem ./schemas/... ./processors/...

# Fuzz each target for FUZZTIME (default 5m); corpora live in testdata/fuzz.
FUZZTIME ?= 5m
fuzz:
	$(GO) test ./schemas/xmltext -run '^$$' -fuzz FuzzParseDifferential -fuzztime $(FUZZTIME)
	$(GO) test ./schemas/xmltext -run '^$$' -fuzz '^FuzzParse$$' -fuzztime $(FUZZTIME)
	$(GO) test ./schemas -run '^$$' -fuzz FuzzDecode -fuzztime $(FUZZTIME)
	$(GO) test ./processors/validation -run '^$$' -fuzz FuzzInspect -fuzztime $(FUZZTIME)

clean:
	rm -rf $(BIN)
