// Opens a matrix.html in headless Chromium (Debian's /usr/bin/chromium, driven by the pinned
// playwright-core that the Rust tests install) and prints, as one JSON object, what a reader
// would see: the page's title and visible text, how many tables and inline SVG charts it
// shows, every request the page made that was not to a file: or data: URL (there must be
// none: the page is self-contained), and any script error.
//
// Usage: PLAYWRIGHT_DIR=<dir holding node_modules> node matrix_page.mjs MATRIX_HTML
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(join(process.env.PLAYWRIGHT_DIR, 'package.json'));
const { chromium } = require('playwright-core');

const profile = mkdtempSync(join(tmpdir(), 'editref-matrix-test-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await context.newPage();
  const errors = [];
  const fetched = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('request', (r) => {
    const url = r.url();
    if (!url.startsWith('file:') && !url.startsWith('data:')) fetched.push(url);
  });
  await page.goto(pathToFileURL(process.argv[2]).href, { waitUntil: 'load' });
  const out = {
    title: await page.title(),
    text: await page.innerText('body'),
    tables: await page.$$eval('table', (t) => t.length),
    charts: await page.$$eval('svg', (s) => s.length),
    fetched,
    errors,
  };
  console.log(JSON.stringify(out));
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
