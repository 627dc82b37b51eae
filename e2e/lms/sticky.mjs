// `sticky` (#39): a pass the platform holds is not taken back, and a lab reported passed
// counts for the rule though its code changed. A learner passes the safe-release lab (the
// platform records it), edits its code (a comment line: the app then shows the lab as
// tried, its pass belongs to the code that held), and answers the final quick check: the
// rule (`--pass-quiz`, `--pass-labs`) holds through the lab reported before, and the
// platform must record passed. The learner puts the passed code back (passed again, and
// nothing reported again) and edits it once more: the platform keeps passed (SCORM 1.2
// lesson_status, 2004 success_status with completion as it was; cmi5: no failed, no
// second passed) and hears of the lab once (one interaction, one answered). Then a
// relaunch on another computer with what the platform stored, the learner moving on and
// closing: still passed, nothing reported again (lms.js keeps the reported labs in the
// suspend data's `r`, and cmi5's statements sent in its `s`).
import { FIXED } from '../safe-release.mjs';
import { codeEditor } from '../editor.mjs';
import { openApp, progressIn, goTo, passLab, labOnReturn, answerQuickCheck } from './learner.mjs';
import { LAB, fnv1a64 } from './expect.mjs';
import { platform, keys, freshPage, poll, closeTab } from './stage.mjs';
import { callsOf, checkSession, storedCmi } from './scorm.mjs';
import { checkRegistration } from './cmi5.mjs';
import { problems, say, short } from './report.mjs';

/** The lab's code after the pass: the passed code and one more line. */
const EDITED = `${FIXED}\n// later`;
const LATER = /\/\/ later/;
const verbOf = (s) => s.stmt.verb?.id?.split('/').pop();

/**
 * The learner puts `code` in the lab's editor and leaves it (the panel saves the code
 * then): the lab's standing must come to match `standing`, the app's progress to hold the
 * code, and lms.js, once the app is quiet, to report it (`reported`: its last write).
 */
async function setCode(where, app, config, side, code, standing, reported) {
  const lab = app.locator(`.lab-mount section.lab[data-lab="${LAB}"]`);
  const editor = codeEditor(lab);
  await editor.fill(code);
  await editor.blur();
  const shown = await app.waitForFunction(([l, re]) => new RegExp(re).test(document.querySelector(`.lab-mount section.lab[data-lab="${l}"] .lab-standing`)?.innerText ?? ''), [LAB, standing.source], { timeout: 10000 }).then(() => true, () => false);
  if (!shown) problems.push(`${where}: with ${code === FIXED ? 'the passed' : 'the edited'} code in the editor, ${LAB} says "${await lab.locator('.lab-standing').innerText().catch(() => '')}"`);
  const saved = await poll(async () => (await progressIn(app))?.lessons?.[config.lesson]?.labs?.[LAB]?.code === code, 10000);
  if (!saved) problems.push(`${where}: the app did not save the code of ${LAB} put in its editor`);
  if (!(await poll(() => reported(side.latest() ?? ''), 10000))) problems.push(`${where}: lms.js did not report the progress with the new code of ${LAB} within 10 s`);
  await app.waitForTimeout(500); // what that report sent reaches the platform
}

/**
 * The first launch's learner, up to the platform's passed: the lab passed (the platform
 * records it), its code edited, then the final quick check answered. The rule holds only
 * through the lab reported before. Returns `{ quiz }` (the quick check's score line), or
 * null when the platform recorded no passed.
 */
async function earnPass(where, app, config, side, labAt) {
  await goTo(app, config, labAt);
  const verdict = await passLab(app, LAB, FIXED);
  if (!/Every check held in all/.test(verdict)) problems.push(`${where}: the fixed code did not pass ${LAB}: ${verdict}`);
  if (!(await poll(side.labReported))) problems.push(`${where}: the platform got no report of ${LAB}'s pass within 15 s`);
  await setCode(where, app, config, side, EDITED, /with other code/, (t) => LATER.test(t));
  await goTo(app, config, Math.max(...config.sections.map((s) => s.order)));
  let quiz = null;
  if (config.quickCheck && await app.locator('section.quiz .quiz-score').count()) quiz = (await answerQuickCheck(app, keys)).text;
  if (await poll(side.passed)) return { quiz };
  problems.push(`${where}: the quick check "${quiz}" (passQuiz ${config.passQuiz}) with ${LAB} reported passed earlier in the attempt (its code edited since), and the platform recorded no passed within 15 s: a lab reported passed counts for the rule`);
  return null;
}

/** The platform's side of a SCORM launch: open (first, or again from what it stored), and what it recorded. */
function scormSide(format, manifest) {
  const learner = { id: 'learner-sticky', name: 'Learner, Sticky' };
  const initial = format === 'scorm12'
    ? { core: { student_id: learner.id, student_name: learner.name, credit: 'credit', lesson_mode: 'normal' } }
    : { learner_id: learner.id, learner_name: learner.name, credit: 'credit', mode: 'normal' };
  const statusEl = format === 'scorm12' ? 'cmi.core.lesson_status' : 'cmi.success_status';
  let run = null;
  let stored = null;
  const sets = (el) => { const { api, calls } = callsOf(run); return calls.filter((c) => c.fn === api.set && c.ret === 'true' && c.args[0] === el).map((c) => String(c.args[1])); };
  const labSets = () => Object.entries(callsOf(run).values).filter(([k, v]) => /^cmi\.interactions\.\d+\.id$/.test(k) && v === `lab-${LAB}`).length;
  const completion = () => (format === 'scorm2004' ? callsOf(run).values['cmi.completion_status'] ?? stored?.completion_status : null);
  let atPass = null;
  return {
    async open(page, again) {
      if (again) stored = storedCmi(format, run, learner);
      run = platform.scormLaunch(format, { cmi: again ? stored : initial, launch: manifest.launch });
      await page.goto(`${platform.base}/host/${run.id}`);
      return openApp(page);
    },
    passed: () => sets(statusEl).includes('passed'),
    latest: () => callsOf(run).values['cmi.suspend_data'],
    labReported: () => labSets() > 0,
    atPass() { atPass = completion(); },
    finished: () => run.calls.some((c) => c.fn === callsOf(run).api.finish),
    /** After a launch closed: passed kept, the lab's interaction once in the first launch, never again. */
    judge(where, again) {
      checkSession(where, run);
      const statuses = sets(statusEl);
      const from = again ? 0 : statuses.indexOf('passed');
      const back = statuses.slice(Math.max(0, from)).filter((s) => s !== 'passed');
      if (back.length) problems.push(`${where}: ${statusEl} ${again ? 'was passed at the relaunch, and lms.js set it to' : 'went from passed to'} ${short(back)} (the lab's code was edited; set: ${statuses.join(' → ')})`);
      const now = callsOf(run).values[statusEl] ?? (again ? (format === 'scorm12' ? stored.core.lesson_status : stored.success_status) : undefined);
      if (now !== 'passed') problems.push(`${where}: ${statusEl} is ${short(now)} at the end, not passed`);
      if (format === 'scorm2004' && completion() !== (again ? stored.completion_status : atPass) && completion() !== 'completed') problems.push(`${where}: cmi.completion_status is ${short(completion())}, it was ${short(again ? stored.completion_status : atPass)}`);
      const want = again ? 0 : 1;
      if (labSets() !== want) problems.push(`${where}: the lab's interaction lab-${LAB} was recorded ${labSets()} times in this launch, not ${want}`);
      let r = null;
      try { r = JSON.parse(callsOf(run).values['cmi.suspend_data'] ?? (again ? stored.suspend_data : '')).r; } catch { /* reported below */ }
      if (r?.[LAB] !== fnv1a64(FIXED)) problems.push(`${where}: the suspend data's r is ${short(r)}, not ${LAB}'s pass (the passed code's mark)`);
      say(`${where}: ${statusEl} ${statuses.join(' → ') || '(not set)'}${format === 'scorm2004' ? `; completion_status ${completion()}` : ''}; lab-${LAB} interactions ${labSets()}; r ${short(r)}`);
    },
  };
}

/** The platform's side of a cmi5 launch: the same enrolment (registration, state) on every launch. */
function cmi5Side(manifest, lrs) {
  const enrolment = platform.cmi5Enrol(manifest);
  const own = manifest.au.launchMethod === 'OwnWindow';
  const stateKey = platform.stateKey(enrolment.actor, enrolment.activityId, enrolment.registration, 'lockstep.progress');
  let launch = null;
  const mine = () => platform.sessionStatements(launch).filter((s) => s.by === 'au');
  const count = (verb) => mine().filter((s) => verbOf(s) === verb && (verb !== 'answered' || s.stmt.object?.id === `${enrolment.activityId}/lab/${LAB}`)).length;
  return {
    async open(page) {
      launch = platform.cmi5Launch(enrolment, { lrs });
      await page.goto(own ? launch.url : launch.host);
      return openApp(page, { framed: !own });
    },
    passed: () => count('passed') > 0,
    latest: () => { const s = platform.states.get(stateKey); return s?.launch === launch.key ? s.body : null; },
    labReported: () => count('answered') > 0,
    atPass() {},
    finished: () => count('terminated') > 0,
    /** After a launch closed: one passed and one answered in the first, none in the relaunch; never failed. */
    judge(where, again) {
      const want = again ? 0 : 1;
      for (const verb of ['passed', 'answered']) if (count(verb) !== want) problems.push(`${where}: ${count(verb)} ${verb}${verb === 'answered' ? ` on ${LAB}` : ''} statements in this session, not ${want}${again ? ' (nothing is reported again)' : ''}`);
      if (count('failed')) problems.push(`${where}: failed was sent after passed (the lab's code was edited)`);
      if (!count('terminated')) problems.push(`${where}: no terminated statement`);
      if (again) checkRegistration(where, platform, enrolment);
      let s = null;
      try { s = JSON.parse(platform.states.get(stateKey)?.body ?? ''); } catch { /* reported below */ }
      if (s?.r?.[LAB] !== fnv1a64(FIXED) || s?.s?.passed !== true) problems.push(`${where}: the lockstep.progress state keeps r ${short(s?.r)} and s ${short(s?.s)}, not ${LAB}'s pass and passed sent`);
      say(`${where}: the AU sent ${mine().map(verbOf).join(', ')}; state r ${short(s?.r)}, s ${short(s?.s)}`);
    },
  };
}

/** The check: a pass earned through a lab reported before, the lab's code edited after it, a relaunch. */
export async function stickyPass(format, manifest, lrs) {
  const config = platform.packages.get(format).config;
  const labAt = config.sections.find((s) => s.id === LAB)?.order;
  const where = `${format} sticky pass`;
  if (labAt === undefined || !config.passLabs.includes(LAB)) {
    say(`${where}: the package's rule does not name ${LAB} (passLabs ${config.passLabs.join(',') || 'none'}); skipped`);
    return;
  }
  const side = format === 'cmi5' ? cmi5Side(manifest, lrs) : scormSide(format, manifest);
  const first = await freshPage(where);
  const { app } = await side.open(first.page, false);
  const earned = await earnPass(where, app, config, side, labAt);
  if (!earned) {
    await first.context.close();
    return;
  }
  side.atPass();
  say(`${where}: ${LAB} passed and reported, its code edited, the quick check ${short(earned.quiz)}: the platform records passed`);
  // The passed code back (the lab passed again, nothing to report), then edited once more.
  await goTo(app, config, labAt);
  await labOnReturn(app, LAB);
  await setCode(where, app, config, side, FIXED, /^✓ Passed on/, (t) => t.includes(JSON.stringify(FIXED)) && !LATER.test(t));
  await setCode(where, app, config, side, EDITED, /with other code/, (t) => LATER.test(t));
  await closeTab(first.page);
  if (!(await poll(side.finished))) problems.push(`${where}: the launch did not finish within 15 s of closing the page`);
  await first.context.close();
  side.judge(where, false);
  await relaunch(format, config, side, labAt);
}

/** Another computer, what the platform stored: the learner moves on to another section and closes. */
async function relaunch(format, config, side, labAt) {
  const where = `${format} sticky pass, relaunch`;
  const { context, page } = await freshPage(where);
  const { app } = await side.open(page, true);
  const to = config.sections.map((s) => s.order).sort((a, b) => a - b).find((o) => o !== labAt);
  await goTo(app, config, to);
  if (!(await poll(() => new RegExp(`"last":${to}[,}]`).test(side.latest() ?? ''), 10000))) problems.push(`${where}: section ${to} opened, and lms.js reported nothing within 10 s`);
  const code = (await progressIn(app))?.lessons?.[config.lesson]?.labs?.[LAB]?.code;
  if (code !== EDITED) say(`${where}: (the app was given ${short(code, 40)} for ${LAB}, not the edited code)`);
  await app.waitForTimeout(1000);
  await closeTab(page);
  if (!(await poll(side.finished))) problems.push(`${where}: the launch did not finish within 15 s of closing the page`);
  await context.close();
  side.judge(where, true);
}
