#!/bin/bash
# The stand-in postgres image's entrypoint (postgres.Dockerfile): what the official image's does for PlantGuide's
# compose file. As root it reads the password, takes ownership of the data folder and runs itself again as
# postgres; on an empty data folder it makes the cluster (SCRAM for connections over the network) and the database.
set -euo pipefail
if [ "${1:-}" != postgres ]; then exec "$@"; fi
if [ -n "${POSTGRES_PASSWORD_FILE:-}" ]; then
  POSTGRES_PASSWORD=$(cat "$POSTGRES_PASSWORD_FILE")
  export POSTGRES_PASSWORD
  unset POSTGRES_PASSWORD_FILE
fi
if [ "$(id -u)" = 0 ]; then
  mkdir -p "$PGDATA" && chown -R postgres:postgres "$PGDATA" && chmod 700 "$PGDATA"
  exec setpriv --reuid=postgres --regid=postgres --init-groups "$0" "$@"
fi
user=${POSTGRES_USER:-postgres}
if [ ! -s "$PGDATA/PG_VERSION" ]; then
  [ -n "${POSTGRES_PASSWORD:-}" ] || { echo "postgres: set POSTGRES_PASSWORD or POSTGRES_PASSWORD_FILE" >&2; exit 1; }
  initdb --username="$user" --pwfile=<(printf '%s\n' "$POSTGRES_PASSWORD") --auth-local=trust \
         --auth-host=scram-sha-256 -D "$PGDATA" >/dev/null
  echo "host all all all scram-sha-256" >> "$PGDATA/pg_hba.conf"
  pg_ctl -D "$PGDATA" -o "-c listen_addresses=''" -w start >/dev/null
  database=${POSTGRES_DB:-$user}
  [ "$database" = postgres ] || psql -v ON_ERROR_STOP=1 --username "$user" --dbname postgres -q \
    -c "CREATE DATABASE \"$database\""
  pg_ctl -D "$PGDATA" -m fast -w stop >/dev/null
  echo "postgres: made the cluster and the database $database"
fi
unset POSTGRES_PASSWORD
exec "$@" -c listen_addresses='*'
