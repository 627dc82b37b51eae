// A learner inside an LMS package (#39): the app in its frame (test LMS page >
// iframe#sco > lms.html > iframe#lockstep-app), read section by section, the safe-release
// lab passed, the final quick check answered (each question tried until it is right
// where a learner could get it right: options and lines one by one, numbers worked out
// from the prompt or the answer key, the Redlock steps put in order).
import { readdirSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { codeEditor } from '../editor.mjs';
import { ROOT } from '../lesson.mjs';

export const PROGRESS_KEY = 'lockstep.progress.v2';

/** Waits for `frame`'s predicate, then `true`; `false` after `timeout`. */
const until = (frame, fn, arg, timeout) => frame.waitForFunction(fn, arg, { timeout, polling: 100 }).then(() => true, () => false);

/**
 * The frames of a launch: `lms` (lms.html) and `app` (the app in #lockstep-app), once the
 * app is running. `framed`: lms.html sits in the test LMS's iframe#sco (else it is the page).
 */
export async function openApp(page, { framed = true, timeout = 90000 } = {}) {
  let lms = page.mainFrame();
  if (framed) {
    const sco = await page.waitForSelector('iframe#sco', { state: 'attached', timeout });
    lms = await sco.contentFrame();
  }
  const holder = await lms.waitForSelector('iframe#lockstep-app', { state: 'attached', timeout });
  const app = await holder.contentFrame();
  await app.waitForURL(/\/index\.html/, { timeout });
  await app.waitForLoadState('domcontentloaded', { timeout });
  await startApp(app, timeout);
  return { lms, app };
}

/** Starts the app (the first page is a snapshot until a learner touches it). */
export async function startApp(app, timeout = 90000) {
  const ready = () => app.evaluate(() => document.documentElement.dataset.lockstep === 'ready');
  if (!(await until(app, () => document.documentElement.dataset.lockstep === 'ready', null, 3000))) {
    // As a learner would: a click on the page's heading starts it.
    await app.locator('#app h1').first().click({ timeout }).catch(() => {});
    await app.waitForFunction(() => document.documentElement.dataset.lockstep === 'ready', null, { timeout });
  }
  return ready();
}

/** The app's stored progress (what lms.js writes before the app starts, and then follows). */
export const progressIn = (app) => app.evaluate((k) => JSON.parse(localStorage.getItem(k) ?? 'null'), PROGRESS_KEY);

/** The order of the section on screen (null on another page). */
export async function sectionOnScreen(app, config) {
  const id = await app.locator('article.section[data-section-id]').first().getAttribute('data-section-id', { timeout: 30000 }).catch(() => null);
  return config.sections.find((s) => s.id === id)?.order ?? null;
}

const hashOf = (config, order) => `#/${config.lesson}/${order}`;

/** Goes to section `order` of `config.lesson` (a pack's too): Next when it is the next one, else its link in the contents. */
export async function goTo(app, config, order) {
  const now = await sectionOnScreen(app, config);
  if (now === order) return;
  const next = app.locator('.pager-next');
  if (now !== null && order === now + 1 && await next.count()) {
    await next.click();
  } else {
    const link = app.locator(`#toc a[href="${hashOf(config, order)}"]`).first();
    if (await link.isVisible().catch(() => false)) await link.click();
    else await app.evaluate((h) => { location.hash = h; }, hashOf(config, order));
  }
  const id = config.sections.find((s) => s.order === order).id;
  await app.waitForFunction((i) => document.querySelector('article.section[data-section-id]')?.dataset.sectionId === i, id, { timeout: 30000 });
}

/** Scrolls the section to its end (the app counts it read then). */
export async function readToEnd(app) {
  for (let i = 0; i < 3; i++) {
    await app.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
    await app.waitForTimeout(300);
  }
}

const labReady = (l) => document.documentElement.dataset.lockstep === 'ready'
  && !!document.querySelector(`.lab-host[data-lab="${l}"]:not([aria-busy]) .lab-mount section.lab textarea:not([readonly])`);

/** Scrolls to the lab `id` and opens its panel (a click into it, as a learner would). */
async function openLab(app, id) {
  const lab = app.locator(`.lab-mount section.lab[data-lab="${id}"]`);
  await app.locator(`.lab-host[data-lab="${id}"]`).scrollIntoViewIfNeeded({ timeout: 30000 });
  // The panel may open by itself as it comes into view; the click is for when it does not
  // (and may land while the panel replaces the snapshot's textarea: then it is tried again).
  for (let i = 0; i < 3 && !(await until(app, labReady, id, 3000)); i++) {
    await lab.locator('textarea:visible').first().click({ timeout: 5000 }).catch(() => {});
  }
  await app.waitForFunction(labReady, id, { timeout: 60000 });
  return lab;
}

/**
 * Passes the lab `id` with `code` (Try to break it, every check held). Returns the
 * verdict's first line.
 */
export async function passLab(app, id, code) {
  const lab = await openLab(app, id);
  await codeEditor(lab).fill(code);
  await lab.getByRole('button', { name: /Try to break it/ }).click();
  await app.waitForFunction((l) => /Every check held in all|Broken in trial|failed/.test(
    document.querySelector(`.lab-mount section.lab[data-lab="${l}"] .lab-verdict`)?.innerText ?? ''), id, { timeout: 240000 });
  return (await lab.locator('.lab-verdict').innerText()).split('\n')[0];
}

/** What the lab `id` shows on a return: the code in its editor and its standing line. */
export async function labOnReturn(app, id) {
  const lab = await openLab(app, id);
  const code = await lab.locator('textarea.lab-editor').inputValue();
  const standing = await lab.locator('.lab-standing').innerText({ timeout: 5000 }).catch(() => '');
  return { code, standing };
}

// ---- the final quick check ------------------------------------------------------------

/** The quiz files' answer keys, by question id: `{ kind, answer?, items? }` (items in English). */
export function answerKeys() {
  const keys = new Map();
  const dir = join(ROOT, 'content/quiz');
  for (const f of readdirSync(dir).filter((n) => n.endsWith('.toml'))) {
    for (const block of readFileSync(join(dir, f), 'utf8').split(/^\[\[question\]\]\s*$/m).slice(1)) {
      const id = block.match(/^id\s*=\s*"([^"]+)"/m)?.[1];
      if (!id) continue;
      const answer = block.match(/^answer\s*=\s*(-?[\d.]+)/m)?.[1];
      const en = block.split(/^\[question\.en\]\s*$/m)[1]?.split(/^\[question\./m)[0] ?? '';
      const items = en.match(/^items\s*=\s*\[([\s\S]*?)^\]/m)?.[1];
      keys.set(id, {
        kind: block.match(/^kind\s*=\s*"([^"]+)"/m)?.[1],
        answer: answer === undefined ? null : Number(answer),
        items: items ? [...items.matchAll(/"((?:[^"\\]|\\.)*)"/g)].map((m) => JSON.parse(`"${m[1]}"`)) : null,
      });
    }
  }
  return keys;
}

const plain = (s) => s.replace(/[`*_]/g, '').replace(/\s+/g, ' ').trim();
const digits = (s) => s.replace(/(\d)[\s\u00a0\u202f](?=\d{3}\b)/g, '$1');

/** Numbers a learner would work out from a generated question's prompt. */
function numberGuesses(prompt) {
  const p = digits(prompt);
  const pttl = p.match(/PX (\d+)[\s\S]*?After (\d+) ms/);
  if (pttl) {
    const [ttl, sleep] = [Number(pttl[1]), Number(pttl[2])];
    return sleep < ttl ? [ttl - sleep, -2] : [-2, ttl - sleep];
  }
  const validity = p.match(/TTL (\d+) ms and driftFactor ([\d.]+) got its majority after (\d+) ms/);
  if (validity) {
    const [ttl, factor, elapsed] = [Number(validity[1]), Number(validity[2]), Number(validity[3])];
    const v = ttl - elapsed - (Math.round(factor * ttl) + 2);
    return [v, v - 1, v + 1];
  }
  return [];
}

const attemptsOf = async (form) => {
  const t = await form.locator('.q-attempts').innerText({ timeout: 200 }).catch(() => '');
  return /once/.test(t) ? 1 : Number(t.match(/\d+/)?.[0] ?? 0);
};

/** Checks the form's answer; true when the page says it is right. */
async function check(form) {
  const before = await attemptsOf(form);
  await form.locator('button.q-check').click();
  const deadline = Date.now() + 8000;
  while (Date.now() < deadline) {
    if (await attemptsOf(form) > before || await form.locator('.q-verdict.unread').count()) break;
    await form.page().waitForTimeout(50);
  }
  return (await form.locator('.q-verdict.right').count()) > 0;
}

/** Answers one question; returns how it went (`right`, tries). */
async function answer(form, key) {
  let tries = 0;
  const tryIt = async () => { tries++; return check(form); };
  const labels = form.locator('.q-options label, .q-lines label');
  const boxes = form.locator('.q-options input[type=checkbox]');
  const n = await labels.count();
  if (await boxes.count()) {
    // Several to choose: every set, the smaller first.
    const sets = [...Array(2 ** n).keys()].slice(1).sort((a, b) => popcount(a) - popcount(b) || a - b);
    for (const set of sets) {
      for (let i = 0; i < n; i++) {
        if ((await boxes.nth(i).isChecked()) !== Boolean(set & (1 << i))) await labels.nth(i).click();
      }
      if (await tryIt()) return { right: true, tries };
    }
    return { right: false, tries };
  }
  if (n) {
    for (let i = 0; i < n; i++) {
      await labels.nth(i).click();
      if (await tryIt()) return { right: true, tries };
    }
    return { right: false, tries };
  }
  const number = form.locator('.q-numeric input');
  if (await number.count()) {
    const prompt = await form.locator('legend').innerText();
    const guesses = [...(key?.answer !== null && key?.answer !== undefined ? [key.answer] : []), ...numberGuesses(prompt)];
    for (const g of guesses.length ? guesses : [0]) {
      await number.fill(String(g));
      if (await tryIt()) return { right: true, tries };
    }
    return { right: false, tries };
  }
  if (await form.locator('.q-order').count()) {
    const want = (key?.items ?? []).map(plain);
    for (let pos = 0; pos < want.length; pos++) {
      const now = (await form.locator('.q-order .q-order-text').allInnerTexts()).map(plain);
      let at = now.indexOf(want[pos]);
      if (at < 0) break;
      while (at > pos) {
        await form.locator('.q-order > li').nth(at).locator('.q-order-buttons button').first().click();
        at--;
      }
    }
    return { right: await tryIt(), tries };
  }
  return { right: false, tries };
}

const popcount = (x) => x.toString(2).replace(/0/g, '').length;

/** The final quick check on the section on screen, once its questions are drawn. */
async function quickCheckForms(app) {
  const quiz = app.locator('section.quiz:has(.quiz-score)');
  await quiz.scrollIntoViewIfNeeded({ timeout: 30000 });
  await app.waitForFunction(() => {
    const q = document.querySelector('section.quiz .quiz-score')?.closest('section.quiz');
    return !!q && q.querySelectorAll('form.question').length > 0 && !q.querySelector('form.question[aria-busy], .deferred[aria-busy="true"]');
  }, null, { timeout: 90000 });
  const forms = quiz.locator('form.question');
  const count = await forms.count();
  return { quiz, forms, count };
}

/**
 * Answers the final quick check on the section on screen (the quiz with `.quiz-score`).
 * Returns `{ correct, answered, total, text, questions }` as `.quiz-score` reads at the end.
 */
export async function answerQuickCheck(app, keys) {
  const { quiz, forms, count } = await quickCheckForms(app);
  const questions = [];
  for (let i = 0; i < count; i++) {
    const form = forms.nth(i);
    await form.scrollIntoViewIfNeeded();
    const id = await form.getAttribute('data-question-id');
    questions.push({ id, ...(await answer(form, keys.get(id))) });
  }
  const text = await quiz.locator('.quiz-score').innerText();
  const m = text.match(/(\d+) right of (\d+) answered \((\d+) questions\)/);
  return { correct: Number(m?.[1]), answered: Number(m?.[2]), total: Number(m?.[3]), text, questions };
}

/**
 * The quick check done badly: the first question answered (until right), every other
 * one's answer shown before it was solved (which counts as not solved). Returns what
 * `.quiz-score` reads then.
 */
export async function answerQuickCheckBadly(app, keys) {
  const { quiz, forms, count } = await quickCheckForms(app);
  for (let i = 0; i < count; i++) {
    const form = forms.nth(i);
    await form.scrollIntoViewIfNeeded();
    if (i === 0) await answer(form, keys.get(await form.getAttribute('data-question-id')));
    else await form.locator('button.q-reveal').click();
  }
  await app.waitForFunction((n) => new RegExp(`answered \\(${n} questions\\)`).test(document.querySelector('.quiz-score')?.textContent ?? '')
    && new RegExp(`of ${n} answered`).test(document.querySelector('.quiz-score').textContent), count, { timeout: 10000 }).catch(() => {});
  const text = await quiz.locator('.quiz-score').innerText();
  const m = text.match(/(\d+) right of (\d+) answered \((\d+) questions\)/);
  return { correct: Number(m?.[1]), answered: Number(m?.[2]), total: Number(m?.[3]), text };
}
