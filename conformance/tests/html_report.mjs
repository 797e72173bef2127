// Opens a report.html in headless Chromium (Debian's /usr/bin/chromium, driven by the pinned
// playwright-core that tests/html_report.rs installs) and prints, as one JSON object, what a
// person would see: the heading, the certification line, and which rows are visible before and
// after each filter is used. The Rust test asserts on it.
//
// Usage: PLAYWRIGHT_DIR=<dir holding node_modules> node html_report.mjs REPORT_HTML
import { inspect } from './support/browser.mjs';

await inspect(process.argv[2], async (page, seen) => {
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
  await page.selectOption('select[name=level]', '');
  await page.selectOption('select[name=class]', 'data');
  out.data = await visible();
  out.dataShown = await shown();
  await page.selectOption('select[name=class]', 'contract');
  out.contract = await visible();
  await page.selectOption('select[name=class]', 'presentation');
  out.presentation = await visible();
  out.errors = seen.errors;
  return out;
});
