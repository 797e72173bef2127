// Opens a matrix.html in headless Chromium (Debian's /usr/bin/chromium, driven by the pinned
// playwright-core that the Rust tests install) and prints, as one JSON object, what a reader
// would see: the page's title and visible text, how many tables and inline SVG charts it
// shows, every request the page made that was not to a file: or data: URL (there must be
// none: the page is self-contained), and any script error.
//
// Usage: PLAYWRIGHT_DIR=<dir holding node_modules> node matrix_page.mjs MATRIX_HTML
import { inspect } from './support/browser.mjs';

await inspect(process.argv[2], async (page, seen) => ({
  title: await page.title(),
  text: await page.innerText('body'),
  tables: await page.$$eval('table', (t) => t.length),
  charts: await page.$$eval('svg', (s) => s.length),
  fetched: seen.fetched,
  errors: seen.errors,
}));
