#!/bin/sh
# Starts the Assay service named by $SERVICE (TypeScript run directly by tsx).
# Extra arguments are passed to the service.
set -eu
cd /app
: "${SERVICE:?SERVICE must name a service: gateway, auth, test-case, execution-runner, discovery-crawler, analysis or webhook-dispatcher}"
main="services/$SERVICE/src/main.ts"
if [ ! -f "$main" ]; then
  echo "assay: unknown SERVICE '$SERVICE' (no $main in this image); available:" >&2
  for d in services/*/src/main.ts; do [ -f "$d" ] && echo "  $(basename "$(dirname "$(dirname "$d")")")" >&2; done
  exit 64
fi
exec node --import tsx --import ./libs/telemetry/src/register.ts "$main" "$@"
