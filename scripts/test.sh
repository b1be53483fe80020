#!/usr/bin/env bash
# Runs every test, from a fresh clone on a fresh machine: installs what the tests need
# (npm packages; Java 17 and Maven, from Debian when root; Kafka's jars from Maven Central;
# Debian's chromium for the browser test when root; Node.js 22 and Node-RED 5 from the npm
# registry into a private prefix of the cache; FlowFuse Dashboard 2.0 for the readiness-dashboard
# example, from the npm registry into the cache), builds, then runs unit tests and integration
# tests against real Kafka brokers, and the Node-RED 5 run.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
ensure_java_maven
ensure_chromium
ensure_node_modules
ensure_node_red_5
ensure_dashboard
npm test
