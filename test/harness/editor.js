'use strict';
/**
 * The Node-RED editor (and the dashboard of the readiness-dashboard example) in Debian's
 * Chromium, driven by playwright-core (never a downloaded browser): what the browser tests share.
 */
const fs = require('node:fs');
const path = require('node:path');

const CHROMIUM = process.env.CHROMIUM_PATH || '/usr/bin/chromium';

/**
 * Where a browser test saves its screenshot `name`: docs/images (the README shows them), or the
 * folder MM2_SCREENSHOT_DIR names (scripts/test.js sets it for its Node-RED 5 run, so that run
 * does not replace the README's pictures). The folder is made when missing.
 * @param {string} name
 */
function screenshotFile(name) {
  const dir = process.env.MM2_SCREENSHOT_DIR ? path.resolve(process.env.MM2_SCREENSHOT_DIR) : path.join(__dirname, '..', '..', 'docs', 'images');
  fs.mkdirSync(dir, { recursive: true });
  return path.join(dir, name);
}

/**
 * Skips the calling suite, saying why, when Chromium is not installed (scripts/test.sh installs
 * Debian's chromium where it can: root + apt).
 * @param {Mocha.Context} ctx the `this` of a before hook
 */
function skipWithoutChromium(ctx) {
  if (fs.existsSync(CHROMIUM)) return;
  console.log(`    skipped: no Chromium at ${CHROMIUM} (install Debian's 'chromium' package or set CHROMIUM_PATH)`);
  ctx.skip();
}

/**
 * Opens the editor at `url` and waits for its palette. `locale`: the browser's language (the
 * editor's, unless the user chose one in its settings), e.g. 'zh-CN'.
 * @param {string} url
 * @param {{ width: number, height: number }} [viewport]
 * @param {string} [locale]
 */
async function openEditor(url, viewport = { width: 1600, height: 1000 }, locale = 'en-US') {
  const { browser, page } = await openPage(url, viewport, locale);
  await page.waitForSelector('#red-ui-palette .red-ui-palette-node', { timeout: 60000 });
  return { browser, page };
}

/**
 * Opens `url` in Debian's Chromium (headless, nothing downloaded, no network beyond the page).
 * @param {string} url
 * @param {{ width: number, height: number }} viewport
 * @param {string} [locale]
 */
async function openPage(url, viewport, locale = 'en-US') {
  const { chromium } = require('playwright-core');
  const browser = await chromium.launch({
    executablePath: CHROMIUM,
    headless: true,
    args: ['--no-sandbox', '--disable-gpu', '--disable-quic', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync', '--disable-dev-shm-usage'],
  });
  const page = await browser.newPage({ viewport, locale });
  await page.goto(url);
  return { browser, page };
}

module.exports = { CHROMIUM, skipWithoutChromium, openEditor, openPage, screenshotFile };
