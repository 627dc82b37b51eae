import { chromium } from 'playwright-core';
import zlib from 'node:zlib';
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox'] });
for (const sec of [3, 4, 5, 7, 9]) {
  const page = await browser.newPage();
  await page.addInitScript(() => {
    const W = window.Worker;
    window.__msgs = [];
    window.Worker = function (url, o) { const w = new W(url, o); w.addEventListener('message', (e) => { if (typeof e.data === 'string') window.__msgs.push(e.data); }); return w; };
  });
  await page.goto(`http://127.0.0.1:8099/?lang=en#/distributed-locks/${sec}`);
  await page.waitForFunction(() => typeof window.lockstepBoot === 'function');
  await page.evaluate(() => window.lockstepBoot());
  await page.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready');
  // another section then back: the panel's run made in the worker
  await page.evaluate(() => { location.hash = '#/distributed-locks/1'; });
  await page.waitForTimeout(300);
  await page.evaluate((s) => { window.__msgs = []; location.hash = `#/distributed-locks/${s}`; }, sec);
  await page.waitForTimeout(3000);
  const msgs = await page.evaluate(() => window.__msgs.filter((m) => /"type":"(part|ran)"/.test(m)));
  const all = msgs.join('\n');
  console.log(sec, msgs.length, 'msgs', all.length, 'raw', zlib.brotliCompressSync(Buffer.from(all)).length, 'br');
  await page.close();
}
await browser.close();
