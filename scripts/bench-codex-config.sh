#!/usr/bin/env bash
# Whole-process time of `ctxkeep install --agent codex`, `doctor` and
# `uninstall --agent codex` against a Codex config.toml of N [projects]
# tables (Codex adds one for each folder the user trusts), each in a fresh
# HOME. Prints wall and CPU time as /usr/bin/time measures them.
#   scripts/bench-codex-config.sh [N...]      (default: 20000 200000)
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/ctxkeep" ./cmd/ctxkeep
for n in "${@:-20000 200000}"; do
	for size in $n; do
		home="$tmp/home-$size"
		mkdir -p "$home/.codex" "$home/project"
		python3 - "$home/.codex/config.toml" "$size" <<'PY'
import sys
with open(sys.argv[1], "w") as f:
    f.write('model = "gpt-5.5"\n\n')
    for i in range(int(sys.argv[2])):
        f.write('[projects."/home/you/src/worktree-%06d"]\ntrust_level = "trusted"\n\n' % i)
PY
		echo "$size tables, $(du -h "$home/.codex/config.toml" | cut -f1):"
		for cmd in "install --agent codex" "doctor" "uninstall --agent codex"; do
			(cd "$home/project" && HOME="$home" CODEX_HOME="$home/.codex" XDG_CONFIG_HOME="$home/.config" \
				XDG_DATA_HOME="$home/.local/share" XDG_STATE_HOME="$home/.local/state" \
				/usr/bin/time -f "  $cmd: %e s wall, %U s user, %S s system, %M KB" "$tmp/ctxkeep" $cmd >/dev/null) 2>&1 | grep "^  " || true
		done
	done
done
