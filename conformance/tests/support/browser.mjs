// What the browser tests' page scripts share: Debian's Chromium (/usr/bin/chromium) launched
// headless through the pinned playwright-core the Rust tests install (PLAYWRIGHT_DIR), a fresh
// profile that is removed afterwards, and a page that records script errors, failed requests
// and every request that left the machine (anything but file: and data: URLs).
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(join(process.env.PLAYWRIGHT_DIR, 'package.json'));
const { chromium } = require('playwright-core');

// Opens `file` and calls `look(page, seen)`, where `seen` holds `errors` (script errors and
// failed requests) and `fetched` (network requests); prints what `look` returns as JSON.
export async function inspect(file, look) {
  const profile = mkdtempSync(join(tmpdir(), 'editref-browser-test-'));
  const context = await chromium.launchPersistentContext(profile, {
    executablePath: '/usr/bin/chromium',
    headless: true,
    args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
      '--disable-background-networking', '--disable-component-update', '--disable-sync'],
  });
  try {
    const page = await context.newPage();
    const seen = { errors: [], fetched: [] };
    page.on('pageerror', (e) => seen.errors.push(String(e)));
    page.on('requestfailed', (r) => seen.errors.push('request ' + r.url()));
    page.on('request', (r) => {
      const url = r.url();
      if (!url.startsWith('file:') && !url.startsWith('data:')) seen.fetched.push(url);
    });
    await page.goto(pathToFileURL(file).href, { waitUntil: 'load' });
    console.log(JSON.stringify(await look(page, seen)));
  } finally {
    await context.close();
    rmSync(profile, { recursive: true, force: true });
  }
}
