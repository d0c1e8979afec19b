#!/usr/bin/env bash
# Purge time and size reduction on the real spotter sessions
# (../shared/data/cc-sessions-spotter, shared/data/PROVENANCE.md §1): each
# session is copied to a fresh folder with a fresh store, aged an hour (so
# that it is not live), and purged with the default options; the table has
# the sizes before and after, what was stubbed and removed, and the time
# the command took (its own measure, from reading the transcript to the
# replaced file, stored results and backup included; median of RUNS runs).
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
data=${DATA:-../shared/data/cc-sessions-spotter}
runs=${RUNS:-5}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
CGO_ENABLED=0 go build -o "$tmp/ctxkeep" ./cmd/ctxkeep

echo "| session | before | after | reduction | results stubbed | thinking removed | repairs | purge time (median of $runs) |"
echo "|---|---|---|---|---|---|---|---|"
for f in "$data"/*-*-*-*-*.jsonl; do
	name=$(basename "$f")
	times=()
	for run in $(seq "$runs"); do
		dir="$tmp/run$run-${name%%-*}"
		mkdir -p "$dir"
		cp "$f" "$dir/$name"
		touch -d '1 hour ago' "$dir/$name"
		CTXKEEP_HOME="$dir/store" HOME="$dir" "$tmp/ctxkeep" purge "$dir/$name" --json >"$dir/report.json"
		times+=("$(python3 -c 'import json,sys; print(json.load(open(sys.argv[1]))["took"])' "$dir/report.json")")
	done
	python3 - "$dir/report.json" "${times[@]}" <<'PY'
import json, sys, re
r = json.load(open(sys.argv[1]))
def ms(s):
    m = re.fullmatch(r"([0-9.]+)(ms|s|µs)", s)
    v = float(m.group(1))
    return {"ms": v, "s": v * 1000, "µs": v / 1000}[m.group(2)]
took = sorted(ms(t) for t in sys.argv[2:])[len(sys.argv[2:]) // 2]
b, a = r["bytes_before"], r["bytes_after"]
stubbed = sum(s["bytes"] for s in r["stubs"])
print(f"| {r['session_id'][:8]} | {b/1e6:.2f} MB | {a/1e6:.2f} MB | {100*(b-a)/b:.1f}% | "
      f"{len(r['stubs'])} ({stubbed/1e3:.0f} kB) | {r['thinking']['removed']} | {len(r['repairs'])} | {took:.0f} ms |")
PY
done
