// The built-in lesson's sections, read from the content itself: order, id, and whether
// the section draws a scenario. Shared by the audit and the prerender script.
import { readdirSync, readFileSync } from 'node:fs';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = join(dirname(fileURLToPath(import.meta.url)), '..');
export const LESSON = 'distributed-locks';

export const sections = readdirSync(join(ROOT, 'content/en'))
  .filter((f) => /^\d\d-.*\.md$/.test(f))
  .sort()
  .map((f) => {
    const text = readFileSync(join(ROOT, 'content/en', f), 'utf8');
    return {
      order: Number(text.match(/^order\s*=\s*(\d+)/m)[1]),
      id: text.match(/^id\s*=\s*"([^"]+)"/m)[1],
      scenario: /^```scenario\s*$/m.test(text),
    };
  });

/**
 * THROTTLE=N in the environment: every page `browser.newPage` opens has its CPU slowed
 * N× through the DevTools protocol, as a phone's is (the long-task benchmark in
 * BENCHMARKS.md). Returns N (1: not slowed).
 */
export function throttle(browser) {
  const rate = Number(process.env.THROTTLE ?? 1);
  if (rate > 1) {
    const plain = browser.newPage.bind(browser);
    browser.newPage = async (options) => {
      const page = await plain(options);
      const cdp = await page.context().newCDPSession(page);
      await cdp.send('Emulation.setCPUThrottlingRate', { rate });
      return page;
    };
  }
  return rate;
}
