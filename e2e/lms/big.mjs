// `big` (#39): SCORM 1.2's 4096 characters of cmi.suspend_data. A learner far into the
// lesson (nine sections read, the quick check done, three labs with long code) has a
// progress too long for it: what lms.js sets must fit, keep what the contract keeps
// (sections, `last`, the quick check whole; labs' code dropped largest first, no more
// than needed), report the score, the status and the passed lab, and resume on another
// computer where the learner was.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { FIXED } from '../safe-release.mjs';
import { ROOT } from '../lesson.mjs';
import { PROGRESS_KEY, openApp, progressIn, sectionOnScreen, goTo, readToEnd } from './learner.mjs';
import { LAB, fnv1a64, expect } from './expect.mjs';
import { platform, keys, freshPage, noteOf, poll, closeTab, lmsExit } from './stage.mjs';
import { callsOf, checkSession, interaction, storedCmi } from './scorm.mjs';
import { problems, say, short } from './report.mjs';

/** Three labs' code as a learner leaves it, by length (about; each over 1500): LAB's passed. */
const BIG_LABS = { watchdog: 2300, redlock: 1900, [LAB]: 1600 };
const NOTES = [
  'SET with NX and PX is one command: the key and its expiry are set together, or not at all.',
  'The token is unique per holder: crypto.randomBytes(16), never Date.now() or the pid.',
  'Release compares the token and deletes in one Lua script, so no one else\'s lock goes.',
  'A GC pause longer than the TTL: the lock expires while we still think we hold it.',
  'The watchdog renews at a third of the TTL; when the script returns 0, stop the work.',
  'Redlock: a majority (N/2+1), validity = TTL - elapsed - drift (0.01 * TTL + 2 ms).',
  'Fencing: the storage refuses a write whose token is older than the last one it saw.',
  'Husk: låsen er en optimalisering – ikke en garanti for korrekthet. Spør læreren om «fencing».',
  'In Lua: "if redis.call(\'get\', KEYS[1]) == ARGV[1] then ... end" (KEYS\\ARGV, 1-based).',
];

/** A lab's code as a learner leaves it: the lab's own file, then their notes, to `length`. */
function learnerCode(lab, base, length) {
  let code = `${base.trimEnd()}\n\n// My notes (${lab}):\n`;
  for (let i = 0; code.length < length; i++) code += `// ${i + 1}. ${NOTES[i % NOTES.length]}\n`;
  return code;
}

/**
 * A learner far into the lesson, as the app writes it (serde's field order, its maps and
 * sets by key): nine sections read, the quick check done (11 of its questions right),
 * questions tried, and three labs with long code, LAB's passed today with that code,
 * watchdog passed before with other code, redlock only run. Returns the progress and
 * the labs' code.
 */
function bigProgress(config, today) {
  const orders = config.sections.map((s) => s.order).sort((a, b) => a - b);
  const read = [...orders.slice(0, 8), orders.at(-1)];
  const byKey = (o) => Object.fromEntries(Object.entries(o).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
  const quick = [...keys.keys()].filter((id) => /^s12-/.test(id));
  const questions = {};
  quick.forEach((id, i) => { questions[id] = { attempts: 1 + (i % 3), solved: i < 11 }; });
  for (const id of [...keys.keys()].filter((q) => /^s[12]-/.test(q))) questions[id] = { attempts: 1 + (id.length % 2), solved: true };
  const codes = {
    watchdog: learnerCode('watchdog', readFileSync(join(ROOT, 'labs/watchdog/starter.js'), 'utf8'), BIG_LABS.watchdog),
    redlock: learnerCode('redlock', readFileSync(join(ROOT, 'labs/redlock/starter.js'), 'utf8'), BIG_LABS.redlock),
    [LAB]: learnerCode(LAB, FIXED, BIG_LABS[LAB]),
  };
  const labs = {
    watchdog: { code: codes.watchdog, runs: 5, pass: `${fnv1a64(readFileSync(join(ROOT, 'labs/watchdog/solution.js'), 'utf8'))} 2025-01-14` },
    redlock: { code: codes.redlock, runs: 2, pass: null },
    [LAB]: { code: codes[LAB], runs: 3, pass: `${fnv1a64(codes[LAB])} ${today}` },
  };
  const lesson = {
    visited: config.sections.filter((s) => read.includes(s.order)).map((s) => s.id).sort(),
    last: orders[7],
    questions: byKey(questions),
    quick_check: { correct: 11, total: quick.length },
    labs: byKey(labs),
  };
  return { progress: { v: 2, lessons: { [config.lesson]: lesson } }, codes };
}

/**
 * SCORM 1.2's 4096 characters (#39): once the app is up, its frame writes the progress of
 * a learner far into the lesson, too long for cmi.suspend_data. What lms.js sets must fit,
 * keep what the contract keeps, and resume on another computer.
 */
export async function bigLearner(format, manifest) {
  const config = platform.packages.get(format).config;
  const where = `${format} big progress`;
  const missing = Object.keys(BIG_LABS).filter((id) => !config.labs.includes(id));
  if (missing.length || !config.quickCheck) {
    say(`${where}: the package has no ${missing.join(', ') || 'quick check'}; skipped`);
    return;
  }
  const learner = { id: 'learner-big', name: 'Learner, Big' };
  const initial = { core: { student_id: learner.id, student_name: learner.name, credit: 'credit', lesson_mode: 'normal' } };
  const run = platform.scormLaunch(format, { cmi: initial, launch: manifest.launch });
  const { context, page } = await freshPage(where);
  await page.goto(`${platform.base}/host/${run.id}`);
  const { lms, app } = await openApp(page);
  const today = await app.evaluate(() => {
    const d = new Date();
    return [d.getFullYear(), d.getMonth() + 1, d.getDate()].map((n) => String(n).padStart(2, '0')).join('-');
  });
  const { progress, codes } = bigProgress(config, today);
  const text = JSON.stringify(progress);
  const whole = JSON.stringify({ p: progress, r: { [LAB]: fnv1a64(codes[LAB]) } });
  say(`${where}: the app's frame writes ${text.length} chars of progress (${Buffer.byteLength(text)} bytes of UTF-8; labs' code ${Object.entries(codes).map(([k, c]) => `${k} ${c.length}`).join(', ')}); unshaped, suspend_data would be ${whole.length} chars`);
  await app.evaluate(([k, v]) => localStorage.setItem(k, v), [PROGRESS_KEY, text]);
  const sent = () => run.calls.some((c) => c.fn === 'LMSSetValue' && c.args[0] === 'cmi.suspend_data' && String(c.args[1]).includes('"quick_check":{'));
  if (!(await poll(sent, 10000))) problems.push(`${where}: no cmi.suspend_data with the written progress within 10 s (lms.js follows the app's writes by the storage event)`);
  if (JSON.stringify(await progressIn(app)) !== text) problems.push(`${where}: the app wrote over the progress its frame wrote (the check then measures the app's own)`);
  const [shown, note] = await noteOf(lms);
  if (shown) problems.push(`${where}: #lms-note is shown with a working API: "${note}"`);
  await closeTab(page);
  if (!(await poll(() => run.calls.some((c) => c.fn === 'LMSFinish')))) problems.push(`${where}: no LMSFinish within 15 s of closing the page`);
  await context.close();
  checkSession(where, run);
  const want = expect(config, progress, config.passQuiz ?? null);
  bigReported(where, run, want, config);
  const shaped = bigShaped(where, run, want, config, codes);
  if (shaped) await bigResume(format, manifest, run, learner, shaped, config);
}

/** What the platform got from the whole progress: the score, the status, the lab's pass. */
function bigReported(where, run, want, config) {
  const { values } = callsOf(run);
  const eq = (el, v) => { if (values[el] !== v) problems.push(`${where}: ${el} is ${short(values[el])}, expected ${short(v)}`); };
  eq('cmi.core.score.raw', String(Math.round((100 * want.qc.correct) / want.qc.total)));
  eq('cmi.core.lesson_location', String(want.last));
  eq('cmi.core.lesson_status', want.passed ? 'passed' : want.failed && want.all ? 'failed' : want.all ? 'completed' : 'incomplete');
  interaction(where, values, {
    type: 'performance', response: 'student_response', limit: 255, time: ['time', /^\d{2}:\d{2}:\d{2}(\.\d{1,2})?$/],
  }, want, config);
  const ids = Object.keys(values).filter((k) => /^cmi\.interactions\.\d+\.id$/.test(k)).map((k) => values[k]);
  const others = ids.filter((id) => id !== `lab-${LAB}`);
  if (others.length) problems.push(`${where}: interactions for labs not passed with their code: ${others.join(', ')}`);
  say(`${where}: score.raw ${values['cmi.core.score.raw']}, lesson_status ${values['cmi.core.lesson_status']}, interactions ${ids.join(', ') || 'none'}`);
}

/**
 * What lms.js made of it in cmi.suspend_data: within 4096 characters, the sections read,
 * `last` and the quick check kept whole; labs' code dropped largest first (their runs
 * and pass kept), no more than needed; questions dropped only when every lab's code is.
 * Returns the suspend data, parsed.
 */
function bigShaped(where, run, want, config, codes) {
  const { values, calls } = callsOf(run);
  const sets = calls.filter((c) => c.fn === 'LMSSetValue' && c.args[0] === 'cmi.suspend_data').map((c) => String(c.args[1]));
  const over = sets.filter((v) => v.length > 4096);
  if (over.length) problems.push(`${where}: ${over.length} of ${sets.length} cmi.suspend_data writes are over 4096 chars (${over.map((v) => v.length).join(', ')})`);
  const sd = values['cmi.suspend_data'] ?? '';
  say(`${where}: cmi.suspend_data is ${sd.length} chars, ${Buffer.byteLength(sd)} bytes of UTF-8 (the limit is 4096 chars; ${sets.length} writes, the longest ${Math.max(0, ...sets.map((v) => v.length))})`);
  let s = null;
  try { s = JSON.parse(sd); } catch { /* reported below */ }
  const l = s?.p?.lessons?.[config.lesson];
  if (!l) {
    problems.push(`${where}: cmi.suspend_data holds no progress of ${config.lesson}: ${short(sd)}`);
    return null;
  }
  if (Object.keys(s.p.lessons).length !== 1 || s.p.v !== 2) problems.push(`${where}: suspend_data's .p is v ${s.p.v} with lessons ${short(Object.keys(s.p.lessons))}`);
  if (JSON.stringify(l.visited) !== JSON.stringify(want.lesson.visited)) problems.push(`${where}: suspend_data's sections read ${short(l.visited)} are not the app's ${short(want.lesson.visited)}`);
  if (l.last !== want.last) problems.push(`${where}: suspend_data's last is ${l.last}, the app's ${want.last}`);
  if (JSON.stringify(l.quick_check) !== JSON.stringify(want.qc)) problems.push(`${where}: suspend_data's quick check ${short(l.quick_check)} is not the app's ${short(want.qc)}`);
  if (s.r?.[LAB] !== fnv1a64(codes[LAB])) problems.push(`${where}: suspend_data's r ${short(s.r)} does not say ${LAB}'s pass was reported`);
  const ids = Object.keys(codes);
  const dropped = ids.filter((id) => l.labs?.[id]?.code === '');
  const kept = ids.filter((id) => l.labs?.[id]?.code === codes[id]);
  for (const id of ids) {
    const [a, b] = [l.labs?.[id], want.lesson.labs[id]];
    if (!dropped.includes(id) && !kept.includes(id)) problems.push(`${where}: suspend_data's ${id} code is ${short(a?.code)}: neither the learner's nor dropped`);
    if (a?.runs !== b.runs || (a?.pass ?? null) !== b.pass) problems.push(`${where}: suspend_data's ${id} has runs ${a?.runs}, pass ${short(a?.pass)}, not the app's ${b.runs}, ${short(b.pass)}`);
  }
  const len = (id) => codes[id].length;
  const sameQuestions = JSON.stringify(l.questions) === JSON.stringify(want.lesson.questions);
  say(`${where}: labs' code dropped: ${dropped.map((id) => `${id} (${len(id)})`).join(', ') || 'none'}; kept: ${kept.map((id) => `${id} (${len(id)})`).join(', ') || 'none'}`);
  if (!dropped.length) problems.push(`${where}: no lab's code was dropped, yet the progress is ${JSON.stringify(want.lesson).length} chars`);
  else if (kept.some((k) => dropped.some((d) => len(k) > len(d)))) problems.push(`${where}: not the largest code first: dropped ${dropped.join(', ')}, kept ${kept.join(', ')}`);
  else if (sameQuestions) {
    // The last code dropped had to go: with it back, suspend_data would not fit.
    const smallest = dropped.reduce((a, b) => (len(a) <= len(b) ? a : b));
    l.labs[smallest].code = codes[smallest];
    if (JSON.stringify(s).length <= 4096) problems.push(`${where}: ${smallest}'s code was dropped, yet suspend_data fits 4096 with it (${JSON.stringify(s).length} chars)`);
    l.labs[smallest].code = '';
  }
  if (!sameQuestions && kept.length) problems.push(`${where}: the questions' attempts were dropped while ${kept.join(', ')}'s code was kept`);
  else if (!sameQuestions) say(`${where}: the questions' attempts were dropped too (${short(l.questions)})`);
  return s;
}

/** Sorted keys (and sorted sets), to compare two progresses as values. */
const canon = (v) => JSON.stringify(v, (_, x) => (Array.isArray(x) ? [...x].sort()
  : x && typeof x === 'object' ? Object.fromEntries(Object.entries(x).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0))) : x));

/**
 * Another computer, the platform's stored CMI (entry resume): the app opens where the
 * learner was, given what suspend_data kept; the contents mark the sections read and the
 * labs (passed where the code was kept, tried where it was dropped).
 */
async function bigResume(format, manifest, run, learner, shaped, config) {
  const where = `${format} big progress, second launch`;
  const kept = shaped.p.lessons[config.lesson];
  const run2 = platform.scormLaunch(format, { cmi: storedCmi(format, run, learner), launch: manifest.launch });
  const { context, page } = await freshPage(where);
  await page.goto(`${platform.base}/host/${run2.id}`);
  const { lms, app } = await openApp(page);
  const at = await sectionOnScreen(app, config);
  if (at !== kept.last) problems.push(`${where}: opened on section ${at}, not ${kept.last} where the learner was`);
  const l = (await progressIn(app))?.lessons?.[config.lesson] ?? {};
  for (const k of ['visited', 'last', 'quick_check', 'questions', 'labs']) {
    if (canon(l[k] ?? null) !== canon(kept[k] ?? null)) problems.push(`${where}: the app holds ${k} ${short(l[k])}, not suspend_data's ${short(kept[k])}`);
  }
  const toc = await app.evaluate(() => [...document.querySelectorAll('#toc li')].map((li) => ({
    href: li.querySelector('a')?.getAttribute('href') ?? '', read: li.classList.contains('visited'), lab: li.querySelector('.toc-lab')?.className ?? null,
  })));
  const orderOf = (href) => Number(href.split('/').pop());
  const read = config.sections.filter((s) => toc.some((t) => t.read && orderOf(t.href) === s.order)).map((s) => s.id).sort();
  if (canon(read) !== canon(kept.visited)) problems.push(`${where}: the contents mark ${short(read)} read, not ${short(kept.visited)}`);
  const marks = Object.entries(kept.labs).map(([id, lab]) => {
    const section = config.sections.find((s) => s.id === id);
    const mark = toc.find((t) => section && orderOf(t.href) === section.order)?.lab ?? null;
    const expected = !section ? mark : lab.pass?.split(' ')[0] === fnv1a64(lab.code) ? 'toc-lab passed' : 'toc-lab tried';
    if (mark !== expected) problems.push(`${where}: ${id} is marked ${short(mark)} in the contents, not "${expected}" (code ${lab.code ? 'kept' : 'dropped'})`);
    return `${id} ${mark}`;
  });
  say(`${where}: opened on section ${at}; the contents mark ${read.length} sections read; labs: ${marks.join(', ')}`);
  // The learner reads on: the app writes, lms.js reports (and must not report the lab again).
  const next = config.sections.map((s) => s.order).sort((a, b) => a - b).find((o) => o > kept.last);
  await goTo(app, config, next);
  await readToEnd(app);
  const readOn = (c) => c.fn === 'LMSSetValue' && c.args[0] === 'cmi.suspend_data' && String(c.args[1]).includes(`"${config.sections.find((s) => s.order === next).id}"`);
  if (!(await poll(() => run2.calls.some(readOn), 10000))) problems.push(`${where}: section ${next} read, and no cmi.suspend_data with it within 10 s`);
  const [shown, note] = await noteOf(lms);
  if (shown) problems.push(`${where}: #lms-note is shown with a working API: "${note}"`);
  await lmsExit(page);
  if (!(await poll(() => run2.calls.some((c) => c.fn === 'LMSFinish')))) problems.push(`${where}: no LMSFinish within 15 s of the LMS's exit`);
  await context.close();
  checkSession(where, run2);
  const { values } = callsOf(run2);
  const sd = values['cmi.suspend_data'] ?? '';
  say(`${where}: section ${next} read on; cmi.suspend_data is ${sd.length} chars`);
  if (sd.length > 4096) problems.push(`${where}: cmi.suspend_data is ${sd.length} chars, over 4096`);
  if (values['cmi.core.lesson_location'] !== String(next)) problems.push(`${where}: cmi.core.lesson_location is ${short(values['cmi.core.lesson_location'])}, not ${next} where the learner read on`);
  if (Object.keys(values).some((k) => /^cmi\.interactions\.\d+\.id$/.test(k))) problems.push(`${where}: an interaction was reported again (suspend_data's r says ${short(shaped.r)})`);
}
