'use strict';
/**
 * What the tests read in the README and docs/*.md, as GitHub renders them: the links (inline,
 * images, autolinks, reference definitions and bare URLs; never inside code), the anchors of the
 * headings, a section under a heading, and the fenced code blocks of a text.
 */

/** The text with fenced code blocks and inline code spans blanked (line numbers kept). */
function withoutCode(text) {
  return text
    .replace(/^( {0,3})(```|~~~)[^\n]*\n[\s\S]*?^\1\2[^\n]*$/gm, (m) => m.replace(/[^\n]/g, ' '))
    .replace(/(`+)(?!`)[\s\S]*?[^`]\1(?!`)/g, (m) => m.replace(/[^\n]/g, ' '));
}

/**
 * Every link target of a markdown text: `[text](url)`, `![alt](url)`, `<https://...>`,
 * `[label]: url` and a bare `http(s)://...` (GitHub links those too). Code is not read.
 * @param {string} text
 * @returns {string[]}
 */
function links(text) {
  let rest = withoutCode(text);
  const found = [];
  const take = (re) => {
    rest = rest.replace(re, (m, url) => {
      found.push(url);
      return ' '.repeat(m.length);
    });
  };
  take(/!?\[(?:[^[\]]|\[[^\]]*\])*\]\(\s*<?([^)\s>]+)>?(?:\s+"[^"]*")?\s*\)/g);
  take(/<((?:[a-z][a-z\d+.-]*):[^>\s]+)>/gi);
  take(/^ {0,3}\[[^\]]+\]:\s*<?([^\s>]+)>?/gm);
  take(/((?:https?|ftp):\/\/[^\s)<>\]]+)/gi);
  return found;
}

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces as hyphens. */
function slug(heading) {
  return heading
    .trim()
    .toLowerCase()
    .replace(/\[([^\]]*)\]\([^)]*\)/g, '$1')
    .replace(/[^\p{L}\p{N}\s_-]/gu, '')
    .replace(/\s/g, '-');
}

/** The anchors of a markdown text's headings (a repeated heading gets -1, -2, ... as on GitHub). */
function anchors(text) {
  const seen = new Map();
  const out = new Set();
  for (const m of withoutCode(text).matchAll(/^ {0,3}#{1,6}[ \t]+(.+?)[ \t#]*$/gm)) {
    const base = slug(text.slice(m.index, m.index + m[0].length).replace(/^ {0,3}#{1,6}[ \t]+/, '').replace(/[ \t#]*$/, ''));
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    out.add(n === 0 ? base : `${base}-${n}`);
  }
  return out;
}

/** The text under the first heading that starts with `title` (any level), up to the next heading of that level or higher; null when there is none. */
function section(text, title) {
  const lines = text.split('\n');
  const start = lines.findIndex((l) => /^#{1,6} /.test(l) && l.replace(/^#+ /, '').startsWith(title));
  if (start < 0) return null;
  const level = /^#+/.exec(lines[start])[0].length;
  let end = lines.findIndex((l, i) => i > start && new RegExp(`^#{1,${level}} `).test(l));
  if (end < 0) end = lines.length;
  return lines.slice(start + 1, end).join('\n');
}

/** The fenced code blocks of a text: their info string (language) and their lines. */
function codeBlocks(text) {
  return [...text.matchAll(/^(```|~~~)([^\n]*)\n([\s\S]*?)^\1[ \t]*$/gm)].map((m) => ({ lang: m[2].trim(), lines: m[3].replace(/\n$/, '').split('\n') }));
}

module.exports = { links, anchors, slug, section, codeBlocks, withoutCode };
