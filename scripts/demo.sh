#!/usr/bin/env bash
# The demo, from a fresh clone on a fresh machine: two local Kafka clusters, sample traffic,
# Node-RED with this package and the full failover example deployed. Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
ensure_java_maven
ensure_node_modules
npm run build --silent
exec node scripts/demo.js "$@"
