#!/usr/bin/env bash
# Runs every test, from a fresh clone on a fresh machine: installs what the tests need
# (npm packages; Java 17 and Maven, from Debian when root; Kafka's jars from Maven Central;
# Debian's chromium for the browser test when root), builds, then runs unit tests and
# integration tests against real Kafka brokers.
set -euo pipefail
cd "$(dirname "$0")/.."
source scripts/prereqs.sh
ensure_java_maven
ensure_chromium
ensure_node_modules
npm test
