#!/usr/bin/env bash
# Installs the pinned Claude Code client that the real-client tests drive
# (internal/clienttest) into <repo>/.cache/claude-code and prints the absolute
# path of its native binary on the last line of stdout. Progress goes to
# stderr.
#
# Idempotent: when a binary reporting the pinned version is already there, it
# only prints its path.
#
# Where the binary lives: the npm package @anthropic-ai/claude-code ships
# bin/claude.exe as a 500-byte shell placeholder; its postinstall script
# hard-links the real binary over it from a platform-specific optional
# dependency (@anthropic-ai/claude-code-<os>-<arch>[-musl]/claude). When
# postinstall does not run (--ignore-scripts, npm's allowScripts), the
# placeholder stays, so the platform package's binary is used instead.
set -euo pipefail

version="2.1.330"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo_root/.cache/claude-code"
scope="$dir/node_modules/@anthropic-ai"

log() { printf '%s\n' "$*" >&2; }

# candidates lists the places a native binary may be, best first.
candidates() {
	printf '%s\n' "$scope/claude-code/bin/claude.exe"
	local platform_bin
	for platform_bin in "$scope"/claude-code-*/claude "$scope"/claude-code-*/claude.exe; do
		[[ -e "$platform_bin" ]] && printf '%s\n' "$platform_bin"
	done
	return 0
}

# reported_version prints the version the binary at $1 reports, or nothing.
# The placeholder stub prints an error to stderr and exits 1.
reported_version() {
	{ "$1" --version 2>/dev/null || true; } | awk 'NR == 1 { print $1 }'
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
	log "claude-code $version already installed"
	printf '%s\n' "$bin"
	exit 0
fi

log "installing @anthropic-ai/claude-code@$version into $dir"
mkdir -p "$dir"
# --include=optional: the native binary comes from an optional dependency,
# so a user-level omit=optional must not apply here.
npm install --prefix "$dir" --no-audit --no-fund --no-save --include=optional \
	"@anthropic-ai/claude-code@$version" >&2

if ! bin="$(pinned_binary)"; then
	log "error: no binary reporting version $version under $scope; candidates:"
	candidates >&2
	exit 1
fi
printf '%s\n' "$bin"
