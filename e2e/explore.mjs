// "Can this break?" in a real browser (Debian's Chromium): it runs in the engine's worker
// (static/engine-worker.js), so no main-thread task over 50 ms is recorded
// (PerformanceObserver "longtask") from the click to the result, and Cancel stops it.
//   BASE_URL=http://127.0.0.1:PORT/ node e2e/explore.mjs
// Exits 1 with the reasons when a step does not do what a learner expects.
import { chromium } from 'playwright-core';

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const problems = [];
const say = (...a) => console.log('explore:', ...a);
const LONG_MS = 50;

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
try {
  // §4: the TTL scenario breaks in most trials (shrinking runs in every batch); §9: fenced.
  for (const section of [4, 9]) {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => problems.push(`§${section}: page error: ${e.message}`));
    await page.addInitScript(() => {
      window.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); })
        .observe({ type: 'longtask', buffered: true });
    });
    await page.goto(`${BASE}?lang=en#/distributed-locks/${section}`);
    // Start the app first: its start on a first click is first use (e2e/firstload.mjs).
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => window.lockstepBoot());
    await page.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready', null, { timeout: 30000 });
    const panel = page.locator('.explore').first();
    await panel.scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    // The pointer reaches the button a moment before the click, as a learner's does
    // (that starts the engine's worker).
    await panel.locator('.explore-start').hover();
    await page.waitForTimeout(300);
    await page.evaluate(() => { window.__long = []; });
    // Clicked and timed in the page, up to the frame that shows the result.
    const runMs = await page.evaluate(() => new Promise((resolve) => {
      const t0 = performance.now();
      document.querySelector('.explore .explore-start').click();
      const check = () => {
        const p = document.querySelector('.explore');
        if (p && !p.querySelector('.explore-cancel') && /of 200 trials broke/.test(p.innerText)) resolve(performance.now() - t0);
        else requestAnimationFrame(check);
      };
      check();
    }));
    const result = await panel.locator('.explore-result').innerText();
    const ranIn = await panel.getAttribute('data-ran-in');
    const longs = await page.evaluate(() => window.__long);
    say(`§${section}: ${result.split(' (')[0]} in ${runMs.toFixed(0)} ms (${(200000 / runMs).toFixed(0)} trials/s, a measurement); ran in the ${ranIn}; long tasks: ${longs.length}, longest ${Math.max(0, ...longs).toFixed(0)} ms`);
    if (ranIn !== 'worker') problems.push(`§${section}: "Can this break?" ran in the ${ranIn}, not in the engine's worker`);
    if (longs.some((d) => d > LONG_MS)) problems.push(`§${section}: a main-thread task of ${Math.max(...longs).toFixed(0)} ms during "Can this break?"`);

    // The smallest counterexample, sent back by the worker, loads on the timeline.
    const smallest = result.match(/Smallest: seed (\d+)/);
    if (!smallest) problems.push(`§${section}: no smallest counterexample: ${result}`);
    else {
      await panel.locator('.explore-load').click();
      const loaded = await page.waitForFunction((seed) => [...document.querySelectorAll('.seed')]
        .some((e) => e.textContent.includes(seed)), smallest[1], { timeout: 10000 }).then(() => true, () => false);
      if (!loaded) problems.push(`§${section}: "Show it on the timeline" did not load seed ${smallest[1]}`);
    }

    // Cancel: the run stops where it is, and stays stopped.
    await panel.locator('.explore-start').click();
    await panel.locator('.explore-cancel').waitFor();
    const ms = await page.evaluate(() => new Promise((resolve) => {
      const t0 = performance.now();
      document.querySelector('.explore .explore-cancel').click();
      const check = () => (document.querySelector('.explore .explore-cancel') ? requestAnimationFrame(check)
        : resolve(performance.now() - t0));
      check();
    }));
    const stopped = await panel.innerText();
    await page.waitForTimeout(700);
    const later = await panel.innerText();
    say(`§${section}: Cancel answered in ${ms.toFixed(0)} ms (a measurement, not a check)`);
    if (later !== stopped) problems.push(`§${section}: the run went on after Cancel`);
    await page.close();
  }
} finally {
  await browser.close();
}
if (problems.length) {
  for (const p of problems) console.error('explore: PROBLEM:', p);
  process.exit(1);
}
say('OK');
