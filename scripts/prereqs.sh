# Shared by scripts/test.sh and scripts/demo.sh: install what is missing, say what cannot be.
ensure_java_maven() {
  if ! command -v java >/dev/null || ! command -v mvn >/dev/null; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing Java 17 and Maven from Debian's packages"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq openjdk-17-jre-headless maven >/dev/null
    else
      echo "Java 17 and Maven are needed to run Kafka brokers (they resolve Kafka's jars from Maven Central)." >&2
      exit 1
    fi
  fi
}
ensure_node_modules() {
  # npm ci when node_modules is missing or older than the lock file; it also builds (prepare).
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
}
