// The stage e2e/lms.mjs's checks play on: the test platform (e2e/lms/platform.mjs) and
// Debian's Chromium, set up and taken down by e2e/lms.mjs; a fresh browser profile per
// launch; the ways a launch ends (the learner closes the tab, the LMS's Exit); polling
// for what the platform got; the note lms.html shows when the platform fails.
import { chromium } from 'playwright-core';
import { Platform } from './platform.mjs';
import { answerKeys } from './learner.mjs';
import { problems, say, short } from './report.mjs';

/** The test platform, started by `setStage`. */
export const platform = new Platform();
/** The quiz files' answer keys (e2e/lms/learner.mjs), read by `setStage` (importers see them then). */
export let keys = null;
let browser = null;
let lastPage = null;

/** Starts the platform and reads the answer keys. */
export async function setStage() {
  await platform.start();
  keys = answerKeys();
}

/** Launches Chromium from `executablePath`. */
export async function launchBrowser(executablePath) {
  browser = await chromium.launch({
    executablePath,
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
}

/** Closes the browser (if it was launched) and stops the platform. */
export async function clearStage() {
  await browser?.close();
  await platform.stop();
}

/** A screenshot of the page last opened to `path`, if it is still open; whether it was. */
export async function shootLastPage(path) {
  if (!lastPage || lastPage.isClosed()) return false;
  await lastPage.screenshot({ path }).catch(() => {});
  return true;
}

/** A fresh browser profile (another computer: empty localStorage) and a page in it. */
export async function freshPage(where) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  lastPage = page;
  page.on('pageerror', (e) => problems.push(`${where}: page error: ${e.message}`));
  page.on('dialog', (d) => d.accept().catch(() => {}));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) say(`${where}: console: ${short(m.text(), 200)}`); });
  return { context, page };
}

/** The note lms.html shows when the platform failed: [visible, text]. */
export const noteOf = (lms) => lms.evaluate(() => {
  const n = document.getElementById('lms-note');
  return n ? [!n.hidden && n.getClientRects().length > 0, n.textContent.trim()] : [false, '(no #lms-note)'];
});

/** Polls `fn` until it is truthy (then returns it) or `ms` pass (then returns the last value). */
export async function poll(fn, ms = 15000) {
  const until = Date.now() + ms;
  let v;
  while (!(v = await fn()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return v;
}

/** Closes the page as a learner closes the tab: pagehide in every frame, beforeunload too. */
export async function closeTab(page) {
  await page.close({ runBeforeUnload: true });
}

/** The LMS ends the SCO as its Exit button does: its own page in the content frame. */
export async function lmsExit(page) {
  await page.evaluate(() => { document.getElementById('sco').src = '/returned'; });
}
