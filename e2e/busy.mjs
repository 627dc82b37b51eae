// A browser busy beside the tests, as on a learner's or a teacher's laptop (#40): a
// headless Chromium whose page keeps one core about half busy (a loop for 50 ms, then
// 50 ms idle, for ever) and redraws an animation. Run it in the background while
// `make test` runs, and stop it after:
//   node e2e/busy.mjs & busy=$!; make test; kill $busy
// DUTY=0.8 keeps the core busier (the share of each 100 ms spent in the loop).
import { chromium } from 'playwright-core';

const duty = Math.min(0.95, Math.max(0.05, Number(process.env.DUTY ?? 0.5)));
const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
const page = await browser.newPage();
await page.setContent(`<!doctype html><title>busy</title><canvas width="600" height="400"></canvas>
<script>
  const busyMs = ${Math.round(duty * 100)}, restMs = ${Math.round((1 - duty) * 100)};
  const ctx = document.querySelector('canvas').getContext('2d');
  let x = 0;
  function frame() { x = (x + 3) % 600; ctx.clearRect(0, 0, 600, 400); ctx.fillRect(x, 180, 40, 40); requestAnimationFrame(frame); }
  requestAnimationFrame(frame);
  function spin() { const end = performance.now() + busyMs; let s = 0; while (performance.now() < end) s += Math.sqrt(s + 1); setTimeout(spin, restMs); }
  spin();
</script>`);
console.log(`busy: a headless Chromium keeps one core ${Math.round(duty * 100)} % busy (pid ${process.pid}); stop it with kill`);
const stop = async () => { await browser.close().catch(() => {}); process.exit(0); };
process.on('SIGTERM', stop);
process.on('SIGINT', stop);
await new Promise(() => {});
