#!/usr/bin/env bash
# Installs Debian's chromium for the tests that drive a headless browser:
# the one that opens `ctxkeep context --html` (internal/breakdown) and the
# web UI's (internal/ui, TestBrowser). Prints the absolute path of the
# browser on the last line of stdout; progress goes to stderr.
#
# Idempotent: when chromium is already on PATH it only prints its path.
# Needs root (or sudo) and Debian's package lists, as the project's
# machines and CI have.
set -euo pipefail

log() { printf '%s\n' "$*" >&2; }

if bin="$(command -v chromium)"; then
	log "chromium already installed"
	printf '%s\n' "$bin"
	exit 0
fi

sudo=""
if [[ "$(id -u)" != 0 ]]; then
	if ! command -v sudo >/dev/null; then
		log "error: installing chromium needs root"
		exit 1
	fi
	sudo="sudo"
fi
log "installing chromium with apt-get"
export DEBIAN_FRONTEND=noninteractive
$sudo apt-get update -qq >&2
$sudo apt-get install -y -qq --no-install-recommends chromium >&2

bin="$(command -v chromium)"
printf '%s\n' "$bin"
