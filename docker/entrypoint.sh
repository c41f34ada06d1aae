#!/bin/sh
# Starts one Assay service (TypeScript run directly by tsx). The service is the
# first argument, else $SERVICE:
#   assay-entrypoint gateway             the gateway
#   assay-entrypoint auth migrate        auth's schema to its latest migration, then exit
#   SERVICE=auth assay-entrypoint        same as `assay-entrypoint auth`
# Remaining arguments are passed to the service.
set -eu
cd "${ASSAY_APP_DIR:-/app}"
case "${1:-}" in
  ""|-*|migrate) ;;
  *) SERVICE=$1; shift ;;
esac
: "${SERVICE:?name a service (first argument or SERVICE): gateway, auth, test-case, execution-runner, discovery-crawler, analysis or webhook-dispatcher}"
main="services/$SERVICE/src/main.ts"
if [ ! -f "$main" ]; then
  echo "assay: unknown service '$SERVICE' (no $main in this image); available:" >&2
  for d in services/*/src/main.ts; do [ -f "$d" ] && echo "  $(basename "$(dirname "$(dirname "$d")")")" >&2; done
  exit 64
fi
if [ "${1:-}" = "migrate" ]; then
  shift
  if [ ! -f "services/$SERVICE/src/migrate.ts" ]; then
    echo "assay: $SERVICE has no database schema to migrate" >&2
    exit 64
  fi
  exec node_modules/.bin/tsx "services/$SERVICE/src/migrate.ts" "$@"
fi
exec node --import tsx --import ./libs/telemetry/src/register.ts "$main" "$@"
