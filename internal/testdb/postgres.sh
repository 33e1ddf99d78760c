#!/usr/bin/env bash
# PostgreSQL for the tests (make postgres). Usage: postgres.sh start URLFILE | stop URLFILE
#
# start: when a server answers at ANSWERDESK_TEST_POSTGRES (default: the local one,
# postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable), writes that URL to URLFILE.
# Otherwise installs Debian's postgresql with apt (through sudo when not root) if initdb is
# missing, starts a throwaway cluster in a temporary directory on a free loopback port (as
# the postgres user when run as root: initdb refuses root), and writes its URL to URLFILE
# and its directory to URLFILE.dir. stop: stops and deletes a cluster that start made.
set -euo pipefail

cmd=${1:?usage: postgres.sh start|stop URLFILE}
urlfile=${2:?usage: postgres.sh start|stop URLFILE}
url=${ANSWERDESK_TEST_POSTGRES:-postgres://postgres@127.0.0.1:5432/postgres?sslmode=disable}

# as_owner runs a command as the cluster's owner: the postgres user when root.
as_owner() {
	if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

answers() { # URL: whether a PostgreSQL server accepts a connection there
	if command -v psql >/dev/null 2>&1; then
		PGCONNECT_TIMEOUT=3 psql "$1" -Atqc 'SELECT 1' >/dev/null 2>&1
	else
		local hostport=${1#*@}
		hostport=${hostport%%/*}
		timeout 3 bash -c "exec 3<>/dev/tcp/${hostport%:*}/${hostport##*:}" 2>/dev/null
	fi
}

case $cmd in
stop)
	dir=$(cat "$urlfile.dir" 2>/dev/null || true)
	if [ -n "$dir" ] && [ -d "$dir" ]; then
		bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)
		as_owner "$bin/pg_ctl" -D "$dir/data" -m fast stop >/dev/null 2>&1 || true
		rm -rf "$dir"
		echo "postgres: stopped the throwaway cluster in $dir"
	fi
	rm -f "$urlfile" "$urlfile.dir"
	exit 0
	;;
start) ;;
*)
	echo "usage: postgres.sh start|stop URLFILE" >&2
	exit 2
	;;
esac

mkdir -p "$(dirname "$urlfile")"
if [ -f "$urlfile" ] && answers "$(cat "$urlfile")"; then
	echo "postgres: using $(cat "$urlfile")"
	exit 0
fi
if answers "$url"; then
	echo "$url" >"$urlfile"
	rm -f "$urlfile.dir"
	echo "postgres: a server answers at ${url%%\?*}"
	exit 0
fi

echo "postgres: no server answers at ${url%%\?*}: starting a throwaway cluster"
if ! ls /usr/lib/postgresql/*/bin/initdb >/dev/null 2>&1; then
	sudo=
	if [ "$(id -u)" != 0 ] && command -v sudo >/dev/null 2>&1; then sudo=sudo; fi
	echo "postgres: installing Debian's postgresql with apt-get"
	$sudo apt-get update
	$sudo env DEBIAN_FRONTEND=noninteractive apt-get install -y --no-install-recommends postgresql
fi
bin=$(ls -d /usr/lib/postgresql/*/bin | sort -V | tail -1)

port=
for p in $(seq 55432 55531); do
	if ! timeout 1 bash -c "exec 3<>/dev/tcp/127.0.0.1/$p" 2>/dev/null; then
		port=$p
		break
	fi
done
[ -n "$port" ] || { echo "postgres: no free port in 55432-55531" >&2; exit 1; }

dir=$(mktemp -d /tmp/answerdesk-pg.XXXXXX)
chmod 755 "$dir"
if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
as_owner "$bin/initdb" -D "$dir/data" -U postgres -A trust -E UTF8 --no-sync >"$dir/initdb.log"
# fsync off: a throwaway cluster for tests, where speed matters and a crash loses nothing.
as_owner "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w \
	-o "-p $port -k $dir -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=300" start >/dev/null
url="postgres://postgres@127.0.0.1:$port/postgres?sslmode=disable"
echo "$url" >"$urlfile"
echo "$dir" >"$urlfile.dir"
echo "postgres: a throwaway cluster serves $url (data in $dir; make postgres-stop removes it)"
