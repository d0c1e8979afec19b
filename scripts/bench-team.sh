#!/usr/bin/env bash
# The team archive at scale (docs/BENCHMARKS.md): starts a PostgreSQL 15
# of its own (scripts/postgres.sh) sized as a small team server, measures
# `ctxkeep team sync` from a local store, fills the archive to N chunks
# (default 1,000,000) and measures team search as a member. Prints the
# figures (lines SYNC, FILL, SIZE, SEARCH) and stops the server.
#
#   scripts/bench-team.sh [N]
#
# It takes about half an hour and 8 GB of disk for a million chunks on two
# cores. KEEP=DIR keeps the server's data in DIR for another run, which
# then only searches.
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/.."
n="${1:-1000000}"
dir="${KEEP:-$(mktemp -d "${TMPDIR:-/tmp}/ctxkeep-bench-pg.XXXXXX")}"
cleanup() {
	./scripts/postgres.sh stop "$dir" >/dev/null 2>&1 || true
	[[ -n "${KEEP:-}" ]] || rm -rf "$dir"
}
trap cleanup EXIT
export PGOPTS="-c shared_buffers=4GB -c effective_cache_size=12GB -c maintenance_work_mem=1GB -c work_mem=64MB -c max_wal_size=16GB -c checkpoint_timeout=30min"
dsn="$(./scripts/postgres.sh start "$dir" | tail -n 1)"
CTXKEEP_TEST_PG_DSN="$dsn" CTXKEEP_SCALE_CHUNKS="$n" go test -count=1 -timeout 0 -run '^TestScale$' -v ./internal/team |
	grep -E 'SYNC|FILL|SIZE|SEARCH|slow|corpus|^(ok|FAIL|---)'
