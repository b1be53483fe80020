'use strict';
/**
 * Issue 24's "done means": the data path from a source commit to a target offset is at most 12
 * steps through at most 18 files. docs/development.md ("The data path of one source commit")
 * lists it, one row per step with the file of the step and the rule files it asks; this reads
 * that table and keeps the claim true: every file it names exists, the steps are numbered 1..n,
 * n <= 12, the distinct files <= 18, and the sentence under the table states those counts.
 */
const assert = require('node:assert/strict');
const fs = require('node:fs');
const path = require('node:path');

const root = path.join(__dirname, '..', '..');
const MAX_STEPS = 12;
const MAX_FILES = 18;

/** The table's rows: step number and the source files named (as paths from the repository root). */
function dataPath() {
  const doc = fs.readFileSync(path.join(root, 'docs', 'development.md'), 'utf8');
  const start = doc.indexOf('### The data path of one source commit');
  assert.ok(start >= 0, 'docs/development.md has the section "The data path of one source commit"');
  const next = doc.indexOf('\n## ', start);
  const section = doc.slice(start, next < 0 ? undefined : next);
  const rows = section
    .split('\n')
    .filter((l) => /^\|\s*\d+\s*\|/.test(l))
    .map((l) => {
      const cells = l.split('|').map((c) => c.trim());
      const files = [...cells[3].matchAll(/`([^`]+\.ts)`/g)].map((m) => (m[1].startsWith('src/') ? m[1] : `src/${m[1]}`));
      return { step: Number(cells[1]), files };
    });
  return { section, rows };
}

describe('docs/development.md: the data path of one source commit (issue 24)', function () {
  const { section, rows } = dataPath();
  const files = new Set(rows.flatMap((r) => r.files));

  it('reads the table: steps numbered 1..n, each naming at least one source file', function () {
    assert.ok(rows.length > 0, 'the table has steps');
    assert.deepEqual(
      rows.map((r) => r.step),
      rows.map((_, i) => i + 1),
    );
    for (const r of rows) assert.ok(r.files.length > 0, `step ${r.step} names its file`);
  });

  it('every file the table names exists', function () {
    const missing = [...files].filter((f) => !fs.existsSync(path.join(root, f)));
    assert.deepEqual(missing, [], 'a file moved or was renamed: update the table');
  });

  it(`has at most ${MAX_STEPS} steps through at most ${MAX_FILES} distinct files`, function () {
    assert.ok(rows.length <= MAX_STEPS, `${rows.length} steps`);
    assert.ok(files.size <= MAX_FILES, `${files.size} files: ${[...files].join(', ')}`);
  });

  it('the sentence under the table states the counts the table has', function () {
    const m = /(\d+) steps; (\d+) files/.exec(section);
    assert.ok(m, 'the counts are stated as "<n> steps; <m> files"');
    assert.equal(Number(m[1]), rows.length);
    assert.equal(Number(m[2]), files.size);
  });
});
