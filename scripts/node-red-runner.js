'use strict';
/**
 * Starts a real Node-RED (the version in node_modules) as a child process with this package
 * installed the way a user installs it (a package in the user dir's node_modules, here a link to
 * the repository), for the demo, the browser test and the benchmark.
 *
 *   const nr = await startNodeRed({ port: 0 });   // 0 = a free port
 *   await nr.deploy(flowArray);                    // POST /flows (full deploy)
 *   nr.url                                         // http://127.0.0.1:<port>/
 *   await nr.stop();
 */
const { spawn } = require('node:child_process');
const fs = require('node:fs');
const os = require('node:os');
const path = require('node:path');
const http = require('node:http');
const { freePort } = require('./kafka/cluster');

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
 * `linkPackage: false` leaves the user dir's packages as they are (a package installed there
 * with npm, as a user installs it); by default the repository is linked in.
 * @param {{port?: number, userDir?: string, flows?: object[], env?: object, logLevel?: string, quiet?: boolean, linkPackage?: boolean}} opts
 */
async function startNodeRed(opts = {}) {
  const port = opts.port || (await freePort());
  const userDir = opts.userDir || fs.mkdtempSync(path.join(os.tmpdir(), 'mm2-node-red-'));
  if (opts.linkPackage !== false) {
    const modDir = path.join(userDir, 'node_modules', '@kafka-mm2');
    fs.mkdirSync(modDir, { recursive: true });
    const link = path.join(modDir, 'node-red');
    if (!fs.existsSync(link)) fs.symlinkSync(root, link, 'dir');
    fs.writeFileSync(
      path.join(userDir, 'package.json'),
      JSON.stringify({ name: 'node-red-project', private: true, dependencies: { '@kafka-mm2/node-red': `file:${root}` } }, null, 2),
    );
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
    }, null, 2)};\n`,
  );
  const redJs = require.resolve('node-red/red.js');
  const child = spawn(process.execPath, [redJs, '--userDir', userDir, '--settings', path.join(userDir, 'settings.js')], {
    env: { ...process.env, NODE_RED_ENABLE_TOURS: 'false', ...(opts.env || {}) },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let log = '';
  const onData = (d) => {
    log += d;
    if (log.length > 2_000_000) log = log.slice(-1_000_000);
    if (!opts.quiet) process.stdout.write(d);
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
    userDir,
    process: child,
    get log() {
      return log;
    },
    request: (method, p, body, headers) => request(port, method, p, body, headers),
    async deploy(flows) {
      const r = await request(port, 'POST', '/flows', flows, { 'Node-RED-Deployment-Type': 'full', 'Node-RED-API-Version': 'v1' });
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

module.exports = { startNodeRed, freePort };
