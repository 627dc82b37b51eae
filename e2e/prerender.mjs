// Prerenders the release build: opens every section of the built-in lesson, in English
// and in Norwegian, as a first visitor would (empty storage, the browser's language),
// lets the real app draw it in Debian's Chromium, and keeps what it drew:
//   dist/pre/<lang>/<home|N>.json   {"title", "lang", "html"}: one section's page
//   dist/index.html                  the first page, with the English home page inside
//                                    and static/boot.js in place of Trunk's start-up
// so the first page is HTML and CSS, and the app's WebAssembly loads on first use
// (see static/boot.js). Run by scripts/prerender.sh, which serves dist/ and sets
// BASE_URL.
//   node e2e/prerender.mjs <dist>
import { chromium } from 'playwright-core';
import { mkdirSync, readFileSync, writeFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import { lean } from '../scripts/lean-js.mjs';
import { LESSON, ROOT, sections } from './lesson.mjs';

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const dist = resolve(process.argv[2] ?? 'dist');
const indexPath = join(dist, 'index.html');
const index = readFileSync(indexPath, 'utf8');

if (index.includes('data-lockstep-boot')) {
  console.log('prerender: dist/index.html is already prerendered');
  process.exit(0);
}
// What Trunk wrote to start the app: the module that loads the wasm, and preloads.
const startup = index.match(/<script type="module">\s*import init[\s\S]*?<\/script>/);
const js = startup?.[0].match(/from '([^']+\.js)'/)?.[1];
const wasm = startup?.[0].match(/module_or_path: '([^']+\.wasm)'/)?.[1];
if (!js || !wasm) {
  console.error("prerender: dist/index.html has no Trunk start-up script (import init … module_or_path); has Trunk's output changed?");
  process.exit(1);
}

const escapeAttr = (s) => s.replace(/&/g, '&amp;').replace(/"/g, '&quot;').replace(/</g, '&lt;');
const escapeText = (s) => s.replace(/&/g, '&amp;').replace(/</g, '&lt;');

const browser = await chromium.launch({ executablePath: CHROMIUM });
const problems = [];

async function snapshot(lang, hash) {
  const context = await browser.newContext({
    locale: lang === 'nb' ? 'nb-NO' : 'en-US',
    viewport: { width: 1280, height: 900 },
    reducedMotion: 'reduce',
  });
  await context.addInitScript(() => { window.lockstepPrerender = true; });
  const page = await context.newPage();
  const errors = [];
  page.on('pageerror', (e) => errors.push(e.message));
  await page.goto(`${BASE}${hash}`);
  await page.waitForSelector('html[data-lockstep="ready"]', { timeout: 30000 });
  // The scenario panels' runs come from the engine's worker, a lab's panel a task later.
  await page.waitForFunction(() => !document.querySelector('#app section.scenario[aria-busy], #app .scenario-snapshot, #app .lab-host[aria-busy]'),
    null, { timeout: 60000 });
  // Whatever the page computes after its first frame (a scenario's timeline, §4's
  // table) has finished once the DOM has been still for 300 ms.
  await page.evaluate(() => new Promise((done) => {
    let timer = setTimeout(finish, 300);
    const mo = new MutationObserver(() => { clearTimeout(timer); timer = setTimeout(finish, 300); });
    function finish() { mo.disconnect(); done(); }
    mo.observe(document.body, { subtree: true, childList: true, attributes: true, characterData: true });
  }));
  const snap = await page.evaluate(() => {
    // The app sets form controls' properties; innerHTML keeps only attributes.
    for (const el of document.querySelectorAll('#app input, #app textarea, #app select')) {
      if (el.type === 'checkbox' || el.type === 'radio') el.toggleAttribute('checked', el.checked);
      else if (el.tagName === 'TEXTAREA') el.textContent = el.value;
      else if (el.tagName === 'SELECT') for (const o of el.options) o.toggleAttribute('selected', o.selected);
      else el.setAttribute('value', el.value);
    }
    return {
    title: document.title,
    lang: document.documentElement.lang,
    html: document.getElementById('app').innerHTML,
    loading: !!document.querySelector('#app .loading, #app .error-panel'),
    // What the worker posted for each panel's first run, by the key of its job.
    runs: window.lockstepRunTexts ?? {},
    };
  });
  if (errors.length || snap.loading) problems.push(`${lang} ${hash || '/'}: ${errors.join('; ') || 'the page did not finish drawing'}`);
  await context.close();
  return { title: snap.title, lang: snap.lang, html: snap.html, runs: snap.runs };
}

// The runs a page's panels open on, shipped beside its snapshot so that the hand-over
// takes them instead of waiting for the engine's worker: each page's own, up to this
// many characters (§4's 15 000-event run is 2.4 MB of JSON: its panel shows its
// snapshot until the worker has made the run).
const MAX_RUN_CHARS = 200000;
const runFiles = new Map(); // page name -> { key: texts }

let bytes = 0;
let home;
for (const lang of ['en', 'nb']) {
  mkdirSync(join(dist, 'pre', lang), { recursive: true });
  const routes = [['home', ''], ...sections.map((s) => [String(s.order), `#/${LESSON}/${s.order}`])];
  for (const [name, hash] of routes) {
    const { runs, ...snap } = await snapshot(lang, hash);
    const text = JSON.stringify(snap);
    const small = Object.entries(runs).filter(([, texts]) => texts.join('').length <= MAX_RUN_CHARS);
    if (small.length) runFiles.set(name, { ...runFiles.get(name), ...Object.fromEntries(small) });
    writeFileSync(join(dist, 'pre', lang, `${name}.json`), text);
    bytes += text.length;
    if (lang === 'en' && name === 'home') home = snap;
  }
}
await browser.close();
mkdirSync(join(dist, 'pre', 'runs'), { recursive: true });
let runBytes = 0;
for (const [name, runs] of runFiles) {
  const text = JSON.stringify(runs);
  writeFileSync(join(dist, 'pre', 'runs', `${name}.json`), text);
  runBytes += text.length;
}
if (problems.length) {
  console.error(`prerender: ${problems.length} page(s) failed:\n  ${problems.join('\n  ')}`);
  process.exit(1);
}

// Runs before anything else in <head> (static/boot-head.js): picks the page to show and
// fetches its snapshot while the rest of the page loads.
// Without its comments and spaces, as scripts/assets-min.mjs leaves the other scripts.
const headScript = lean(readFileSync(join(ROOT, 'static/boot-head.js'), 'utf8'));
const head = `<script data-lesson="${LESSON}" data-sections="${sections.length}">\n${headScript}</script>`;
const boot = `<script type="module" src="/boot.js" data-lockstep-boot data-js="${escapeAttr(js)}" data-wasm="${escapeAttr(wasm)}" data-lesson="${LESSON}" data-runs="${[...runFiles.keys()].join(' ')}"></script>`;
let out = index
  .replace(startup[0], boot)
  .replace('<meta charset="utf-8" />', `<meta charset="utf-8" />\n    ${head}`)
  .replace(/<link rel="modulepreload"[^>]*>/g, '')
  .replace(/<link rel="preload"[^>]*application\/wasm"[^>]*>/g, '')
  .replace(/<html lang="[^"]*"/, `<html lang="${escapeAttr(home.lang)}"`)
  .replace(/<title>[^<]*<\/title>/, `<title>${escapeText(home.title)}</title>`);
const appDiv = out.match(/<div id="app">[\s\S]*?<\/div>\s*<\/body>/);
if (!appDiv || out.includes('<link rel="preload"') || !out.includes('data-lockstep-boot') || !out.includes('lockstepFirstPage')) {
  console.error('prerender: could not rewrite dist/index.html (has index.html changed?)');
  process.exit(1);
}
const noscript = appDiv[0].match(/<noscript>[\s\S]*?<\/noscript>/)?.[0] ?? '';
// The home page in a <template> (parsed, never laid out unless it is the page to show),
// then the call that puts the right page in #app.
out = out.replace(appDiv[0], `<div id="app" data-prerendered></div>\n    <template id="lockstep-home">${home.html}</template>\n    <script>window.lockstepFirstPage.show()</script>\n    ${noscript}\n  </body>`);
writeFileSync(indexPath, out);
console.log(`prerender: ${2 * (sections.length + 1)} pages (${(bytes / 1024).toFixed(0)} KiB of JSON in pre/), the first runs of ${runFiles.size} (${(runBytes / 1024).toFixed(0)} KiB in pre/runs/); index.html now ${out.length} bytes and starts the app on first use`);
