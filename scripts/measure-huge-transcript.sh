#!/usr/bin/env bash
# Measures one ctxkeep binary on hostile transcripts: peak RSS, time and
# exit code of the hook (Stop, then PreCompact) on a synthetic transcript
# of MB megabytes (500 by default) seen for the first time, and of
# PreCompact on a <session>.jsonl that links to /dev/zero. Prints one line
# per run. docs/BENCHMARKS.md reports the figures.
#
#   scripts/measure-huge-transcript.sh BINARY [MB]
#
# Needs /usr/bin/time (GNU). Everything lives in a temporary folder.
set -euo pipefail
bin=$1
mb=${2:-500}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
sid=0b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10
home=$tmp/home
export CTXKEEP_HOME=$home PATH=$PATH
"$bin" stats >/dev/null # creates and migrates the index, as install does

# One turn of about 100 KB: a prompt, a tool call, a 100 KB result.
turn=$tmp/turn.jsonl
big=$(head -c 100000 /dev/zero | tr '\0' 'x')
{
	printf '{"type":"user","uuid":"u1","sessionId":"%s","timestamp":"2026-11-21T10:00:00Z","message":{"role":"user","content":"read the log"}}\n' "$sid"
	printf '{"type":"assistant","uuid":"a1","sessionId":"%s","timestamp":"2026-11-21T10:00:01Z","message":{"id":"m1","role":"assistant","model":"claude-sonnet-4-5","content":[{"type":"tool_use","id":"t1","name":"Bash","input":{"command":"cat log"}}],"usage":{"input_tokens":10,"cache_read_input_tokens":50000,"output_tokens":10}}}\n' "$sid"
	printf '{"type":"user","uuid":"r1","sessionId":"%s","timestamp":"2026-11-21T10:00:02Z","message":{"role":"user","content":[{"type":"tool_result","tool_use_id":"t1","content":"%s"}]}}\n' "$sid" "$big"
} >"$turn"
transcript=$tmp/projects/-p/$sid.jsonl
mkdir -p "$(dirname "$transcript")"
n=$((mb * 1000 * 1000 / $(stat -c %s "$turn")))
for ((i = 0; i < n; i++)); do cat "$turn"; done >"$transcript"

run() { # event transcript label
	local ev
	ev=$(printf '{"session_id":"%s","transcript_path":"%s","cwd":"/p","hook_event_name":"%s","trigger":"auto","stop_hook_active":false}' "$sid" "$2" "$1")
	local out=$tmp/out status=0
	/usr/bin/time -f '%M %e' -o "$tmp/time" "$bin" hook <<<"$ev" >"$out" 2>"$tmp/err" || status=$?
	read -r kb secs <"$tmp/time"
	printf '%-34s peak RSS %5d MB  %6.2f s  exit %d  stdout %d B  stderr %d B\n' "$3" $((kb / 1024)) "$secs" "$status" "$(stat -c %s "$out")" "$(stat -c %s "$tmp/err")"
}

echo "$(basename "$bin"), transcript $(($(stat -c %s "$transcript") / 1000000)) MB:"
run Stop "$transcript" "Stop, first sight"
run Stop "$transcript" "Stop again"
run PreCompact "$transcript" "PreCompact"
zero=$tmp/projects/-p/1b6f3c8e-5d1a-4c1e-9f57-2f1c9d7e8a10.jsonl
ln -s /dev/zero "$zero"
run PreCompact "$zero" "PreCompact, a link to /dev/zero"
grep -h "hook:" "$home"/ctxkeep.log 2>/dev/null | cut -c1-200 | sed 's/^/  log: /' || true
