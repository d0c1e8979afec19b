# Two commands on a fresh machine:
#   make install   build ctxkeep, register its hooks with Claude Code, run doctor,
#                  and replay your latest session (or the built-in sample) to show what it keeps out
#   make test      the whole test suite, real Claude Code client included
BINDIR ?= $(HOME)/.local/bin

.PHONY: install build test bench

install: build
	mkdir -p $(BINDIR)
	install -m 0755 bin/ctxkeep $(BINDIR)/ctxkeep
	$(BINDIR)/ctxkeep install
	$(BINDIR)/ctxkeep doctor || true
	$(BINDIR)/ctxkeep replay

build:
	CGO_ENABLED=0 go build -trimpath -o bin/ctxkeep ./cmd/ctxkeep

test:
	./scripts/test.sh

bench:
	go test -run '^$$' -bench HookSpawn -benchtime 600x ./cmd/ctxkeep
	go test -run '^$$' -bench . ./internal/blob ./internal/journal
