#!/usr/bin/env bash
# The whole test suite, as CI runs it: installs the pinned Claude Code
# client, Codex CLI and Gemini CLI for the real-client tests, checks formatting and vet, then runs
# every test with the race detector.
#
# Without npm on a laptop the real-client tests skip; with CI=true they
# fail instead, so CI can never pass without them.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."

if ! ./scripts/install-claude-code.sh >/dev/null; then
	if [[ "${CI:-}" == "true" ]]; then
		echo "test.sh: installing the pinned Claude Code client failed" >&2
		exit 1
	fi
	echo "test.sh: warning: no Claude Code client; the real-client tests will skip" >&2
fi

# The pinned Codex CLI, for the Codex real-client tests (e2e/codex_*):
# the same rule.
if ! ./scripts/install-codex.sh >/dev/null; then
	if [[ "${CI:-}" == "true" ]]; then
		echo "test.sh: installing the pinned Codex CLI failed" >&2
		exit 1
	fi
	echo "test.sh: warning: no Codex CLI; the Codex real-client tests will skip" >&2
fi

# The pinned Gemini CLI, for the Gemini real-client tests (e2e/gemini_*):
# the same rule.
if ! ./scripts/install-gemini.sh >/dev/null; then
	if [[ "${CI:-}" == "true" ]]; then
		echo "test.sh: installing the pinned Gemini CLI failed" >&2
		exit 1
	fi
	echo "test.sh: warning: no Gemini CLI; the Gemini real-client tests will skip" >&2
fi

# Debian's chromium, for the tests that drive a headless browser: the one
# that opens `ctxkeep context --html` (internal/breakdown) and the web UI's
# (internal/ui, TestBrowser); the same rule: skip on a laptop, fail in CI.
if ! ./scripts/install-chromium.sh >/dev/null; then
	if [[ "${CI:-}" == "true" ]]; then
		echo "test.sh: installing chromium failed" >&2
		exit 1
	fi
	echo "test.sh: warning: no chromium; the browser tests (HTML report, web UI) will skip" >&2
fi

# The runner corpus (scripts/corpus.sh): real outputs of test runners,
# compilers and linters, labelled by the runners' own reports, for
# internal/corpus and swap's tests; built once, then cached. The same rule:
# skip on a laptop, fail in CI.
if corpus="$(./scripts/corpus.sh | tail -n 1)" && [[ -d "$corpus" ]]; then
	export CTXKEEP_CORPUS_DIR="$corpus"
else
	if [[ "${CI:-}" == "true" ]]; then
		echo "test.sh: building the runner corpus failed" >&2
		exit 1
	fi
	echo "test.sh: warning: no runner corpus; the tests that read it will skip" >&2
fi

# A throwaway PostgreSQL 15 for the team archive's tests (internal/postgres,
# internal/team, the two-user end-to-end test), stopped and removed on exit;
# the same rule: skip on a laptop, fail in CI.
pgdir="$(mktemp -d "${TMPDIR:-/tmp}/ctxkeep-pg.XXXXXX")"
cleanup_pg() {
	./scripts/postgres.sh stop "$pgdir" >/dev/null 2>&1 || true
	rm -rf "$pgdir"
}
trap cleanup_pg EXIT
if dsn="$(./scripts/postgres.sh start "$pgdir" | tail -n 1)" && [[ -n "$dsn" ]]; then
	export CTXKEEP_TEST_PG_DSN="$dsn"
else
	if [[ "${CI:-}" == "true" ]]; then
		echo "test.sh: starting PostgreSQL failed" >&2
		exit 1
	fi
	echo "test.sh: warning: no PostgreSQL; the team archive's tests will skip" >&2
fi

unformatted="$(gofmt -l $(git ls-files '*.go' 2>/dev/null || find . -name '*.go' -not -path './.cache/*'))"
if [[ -n "$unformatted" ]]; then
	echo "test.sh: gofmt would change:" >&2
	echo "$unformatted" >&2
	exit 1
fi
go vet ./...
# No package may fail for being slow: CI shares its machine, and under
# load the race detector and the real clients take far more than go
# test's default 10 minutes a package. The timeout stays only to end a
# test that hangs.
go test -race -count=1 -timeout 90m ./...
