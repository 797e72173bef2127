// Opens a report.html in headless Chromium (Debian's /usr/bin/chromium, driven by the pinned
// playwright-core that tests/html_report.rs installs) and prints, as one JSON object, what a
// person would see: the heading, the certification line, and which rows are visible before and
// after each filter is used. The Rust test asserts on it.
//
// Usage: PLAYWRIGHT_DIR=<dir holding node_modules> node html_report.mjs REPORT_HTML
import { createRequire } from 'node:module';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const require = createRequire(join(process.env.PLAYWRIGHT_DIR, 'package.json'));
const { chromium } = require('playwright-core');

const profile = mkdtempSync(join(tmpdir(), 'editref-html-test-'));
const context = await chromium.launchPersistentContext(profile, {
  executablePath: '/usr/bin/chromium',
  headless: true,
  args: ['--headless', '--no-sandbox', '--disable-gpu', '--no-first-run',
    '--disable-background-networking', '--disable-component-update', '--disable-sync'],
});
try {
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(String(e)));
  page.on('requestfailed', (r) => errors.push('request ' + r.url()));
  await page.goto(pathToFileURL(process.argv[2]).href);
  const visible = () => page.$$eval('#cases tbody tr',
    (rows) => rows.filter((r) => r.offsetParent !== null).map((r) => r.querySelector('td.id').textContent));
  const shown = () => page.textContent('#shown');
  const out = {
    title: await page.title(),
    heading: await page.textContent('h1'),
    certification: await page.textContent('#certification'),
    rows: await page.$$eval('#cases tbody tr', (rows) => rows.length),
    initial: await visible(),
    initialShown: await shown(),
  };
  await page.uncheck('input[name=attention]');
  out.all = await visible();
  out.allShown = await shown();
  await page.selectOption('select[name=area]', 'eol');
  out.eol = await visible();
  await page.selectOption('select[name=area]', '');
  await page.selectOption('select[name=status]', 'differs');
  out.differs = await visible();
  await page.selectOption('select[name=status]', '');
  await page.selectOption('select[name=level]', 'core');
  await page.check('input[name=attention]');
  out.coreFailing = await visible();
  const failing = page.locator('#cases tbody tr:visible details').first();
  out.detailsOpenBefore = await failing.locator('dl').isVisible();
  await failing.locator('summary').click();
  out.detailsSummary = await failing.locator('summary').textContent();
  out.detailsText = await failing.locator('dl').innerText();
  out.errors = errors;
  console.log(JSON.stringify(out));
} finally {
  await context.close();
  rmSync(profile, { recursive: true, force: true });
}
