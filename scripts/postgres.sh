#!/usr/bin/env bash
# A throwaway PostgreSQL for the tests: installs Debian's postgresql if needed, then initdb + pg_ctl
# into DIR as a non-root user, listening on a Unix socket in DIR and on a free 127.0.0.1 port (kept in DIR/port).
#   scripts/postgres.sh start DIR | stop DIR | url DIR
set -euo pipefail
cmd=${1:?usage: postgres.sh start|stop|url DIR}
dir=${2:?usage: postgres.sh start|stop|url DIR}
port_file="$dir/port"

free_port() {
  python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])'
}

find_bin() {
  local d
  for d in /usr/lib/postgresql/*/bin; do
    [ -x "$d/initdb" ] && { echo "$d"; return 0; }
  done
  return 1
}

ensure_installed() {
  find_bin >/dev/null && return 0
  echo "postgres.sh: installing Debian's postgresql" >&2
  if [ "$(id -u)" = 0 ]; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  else
    sudo apt-get update -qq && sudo DEBIAN_FRONTEND=noninteractive apt-get install -y -qq postgresql >/dev/null
  fi
  # The package's own cluster is not ours: leave it stopped.
  (command -v pg_ctlcluster >/dev/null && pg_ctlcluster --force 15 main stop 2>/dev/null) || true
  find_bin >/dev/null
}

# initdb refuses to run as root: run as the `postgres` user the package creates.
as_pg() {
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}

case "$cmd" in
  start)
    ensure_installed
    bin=$(find_bin)
    mkdir -p "$dir"
    [ "$(id -u)" = 0 ] && chown postgres: "$dir"
    if [ ! -f "$dir/data/PG_VERSION" ]; then
      as_pg "$bin/initdb" -D "$dir/data" -U outrider --auth=trust -E UTF8 --no-locale >/dev/null
    fi
    if as_pg "$bin/pg_ctl" -D "$dir/data" status >/dev/null 2>&1 && [ -f "$port_file" ]; then
      port=$(cat "$port_file")
      echo "postgres.sh: already running" >&2
    else
      # A free port each start, so a second checkout (or a leftover server) never collides.
      port=${OUTRIDER_TEST_PG_PORT:-$(free_port)}
      echo "$port" > "$port_file"
      as_pg "$bin/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -t 60 \
        -o "-k $dir -p $port -c listen_addresses=127.0.0.1 -c fsync=off -c max_connections=300" start >/dev/null
    fi
    as_pg "$bin/psql" -h "$dir" -p "$port" -U outrider -d postgres -Atqc \
      "SELECT 1 FROM pg_database WHERE datname='outrider'" | grep -q 1 ||
      as_pg "$bin/psql" -h "$dir" -p "$port" -U outrider -d postgres -qc "CREATE DATABASE outrider" >/dev/null
    echo "postgres.sh: PostgreSQL ready on 127.0.0.1:$port" >&2
    ;;
  stop)
    bin=$(find_bin) || exit 0
    [ -f "$dir/data/PG_VERSION" ] && as_pg "$bin/pg_ctl" -D "$dir/data" -m fast -w stop >/dev/null 2>&1 || true
    ;;
  url)
    echo "postgresql+psycopg://outrider@127.0.0.1:$(cat "$port_file")/outrider"
    ;;
  *) echo "usage: postgres.sh start|stop|url DIR" >&2; exit 2 ;;
esac
