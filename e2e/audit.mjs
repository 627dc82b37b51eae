// End-to-end audit of the release build in a real browser (Debian's Chromium through
// playwright-core): axe-core with the WCAG 2.0/2.1 A and AA rules on every kind of page,
// reflow at 320 px (WCAG 1.4.10), a keyboard-only walk, prefers-reduced-motion, and
// docs/timeline.png.
//
// Run by scripts/e2e.sh, which serves dist/ and sets BASE_URL. Exits 1 on any axe
// violation, keyboard problem or page error, after reporting all of them.
//   node e2e/audit.mjs [--only <substring>] [--no-screenshot] [--verbose]
// --only: just the pages (or "keyboard walk", "reduced motion", "screenshot") whose name
// contains it;
// --verbose: also what axe could not decide ("incomplete": to be checked by a person).
import { chromium } from 'playwright-core';
import axe from 'axe-core';
import { ROOT, LESSON, sections } from './lesson.mjs';
import { join } from 'node:path';
import { codeEditor } from './editor.mjs';

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const CHROMIUM = process.env.CHROMIUM ?? '/usr/bin/chromium';
const TAGS = ['wcag2a', 'wcag2aa', 'wcag21a', 'wcag21aa'];
const args = process.argv.slice(2);
const only = args.includes('--only') ? args[args.indexOf('--only') + 1] : null;
const screenshot = !args.includes('--no-screenshot') && (!only || 'screenshot'.includes(only));
const verbose = args.includes('--verbose');

if (sections.length !== 12) throw new Error(`expected 12 sections in content/en, found ${sections.length}`);

const url = (query, hash) => `${BASE}${query ?? ''}${hash ?? ''}`;
const sectionHash = (n) => `#/${LESSON}/${n}`;

// ---- the pages axe audits --------------------------------------------------------------
const pages = [];
const add = (p) => pages.push({ scheme: 'light', viewport: { width: 1280, height: 900 }, ...p });
for (const s of sections) {
  for (const scheme of ['light', 'dark']) {
    add({ name: `en ${s.order} ${s.id} (${scheme})`, url: url('?lang=en', sectionHash(s.order)), scheme, svg: s.scenario });
  }
}
// Every Norwegian section too: light for all twelve, dark for the ones with a scenario
// (the colours that differ between schemes are the timeline's).
for (const s of sections) {
  add({ name: `nb ${s.order} ${s.id} (light)`, url: url('?lang=nb', sectionHash(s.order)), svg: s.scenario });
  if (s.scenario) add({ name: `nb ${s.order} ${s.id} (dark)`, url: url('?lang=nb', sectionHash(s.order)), scheme: 'dark', svg: true });
}
for (const [lang, scheme] of [['en', 'light'], ['en', 'dark'], ['nb', 'light']]) {
  add({ name: `progress page ${lang} (${scheme})`, url: url(`?lang=${lang}`, `#/${LESSON}/progress`), scheme });
}
// The prerendered first pages, before the app has loaded (what a first visitor gets).
add({ name: 'prerendered first page en', url: BASE, svg: true, prerendered: true });
add({ name: 'prerendered section 3 nb (dark)', url: url('?lang=nb', sectionHash(3)), scheme: 'dark', svg: true, prerendered: true });
add({ name: 'prerendered section 12 en, phone', url: url('', sectionHash(12)), viewport: { width: 360, height: 740 }, prerendered: true });
add({ name: 'not-found page', url: url('?lang=en', `#/${LESSON}/99`) });
// Quizzes: the quiz-only embed of every section, and a section with its questions answered.
for (const s of sections) {
  add({ name: `quiz ${s.order} (embed show=quiz)`, url: url(`?embed=1&show=quiz&section=${s.order}&lang=en`) });
}
add({ name: 'quiz 3 answered (dark)', url: url('?lang=en', sectionHash(3)), scheme: 'dark', svg: true, setup: answerAll });
add({ name: 'quiz 12 answered (light, nb)', url: url('?lang=nb', sectionHash(12)), setup: answerAll });
// Embed mode.
add({ name: 'embed section 3', url: url('?embed=1&section=3&lang=en'), svg: true });
add({ name: 'embed scenario 3 theme=dark', url: url('?embed=1&show=scenario&section=3&theme=dark'), svg: true });
add({ name: 'embed scenario 4 theme=light (dark system)', url: url('?embed=1&show=scenario&section=4&theme=light'), scheme: 'dark', svg: true });
add({ name: 'embed scenario 7 controls subset, nb', url: url('?embed=1&show=scenario&section=7&controls=play,step,scrub&lang=nb'), svg: true });
add({ name: 'embed scenario 3 mid-run', url: url('?embed=1&show=scenario&section=3', `${sectionHash(3)}?scenario=unsafe-del&seed=1&t=12300`), svg: true });
// The Share / Embed dialog, open.
for (const scheme of ['light', 'dark']) {
  add({ name: `share dialog open (${scheme})`, url: url('?lang=en', sectionHash(3)), scheme, svg: true, setup: openShare });
}
add({ name: 'share dialog open (nb, phone)', url: url('?lang=nb', sectionHash(2)), viewport: { width: 360, height: 740 }, setup: openShare });
// The lab's code editor with an error marked on its line and its search panel open.
add({ name: 'lab editor, an error marked, search open (dark)', url: url('?lang=en', sectionHash(3)), scheme: 'dark', svg: true, setup: markAnError });
add({ name: 'lab editor, an error marked, search open (nb, phone)', url: url('?lang=nb', sectionHash(3)), viewport: { width: 360, height: 740 }, svg: true, setup: markAnError });
// A phone.
for (const scheme of ['light', 'dark']) {
  add({ name: `phone 360x740 section 3 (${scheme})`, url: url('?lang=en', sectionHash(3)), scheme, viewport: { width: 360, height: 740 }, svg: true });
}
add({ name: 'phone 360x740 section 1, menu open', url: url('?lang=en', sectionHash(1)), viewport: { width: 360, height: 740 }, svg: true, setup: openMenu });
add({ name: 'phone 360x740 progress page (nb, dark)', url: url('?lang=nb', `#/${LESSON}/progress`), scheme: 'dark', viewport: { width: 360, height: 740 } });

async function openShare(page) {
  await page.click('#share-button');
  await page.waitForSelector('[role=dialog] #share-title');
}
async function openMenu(page) {
  await page.click('.menu-button');
  await page.waitForSelector('.menu-open nav, .menu-open .toc');
}
async function markAnError(page) {
  const lab = page.locator('.lab-mount section.lab[data-lab="safe-release"]');
  await lab.scrollIntoViewIfNeeded();
  const editor = codeEditor(lab);
  await editor.fill('export async function acquire(redis, key, ttlMs) {\n  let gone = ;\n}\n');
  await page.keyboard.press('ControlOrMeta+Enter');
  await lab.locator('.lab-editor-message:not([hidden])').waitFor({ timeout: 30000 });
  await editor.content.click();
  await page.keyboard.press('ControlOrMeta+f');
  await lab.locator('.prism-search').waitFor();
}
/// Submits every question of the page unanswered-or-not, so every feedback state shows.
async function answerAll(page) {
  const forms = await page.$$('form.question');
  for (const form of forms) {
    const radio = await form.$('input[type=radio], input[type=checkbox]');
    if (radio) await radio.check();
    const text = await form.$('input[type=text]');
    if (text) await text.fill('42');
    await (await form.$('button.q-check')).click();
  }
  await page.waitForFunction((n) => document.querySelectorAll('.q-verdict').length >= n, forms.length);
}

// ---- helpers ---------------------------------------------------------------------------
const problems = [];
const fail = (where, what) => {
  problems.push(`${where}: ${what}`);
  console.log(`  ✗ ${what}`);
};

let browser;
async function newPage({ scheme = 'light', viewport = { width: 1280, height: 900 }, reducedMotion = 'no-preference' } = {}) {
  const context = await browser.newContext({ colorScheme: scheme, viewport, reducedMotion });
  const page = await context.newPage();
  page.errors = [];
  page.on('pageerror', (e) => page.errors.push(`page error: ${e.message}`));
  page.on('console', (m) => {
    // The app reports panics on the console; the browser's own noise is left out.
    if (m.type() === 'error' && /panicked|RuntimeError|unreachable/.test(m.text())) page.errors.push(`console: ${m.text()}`);
  });
  return page;
}

/// Waits until the app has replaced the loading placeholder with its content.
async function rendered(page, { svg = false, prerendered = false } = {}) {
  await page.waitForLoadState('domcontentloaded');
  if (prerendered) {
    // The prerendered page as a first visitor gets it, before the app has loaded.
    await page.waitForFunction(() => window.lockstepFirstPage?.shown, null, { timeout: 20000 });
    const shown = await page.evaluate(() => window.lockstepFirstPage.shown);
    if (!shown) throw new Error('the page did not show its prerendered snapshot');
    if (await page.evaluate(() => document.documentElement.dataset.lockstep === 'ready')) throw new Error('the app started without being used');
    if (svg) await page.waitForSelector('svg.timeline', { timeout: 20000 });
    return;
  }
  // A prerendered page (static/boot.js) holds the app's first frame as plain HTML; start
  // the app so that what follows audits and drives the real thing.
  await page.evaluate(() => window.lockstepBoot?.());
  await page.waitForFunction(
    // `.deferred`: parts drawn a task after the rest (the quiz, question panels).
    () => !document.querySelector('.loading') && document.querySelector('main#main') && !document.querySelector('.error-panel') && !document.querySelector('.deferred'),
    null,
    { timeout: 20000 },
  );
  if (svg) await page.waitForSelector('svg.timeline', { timeout: 20000 });
  // §4's TTL trade-off table is computed after the first paint: audit it finished.
  await page.waitForFunction(
    () => !document.querySelector('.tradeoff') || document.querySelector('.tradeoff-table, .tradeoff [role=alert]'),
    null,
    { timeout: 60000 },
  );
  // A lab's panel is drawn a task after the page, and its code editor comes once it is near
  // the screen: bring each into view and audit it with its editor, not its placeholder.
  const labs = await page.$$eval('.lab-host', (hs) => hs.length);
  for (let i = 0; i < labs; i++) {
    // By place, not by handle: the app may draw a lab's place afresh meanwhile.
    await page.evaluate((n) => document.querySelectorAll('.lab-host')[n]?.scrollIntoView({ block: 'center' }), i);
    await page.waitForFunction((n) => {
      const h = document.querySelectorAll('.lab-host')[n];
      // With its code editor over the textarea (editor.js), which the audit covers too.
      return !h || (!h.hasAttribute('aria-busy') && h.querySelector('.lab-mount section.lab .lab-pce, .lab-mount [role=alert]'));
    }, i, { timeout: 30000 }).catch(async (e) => {
      console.log('  a lab did not open:', page.url(), await page.evaluate(() => [...document.querySelectorAll('.lab-host')].map((h) => [h.className, h.getAttribute('aria-busy'), h.querySelector('.lab-mount')?.childElementCount, !!h.querySelector('.lab-snapshot'), h.innerText.slice(0, 80)])));
      throw e;
    });
  }
  if (await page.$('.lab-host')) await page.evaluate(() => window.scrollTo(0, 0));
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
}

let rulesRun = new Set();
async function runAxe(page) {
  if (!(await page.evaluate(() => typeof window.axe === 'object'))) await page.addScriptTag({ content: axe.source });
  const r = await page.evaluate(
    (tags) => window.axe.run(document, { runOnly: { type: 'tag', values: tags }, resultTypes: ['violations'] }),
    TAGS,
  );
  for (const group of [r.passes, r.violations, r.incomplete, r.inapplicable]) for (const rule of group) rulesRun.add(rule.id);
  return r;
}

function report(name, r) {
  for (const v of r.violations) {
    fail(name, `axe ${v.id} (${v.impact}): ${v.help} <${v.helpUrl}>`);
    for (const n of v.nodes.slice(0, 8)) {
      console.log(`      ${n.target.join(' ')}`);
      const why = (n.any[0] ?? n.all[0] ?? n.none[0])?.message;
      if (why) console.log(`        ${why}`);
    }
    if (v.nodes.length > 8) console.log(`      … and ${v.nodes.length - 8} more`);
  }
}

// ---- keyboard ----------------------------------------------------------------------------
/// What has focus, and whether the focus is visible (an outline or a box-shadow on it, or
/// for a visually hidden control, on the element that stands for it).
const focusInfo = (page) =>
  page.evaluate(() => {
    const el = document.activeElement;
    if (!el || el === document.body || el === document.documentElement) return { desc: '(nothing: body)', visible: false };
    const shows = (e) => {
      if (!e) return false;
      const cs = getComputedStyle(e);
      const outline = cs.outlineStyle !== 'none' && parseFloat(cs.outlineWidth) > 0 && cs.outlineColor !== 'rgba(0, 0, 0, 0)';
      return outline || (cs.boxShadow !== 'none' && cs.boxShadow !== '');
    };
    const rect = el.getBoundingClientRect();
    const tiny = rect.width <= 1 || rect.height <= 1;
    const onScreen = rect.bottom > 0 && rect.right > 0 && rect.top < innerHeight && rect.left < innerWidth;
    const label = el.getAttribute('aria-label') || el.textContent.trim().slice(0, 40) || el.getAttribute('value') || '';
    const id = el.id ? `#${el.id}` : '';
    const cls = typeof el.className === 'string' && el.className ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
    return {
      desc: `${el.tagName.toLowerCase()}${id}${cls}${el.type ? `[type=${el.type}]` : ''} "${label}"`,
      // In the code editor (prism-code-editor), the ring is the editor's, around the code.
      visible: (tiny ? shows(el.nextElementSibling) || shows(el.labels?.[0]) : shows(el.closest('.lab-pce') ?? el)) && (onScreen || tiny),
      inEditor: !!el.closest('.lab-pce'),
      onScreen,
      tag: el.tagName,
      type: el.type ?? null,
      inScenario: !!el.closest('section.scenario'),
      inQuestion: el.closest('form.question')?.dataset.questionId ?? null,
      inQuiz: !!el.closest('section.quiz'),
      inDialog: !!el.closest('[role=dialog]'),
      isPlay: el.matches('section.scenario button.play'),
      mark: el.dataset?.mark ?? null,
      label: el.getAttribute('aria-label'),
    };
  });

/// Presses `key` and checks that the focus that results is visible.
async function press(page, key, where) {
  await page.keyboard.press(key);
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const f = await focusInfo(page);
  if (!f.visible) fail(where, `after ${key}, focus is not visible on ${f.desc}${f.onScreen === false ? ' (off screen)' : ''}`);
  return f;
}

/// Tabs forward until `want(focus)`; fails after `limit` presses. In a lab's code editor
/// Tab indents: Escape then Tab leaves it, as the lab's keys say, and must.
async function tabUntil(page, want, what, where, limit = 250) {
  let inEditor = false;
  for (let i = 1; i <= limit; i++) {
    if (inEditor) await page.keyboard.press('Escape');
    const f = await press(page, 'Tab', where);
    if (inEditor && f.inEditor) {
      fail(where, `Escape then Tab did not leave the code editor (${f.desc}): a keyboard trap`);
      return null;
    }
    inEditor = f.inEditor;
    if (want(f)) return { focus: f, presses: i };
  }
  fail(where, `${what} not reached in ${limit} presses of Tab`);
  return null;
}

const scrubText = (page, scope = 'body') =>
  page.$eval(`${scope} section.scenario input.scrub`, (e) => e.getAttribute('aria-valuetext'));

async function keyboardWalk() {
  const where = 'keyboard walk';
  console.log(`\n▶ ${where}: section 3, keyboard only`);
  const page = await newPage();
  await page.goto(url('?lang=en', sectionHash(3)));
  await rendered(page, { svg: true });

  // 1. The skip link comes first and moves focus to the content.
  let f = await press(page, 'Tab', where);
  if (!/skip-link/.test(f.desc)) fail(where, `the first Tab stop is ${f.desc}, not the skip link`);
  f = await press(page, 'Enter', where);
  const mainFocused = await page.evaluate(() => document.activeElement?.id === 'main');
  if (!mainFocused) fail(where, `Enter on the skip link did not move focus to the content (focus: ${f.desc})`);

  // 2. To the scenario's Play button.
  const toPlay = await tabUntil(page, (x) => x.isPlay, 'the scenario Play button', where);
  if (!toPlay) return page.context().close();
  console.log(`  Play reached after ${toPlay.presses} Tab presses from the content`);
  // The slowest speed first (a select, changed with Home), so that there is time to pause.
  f = await tabUntil(page, (x) => x.tag === 'SELECT' && x.label === 'Speed', 'the Speed select', where, 8);
  await press(page, 'Home', where);
  const speed = await page.$eval('section.scenario select[aria-label=Speed]', (s) => s.value);
  if (speed !== '0.25') fail(where, `Home on the Speed select chose ${speed}, not the slowest`);
  for (let i = 0; i < 8 && !(await focusInfo(page)).isPlay; i++) await press(page, 'Shift+Tab', where);
  const t0 = await scrubText(page);
  await press(page, 'Space', where);
  // Playback is paced (src/timeline/pace.rs): at 0.25× the first event stays up for a
  // second or more before the cursor moves on, so wait for the move, not for a fixed time.
  await page.waitForFunction(([sel, was]) => document.querySelector(sel)?.getAttribute('aria-valuetext') !== was,
    ['section.scenario input.scrub', t0], { timeout: 15000 }).catch(() => {});
  f = await focusInfo(page);
  if (!f.isPlay) fail(where, `Space on Play lost the focus (now on ${f.desc})`);
  else if (f.label !== 'Pause') fail(where, `after Space the button says "${f.label}", not Pause`);
  const t1 = await scrubText(page);
  if (t1 === t0) fail(where, `Space on Play did not advance the run (still ${t0})`);
  await press(page, 'Space', where); // pause
  const t2 = await scrubText(page);
  await page.waitForTimeout(400);
  if ((await scrubText(page)) !== t2) fail(where, 'Space on Pause did not stop the run');
  console.log(`  played ${t0} → ${t1}, paused at ${t2}`);

  // Step forward with Enter, then the arrow keys (which the panel handles).
  f = await tabUntil(page, (x) => x.label === 'Step forward', 'Step forward', where, 5);
  await press(page, 'Enter', where);
  const t3 = await scrubText(page);
  if (t3 === t2) fail(where, `Enter on Step forward did not move the cursor (${t2})`);
  await press(page, 'ArrowRight', where);
  await press(page, 'ArrowRight', where);
  const t4 = await scrubText(page);
  if (t4 === t3) fail(where, `ArrowRight in the scenario did not move the cursor (${t3})`);
  await press(page, 'ArrowLeft', where);
  if ((await scrubText(page)) === t4) fail(where, 'ArrowLeft in the scenario did not move the cursor');
  // The scrub slider itself.
  f = await tabUntil(page, (x) => x.tag === 'INPUT' && x.type === 'range', 'the scrub slider', where, 20);
  const t5 = await scrubText(page);
  await press(page, 'End', where);
  const t6 = await scrubText(page);
  if (t6 === t5) fail(where, `End on the slider did not move the cursor (${t5})`);
  await press(page, 'Home', where);
  console.log(`  stepped ${t2} → ${t3} → ${t4}; slider End → ${t6}, Home → ${await scrubText(page)}`);

  // The timeline's marks: one Tab stop, the arrow keys go from mark to mark and seek.
  const toMark = await tabUntil(page, (x) => x.mark !== null, 'a timeline mark', where, 10);
  if (toMark) {
    const m0 = toMark.focus.mark;
    await press(page, 'Enter', where);
    const s0 = await scrubText(page);
    f = await press(page, 'ArrowRight', where);
    const s1 = await scrubText(page);
    if (f.mark === null || f.mark === m0) fail(where, `ArrowRight on mark ${m0} did not move to the next mark (${f.desc})`);
    if (s1 === s0) fail(where, `ArrowRight on a mark did not move the cursor (${s0})`);
    f = await press(page, 'Tab', where);
    if (f.mark !== null) fail(where, `Tab from a mark went to another mark (${f.desc}): the marks should be one Tab stop`);
    await page.keyboard.press('Shift+Tab');
    console.log(`  marks: Enter → ${s0}, ArrowRight → ${s1}, one Tab stop`);
  }

  // 3. On to the first question, answer it and submit.
  const toQuiz = await tabUntil(page, (x) => x.inQuestion && ['INPUT', 'BUTTON'].includes(x.tag), 'the first quiz question', where, 400);
  if (toQuiz) {
    console.log(`  first question reached after ${toQuiz.presses} more Tab presses (${toQuiz.focus.desc})`);
    const qid = toQuiz.focus.inQuestion;
    f = toQuiz.focus;
    if (f.type === 'radio') {
      f = await press(page, 'ArrowDown', where); // selects the next option
      const checked = await page.evaluate(() => document.activeElement.checked);
      if (!checked) fail(where, 'ArrowDown in a radio group did not select an option');
    } else if (f.type === 'checkbox') {
      await press(page, 'Space', where);
    } else if (f.type === 'text') {
      await page.keyboard.type('42');
    }
    f = await tabUntil(page, (x) => x.inQuestion === qid && /q-check/.test(x.desc), 'the Check button', where, 10);
    await press(page, 'Enter', where);
    const verdict = await page
      .waitForSelector(`form[data-question-id="${qid}"] .q-feedback .q-verdict`, { timeout: 3000 })
      .then((e) => e.textContent())
      .catch(() => null);
    if (!verdict) fail(where, `no feedback after submitting ${qid} with Enter`);
    else console.log(`  answered ${qid}: "${verdict.trim().slice(0, 60)}"`);
    f = await focusInfo(page);
    if (!f.inQuestion) fail(where, `focus left the question after Check (now on ${f.desc})`);
  }

  // 4. On past the other questions to "Next section"; the next section's heading takes
  //    the focus, visibly.
  const toNext = await tabUntil(page, (x) => /pager-next/.test(x.desc), 'the Next section button', where, 400);
  if (toNext) {
    console.log(`  Next section reached after ${toNext.presses} more Tab presses`);
    f = await press(page, 'Enter', where);
    await page.waitForFunction(() => location.hash.startsWith('#/distributed-locks/4'));
    f = await focusInfo(page);
    if (!/#section-title/.test(f.desc)) fail(where, `after Next section, focus is on ${f.desc}, not the new heading`);
  }

  // 5. The Share / Embed dialog, by keyboard: opens with focus inside, keeps it inside
  //    (it is modal), Escape closes it and gives focus back to its button.
  //    A fresh load of the page, then Tab from the top.
  await page.goto('about:blank');
  await page.goto(url('?lang=en', sectionHash(3)));
  await rendered(page, { svg: true });
  const toShare = (await tabUntil(page, (x) => /#share-button/.test(x.desc), 'the Share button', where, 10))?.focus;
  if (toShare) {
    await press(page, 'Enter', where);
    await page.waitForSelector('[role=dialog]');
    f = await focusInfo(page);
    if (!f.inDialog) fail(where, `opening the dialog did not move focus into it (${f.desc})`);
    for (let i = 0; i < 12; i++) {
      f = await press(page, 'Tab', where);
      if (!f.inDialog) {
        fail(where, `Tab left the open modal dialog after ${i + 1} presses (focus on ${f.desc})`);
        break;
      }
    }
    for (let i = 0; i < 12 && f.inDialog; i++) {
      f = await press(page, 'Shift+Tab', where);
      if (!f.inDialog) fail(where, `Shift+Tab left the open modal dialog (focus on ${f.desc})`);
    }
    await page.keyboard.press('Escape');
    const gone = await page.waitForSelector('[role=dialog]', { state: 'detached', timeout: 2000 }).then(() => true, () => false);
    if (!gone) fail(where, 'Escape did not close the dialog');
    f = await focusInfo(page);
    if (!/#share-button/.test(f.desc)) fail(where, `after Escape, focus is on ${f.desc}, not the Share button`);
    console.log('  share dialog: opened, Tab kept inside, closed with Escape');
  }
  for (const e of page.errors) fail(where, e);
  await page.context().close();
}

// ---- reduced motion ----------------------------------------------------------------------
async function reducedMotion() {
  const where = 'reduced motion';
  console.log(`\n▶ ${where}: embed autoplay on section 3`);
  const autoplay = url('?embed=1&show=scenario&section=3&autoplay=1');
  for (const pref of ['reduce', 'no-preference']) {
    const page = await newPage({ reducedMotion: pref });
    await page.goto(autoplay);
    await rendered(page, { svg: true });
    const t0 = await scrubText(page);
    await page.waitForTimeout(1200);
    const t1 = await scrubText(page);
    const label = await page.$eval('section.scenario button.play', (b) => b.getAttribute('aria-label'));
    const moved = t0 !== t1 || label === 'Pause';
    console.log(`  prefers-reduced-motion: ${pref}: ${t0} → ${t1}, button "${label}"`);
    if (pref === 'reduce' && moved) fail(where, `autoplay started although the learner prefers reduced motion (${t0} → ${t1})`);
    if (pref !== 'reduce' && !moved) fail(where, `autoplay=1 did not start playback (${t0} → ${t1})`);
    for (const e of page.errors) fail(where, e);
    await page.context().close();
  }
  // A "what happens next?" question reveals its answer: under reduced motion it jumps to
  // the outcome instead of playing it.
  const page = await newPage({ reducedMotion: 'reduce' });
  await page.goto(url('?embed=1&show=quiz&section=3&lang=en'));
  await rendered(page, { svg: true });
  const form = page.locator('form.question', { has: page.locator('section.scenario') }).first();
  const before = await form.locator('input.scrub').getAttribute('aria-valuetext');
  await form.locator('input[type=radio]').first().check();
  await form.locator('button.q-check').click();
  await page.waitForTimeout(600);
  const after1 = await form.locator('input.scrub').getAttribute('aria-valuetext');
  await page.waitForTimeout(600);
  const after2 = await form.locator('input.scrub').getAttribute('aria-valuetext');
  const label = await form.locator('button.play').getAttribute('aria-label');
  console.log(`  predict question, reduced motion: ${before} → ${after1} → ${after2}, button "${label}"`);
  if (after1 !== after2 || label === 'Pause') fail(where, 'a revealed prediction animates although the learner prefers reduced motion');
  if (after1 === before) fail(where, 'a revealed prediction did not show the outcome under reduced motion');
  await page.context().close();
}

// ---- the screenshot for the README -------------------------------------------------------
async function takeScreenshot() {
  const page = await newPage({ viewport: { width: 1280, height: 900 } });
  await page.goto(url('?embed=1&show=scenario&section=3&controls=play,step,scrub,speed&theme=light', `${sectionHash(3)}?scenario=unsafe-del&seed=1&t=12300`));
  await rendered(page, { svg: true });
  await page.waitForFunction(() => document.querySelectorAll('svg.timeline .band').length > 0);
  const box = await page.evaluate(() => {
    const s = document.querySelector('section.scenario').getBoundingClientRect();
    const end = document.querySelector('section.scenario ul.violations').getBoundingClientRect();
    return { x: s.x, y: s.y, width: s.width, height: end.bottom - s.y + 12 };
  });
  const out = join(ROOT, 'docs/timeline.png');
  await page.screenshot({ path: out, clip: { x: 0, y: 0, width: 1280, height: Math.ceil(box.y + box.height) } });
  console.log(`\n▶ screenshot: docs/timeline.png (1280 × ${Math.ceil(box.y + box.height)})`);
  await page.context().close();
}

// ---- reflow --------------------------------------------------------------------------------
// WCAG 1.4.10: at 320 CSS px nothing but what is meant to scroll on its own (code, the
// timeline, a wide table, each in a scrolling box) may make the page scroll sideways.
// axe does not check this. Every section in both languages, and the progress page.
async function reflow() {
  const where = 'reflow at 320 px';
  console.log(`▶ ${where}`);
  const page = await newPage({ viewport: { width: 320, height: 640 } });
  const targets = [];
  for (const lang of ['en', 'nb']) {
    for (const s of sections) targets.push(url(`?lang=${lang}`, sectionHash(s.order)));
    targets.push(url(`?lang=${lang}`, `#/${LESSON}/progress`));
  }
  let checked = 0;
  for (const target of targets) {
    await page.goto('about:blank');
    await page.goto(target);
    await rendered(page);
    const r = await page.evaluate(() => {
      const W = document.documentElement.clientWidth;
      const wide = [];
      for (const e of document.querySelectorAll('body *')) {
        const box = e.getBoundingClientRect();
        if (box.width === 0 || box.right <= W + 1) continue;
        let clipped = false;
        for (let a = e.parentElement; a && a !== document.body; a = a.parentElement) {
          if (getComputedStyle(a).overflowX !== 'visible') { clipped = true; break; }
        }
        if (!clipped && !wide.some((o) => o.contains(e))) wide.push(e);
      }
      // Text runs too (a long token in a list item overflows its box, not the box itself).
      const walker = document.createTreeWalker(document.body, NodeFilter.SHOW_TEXT);
      for (let n = walker.nextNode(); n; n = walker.nextNode()) {
        const range = document.createRange();
        range.selectNodeContents(n);
        if (range.getBoundingClientRect().right <= W + 1) continue;
        let clipped = false;
        for (let a = n.parentElement; a && a !== document.body; a = a.parentElement) {
          if (getComputedStyle(a).overflowX !== 'visible') { clipped = true; break; }
        }
        if (!clipped && !wide.some((o) => o.contains(n))) wide.push(n.parentElement);
      }
      const name = (e) => `${e.tagName.toLowerCase()}${[...e.classList].map((c) => '.' + c).join('')} (${Math.round(e.getBoundingClientRect().right)} px)`;
      return { scroll: document.documentElement.scrollWidth, W, wide: wide.slice(0, 5).map(name) };
    });
    // The bar's name whole, not "L…" (#40 item 13).
    const brand = await page.evaluate(() => { const b = document.querySelector('.topbar .brand-name'); return b ? [b.scrollWidth, b.clientWidth, b.textContent] : null; });
    if (brand && brand[0] > brand[1]) fail(where, `${target.slice(BASE.length - 1)}: the top bar cuts "${brand[2]}" to ${brand[1]} of ${brand[0]} px`);
    if (r.scroll > r.W) fail(where, `${target.slice(BASE.length - 1)} is ${r.scroll} px wide in a ${r.W} px window: ${r.wide.join(', ') || 'no single element'}`);
    checked++;
  }
  console.log(`  ${checked} pages fit in 320 px`);
  for (const e of page.errors) fail(where, e);
  await page.context().close();
}

// ---- main --------------------------------------------------------------------------------
const started = Date.now();
browser = await chromium.launch({ executablePath: CHROMIUM, args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'] });
let audited = 0;
try {
  for (const p of pages.filter((p) => !only || p.name.includes(only))) {
    console.log(`▶ ${p.name}  ${p.url.slice(BASE.length - 1)}${p.viewport.width < 1000 ? `  (${p.viewport.width}×${p.viewport.height})` : ''}`);
    const page = await newPage(p);
    try {
      await page.goto(p.url);
      await rendered(page, p);
      if (p.setup) await p.setup(page);
      const r = await runAxe(page);
      report(p.name, r);
      if (r.incomplete.length) console.log(`  (axe could not decide ${r.incomplete.length} rule(s): ${r.incomplete.map((i) => i.id).join(', ')})`);
      if (verbose) {
        for (const i of r.incomplete) {
          for (const n of i.nodes.slice(0, 5)) {
            console.log(`    ? ${i.id}: ${n.target.join(' ')}: ${(n.any[0] ?? n.all[0] ?? n.none[0])?.message ?? ''}`);
          }
        }
      }
      audited++;
    } catch (e) {
      fail(p.name, `could not audit: ${e.message.split('\n')[0]}`);
    }
    for (const e of page.errors) fail(p.name, e);
    await page.context().close();
  }
  if (!only || 'reflow at 320 px'.includes(only)) await reflow();
  if (!only || 'keyboard walk'.includes(only)) await keyboardWalk();
  if (!only || 'reduced motion'.includes(only)) await reducedMotion();
  if (screenshot) await takeScreenshot();
} finally {
  await browser.close();
}

const secs = ((Date.now() - started) / 1000).toFixed(1);
console.log(`\n${audited} pages audited with ${rulesRun.size} axe rules (${TAGS.join(', ')}) in ${secs} s.`);
if (problems.length) {
  console.log(`\n${problems.length} problem(s):`);
  for (const p of problems) console.log(`  - ${p}`);
  process.exit(1);
}
console.log('No accessibility problems found.');
