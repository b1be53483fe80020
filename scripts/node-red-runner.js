'use strict';
/**
 * Starts a real Node-RED (the version in node_modules, or the one MM2_NODE_RED_DIR points at, run
 * by the Node.js MM2_NODE_BIN points at: see scripts/node-red-5.js) as a child process with this
 * package installed the way a user installs it (a package in the user dir's node_modules, here a
 * link to the repository, as `npm install <folder>` makes), for the demo, the tests and the benchmark.
 *
 *   const nr = await startNodeRed({ port: 0 });   // 0 = a free port
 *   await nr.deploy(flowArray);                    // POST /flows (full deploy; 'nodes' / 'flows' as 2nd argument)
 *   const st = await nr.watchStatuses();           // st.get(nodeId) -> { fill, shape, text } as the editor sees it
 *   nr.url                                         // http://127.0.0.1:<port>/
 *   await nr.stop();
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { freePort } = require('./kafka/cluster');
const { selectedNodeRed } = require('./node-red-5');
const { DASHBOARD_PACKAGE, DASHBOARD_VERSION, linkDashboard } = require('./dashboard');

const root = path.join(__dirname, '..');

function request(port, method, p, body, headers = {}) {
  return new Promise((resolve, reject) => {
    const data = body === undefined ? undefined : Buffer.from(typeof body === 'string' ? body : JSON.stringify(body));
    const req = http.request(
      { host: '127.0.0.1', port, method, path: p, headers: { ...(data ? { 'content-type': 'application/json', 'content-length': data.length } : {}), ...headers } },
      (res) => {
        const chunks = [];
        res.on('data', (c) => chunks.push(c));
        res.on('end', () => {
          const text = Buffer.concat(chunks).toString('utf8');
          let json;
          try {
            json = JSON.parse(text);
          } catch {
            json = undefined;
          }
          resolve({ status: res.statusCode, text, json });
        });
      },
    );
    req.on('error', reject);
    if (data) req.write(data);
    req.end();
  });
}

/**
 * The statuses the runtime publishes to the editor, read from its comms WebSocket (/comms, the one
 * the editor opens): the latest status of each node by id, retained ones included. A minimal
 * RFC 6455 client (text frames, ping, close), so it runs on every Node.js the tests use.
 * @param {number} port
 * `history()` is every status published since the watch began, in order.
 * @returns {Promise<{ get(id: string): { fill?: string, shape?: string, text?: string } | undefined, all(): Record<string, any>, history(): Array<{ id: string, status: { fill?: string, shape?: string, text?: string }, at: number }>, reset(): void, close(): void }>}
 */
function watchStatuses(port) {
  const crypto = require('node:crypto');
  const statuses = new Map();
  /** every status published, in order: { id, status, at } */
  const history = [];
  return new Promise((resolve, reject) => {
    const req = http.request({
      host: '127.0.0.1', port, path: '/comms',
      headers: { Connection: 'Upgrade', Upgrade: 'websocket', 'Sec-WebSocket-Version': '13', 'Sec-WebSocket-Key': crypto.randomBytes(16).toString('base64') },
    });
    req.on('error', reject);
    req.on('response', (res) => reject(new Error(`/comms answered ${res.statusCode}, not a WebSocket upgrade`)));
    req.on('upgrade', (_res, socket, head) => {
      /** a masked client frame (RFC 6455 5.3) */
      const send = (opcode, payload) => {
        const mask = crypto.randomBytes(4);
        const len = payload.length;
        const header = len < 126 ? Buffer.from([0x80 | opcode, 0x80 | len])
          : Buffer.concat([Buffer.from([0x80 | opcode, 0x80 | 126]), Buffer.from([len >> 8, len & 255])]);
        const body = Buffer.from(payload.map((b, i) => b ^ mask[i % 4]));
        socket.write(Buffer.concat([header, mask, body]));
      };
      const onText = (text) => {
        let msgs;
        try {
          msgs = JSON.parse(text);
        } catch {
          return;
        }
        for (const m of Array.isArray(msgs) ? msgs : [msgs]) {
          if (m && typeof m.topic === 'string' && m.topic.startsWith('status/')) {
            statuses.set(m.topic.slice('status/'.length), m.data);
            history.push({ id: m.topic.slice('status/'.length), status: m.data, at: Date.now() });
          }
        }
      };
      let buf = head;
      let parts = [];
      socket.on('data', (d) => {
        buf = Buffer.concat([buf, d]);
        for (;;) {
          if (buf.length < 2) return;
          const fin = (buf[0] & 0x80) !== 0;
          const opcode = buf[0] & 0x0f;
          let len = buf[1] & 0x7f;
          let at = 2;
          if (len === 126) {
            if (buf.length < 4) return;
            len = buf.readUInt16BE(2);
            at = 4;
          } else if (len === 127) {
            if (buf.length < 10) return;
            len = Number(buf.readBigUInt64BE(2));
            at = 10;
          }
          if (buf.length < at + len) return;
          const payload = buf.subarray(at, at + len);
          buf = buf.subarray(at + len);
          if (opcode === 0x9) send(0xa, payload); // ping -> pong
          else if (opcode === 0x8) socket.end();
          else if (opcode === 0x1 || opcode === 0x0) {
            parts.push(payload);
            if (fin) {
              onText(Buffer.concat(parts).toString('utf8'));
              parts = [];
            }
          }
        }
      });
      socket.on('error', () => { /* the runtime stopping ends the socket */ });
      send(0x1, Buffer.from(JSON.stringify({ subscribe: 'status/#' })));
      resolve({
        get: (id) => statuses.get(id),
        all: () => Object.fromEntries(statuses),
        history: () => history.slice(),
        reset: () => statuses.clear(),
        close: () => socket.destroy(),
      });
    });
    req.end();
  });
}

/**
 * `linkPackage: false` leaves the user dir's packages as they are (a package installed there
 * with npm, as a user installs it); by default the repository is linked in. `dashboard: true`
 * also installs FlowFuse Dashboard 2.0 (scripts/dashboard.js: from the npm registry into the
 * cache, once) in the user dir, for the readiness-dashboard example.
 * `lang`: the runtime's language (Node-RED's `lang` setting: its log lines and the nodes' statuses), e.g. 'zh-CN'.
 * `onWarning(text)`: with `quiet`, called with each warning or error Node-RED logs (its
 * `[warn]`/`[error]` line and the lines that follow it until the next log line, e.g. a stack).
 * @param {{port?: number, userDir?: string, flows?: object[], env?: object, logLevel?: string, quiet?: boolean, linkPackage?: boolean, dashboard?: boolean, onWarning?: (text: string) => void, lang?: string}} opts
 */
async function startNodeRed(opts = {}) {
  const port = opts.port || (await freePort());
  const userDir = opts.userDir || fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-node-red-'));
  if (opts.linkPackage !== false) {
    const modDir = path.join(userDir, 'node_modules', '@kafka-mm2');
    fs.mkdirSync(modDir, { recursive: true });
    const link = path.join(modDir, 'node-red');
    if (!fs.existsSync(link)) fs.symlinkSync(root, link, 'dir');
    /** @type {Record<string, string>} */
    const dependencies = { '@kafka-mm2/node-red': `file:${root}` };
    if (opts.dashboard) {
      linkDashboard(userDir);
      dependencies[DASHBOARD_PACKAGE] = DASHBOARD_VERSION;
    }
    fs.writeFileSync(path.join(userDir, 'package.json'), JSON.stringify({ name: 'node-red-project', private: true, dependencies }, null, 2));
  } else if (opts.dashboard) {
    linkDashboard(userDir);
  }
  const flowFile = path.join(userDir, 'flows.json');
  if (opts.flows) fs.writeFileSync(flowFile, JSON.stringify(opts.flows, null, 2));
  fs.writeFileSync(
    path.join(userDir, 'settings.js'),
    `module.exports = ${JSON.stringify({
      uiHost: '127.0.0.1',
      uiPort: port,
      flowFile: 'flows.json',
      credentialSecret: false,
      nodeCloseTimeout: 15000,
      diagnostics: { enabled: false },
      telemetry: { enabled: false },
      externalModules: { autoInstall: false, palette: { allowInstall: false } },
      editorTheme: { tours: false, projects: { enabled: false }, palette: { catalogues: [] } },
      logging: { console: { level: opts.logLevel || 'info', metrics: false, audit: false } },
      ...(opts.lang ? { lang: opts.lang } : {}),
    }, null, 2)};\n`,
  );
  const selected = selectedNodeRed();
  const child = spawn(selected.node, [selected.redJs, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], {
    env: { ...process.env, NODE_RED_ENABLE_TOURS: 'false', ...(opts.env || {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const warnings = opts.onWarning ? warningLines(opts.onWarning) : null;
  const onData = (d) => {
    log += d;
    if (log.length > 2_000_000) log = log.slice(-1_000_000);
    if (!opts.quiet) process.stdout.write(d);
    else if (warnings) warnings(String(d));
  };
  child.stdout.on('data', onData);
  child.stderr.on('data', onData);
  const killOnExit = () => {
    try { child.kill('SIGKILL'); } catch { /* ignore */ }
  };
  process.on('exit', killOnExit);

  const deadline = Date.now() + 60000;
  const failStart = async (text) => {
    // a start that fails (or is interrupted by a Ctrl-C) leaves no process and no folder behind
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      child.kill('SIGKILL');
      await new Promise((r) => child.once('exit', r));
    }
    if (!opts.userDir) fs.rmSync(userDir, { recursive: true, force: true });
    throw new Error(text);
  };
  for (;;) {
    if (child.exitCode !== null || child.signalCode !== null) await failStart(`Node-RED exited (${child.exitCode ?? child.signalCode}):\n${log}`);
    try {
      const r = await request(port, 'GET', '/settings');
      const f = r.status === 200 ? await request(port, 'GET', '/flows', undefined, { 'Node-RED-API-Version': 'v2' }) : null;
      if (f && f.status === 200 && f.json && Array.isArray(f.json.flows)) break;
    } catch {
      /* not listening yet */
    }
    if (Date.now() > deadline) await failStart(`Node-RED did not start within 60 s:\n${log}`);
    await new Promise((r) => setTimeout(r, 250));
  }

  return {
    port,
    url: `http://127.0.0.1:${port}/`,
    /** the Node-RED package folder and the Node.js executable this process runs */
    nodeRedDir: selected.nodeRedDir,
    node: selected.node,
    userDir,
    process: child,
    get log() {
      return log;
    },
    request: (method, p, body, headers) => request(port, method, p, body, headers),
    watchStatuses: () => watchStatuses(port),
    /** `type`: 'full' (every node restarts), 'nodes' (only the changed nodes) or 'flows' (only the changed flows), as the editor's Deploy menu. */
    async deploy(flows, type = 'full') {
      const r = await request(port, 'POST', '/flows', flows, { 'Node-RED-Deployment-Type': type, 'Node-RED-API-Version': 'v1' });
      if (r.status !== 204 && r.status !== 200) throw new Error(`deploy failed: ${r.status} ${r.text}`);
      return r;
    },
    stop() {
      return new Promise((resolve) => {
        process.off('exit', killOnExit);
        // the user dir goes also when Node-RED already exited (a Ctrl-C reaches it too)
        const done = () => {
          if (!opts.userDir) fs.rmSync(userDir, { recursive: true, force: true });
          resolve();
        };
        if (child.exitCode !== null || child.signalCode !== null) return done();
        const t = setTimeout(() => child.kill('SIGKILL'), 20000);
        child.once('exit', () => {
          clearTimeout(t);
          done();
        });
        child.kill('SIGINT');
      });
    },
  };
}

/** A Node-RED log line: `3 Dec 21:05:01 - [warn] ...` (its level in brackets after the time). */
const LOG_LINE = /^\d{1,2} \w{3} \d{2}:\d{2}:\d{2} - \[(\w+)\]/;

/**
 * Splits Node-RED's output into log entries and calls `emit` with each warning or error entry:
 * its `[warn]`/`[error]` line and any lines that follow it up to the next log line (a stack, a
 * multi-line message). Output may arrive in chunks that cut lines: a partial line waits for its end.
 * @param {(text: string) => void} emit
 */
function warningLines(emit) {
  let partial = '';
  /** @type {string[] | null} */
  let entry = null;
  const flush = () => {
    if (entry) emit(entry.join('\n'));
    entry = null;
  };
  let timer = null;
  return (chunk) => {
    const lines = (partial + chunk).split('\n');
    partial = lines.pop() || '';
    for (const line of lines) {
      const m = LOG_LINE.exec(line);
      if (m) {
        flush();
        if (m[1] === 'warn' || m[1] === 'error') entry = [line];
      } else if (entry && line.trim() !== '') {
        entry.push(line);
      }
    }
    // an entry's continuation usually comes in the same chunk: emit it once the output pauses
    if (timer) clearTimeout(timer);
    timer = setTimeout(flush, 200);
    timer.unref();
  };
}

module.exports = { startNodeRed, freePort, warningLines };
