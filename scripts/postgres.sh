#!/usr/bin/env bash
# A throwaway PostgreSQL 15 server for the tests of the team archive
# (internal/postgres, internal/team, the two-user end-to-end test).
#
#   scripts/postgres.sh start DIR   install Debian's postgresql-15 if missing, initdb in DIR,
#                                   start it on 127.0.0.1 on a free port (TLS on, self-signed);
#                                   prints the superuser's DSN on the last line of stdout
#   scripts/postgres.sh stop DIR    stop it (DIR is left for the caller to remove)
#
# PGOPTS adds server settings to the start ("-c shared_buffers=4GB …").
#
# The superuser (postgres) connects without a password over 127.0.0.1;
# every other role needs its password (scram-sha-256), so that the tests
# exercise ~/.pgpass and PGPASSWORD as users would. initdb refuses to run
# as root: as root, the server runs as the postgres user, which owns DIR.
# Progress goes to stderr.
set -euo pipefail

log() { printf 'postgres.sh: %s\n' "$*" >&2; }

bindir() {
	for d in /usr/lib/postgresql/15/bin; do
		if [[ -x "$d/initdb" ]]; then
			printf '%s\n' "$d"
			return 0
		fi
	done
	return 1
}

install() {
	if bindir >/dev/null; then
		return 0
	fi
	local sudo=""
	if [[ "$(id -u)" != 0 ]]; then
		command -v sudo >/dev/null || { log "error: installing postgresql-15 needs root"; return 1; }
		sudo="sudo"
	fi
	log "installing postgresql-15 with apt-get"
	export DEBIAN_FRONTEND=noninteractive
	$sudo apt-get update -qq >&2
	# Debian 12's postgresql-15 holds the contrib extensions (pg_trgm) itself.
	$sudo apt-get install -y -qq --no-install-recommends postgresql-15 >&2
	bindir >/dev/null
}

# as runs a command as the user owning the server: postgres when we are root.
as() {
	if [[ "$(id -u)" == 0 ]]; then
		runuser -u postgres -- "$@"
	else
		"$@"
	fi
}

free_port() {
	local port
	for _ in $(seq 1 50); do
		port=$((20000 + RANDOM % 20000))
		if ! (exec 3<>"/dev/tcp/127.0.0.1/$port") 2>/dev/null; then
			printf '%s\n' "$port"
			return 0
		fi
	done
	log "error: no free port found"
	return 1
}

start() {
	local dir="$1" bin port
	install
	bin="$(bindir)"
	mkdir -p "$dir"
	dir="$(cd "$dir" && pwd)"
	if [[ "$(id -u)" == 0 ]]; then
		chown postgres: "$dir"
		chmod 0700 "$dir"
	fi
	if [[ ! -f "$dir/data/PG_VERSION" ]]; then
		log "initdb in $dir/data"
		as "$bin/initdb" -D "$dir/data" -U postgres --auth-local=trust --auth-host=scram-sha-256 \
			--encoding=UTF8 --locale=C.UTF-8 >"$dir/initdb.log" 2>&1 || { cat "$dir/initdb.log" >&2; return 1; }
		# The superuser over TCP without a password; everyone else with theirs.
		as sh -c "printf 'host all postgres 127.0.0.1/32 trust\n%s\n' \"\$(cat '$dir/data/pg_hba.conf')\" > '$dir/data/pg_hba.tmp' && mv '$dir/data/pg_hba.tmp' '$dir/data/pg_hba.conf'"
		if command -v openssl >/dev/null; then
			as openssl req -new -x509 -days 2 -nodes -subj /CN=127.0.0.1 -keyout "$dir/data/server.key" \
				-out "$dir/data/server.crt" >/dev/null 2>&1 && as chmod 0600 "$dir/data/server.key" &&
				as sh -c "echo 'ssl = on' >> '$dir/data/postgresql.conf'"
		fi
	fi
	if [[ -f "$dir/port" ]] && as "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1; then
		port="$(cat "$dir/port")"
		log "already running on 127.0.0.1:$port"
		printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$port"
		return 0
	fi
	for _ in 1 2 3 4 5; do
		port="$(free_port)"
		if as "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
			-o "-p $port -c listen_addresses=127.0.0.1 -k $dir -c max_connections=200 ${PGOPTS:-}" start >&2; then
			printf '%s\n' "$port" >"$dir/port"
			log "started on 127.0.0.1:$port"
			printf 'postgres://postgres@127.0.0.1:%s/postgres?sslmode=disable\n' "$port"
			return 0
		fi
		log "start on port $port failed; trying another"
	done
	cat "$dir/server.log" >&2 || true
	return 1
}

stop() {
	local dir="$1" bin
	bin="$(bindir)"
	if [[ -f "$dir/data/postmaster.pid" ]]; then
		as "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >&2
	fi
}

case "${1:-}" in
start) start "${2:?usage: postgres.sh start DIR}" ;;
stop) stop "${2:?usage: postgres.sh stop DIR}" ;;
*)
	echo "usage: postgres.sh start DIR | stop DIR" >&2
	exit 2
	;;
esac
