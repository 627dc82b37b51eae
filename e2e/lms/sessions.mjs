// The main check's learner, the same in every format (e2e/lms/scorm.mjs, e2e/lms/cmi5.mjs
// walk it): the first session (every section read, the final quick check answered, the
// safe-release lab passed, an earlier section opened last), and what the second launch,
// on another computer, must find (where it opens, the progress given back, the lab).
import { FIXED } from '../safe-release.mjs';
import { progressIn, sectionOnScreen, goTo, readToEnd, passLab, labOnReturn, answerQuickCheck } from './learner.mjs';
import { LAB } from './expect.mjs';
import { keys } from './stage.mjs';
import { problems, say, short } from './report.mjs';

/**
 * The first launch's learner: every included section read with Next and the final quick
 * check answered on the last one, then the lab passed on its section (so the rule comes
 * to hold once the quick check's score is final), then an earlier section opened from the
 * contents, so the section to resume on is not the last one read.
 */
export async function firstSession(where, app, config) {
  const orders = config.sections.map((s) => s.order).sort((a, b) => a - b);
  const start = await sectionOnScreen(app, config);
  if (start !== orders[0]) problems.push(`${where}: a first launch opened on section ${start}, not the first (${orders[0]})`);
  let quiz = null;
  let lab = null;
  let labAt = null;
  for (const order of orders) {
    await goTo(app, config, order);
    if (config.labs.includes(LAB) && await app.locator(`.lab-host[data-lab="${LAB}"]`).count()) labAt = order;
    if (order === orders.at(-1) && await app.locator('section.quiz .quiz-score').count()) {
      quiz = await answerQuickCheck(app, keys);
      const missed = quiz.questions.filter((q) => !q.right).map((q) => q.id);
      say(`${where}: §${order} quick check: "${quiz.text}" after ${quiz.questions.reduce((n, q) => n + q.tries, 0)} checks${missed.length ? `; not got right: ${missed.join(', ')}` : ''}`);
    }
  }
  await readToEnd(app);
  if (labAt !== null) {
    await goTo(app, config, labAt);
    lab = await passLab(app, LAB, FIXED);
    say(`${where}: §${labAt}: ${LAB}: ${lab}`);
    if (!/Every check held in all/.test(lab)) problems.push(`${where}: the fixed code did not pass ${LAB}: ${lab}`);
  }
  const back = orders.find((o) => o > (labAt ?? 0) + 1 && o < orders.at(-1)) ?? orders[0];
  await goTo(app, config, back);
  return { quiz, lab, back };
}

/** The second launch, in another profile: where it opens, what the app got, the lab. */
export async function resumeChecks(where, app, config, before) {
  const at = await sectionOnScreen(app, config);
  const p = await progressIn(app);
  const l = p?.lessons?.[config.lesson] ?? {};
  say(`${where}: the second launch opened on section ${at}; the app was given last ${l.last}, ${(l.visited ?? []).length} sections visited, quick check ${JSON.stringify(l.quick_check ?? null)}`);
  if (at !== before.last) problems.push(`${where}: the second launch opened on section ${at}, not ${before.last} where the learner was`);
  if (l.last !== before.last) problems.push(`${where}: the app was given last ${l.last}, not ${before.last}`);
  if ((l.visited ?? []).length !== (before.lesson.visited ?? []).length) problems.push(`${where}: the app was given ${(l.visited ?? []).length} sections visited, not ${(before.lesson.visited ?? []).length}`);
  if (JSON.stringify(l.quick_check ?? null) !== JSON.stringify(before.qc)) problems.push(`${where}: the app was given quick check ${short(l.quick_check)}, not ${short(before.qc)}`);
  const labSection = config.sections.find((s) => s.id === LAB);
  if (!labSection || !before.labsPassed.includes(LAB)) return;
  await goTo(app, config, labSection.order);
  const back = await labOnReturn(app, LAB);
  say(`${where}: ${LAB} on the second launch: ${back.code === FIXED ? 'the passed code is in the editor' : `the editor holds ${short(back.code, 40)}`}; "${back.standing}"`);
  if (l.labs?.[LAB]?.code === undefined) {
    say(`${where}: (the platform's data carried no code for ${LAB}, so it cannot be back)`);
    return;
  }
  if (back.code !== FIXED) problems.push(`${where}: on the second launch ${LAB}'s editor holds ${short(back.code, 60)}, not the passed code`);
  if (!/^✓ Passed on/.test(back.standing)) problems.push(`${where}: on the second launch ${LAB} says "${back.standing}", not that it was passed`);
}
