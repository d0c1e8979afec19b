#!/usr/bin/env bash
# Installs the pinned Codex CLI that the real-client tests drive
# (internal/codextest) into <repo>/.cache/codex and prints the absolute path
# of its native binary on the last line of stdout. Progress goes to stderr.
#
# Idempotent: when a binary reporting the pinned version is already there, it
# only prints its path (the binary is 294 MB: it is installed once).
#
# Where the binary lives: the npm package @openai/codex is a small Node
# launcher; the native, static binary comes from the platform's optional
# dependency (@openai/codex-linux-x64 for this machine), under
# vendor/<target triple>/bin/codex (codex-hooks.md §1).
set -euo pipefail

version="0.169.0"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo_root/.cache/codex"
scope="$dir/node_modules/@openai"

log() { printf '%s\n' "$*" >&2; }

# candidates lists the places a native binary may be.
candidates() {
	local bin
	for bin in "$scope"/codex-*/vendor/*/bin/codex "$scope"/codex/vendor/*/bin/codex "$scope"/codex/vendor/*/codex/codex; do
		[[ -e "$bin" ]] && printf '%s\n' "$bin"
	done
	return 0
}

# reported_version prints the version the binary at $1 reports
# ("codex-cli 0.169.0"), or nothing.
reported_version() {
	{ "$1" --version 2>/dev/null || true; } | awk 'NR == 1 { print $2 }'
}

# pinned_binary prints the first candidate that runs and reports $version.
pinned_binary() {
	local candidate
	while IFS= read -r candidate; do
		if [[ -x "$candidate" && "$(reported_version "$candidate")" == "$version" ]]; then
			printf '%s\n' "$candidate"
			return 0
		fi
	done < <(candidates)
	return 1
}

if bin="$(pinned_binary)"; then
	log "codex $version already installed"
	printf '%s\n' "$bin"
	exit 0
fi

command -v npm >/dev/null || { log "error: npm is not installed"; exit 1; }
log "installing @openai/codex@$version into $dir"
mkdir -p "$dir"
# --include=optional: the native binary comes from an optional dependency,
# so a user-level omit=optional must not apply here.
npm install --prefix "$dir" --no-audit --no-fund --no-save --include=optional \
	"@openai/codex@$version" >&2

if ! bin="$(pinned_binary)"; then
	log "error: no binary reporting version $version under $scope; candidates:"
	candidates >&2
	exit 1
fi
printf '%s\n' "$bin"
