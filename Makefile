# Two commands on a fresh machine:
#   make install   build ctxkeep, register its hooks with Claude Code, run doctor,
#                  and replay your latest session (or the built-in sample) to show what it keeps out
#   make test      the whole test suite, real Claude Code client included
BINDIR ?= $(HOME)/.local/bin

.PHONY: install build test bench

install: build
	mkdir -p $(BINDIR)
	install -m 0755 bin/ctxkeep-hook $(BINDIR)/ctxkeep-hook
	install -m 0755 bin/ctxkeep $(BINDIR)/ctxkeep
	$(BINDIR)/ctxkeep install
	$(BINDIR)/ctxkeep doctor || true
	$(BINDIR)/ctxkeep replay

# ctxkeep, and ctxkeep-hook: the lean executable the clients run for
# hooks (only what hooks use is linked in), which install registers.
VERSION ?= $(shell git describe --always --dirty 2>/dev/null || echo dev)
build:
	CGO_ENABLED=0 go build -trimpath -ldflags "-X github.com/ctxkeep/ctxkeep/internal/hook.Build=$(VERSION)" -o bin/ ./cmd/ctxkeep ./cmd/ctxkeep-hook

test:
	./scripts/test.sh

bench:
	go test -run '^$$' -bench HookSpawn -benchtime 600x ./cmd/ctxkeep
	go test -run '^$$' -bench . ./internal/blob ./internal/journal
