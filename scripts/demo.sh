#!/usr/bin/env bash
# The demo, from a fresh clone on a fresh machine: two local Kafka clusters, sample traffic,
# Node-RED with this package and the readiness-dashboard example deployed (the full failover flow
# and a FlowFuse Dashboard 2.0 page of each group's failover readiness). Ctrl-C stops everything.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
ensure_java_maven
ensure_node_modules
ensure_dashboard
npm run build --silent
exec node scripts/demo.js "$@"
