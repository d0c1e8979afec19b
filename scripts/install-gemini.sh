#!/usr/bin/env bash
# Installs the pinned Gemini CLI that the real-client tests drive
# (internal/geminitest) into <repo>/.cache/gemini and prints the absolute path
# of its executable on the last line of stdout. Progress goes to stderr.
#
# Idempotent: when an executable reporting the pinned version is already
# there, it only prints its path.
#
# The npm package @google/gemini-cli is a Node program (one bundled script,
# bundle/gemini.js); npm links it as node_modules/.bin/gemini. It needs Node
# 20 or later.
set -euo pipefail

version="0.61.0"
repo_root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
dir="$repo_root/.cache/gemini"
bin="$dir/node_modules/.bin/gemini"

log() { printf '%s\n' "$*" >&2; }

# reported_version prints the version the executable at $1 reports, or
# nothing. It must not look for updates or write to the user's home.
reported_version() {
	{ HOME="$(mktemp -d)" GEMINI_CLI_NO_RELAUNCH=true "$1" --version 2>/dev/null || true; } | tail -n 1 | tr -d '[:space:]'
}

if [[ -x "$bin" && "$(reported_version "$bin")" == "$version" ]]; then
	log "gemini $version already installed"
	printf '%s\n' "$bin"
	exit 0
fi

command -v npm >/dev/null || { log "error: npm is not installed"; exit 1; }
command -v node >/dev/null || { log "error: node is not installed"; exit 1; }
major="$(node -p 'process.versions.node.split(".")[0]')"
if (( major < 20 )); then
	log "error: Gemini CLI $version needs Node 20 or later (node $(node --version))"
	exit 1
fi
log "installing @google/gemini-cli@$version into $dir"
# --prefer-offline: from npm's cache when it holds the packages (a machine
# that installed them once, or a CI cache of ~/.npm), from the registry
# otherwise.
mkdir -p "$dir"
npm install --prefix "$dir" --no-audit --no-fund --no-save --prefer-offline \
	"@google/gemini-cli@$version" >&2

got="$(reported_version "$bin")"
if [[ "$got" != "$version" ]]; then
	log "error: $bin reports version '$got', not $version"
	exit 1
fi
printf '%s\n' "$bin"
