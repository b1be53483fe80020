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
  # npm ci when node_modules is missing or older than the lock file (the callers build: the package builds at prepack).
  # A node_modules that is a symbolic link (a second working tree sharing the first one's) is
  # left alone: npm ci would empty the tree it points to.
  if [ -L node_modules ]; then return 0; fi
  if [ ! -d node_modules ] || [ package-lock.json -nt node_modules/.package-lock.json ]; then
    npm ci --no-audit --no-fund
  fi
}
ensure_chromium() {
  # The browser test drives Debian's Chromium with playwright-core (no browser download).
  if [ ! -x /usr/bin/chromium ] && [ -z "${CHROMIUM_PATH:-}" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing Debian's chromium for the browser test"
      apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
    else
      echo "note: no Chromium at /usr/bin/chromium and not root: the browser test will be skipped (install Debian's 'chromium')" >&2
    fi
  fi
  # the zh-CN screenshots need a Chinese font (without one Chromium draws empty boxes)
  if command -v fc-list >/dev/null && [ -z "$(fc-list :lang=zh 2>/dev/null)" ]; then
    if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null; then
      echo "installing a Chinese font (fonts-wqy-zenhei) for the zh-CN screenshots"
      DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-zenhei >/dev/null || { apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-wqy-zenhei >/dev/null; }
    else
      echo "note: no Chinese font: the browser test's zh-CN check fails (install Debian's 'fonts-wqy-zenhei')" >&2
    fi
  fi
}
ensure_node_red_5() {
  # The Node-RED 5 run: Node.js 22 (the npm `node` package) and Node-RED 5, installed with
  # `npm install --prefix` into a private folder of the cache (the system Node.js stays as it is);
  # once, later runs find them there. Exits when they cannot be installed: that run never skips.
  if ! node scripts/node-red-5.js; then
    echo "cannot install Node.js 22 and Node-RED 5 for the Node-RED 5 test run (see above)" >&2
    exit 1
  fi
}
ensure_dashboard() {
  # FlowFuse Dashboard 2.0 for the readiness-dashboard example (the demo deploys it, the tests open
  # it): installed from the npm registry by `npm install --prefix` into a private folder of the
  # cache, once, and linked into each Node-RED user folder. It is the example's dependency, not the
  # package's. Exits when it cannot be installed: the tests that need it would fail.
  if ! node scripts/dashboard.js; then
    echo "cannot install @flowfuse/node-red-dashboard for the readiness-dashboard example (see above)" >&2
    exit 1
  fi
}
