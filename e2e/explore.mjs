// The scenario panels' runs, "Can this break?" and §4's trade-off table in a real browser
// (Debian's Chromium): all run in the page's one engine worker (static/engine-worker.js), started by itself when
// the section is shown, so no main-thread task over 50 ms is recorded
// (PerformanceObserver "longtask") while they compute; the table's rows are the page's
// own (computed again with the worker's script blocked), and Cancel stops an explorer
// run but not the worker, which runs the next one.
//   BASE_URL=http://127.0.0.1:PORT/ node e2e/explore.mjs
// Exits 1 with the reasons when a step does not do what a learner expects.
import { chromium } from 'playwright-core';
import { throttle } from './lesson.mjs';
import { readFileSync } from 'node:fs';

const BASE = process.env.BASE_URL ?? 'http://127.0.0.1:8080/';
const problems = [];
const say = (...a) => console.log('explore:', ...a);
/** The benchmark's target for a main-thread task; reported, never a check (a wall-clock
 * limit fails for whoever runs the suite on a busy machine). */
const LONG_MS = 50;
const measures = [];
const measure = (what, ms) => measures.push({ what, ms });

const browser = await chromium.launch({
  executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
  args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
});
// THROTTLE=4: every page's CPU slowed 4× (e2e/lesson.mjs), a measurement, never a check.
const THROTTLE = throttle(browser);
// A fresh page at `section` with the app started, recording long tasks from then on.
async function appAt(section, { blockWorker = false, fixedRandom = false } = {}) {
  const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
  page.on('pageerror', (e) => problems.push(`§${section}: page error: ${e.message}`));
  if (blockWorker) await page.route('**/engine-worker.js', (r) => r.abort());
  // The same "random" numbers in every load: the page's fresh seeds (a generated
  // question's variant) are then the same in two pages, to compare what each made.
  if (fixedRandom) await page.addInitScript(() => {
    let x = 0x2545f491;
    crypto.getRandomValues = (a) => {
      const b = new Uint8Array(a.buffer, a.byteOffset, a.byteLength);
      for (let i = 0; i < b.length; i++) { x ^= x << 13; x ^= x >>> 17; x ^= x << 5; b[i] = x & 255; }
      return a;
    };
  });
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
  // A panel whose first run is not shipped with the page shows the snapshot's drawing
  // until the worker has made it.
  await page.waitForFunction(() => !document.querySelector('.scenario-snapshot'), null, { timeout: 30000 });
  return page;
}

// What a learner sees of the section's main panel once its run is in (not busy).
async function settled(page) {
  await page.waitForFunction(() => {
    const s = document.querySelector('section.scenario');
    return s && !s.hasAttribute('aria-busy');
  }, null, { timeout: 30000 });
  return page.evaluate(() => {
    const s = document.querySelector('section.scenario');
    return { madeIn: s.dataset.madeIn, seed: s.querySelector('.seed').innerText, at: s.querySelector('.cursor-time').innerText };
  });
}

// Does `act` on §`section`'s main panel and waits for its run: the transcript, where the
// run was made, and the longest main-thread task from the action to the run drawn.
async function panelStep(page, act) {
  await page.evaluate(() => { window.__long = []; });
  await act();
  await page.waitForFunction(() => document.querySelector('section.scenario[aria-busy]') === null, null, { timeout: 30000 });
  const seen = await settled(page);
  // Long tasks are reported a moment after they end.
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
  const longs = await page.evaluate(() => window.__long);
  return { ...seen, longest: Math.max(0, ...longs) };
}

try {
  // The scenario panels' runs (a typed seed, a console line's fork, Undo) are made in the
  // engine's worker, and are the runs the page makes itself (the worker's script blocked).
  for (const section of [3, 4]) {
    const seen = {};
    for (const where of ['worker']) {
      const page = await appAt(section);
      const panel = page.locator('section.scenario').first();
      // §3's lab comes when it nears the screen, which these steps' scrolling may do: it
      // comes first here, so that what is measured is the panel's runs (the lab's own
      // arrival is measured below).
      if (await page.locator('.lab-host').count()) {
        await page.locator('.lab-host').first().scrollIntoViewIfNeeded();
        await page.locator('.lab-host .lab-pce').first().waitFor({ timeout: 30000 });
        await panel.scrollIntoViewIfNeeded();
        await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
      }
      const steps = [];
      // A typed seed.
      steps.push(await panelStep(page, async () => {
        await panel.getByRole('textbox', { name: 'Type a seed' }).fill('42');
        await panel.getByRole('button', { name: 'Use seed' }).click();
      }));
      await page.waitForFunction(() => /42/.test(document.querySelector('section.scenario .seed').innerText), null, { timeout: 30000 });
      // The last event, and a console write there: a fork, one event more.
      await panel.locator('input.scrub').focus();
      await page.keyboard.press('End');
      steps.push(await settled(page));
      const consoleLine = panel.locator('.scenario-console input');
      if (await consoleLine.count()) {
        steps.push(await panelStep(page, async () => {
          await consoleLine.fill('SET mine v');
          await consoleLine.press('Enter');
        }));
        steps.push({ reply: await panel.locator('.scenario-console pre').innerText() });
        // Undo (beside the console that made the fork): the run without it, at the same moment.
        steps.push(await panelStep(page, () => panel.locator('.scenario-console .undo-fork').click()));
      }
      // The paired scenario beside it, on the same seed: its run made where the panel's are.
      const toggle = panel.locator('.compare-toggle input');
      if (await toggle.count()) {
        await toggle.check();
        await panel.locator('.compare svg.timeline').waitFor({ timeout: 30000 });
        const compare = panel.locator('.compare');
        steps.push({ compare: await compare.locator('h3').innerText(), madeIn: await compare.getAttribute('data-made-in'),
          violations: await compare.locator('.violations li.violation-text').count(), longest: 0 });
      }
      seen[where] = steps;
      const made = steps.filter((s) => s.madeIn && s.longest !== undefined).map((s) => s.madeIn);
      const longest = Math.max(...steps.map((s) => s.longest ?? 0));
      say(`§${section}'s panel, runs made in the ${[...new Set(made)].join(', ')}${where === 'page' ? ' (the worker\'s script blocked)' : ''}: ${steps.map((s) => s.at ?? s.reply?.trim().split('\n').pop() ?? `${s.compare} beside it (${s.violations} violations)`).join(' → ')}; longest task ${longest.toFixed(0)} ms`);
      if (made.length < 1 || made.some((m) => m !== where)) problems.push(`§${section}: the panel's runs were made in the ${made.join(', ')}, not in the ${where}`);
      if (where === 'worker') measure(`§${section}: longest main-thread task while the panel's run was made in the worker`, longest);
      await page.close();
    }
  }

  // §3's lab as the learner scrolls to it: its panel (drawn a task after the page) and its
  // code editor come in tasks of their own (src/ui/lab/host.rs, static/editor-load.js, editor/),
  // measured from the scroll to the editor in place.
  {
    const page = await appAt(3);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 300))));
    const before = await page.locator('.lab-host .lab-pce').count();
    await page.evaluate(() => { window.__long = []; });
    await page.locator('.lab-host').first().scrollIntoViewIfNeeded();
    await page.locator('.lab-host .lab-pce').first().waitFor({ timeout: 30000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
    const longs = await page.evaluate(() => window.__long);
    say(`§3's lab came as it was scrolled to${before ? ' (its editor was there before the scroll)' : ''}: panel and editor; long tasks: ${JSON.stringify(longs.map(Math.round))}`);
    if (!before) measure("§3: longest main-thread task as its lab came (panel, editor)", Math.max(0, ...longs));
    await page.close();
  }

  // §2's generated questions (the store runs for them) and §3's "what happens next?" (the
  // simulator): made in the engine's worker, and the questions the page makes itself
  // (the worker's script blocked) on the same variants; "Another variant" too.
  {
    const seen = {};
    const questions = (page) => page.evaluate(() => [...document.querySelectorAll('form.question[data-made-in]')]
      .filter((f) => f.querySelector('.q-another') || f.querySelector('section.scenario'))
      .map((f) => ({ id: f.dataset.questionId, madeIn: f.dataset.madeIn, busy: f.hasAttribute('aria-busy'),
        text: f.querySelector('legend').innerText + ' | ' + [...f.querySelectorAll('label')].filter((l) => !l.closest('section.scenario')).map((l) => l.innerText).join(' | ') })));
    for (const where of ['worker']) {
      const steps = [];
      let longest = 0;
      for (const section of [2, 3]) {
        const page = await appAt(section, { fixedRandom: true });
        // The context sees a worker's fetches too (the authoring module's worker is the
        // engine worker's own).
        const fetched = [];
        const onRequest = (r) => fetched.push(r.url());
        page.context().on('request', onRequest);
        await page.waitForSelector('form.question', { timeout: 30000 });
        await page.evaluate(() => [...document.querySelectorAll('form.question')].pop().scrollIntoView());
        await page.waitForFunction(() => document.querySelectorAll('form.question[data-made-in]').length > 0
          && !document.querySelector('form.question[aria-busy]'), null, { timeout: 30000 });
        steps.push(...await questions(page));
        const another = page.locator('form.question .q-another').first();
        if (await another.count()) {
          const id = await another.evaluate((b) => b.closest('form').dataset.questionId);
          const before = await page.locator(`form.question[data-question-id="${id}"] legend`).innerText();
          await page.evaluate(() => { window.__long = []; });
          await another.click();
          await page.waitForFunction(([id, before]) => {
            const f = document.querySelector(`form.question[data-question-id="${id}"]`);
            return f && !f.hasAttribute('aria-busy') && f.querySelector('legend')?.innerText !== before;
          }, [id, before], { timeout: 30000 });
          await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
          longest = Math.max(longest, ...await page.evaluate(() => window.__long));
          steps.push(...(await questions(page)).filter((q) => q.id === id));
        }
        // Their texts drawn from trees the engine made without a parser (a prompt's
        // code spans formatted, no text shown unparsed), and no authoring module loaded.
        const [codes, misses] = await page.evaluate(() => [document.querySelectorAll('form.question[data-made-in] legend code').length,
          document.documentElement.dataset.markdownMisses ?? '0']);
        say(`§${section}'s questions: ${codes} code spans in their prompts; texts shown unparsed: ${misses}`);
        if (misses !== '0') problems.push(`§${section}: ${misses} question texts shown unparsed`);
        if (section === 2 && codes < 1) problems.push('§2: no generated prompt shows its code formatted');
        if (fetched.some((u) => /\/authoring(_bg\.wasm|\.js)$/.test(u))) problems.push(`§${section}: the built-in lesson loaded the authoring module`);
        page.context().off('request', onRequest);
        await page.close();
      }
      seen[where] = steps;
      const made = [...new Set(steps.map((s) => s.madeIn))];
      say(`§2 and §3's ${steps.length} generated and "what happens next?" questions (and a new variant) made in the ${made.join(', ')}${where === 'page' ? ' (the worker\'s script blocked)' : `; longest task after "Another variant" ${longest.toFixed(0)} ms`}`);
      if (steps.length < 3 || made.length !== 1 || made[0] !== where) problems.push(`generated questions were made in the ${made.join(', ')}, not in the ${where}`);
      if (where === 'worker') measure('longest main-thread task after "Another variant"', longest);
    }
  }

  // §4 opened at once: its 15 000-event run is not shipped with the page, so its panel
  // shows the snapshot's drawing (inert) until the engine's worker has made the run.
  {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.addInitScript(() => {
      window.__long = [];
      new PerformanceObserver((l) => { for (const e of l.getEntries()) window.__long.push(e.duration); })
        .observe({ type: 'longtask', buffered: true });
      // Whether the app ever drew the snapshot's drawing as its panel's stand-in: it is
      // drawn before the worker's answer can come (a later task), so an observer sees it
      // however fast the worker is. (Looking once the app was ready raced the worker: a
      // fresh-clone run with the other core busy found the run already made.)
      window.__snapshotSeen = false;
      const watch = new MutationObserver(() => {
        if (!document.querySelector('.scenario-snapshot section.scenario')) return;
        window.__snapshotSeen = true;
        watch.disconnect();
      });
      watch.observe(document, { childList: true, subtree: true });
    });
    await page.goto(`${BASE}?lang=en#/distributed-locks/4`);
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => window.lockstepBoot());
    await page.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready', null, { timeout: 30000 });
    const started = await page.evaluate(() => window.__long.length);
    await page.waitForFunction(() => !document.querySelector('.scenario-snapshot') && document.querySelector('section.scenario[data-made-in]'), null, { timeout: 30000 });
    const snapshot = await page.evaluate(() => window.__snapshotSeen);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
    const [madeIn, longs] = await page.evaluate(() => [document.querySelector('section.scenario').dataset.madeIn, window.__long]);
    say(`§4 opened at once: ${snapshot ? 'the snapshot\'s drawing' : 'no snapshot'} until the run, made in the ${madeIn}; long tasks: the app's start ${JSON.stringify(longs.slice(0, started).map(Math.round))}, then ${JSON.stringify(longs.slice(started).map(Math.round))}`);
    if (!snapshot) problems.push('§4 opened at once did not show the snapshot\'s drawing of its panel while the run was made');
    if (madeIn !== 'worker') problems.push(`§4 opened at once: its first run was made in the ${madeIn}, not in the worker`);
    await page.close();
  }

  // An instructor's pack (packs/example, served as if beside the app): its files are
  // read and checked, and its Markdown parsed, by the authoring module (the TOML and
  // Markdown readers and the pack loader are its own, not the engine's), in the engine
  // worker's own worker, and the page shows the lesson they make.
  {
    const seen = {};
    for (const where of ['worker']) {
      const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
      page.on('pageerror', (e) => problems.push(`pack: page error: ${e.message}`));
      const fetched = [];
      page.context().on('request', (r) => fetched.push(r.url()));
      await page.route('**/test-pack/**', (r) => {
        const rel = new URL(r.request().url()).pathname.split('/test-pack/')[1];
        try { r.fulfill({ status: 200, contentType: 'text/plain; charset=utf-8', body: readFileSync(new URL(`../packs/example/${rel}`, import.meta.url)) }); }
        catch { r.fulfill({ status: 404, body: '' }); }
      });
      await page.addInitScript(() => {
        const W = window.Worker;
        window.__calls = [];
        window.Worker = function (url, opts) {
          const w = new W(url, opts);
          const post = w.postMessage.bind(w);
          w.postMessage = (m, ...rest) => {
            // "<module>:<request>": the engine module the page asks to answer it.
            try { const v = JSON.parse(m); if (v.what) window.__calls.push(`${v.module}:${v.what}`); } catch { /* not ours */ }
            return post(m, ...rest);
          };
          return w;
        };
      });
      await page.goto(`${BASE}?lang=en&pack=test-pack/pack.toml#/leases/2`);
      await page.waitForSelector('#section-title', { timeout: 30000 });
      const shown = await page.evaluate(() => [document.title, document.querySelector('#section-title').innerText,
        document.querySelector('article.section').innerText.length]);
      const calls = await page.evaluate(() => window.__calls);
      seen[where] = shown;
      say(`the example pack, read in the ${where === 'page' ? 'page (the worker\'s script blocked)' : 'worker'}: "${shown[1]}", ${shown[2]} characters; calls to the worker: ${calls.join(', ') || 'none'}`);
      if (where === 'worker' && !(calls.includes('authoring:pack_list') && calls.includes('authoring:pack_load'))) problems.push(`the pack was not read by the authoring module's worker (calls: ${calls.join(', ')})`);
      if (calls.some((c) => c.startsWith('engine:pack'))) problems.push(`the engine's module was asked for a pack's work (calls: ${calls.join(', ')})`);
      // The authoring module's files came, for the pack only (§4 and §9 below start one
      // worker, the engine's, and no other).
      if (!fetched.some((u) => u.endsWith('/authoring_bg.wasm'))) problems.push(`the authoring module was not fetched for the pack (${fetched.filter((u) => /\.wasm$/.test(u)).join(', ')})`);
      // The page parses no Markdown: the engine parsed the pack's texts for it, and the
      // section shows them formatted (its paragraphs, lists, code), none as plain text.
      const drawn = await page.evaluate(() => [document.querySelectorAll('article.section p').length,
        document.querySelectorAll('article.section code, article.section li').length,
        document.documentElement.dataset.markdownMisses ?? '0']);
      say(`the pack's section 2 drew ${drawn[0]} paragraphs and ${drawn[1]} code spans and list items; texts shown unparsed: ${drawn[2]}`);
      if (!calls.includes('authoring:markdown')) problems.push(`the pack's Markdown was not parsed by the authoring module (calls: ${calls.join(', ')})`);
      if (drawn[0] < 2 || drawn[1] < 1 || drawn[2] !== '0') problems.push(`the pack's section is not drawn from its Markdown: ${drawn}`);
      await page.close();
    }
    if (seen.worker?.[1] !== 'Renewing a lease') problems.push(`the pack's section 2 shows "${seen.worker?.[1]}", not its title`);
  }

  // The lesson's text in parts (src/text.rs): in English the page and its engine's worker
  // fetch the common part and the English one; switching to Norwegian fetches the
  // Norwegian part, for the page and for the worker, whose generated questions (§2) then
  // come in Norwegian; nothing else.
  {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => problems.push(`language switch: page error: ${e.message}`));
    const texts = [];
    page.context().on('request', (r) => {
      const m = /\/(lesson-text-[^/]+\.txt)$/.exec(new URL(r.url()).pathname);
      if (m) texts.push(m[1]);
    });
    const questionsMade = () => page.waitForFunction(() => document.querySelectorAll('form.question[data-made-in]').length > 0
      && !document.querySelector('form.question[aria-busy]'), null, { timeout: 30000 });
    const prompts = () => page.evaluate(() => [...document.querySelectorAll('form.question[data-made-in] legend')].map((l) => l.innerText.trim()));
    await page.goto(`${BASE}?lang=en#/distributed-locks/2`);
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => window.lockstepBoot());
    await page.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready', null, { timeout: 30000 });
    await page.evaluate(() => [...document.querySelectorAll('form.question')].pop()?.scrollIntoView());
    await questionsMade();
    const [english, englishPrompts, heading] = [[...texts], await prompts(), await page.locator('h1').first().innerText()];
    await page.locator('.lang-switch button[data-lang=nb]').first().click();
    await page.waitForFunction((h) => document.documentElement.lang === 'nb' && (document.querySelector('h1')?.innerText ?? '') !== h
      && (document.querySelector('h1')?.innerText ?? '').trim() !== '', heading, { timeout: 30000 });
    await page.evaluate(() => [...document.querySelectorAll('form.question')].pop()?.scrollIntoView());
    await questionsMade();
    const norwegianPrompts = await prompts();
    const norwegian = texts.slice(english.length);
    const kinds = (list) => [...new Set(list.map((f) => /^lesson-text-([a-z]+)-/.exec(f)?.[1] ?? 'common'))].sort().join(' ');
    say(`the lesson's text in English: ${english.join(', ')}; after the switch to Norwegian: ${norwegian.join(', ')} ("${await page.locator('h1').first().innerText()}", ${norwegianPrompts.length} generated prompts)`);
    if (kinds(english) !== 'common en') problems.push(`in English the lesson's text came as ${english.join(', ') || 'nothing'}, not its common and English parts`);
    if (kinds(norwegian) !== 'nb') problems.push(`switching to Norwegian fetched ${norwegian.join(', ') || 'nothing'}, not the Norwegian part alone`);
    if (!norwegianPrompts.length || norwegianPrompts.some((p) => !p) || norwegianPrompts.join('|') === englishPrompts.join('|')) {
      problems.push(`§2's generated prompts after the switch: ${JSON.stringify(norwegianPrompts)} (in English: ${JSON.stringify(englishPrompts)})`);
    }
    await page.close();
  }

  // The Norwegian part that does not come: the page stays in English and says so; chosen
  // again once it can come, the switch works.
  {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    page.on('pageerror', (e) => problems.push(`language not fetched: page error: ${e.message}`));
    let block = true;
    await page.route('**/lesson-text-nb-*.txt', (r) => (block ? r.abort() : r.continue()));
    await page.goto(`${BASE}?lang=en#/distributed-locks/3`);
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => window.lockstepBoot());
    await page.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready', null, { timeout: 30000 });
    const title = await page.locator('h1').first().innerText();
    await page.locator('.lang-switch button[data-lang=nb]').first().click();
    await page.waitForFunction(() => /Norsk bokmål/.test(document.querySelector('.notices')?.textContent ?? ''), null, { timeout: 30000 }).catch(() => {});
    const [lang, notice, still] = await page.evaluate(() => [document.documentElement.lang,
      document.querySelector('.notices')?.textContent.trim() ?? '', document.querySelector('h1')?.innerText ?? '']);
    block = false;
    await page.locator('.lang-switch button[data-lang=nb]').first().click();
    await page.waitForFunction(() => document.documentElement.lang === 'nb', null, { timeout: 30000 }).catch(() => {});
    const [after, norwegian, left] = await page.evaluate(() => [document.documentElement.lang, document.querySelector('h1')?.innerText ?? '',
      document.querySelector('.notices')?.textContent.trim() ?? '']);
    say(`Norwegian's part blocked: the page stayed "${lang}" ("${still}") and said: "${notice}"; unblocked, the switch gave "${after}" ("${norwegian}")`);
    if (lang !== 'en' || still !== title || !/could not load its text in Norsk bokmål/.test(notice)) {
      problems.push(`with Norwegian's part blocked: lang ${lang}, title "${still}", notice "${notice}"`);
    }
    if (after !== 'nb' || !norwegian.trim() || norwegian === title || left) problems.push(`after unblocking, the switch gave ${after} ("${norwegian}"), notices: "${left}"`);
    await page.close();
  }

  // The lesson's text that does not come (the page's module carries none): the
  // prerendered section stays readable, and the status line says what went wrong and
  // what to do.
  {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route('**/lesson-text-*.txt', (r) => r.abort());
    await page.goto(`${BASE}?lang=en#/distributed-locks/3`);
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => { window.lockstepBoot().catch(() => {}); });
    await page.waitForFunction(() => /lesson's text/.test(document.querySelector('.boot-status')?.textContent ?? ''), null, { timeout: 30000 }).catch(() => {});
    const [status, title] = await page.evaluate(() => [document.querySelector('.boot-status')?.textContent ?? '',
      document.querySelector('h1')?.textContent ?? '']);
    say(`without its text the page says: "${status}", and still shows "${title}"`);
    if (!/could not load the lesson's text .*Reload the page to try again\./.test(status) || !title) {
      problems.push(`without the lesson's text: status "${status}", title "${title}"`);
    }
    await page.close();
  }

  // Every built-in section and its questions, as a learner pages through: all drawn
  // from the trees the build made (the page parses no Markdown), none as plain text.
  {
    const page = await appAt(1);
    let paragraphs = 0;
    let questions = 0;
    for (let n = 1; n <= 12; n++) {
      await page.evaluate((n) => { location.hash = `#/distributed-locks/${n}`; }, n);
      await page.waitForFunction((n) => document.querySelector('.section-kicker')?.innerText.startsWith(`Section ${n} `), n, { timeout: 30000 });
      await page.waitForFunction(() => !document.querySelector('form.question[aria-busy]'), null, { timeout: 30000 });
      paragraphs += await page.evaluate(() => document.querySelectorAll('article.section p').length);
      questions += await page.evaluate(() => document.querySelectorAll('form.question legend').length);
    }
    const misses = await page.evaluate(() => document.documentElement.dataset.markdownMisses ?? '0');
    say(`12 sections drew ${paragraphs} paragraphs and ${questions} questions; texts shown unparsed: ${misses}`);
    if (paragraphs < 100 || questions < 10 || misses !== '0') problems.push(`the sections are not all drawn from their trees: ${paragraphs} paragraphs, ${questions} questions, ${misses} unparsed`);
    await page.close();
  }

  // Another section opened while the app runs: its panel's first run, too, is made in
  // the worker (§4's has 15 410 events), and the page does not freeze on the way there.
  {
    const direct = await appAt(4);
    const expected = await direct.locator('section.scenario .cursor-time').first().innerText();
    await direct.close();
    const page = await appAt(3);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => { window.__long = []; r(); })));
    await page.evaluate(() => { location.hash = '#/distributed-locks/4'; });
    await page.waitForFunction(() => document.querySelector('section.scenario[data-scenario="ttl-workers"]:not([aria-busy]) .cursor-time'), null, { timeout: 30000 });
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => setTimeout(r, 100))));
    const [madeIn, at, longs] = await page.evaluate(() => {
      const s = document.querySelector('section.scenario');
      return [s.dataset.madeIn, s.querySelector('.cursor-time').innerText, window.__long];
    });
    say(`§3 → §4 in the app: §4's first run made in the ${madeIn} (${at}); long tasks: ${JSON.stringify(longs.map(Math.round))}`);
    if (madeIn !== 'worker') problems.push(`§4 opened from §3: its first run was made in the ${madeIn}, not in the worker`);
    if (at !== expected) problems.push(`§4 opened from §3 shows "${at}", not "${expected}" as when opened at once`);
    await page.close();
  }

  // §4's table, as the section opens: the app's own start is over at its first frame, and
  // the long tasks are counted from then to the table.
  const tables = {};
  for (const where of ['worker']) {
    const page = await appAt(4);
    await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => { window.__long = []; r(); })));
    await page.waitForSelector('.tradeoff[data-ran-in]', { timeout: 30000 });
    const [ranIn, rows, longs] = await page.evaluate(() => [document.querySelector('.tradeoff').dataset.ranIn,
      document.querySelector('.tradeoff-table tbody')?.innerText ?? '', window.__long]);
    tables[where] = rows;
    say(`§4's table (${rows.split('\n').length} rows) ran in the ${ranIn}${where === 'page' ? ' (the worker\'s script blocked)' : ''}; long tasks: ${longs.length}, longest ${Math.max(0, ...longs).toFixed(0)} ms`);
    if (ranIn !== where) problems.push(`§4's table ran in the ${ranIn}, not in the ${where}`);
    if (where === 'worker') measure('§4: longest main-thread task while the table computed', Math.max(0, ...longs));
    if (where === 'worker') {
      // A new seed: the same worker, already running, computes the next table.
      const seed = await page.locator('section.scenario .seed').first().innerText();
      await page.locator('section.scenario').first().getByRole('button', { name: 'New seed' }).click();
      await page.waitForFunction((was) => document.querySelector('section.scenario .seed')?.innerText !== was, seed, { timeout: 10000 });
      // The table of that seed (its caption names it).
      const now = await page.locator('section.scenario .seed').first().innerText();
      const digits = now.match(/\d+/)[0];
      await page.waitForFunction((d) => document.querySelector('.tradeoff[data-ran-in] caption')?.innerText.includes(d), digits, { timeout: 30000 });
      const again = await page.evaluate(() => document.querySelector('.tradeoff').dataset.ranIn);
      say(`§4's table for a new seed (${now}) ran in the ${again}`);
      if (again !== 'worker') problems.push(`§4's table for a new seed ran in the ${again}, not in the worker`);
    }
    await page.close();
  }
  if (!tables.worker || tables.worker.split('\n').length < 5) problems.push(`§4's table from the worker has too few rows:\n${tables.worker}`);

  // The page has no simulator of its own: where the engine's worker cannot start (its
  // script blocked), what needs it says so clearly, and nothing waits for ever.
  {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    await page.route('**/engine-worker.js', (r) => r.abort());
    await page.goto(`${BASE}?lang=en#/distributed-locks/4`);
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => window.lockstepBoot());
    await page.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready', null, { timeout: 30000 });
    const said = await page.waitForFunction(() => {
      const panel = document.querySelector('.scenario.error[role=alert]')?.innerText ?? '';
      return /could not start/.test(panel) ? panel : null;
    }, null, { timeout: 15000 }).then((h) => h.jsonValue(), () => null);
    if (!said) problems.push('§4 with the engine\'s worker blocked: its panel does not say the simulator could not start');
    else say(`§4 with the engine's worker blocked says: "${said.trim()}"`);
    // A generated question, made by the store in the engine, says so too.
    await page.evaluate(() => { location.hash = '#/distributed-locks/2'; });
    await page.waitForSelector('form.question', { timeout: 30000 });
    await page.evaluate(() => [...document.querySelectorAll('form.question')].pop().scrollIntoView());
    const question = await page.waitForFunction(() => [...document.querySelectorAll('form.question [role=alert]')]
      .map((e) => e.innerText).find((t) => /could not start/.test(t)) ?? null, null, { timeout: 15000 }).then((h) => h.jsonValue(), () => null);
    if (!question) problems.push('§2 with the engine\'s worker blocked: no generated question says the simulator could not start');
    await page.close();
  }
  // A worker that broke is started again for the next job: its first load failing, §4's
  // run fails, and §3's, asked for after it, is made by a new worker.
  {
    const page = await browser.newPage({ viewport: { width: 1280, height: 900 } });
    let loads = 0;
    await page.route('**/engine-worker.js', (r) => (loads++ === 0 ? r.abort() : r.continue()));
    await page.goto(`${BASE}?lang=en#/distributed-locks/4`);
    await page.waitForFunction(() => typeof window.lockstepBoot === 'function', null, { timeout: 30000 });
    await page.evaluate(() => window.lockstepBoot());
    await page.waitForSelector('.scenario.error[role=alert]', { timeout: 15000 });
    await page.evaluate(() => { location.hash = '#/distributed-locks/3'; });
    const madeIn = await page.waitForFunction(() => document.querySelector('section.scenario[data-made-in]:not([aria-busy])')?.dataset.madeIn ?? null,
      null, { timeout: 30000 }).then((h) => h.jsonValue(), () => null);
    say(`the engine's worker failed to load once: §4 said so, then §3's run was made in the ${madeIn} (${loads} loads of its script)`);
    if (madeIn !== 'worker' || loads < 2) problems.push(`after the worker failed once, §3's run was made in the ${madeIn} (${loads} loads of the worker's script)`);
    await page.close();
  }

  // §4: the TTL scenario breaks in most trials (shrinking runs in every batch); §9: fenced.
  for (const section of [4, 9]) {
    const page = await appAt(section);
    const panel = page.locator('.explore').first();
    // The section's engine worker starts by itself, shortly after the section is shown
    // (one per page, whatever uses it: no pointer near the button yet).
    const engines = () => page.workers().filter((w) => w.url().endsWith('/engine-worker.js')).length;
    for (let i = 0; i < 50 && !engines(); i++) await page.waitForTimeout(100);
    const warmed = engines();
    if (warmed !== 1) problems.push(`§${section}: ${warmed} engine workers 5 s after the section was shown, not one`);
    await panel.scrollIntoViewIfNeeded();
    await page.waitForTimeout(500);
    // The pointer reaches the button a moment before the click, as a learner's does.
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
    measure(`§${section}: longest main-thread task during "Can this break?"`, Math.max(0, ...longs));

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
      const cancel = document.querySelector('.explore .explore-cancel');
      // A fast run (§9 is 0.4 s) may be over before the click: nothing to time.
      if (!cancel) return resolve(null);
      cancel.click();
      const check = () => (document.querySelector('.explore .explore-cancel') ? requestAnimationFrame(check)
        : resolve(performance.now() - t0));
      check();
    }));
    const stopped = await panel.innerText();
    await page.waitForTimeout(700);
    const later = await panel.innerText();
    say(ms === null ? `§${section}: the run ended before Cancel was clicked` : `§${section}: Cancel answered in ${ms.toFixed(0)} ms (a measurement, not a check)`);
    if (later !== stopped) problems.push(`§${section}: the run went on after Cancel`);
    // After a Cancel the same worker runs the next session (Cancel stops the run, not
    // the worker), and the page still has one engine worker, shared with §4's table.
    await panel.locator('.explore-start').click();
    const done = await page.waitForFunction(() => {
      const p = document.querySelector('.explore');
      return p && !p.querySelector('.explore-cancel') && /of 200 trials broke/.test(p.innerText);
    }, null, { timeout: 30000 }).then(() => true, () => false);
    const ranAgain = await panel.getAttribute('data-ran-in');
    if (!done || ranAgain !== 'worker') problems.push(`§${section}: the run after Cancel ${done ? `ran in the ${ranAgain}` : 'did not finish'}`);
    if (engines() !== 1) problems.push(`§${section}: ${engines()} engine workers after the runs, not one`);
    await page.close();
  }
} finally {
  await browser.close();
}
for (const m of measures) say(`measured${THROTTLE > 1 ? ` (CPU ×${THROTTLE})` : ''}: ${m.what}: ${m.ms.toFixed(0)} ms (the benchmark's target is ${LONG_MS} ms)`);
if (problems.length) {
  for (const p of problems) console.error('explore: PROBLEM:', p);
  process.exit(1);
}
say('OK');
