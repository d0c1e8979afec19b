#!/usr/bin/env bash
# Builds the runner corpus: real outputs of real test runners, compilers and
# linters on small projects, each labelled by the runner's own
# machine-readable output (never by ctxkeep). docs/SWAP.md, "The runner
# corpus".
#
#   scripts/corpus.sh                 build (or reuse) .cache/corpus/cases
#   scripts/corpus.sh RUNNER...       build only these runners' cases into
#                                     .cache/corpus/partial (to work on them)
#
# The projects are in internal/corpus/testdata/projects/<runner>/: base/ is
# a project, every other folder an overlay copied on top of it (a failing
# test, a compile error). Each case copies base and its overlays into
# $CTXKEEP_CORPUS_WORK/<runner> (default /tmp/ctxkeep-corpus/<runner>, a fixed
# path so that outputs do not depend on where the repository is), runs the
# command line as an agent would type it with `bash -c`, stdout and stderr
# into one file, then runs the label command in the same folder and reads
# its artefact with internal/corpus/testdata/labels.py.
#
# A case is a folder <cases>/<name>/ with:
#   command      the command line (no newline at the end)
#   output       the bytes the command printed, stdout and stderr interleaved
#   exit         its exit status
#   labels.json  {"runner","passed","failed","skipped","errors","failed_tests","source"}
#   artefact.*   the machine-readable output the labels were read from
#
# Cached: when the hash of this script, the projects and the tools'
# versions is the one of the last build, nothing runs. Installs what it needs:
# Debian packages with apt-get (when missing), the JavaScript runners with
# npm into .cache/corpus/npm. A runner that cannot be had is skipped with a
# message; under CI=true that is an error. Prints the cases folder on its
# last line.
set -euo pipefail

repo="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
src="$repo/internal/corpus/testdata"
cache="$repo/.cache/corpus"
work="${CTXKEEP_CORPUS_WORK:-/tmp/ctxkeep-corpus}"

log() { printf 'corpus: %s\n' "$*" >&2; }
die() {
	log "error: $*"
	exit 1
}

# ---------------------------------------------------------------------------
# Tools

sudo=""
if [[ "$(id -u)" != 0 ]] && command -v sudo >/dev/null; then
	sudo="sudo"
fi
apt_updated=""

# apt_install installs Debian packages quietly; it updates the package lists
# once when the first try fails.
apt_install() {
	if [[ "$(id -u)" != 0 && -z "$sudo" ]]; then
		log "cannot install $* (apt-get needs root)"
		return 1
	fi
	log "installing $* with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	if $sudo apt-get install -y -qq --no-install-recommends "$@" >&2 2>/dev/null; then
		return 0
	fi
	if [[ -z "$apt_updated" ]]; then
		apt_updated=1
		$sudo apt-get update -qq >&2 || return 1
		$sudo apt-get install -y -qq --no-install-recommends "$@" >&2 || return 1
		return 0
	fi
	return 1
}

junit_jar=/usr/share/java/junit-platform-console-standalone.jar
junit_api=/usr/share/java/junit-jupiter-api.jar:/usr/share/java/junit-jupiter-params.jar:/usr/share/java/apiguardian-api.jar:/usr/share/java/opentest4j.jar

# have_RUNNER succeeds when the runner can run now.
have_go() { command -v go >/dev/null; }
have_pytest() { /usr/bin/python3 -c 'import pytest' 2>/dev/null; }
have_unittest() { [[ -x /usr/bin/python3 ]]; }
have_node() { command -v node >/dev/null; }
have_npm() { [[ -x "$cache/npm/node_modules/.bin/$1" ]]; }
have_vitest() { have_npm vitest; }
have_jest() { have_npm jest; }
have_mocha() { have_npm mocha; }
have_tsc() { have_npm tsc; }
have_eslint() { have_npm eslint; }
have_cargo() { command -v cargo >/dev/null; }
have_mix() { command -v mix >/dev/null; }
have_rspec() { command -v rspec >/dev/null; }
have_ctest() { command -v ctest >/dev/null && command -v cc >/dev/null; }
have_gcc() { command -v gcc >/dev/null && command -v make >/dev/null; }
have_javac() { command -v javac >/dev/null; }
have_junit() { command -v javac >/dev/null && [[ -f "$junit_jar" ]]; }

# install_RUNNER tries to make have_RUNNER true.
install_pytest() { apt_install python3-pytest; }
install_unittest() { apt_install python3; }
install_mix() { apt_install elixir; }
install_rspec() { apt_install ruby-rspec; }
install_ctest() { apt_install cmake gcc; }
install_gcc() { apt_install gcc make; }
install_javac() { apt_install default-jdk-headless; }
install_junit() { install_javac && apt_install junit5; }
install_npm_tools() {
	command -v npm >/dev/null || return 1
	local want have=""
	want="$(sha256sum <"$src/npm/package.json" | cut -c1-64)"
	[[ -f "$cache/npm/.installed" ]] && have="$(cat "$cache/npm/.installed")"
	if [[ "$want" == "$have" && -d "$cache/npm/node_modules" ]]; then
		return 0
	fi
	log "installing the JavaScript runners with npm into $cache/npm"
	mkdir -p "$cache/npm"
	cp "$src/npm/package.json" "$cache/npm/package.json"
	(cd "$cache/npm" && npm install --no-audit --no-fund --loglevel=error >&2) || return 1
	printf '%s\n' "$want" >"$cache/npm/.installed"
}
install_vitest() { install_npm_tools; }
install_jest() { install_npm_tools; }
install_mocha() { install_npm_tools; }
install_tsc() { install_npm_tools; }
install_eslint() { install_npm_tools; }

all_runners=(go pytest unittest node vitest jest mocha cargo mix rspec ctest gcc tsc eslint javac junit)

# version_RUNNER prints what, if it changed, changes the runner's outputs.
v() { "$@" 2>&1 | head -n 3 | tr '\n' ' '; }
version_go() { v go version; }
version_pytest() { v /usr/bin/python3 -m pytest --version; }
version_unittest() { v /usr/bin/python3 --version; }
version_node() { v node --version; }
version_npm() { printf '%s ' "$(node --version)"; sed -n 's/.*"version": "\(.*\)".*/\1/p' "$cache/npm/node_modules/$1/package.json" | head -n 1; }
version_vitest() { version_npm vitest; }
version_jest() { version_npm jest; }
version_mocha() { version_npm mocha; }
version_tsc() { version_npm typescript; }
version_eslint() { version_npm eslint; }
version_cargo() { v cargo --version; }
version_mix() { v dpkg-query -W elixir erlang-base; }
version_rspec() { v rspec --version; }
version_ctest() { v ctest --version; }
version_gcc() { v gcc --version; }
version_javac() { v javac -version; }
version_junit() { v javac -version; v dpkg-query -W junit5; }

# ---------------------------------------------------------------------------
# Cases

# The environment every command runs in: nothing of the caller's but HOME
# and the tools' folders, no CI variable (runners change their output under
# CI=true), UTC, a UTF-8 locale, a terminal type but no terminal (the agents'
# shell tools capture output through pipes), and go test's result cache off
# so that a rebuilt corpus never reads "(cached)".
case_path="/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin"
for tool in go cargo node; do
	if bin="$(command -v "$tool")"; then
		case_path="$(dirname "$bin"):$case_path"
	fi
done
case_env=(
	HOME="$HOME" PATH="$case_path" LANG=C.UTF-8 LC_ALL=C.UTF-8 TZ=UTC TERM=xterm-256color
	GOFLAGS=-count=1 GOTOOLCHAIN=local
	NPM_CONFIG_UPDATE_NOTIFIER=false NPM_CONFIG_FUND=false
)
for var in RUSTUP_HOME CARGO_HOME GOPATH GOMODCACHE GOCACHE; do
	if [[ -n "${!var:-}" ]]; then
		case_env+=("$var=${!var}")
	fi
done

# prepare_RUNNER DIR readies a case's copy before its command runs (not part
# of the output).
prepare_node_modules() { ln -s "$cache/npm/node_modules" "$1/node_modules"; }
prepare_vitest() { prepare_node_modules "$1"; }
prepare_jest() { prepare_node_modules "$1"; }
prepare_mocha() { prepare_node_modules "$1"; }
prepare_tsc() { prepare_node_modules "$1"; }
prepare_eslint() { prepare_node_modules "$1"; }
prepare_ctest() { (cd "$1" && env -i "${case_env[@]}" cmake -S . -B build -DCMAKE_BUILD_TYPE=Debug >/dev/null); }
prepare_junit() {
	(cd "$1" && env -i "${case_env[@]}" javac -d out -cp "$junit_api" $(find src test -name "*.java" | sort))
}

cases=()
# kase NAME RUNNER OVERLAYS COMMAND LABELCOMMAND: a case. OVERLAYS is a
# space-separated list of folders of projects/RUNNER copied over base. The
# label command runs after COMMAND in the same folder, with $L the folder
# for its artefacts.
kase() {
	cases+=("$1"$'\x1f'"$2"$'\x1f'"$3"$'\x1f'"$4"$'\x1f'"$5")
}
# shellcheck source=../internal/corpus/testdata/cases.sh
source "$src/cases.sh"

# run_case OUTDIR NAME RUNNER OVERLAYS COMMAND LABELCOMMAND
run_case() {
	local outdir="$1" name="$2" runner="$3" overlays="$4" command="$5" labelcmd="$6"
	# One folder for all the cases of a runner: the outputs name the same
	# paths, and the build caches (go's) find what an earlier case built.
	local dir="$work/$runner" dest="$outdir/$name" o code lcode start=$SECONDS
	rm -rf "$dir" "$dest"
	mkdir -p "$dir" "$dest" "$dest/.label"
	cp -a "$src/projects/$runner/base/." "$dir/"
	for o in $overlays; do
		[[ -d "$src/projects/$runner/$o" ]] || die "case $name: no overlay projects/$runner/$o"
		cp -a "$src/projects/$runner/$o/." "$dir/"
	done
	if declare -F "prepare_$runner" >/dev/null; then
		"prepare_$runner" "$dir" || die "case $name: preparing the project failed"
	fi
	code=0
	(cd "$dir" && env -i "${case_env[@]}" timeout 300 bash -c "$command" >"$dest/output" 2>&1 </dev/null) || code=$?
	lcode=0
	(cd "$dir" && env -i "${case_env[@]}" L="$dest/.label" T="$src/tools" timeout 300 bash -c "$labelcmd" \
		>"$dest/.label/stdout" 2>"$dest/.label/stderr" </dev/null) || lcode=$?
	printf '%s' "$command" >"$dest/command"
	printf '%s\n' "$code" >"$dest/exit"
	if ! python3 "$src/labels.py" "$runner" "$dir" "$dest" "$lcode" >"$dest/labels.json.tmp"; then
		cat "$dest/.label/stderr" >&2
		die "case $name: reading the labels failed (label command exited $lcode)"
	fi
	mv "$dest/labels.json.tmp" "$dest/labels.json"
	# The labelled run must agree with the one the user saw.
	if [[ "$command" != *"|"* ]] && (((code == 0) != (lcode == 0))); then
		die "case $name: the command exited $code but the label command $lcode"
	fi
	rm -rf "$dest/.label" "$dir"
	log "$(printf '%-34s %4ss  exit %3s  %s' "$name" "$((SECONDS - start))" "$code" "$(python3 -c 'import json,sys; d=json.load(open(sys.argv[1])); print("passed %(passed)d failed %(failed)d skipped %(skipped)d errors %(errors)d" % d)' "$dest/labels.json")")"
}

# ---------------------------------------------------------------------------
# Main

want_runners=("${all_runners[@]}")
outdir="$cache/cases"
if (($# > 0)); then
	want_runners=("$@")
	outdir="$cache/partial"
fi

mkdir -p "$cache"
exec 9>"$cache/.lock"
flock 9
mkdir -p "$work"
exec 8>"$work/.lock"
flock 8

runners=()
for r in "${want_runners[@]}"; do
	declare -F "have_$r" >/dev/null || die "unknown runner $r (known: ${all_runners[*]})"
	if ! "have_$r" && declare -F "install_$r" >/dev/null; then
		"install_$r" || true
	fi
	if "have_$r"; then
		runners+=("$r")
	elif [[ "${CI:-}" == "true" ]]; then
		die "runner $r is missing and could not be installed (CI=true)"
	else
		log "warning: skipping runner $r: it is missing and could not be installed"
	fi
done

key="$(
	{
		sha256sum <"${BASH_SOURCE[0]}"
		(cd "$src" && find . -type f -print0 | LC_ALL=C sort -z | xargs -0 sha256sum)
		for r in "${runners[@]}"; do printf '%s: %s\n' "$r" "$("version_$r")"; done
	} | sha256sum | cut -c1-64
)"
if [[ "$outdir" == "$cache/cases" && -f "$cache/key" && "$(cat "$cache/key")" == "$key" && -d "$outdir" ]]; then
	log "up to date ($(find "$outdir" -mindepth 1 -maxdepth 1 -type d | wc -l) cases)"
	printf '%s\n' "$outdir"
	exit 0
fi

log "building the corpus for: ${runners[*]}"
tmp="$outdir.tmp"
rm -rf "$tmp"
mkdir -p "$tmp"

# run_runner RUNNER runs the runner's cases one after the other.
run_runner() {
	local c name runner overlays command labelcmd
	for c in "${cases[@]}"; do
		IFS=$'\x1f' read -r name runner overlays command labelcmd <<<"$c"
		if [[ "$runner" == "$1" ]]; then
			run_case "$tmp" "$name" "$runner" "$overlays" "$command" "$labelcmd"
		fi
	done
}

# The runners in $CORPUS_JOBS lanes (default 2, the machine's cores), each
# lane's runners one after the other: cases of different runners use
# different folders, and no case's labels depend on its timing.
lanes="${CORPUS_JOBS:-2}"
pids=()
for ((lane = 0; lane < lanes; lane++)); do
	(
		for ((i = lane; i < ${#runners[@]}; i += lanes)); do
			run_runner "${runners[i]}"
		done
	) &
	pids+=($!)
done
status=0
for pid in "${pids[@]}"; do
	wait "$pid" || status=1
done
((status == 0)) || die "some cases failed (above)"
n="$(find "$tmp" -mindepth 1 -maxdepth 1 -type d | wc -l)"
rm -rf "$outdir"
mv "$tmp" "$outdir"
rm -rf "$work"/*
if [[ "$outdir" == "$cache/cases" ]]; then
	printf '%s\n' "$key" >"$cache/key"
fi
log "$n cases in $outdir"
printf '%s\n' "$outdir"
