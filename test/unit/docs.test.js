'use strict';
/**
 * The README and the pages of docs/ as a reader gets them: every link is either relative to a file
 * of this repository that exists (with its heading, when it names one) or an https address of a
 * public site (an address of this repository's own files on GitHub names a file that exists); the
 * README links only absolutely (npm and the Flow Library resolve no relative link) and reaches
 * every docs page; nothing points outside the repository (../shared) or at a local address. The
 * README's troubleshooting quotes ten messages, each as the en-US catalogue words it.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');
const { links, anchors, section } = require('../harness/markdown');

const root = path.join(__dirname, '..', '..');
const pkg = require(path.join(root, 'package.json'));
const { catalogFiles, catalogPath } = require('../harness/layout');
const repo = /github\.com[/:]([^/]+\/[^/.]+)/.exec(pkg.repository.url)[1];
const docs = fs.readdirSync(path.join(root, 'docs')).filter((f) => f.endsWith('.md')).sort().map((f) => `docs/${f}`);
const pages = ['README.md', ...docs];
const read = (file) => fs.readFileSync(path.join(root, file), 'utf8');

/** This repository's own files on GitHub: the file's path in the repository and its anchor, or null for any other address. */
function ownFile(url) {
  const esc = repo.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
  const m = new RegExp(`^https://(?:github\\.com/${esc}/(?:blob|tree|raw)/main|raw\\.githubusercontent\\.com/${esc}/main)/([^#?]*)(?:#(.*))?$`).exec(url);
  return m ? { file: decodeURIComponent(m[1]), anchor: m[2] } : null;
}

/** A host no reader outside this machine or network can reach. */
function localHost(host) {
  return /^(localhost|0\.0\.0\.0|127\.\d+\.\d+\.\d+|10\.\d+\.\d+\.\d+|192\.168\.\d+\.\d+|172\.(1[6-9]|2\d|3[01])\.\d+\.\d+|\[::1?\])$/i.test(host)
    || /\.(local|localhost|internal|invalid|test|example)$/i.test(host)
    || /(^|\.)example\.(com|org|net)$/i.test(host);
}

/** Why a link of `file` does not lead anywhere a reader can follow, or null when it does. */
function problem(file, url) {
  const anchorIn = (target, anchor) => (anchor === undefined || anchor === '' || !target.endsWith('.md') || anchors(read(target)).has(anchor)
    ? null : `${target} has no heading #${anchor}`);
  if (url.startsWith('#')) return anchorIn(file, url.slice(1));
  if (/^[a-z][a-z\d+.-]*:/i.test(url)) {
    if (!/^https:\/\//i.test(url)) return 'not an https address';
    let host;
    try {
      host = new URL(url).hostname;
    } catch {
      return 'not a well-formed address';
    }
    if (localHost(host)) return `${host} is not a public site`;
    const own = ownFile(url);
    if (own) {
      if (!own.file || !fs.existsSync(path.join(root, own.file))) return `${own.file}: no such file in the repository`;
      return anchorIn(own.file, own.anchor);
    }
    return null;
  }
  if (file === 'README.md') return 'relative: npm and the Flow Library do not resolve it; give the GitHub address, as the images';
  const [rel, anchor] = url.split('#');
  const target = path.relative(root, path.resolve(path.dirname(path.join(root, file)), decodeURIComponent(rel)));
  if (target.startsWith('..') || path.isAbsolute(target)) return 'leaves the repository';
  if (!fs.existsSync(path.join(root, target))) return `${target}: no such file in the repository`;
  return anchorIn(target.split(path.sep).join('/'), anchor);
}

describe('README and docs/: links', function () {
  it('the docs pages exist and the README is short', function () {
    assert.ok(docs.length >= 5, docs.join(', '));
    const lines = read('README.md').split('\n').length;
    assert.ok(lines <= 200, `README.md has ${lines} lines (one screen: 200 at most)`);
  });

  for (const file of pages) {
    it(`${file}: every link is relative to a file that exists, or an https address of a public site`, function () {
      const text = read(file);
      const found = links(text);
      assert.ok(found.length > 0, `${file} links somewhere`);
      const bad = found.map((url) => [url, problem(file, url)]).filter(([, why]) => why).map(([url, why]) => `${url}: ${why}`);
      assert.deepEqual(bad, []);
      assert.doesNotMatch(text, /\.\.\/shared\b/, 'nothing outside the repository (../shared)');
    });
  }

  it('the README links every docs page', function () {
    const targets = new Set(links(read('README.md')).map((url) => ownFile(url)?.file).filter(Boolean));
    assert.deepEqual(docs.filter((d) => !targets.has(d)), []);
  });

  it('catches what it must: a relative README link, a local address, a missing file or heading, a page outside the repository', function () {
    assert.match(problem('README.md', 'docs/failover.md'), /relative/);
    assert.match(problem('docs/failover.md', 'http://127.0.0.1:1880/'), /https/);
    assert.match(problem('docs/failover.md', 'https://localhost:1880/'), /public/);
    assert.match(problem('docs/failover.md', 'https://10.0.0.5/x'), /public/);
    assert.match(problem('docs/failover.md', 'missing.md'), /no such file/);
    assert.match(problem('docs/failover.md', '../../shared/mm2-spec.md'), /leaves the repository/);
    assert.match(problem('docs/failover.md', 'security.md#no-such-heading'), /no heading/);
    assert.match(problem('README.md', `https://github.com/${repo}/blob/main/docs/missing.md`), /no such file/);
    assert.match(problem('README.md', '#no-such-heading'), /no heading/);
    assert.equal(problem('docs/failover.md', 'security.md#acls-per-node'), null);
    assert.equal(problem('README.md', `https://github.com/${repo}/blob/main/docs/security.md#acls-per-node`), null);
    assert.deepEqual(links('see `[x](../shared/a.md)` and\n```\nhttp://127.0.0.1\n```\n'), [], 'code is not read');
  });
});

/** Every message of the en-US catalogues: its key and its words. */
function catalogue() {
  const out = [];
  const walk = (o, prefix) => {
    for (const [k, v] of Object.entries(o)) {
      if (v && typeof v === 'object') walk(v, `${prefix}${k}.`);
      else if (typeof v === 'string') out.push({ key: `${prefix}${k}`, text: v });
    }
  };
  for (const f of catalogFiles('en-US')) walk(JSON.parse(fs.readFileSync(catalogPath('en-US', f), 'utf8')), '');
  return out;
}

/** A catalogue message as a pattern: each `__name__` stands for what the node puts there. */
function pattern(text) {
  const parts = text.split(/__[A-Za-z][A-Za-z0-9]*__/);
  return new RegExp(`^${parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('.+?')}$`, 's');
}

/** The catalogue messages a quoted text is an instance of (a quote ending in … is a message's beginning); only messages with words of their own (8 characters or more besides the placeholders). */
function quoting(quote, messages) {
  const words = (t) => t.replace(/__[A-Za-z][A-Za-z0-9]*__/g, '').length >= 8;
  if (quote.endsWith('…')) {
    const start = quote.slice(0, -1);
    return messages.filter((m) => words(m.text) && m.text.startsWith(start) && m.text.length > start.length);
  }
  return messages.filter((m) => words(m.text) && pattern(m.text).test(quote));
}

describe('README: troubleshooting', function () {
  const messages = catalogue();
  const rows = (section(read('README.md'), 'Troubleshooting') ?? '')
    .split('\n')
    .filter((l) => /^\|/.test(l) && !/^\|\s*-/.test(l))
    .slice(1) // the header
    .map((l) => l.split(/(?<!\\)\|/).slice(1, -1).map((c) => c.trim()));

  it('has ten messages, each with the node and what to do', function () {
    assert.equal(rows.length, 10, rows.map((r) => r[0]).join('\n'));
    for (const [quote, node, fix] of rows) {
      assert.match(quote, /^`[^`]+`$/, `${quote}: the message, quoted as code`);
      assert.ok(node && fix && fix.length > 30, `${quote}: a node and a fix`);
    }
    assert.equal(new Set(rows.map((r) => r[0])).size, 10, 'ten different messages');
  });

  for (const [quote] of rows) {
    it(`${quote} is what the en-US catalogue says`, function () {
      const text = quote.slice(1, -1);
      assert.notDeepEqual(quoting(text, messages), [], `${text}: no en-US message reads so (src/nodes/*/locales/en-US/*.json)`);
    });
  }

  it('the check refuses words no catalogue has', function () {
    assert.deepEqual(quoting('2 active groups skipped', messages), []);
    assert.deepEqual(quoting('waiting for the offset syncs', messages), []);
    assert.deepEqual(quoting('no consumer group of the cluster…', messages), []);
    assert.deepEqual(quoting('error: boom', messages), [], 'a message made of a placeholder and a word or two is no match');
    assert.deepEqual(quoting('skipped 2 active', messages).map((m) => m.key), ['mm2-group-offsets.status.active']);
  });
});
