// cmi5 (#39): the main check's walk (a learner's first launch, then a second on another
// computer with the same registration and state store), and what the LRS received held
// to the spec and the contract: each statement's envelope (id, timestamp, actor, auth,
// version) and context (registration, session id, the template's grouping), the order of
// a session (initialized first, terminated last), the categories and result each verb
// may carry, the defined verbs a session and a registration may send, the
// lockstep.progress state; and the `browse` (Browse mode) and `mastery` (the LMS's
// masteryScore decides) checks. `lrs`: 'same' for an LRS on the package's own origin,
// else another one.
import { FIXED } from '../safe-release.mjs';
import { CMI5 } from './platform.mjs';
import { openApp, progressIn, goTo, readToEnd, passLab, answerQuickCheckBadly } from './learner.mjs';
import { LAB, expect, near, progressInside } from './expect.mjs';
import { platform, keys, freshPage, noteOf, poll, closeTab, lmsExit } from './stage.mjs';
import { firstSession, resumeChecks } from './sessions.mjs';
import { problems, say, short } from './report.mjs';

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DURATION = /^P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;
const verbOf = (s) => s.stmt.verb?.id?.split('/').pop();
const categories = (s) => (s.stmt.context?.contextActivities?.category ?? []).map((c) => c.id);
const DEFINED = ['initialized', 'completed', 'passed', 'failed', 'terminated'];

/** Every statement of a session against 7.1, 9 and the contract. Returns the AU's, in order. */
export function checkStatements(where, platform, launch, { want, quiz, passMark, first }) {
  const all = platform.sessionStatements(launch);
  const au = all.filter((s) => s.by === 'au');
  say(`${where}: ${au.length} statements from the AU: ${au.map(verbOf).join(', ')}`);
  if (!all.length || verbOf(all[0]) !== 'launched' || all[0].by !== 'lms') problems.push(`${where}: the session does not start with the LMS's launched`);
  checkOrder(where, au);
  const ids = new Set();
  for (const s of au) {
    const w = `${where}: ${verbOf(s)} (${s.stmt.id ?? 'no id'})`;
    const bad = (what) => problems.push(`${w}: ${what}`);
    checkEnvelope(bad, s, launch, ids);
    checkCategories(bad, s, launch);
    checkVerb(bad, s, launch, { want, quiz, passMark });
  }
  checkDefinedVerbs(where, au, launch, { want, passMark, first });
  return au;
}

/** 7.1 and 9.3: initialized first, terminated last, by timestamp and by arrival. */
function checkOrder(where, au) {
  // Order is the timestamps' (9.3; equal ones are allowed, 9.7); what came in after
  // terminated is reported apart.
  const at = (s) => Date.parse(s.stmt.timestamp);
  const init = au.find((s) => verbOf(s) === 'initialized');
  const term = au.find((s) => verbOf(s) === 'terminated');
  if (!init) problems.push(`${where}: no initialized statement (7.1.1)`);
  else {
    const before = au.filter((s) => at(s) < at(init));
    if (before.length || au[0] !== init) problems.push(`${where}: the AU's first statement is ${verbOf(au[0])}${before.length ? ` (${before.map(verbOf).join(', ')} timestamped before initialized)` : ''}, not initialized (7.1.1)`);
  }
  if (!term) problems.push(`${where}: no terminated statement after the page closed (7.1.2)`);
  else {
    const later = au.filter((s) => at(s) > at(term));
    if (later.length) problems.push(`${where}: ${later.map(verbOf).join(', ')} timestamped after terminated, which must be the last statement (7.1.2)`);
  }
  const end = au.findIndex((s) => verbOf(s) === 'terminated');
  if (end >= 0 && end < au.length - 1) {
    problems.push(`${where}: ${au.slice(end + 1).map(verbOf).join(', ')} reached the LRS after terminated (sent at pagehide without keepalive, or queued behind it: an LMS rejects statements once a session has terminated, 9.3.8, and a browser may drop them with the page)`);
  }
}

/** A statement's envelope and context: id, timestamp, actor, auth, version, registration, session, grouping. */
function checkEnvelope(bad, s, launch, ids) {
  const st = s.stmt;
  const { registration, actor } = launch.enrolment;
  const template = launch.launchData.contextTemplate;
  if (!UUID.test(st.id ?? '')) bad('its id is not a UUID (9.1)');
  if (ids.has(st.id)) bad('its id was used before');
  ids.add(st.id);
  if (Number.isNaN(Date.parse(st.timestamp ?? '')) || !/(Z|[+-]00:?00)$/.test(st.timestamp ?? '')) bad(`timestamp ${short(st.timestamp)} is not a UTC ISO 8601 time (9.7)`);
  if (JSON.stringify(st.actor) !== JSON.stringify(actor)) bad(`actor ${short(st.actor)} is not the launch's ${short(actor)}`);
  if (s.auth !== `Basic ${launch.token}`) bad(`sent with Authorization ${short(s.auth)}`);
  if (s.version !== '1.0.3') bad(`sent with X-Experience-API-Version ${short(s.version)}, not 1.0.3`);
  const ctx = st.context ?? {};
  if (ctx.registration !== registration) bad(`context.registration ${short(ctx.registration)} is not ${registration}`);
  if (ctx.extensions?.[CMI5.sessionid] !== template.extensions[CMI5.sessionid]) bad(`the sessionid extension is ${short(ctx.extensions?.[CMI5.sessionid])}, not the launch's ${template.extensions[CMI5.sessionid]}`);
  const grouping = (ctx.contextActivities?.grouping ?? []).map((g) => g.id);
  for (const g of template.contextActivities.grouping) if (!grouping.includes(g.id)) bad(`context.contextActivities.grouping ${short(grouping)} lacks the template's ${g.id} (9.6.2, 10.2.1)`);
}

/** 9.6.2 and 9.5: the cmi5 and moveon categories, and what a defined verb's result may carry. */
function checkCategories(bad, s, launch) {
  const st = s.stmt;
  const verb = verbOf(s);
  const { activityId } = launch.enrolment;
  const cats = categories(s);
  const result = st.result ?? {};
  const isDefined = DEFINED.includes(verb) && cats.includes(CMI5.category);
  if (DEFINED.includes(verb)) {
    if (!cats.includes(CMI5.category)) bad('no cmi5 category (9.6.2.1)');
    if (st.object?.id !== activityId) bad(`object.id ${short(st.object?.id)} is not the launch's activityId ${activityId} (9.4)`);
  }
  const judged = isDefined && ('success' in result || 'completion' in result);
  if (judged !== cats.includes(CMI5.moveon)) bad(`the moveon category is ${cats.includes(CMI5.moveon) ? 'there' : 'missing'}, result ${short(result)} (9.6.2.2)`);
  if (isDefined && ['initialized', 'terminated', 'completed'].includes(verb) && 'score' in result) bad('a score outside passed/failed (9.5.1)');
  if (isDefined && !['passed', 'failed'].includes(verb) && 'success' in result) bad('result.success outside passed/failed (9.5.2)');
  if (isDefined && verb !== 'completed' && 'completion' in result) bad('result.completion outside completed (9.5.3)');
}

/** Each verb's own rules: completed, passed/failed (the score, the mastery score), progressed, answered. */
function checkVerb(bad, s, launch, { want, quiz, passMark }) {
  const st = s.stmt;
  const verb = verbOf(s);
  const { activityId } = launch.enrolment;
  const ctx = st.context ?? {};
  const result = st.result ?? {};
  const cats = categories(s);
  if (['terminated', 'completed', 'passed', 'failed'].includes(verb) && !DURATION.test(result.duration ?? '')) bad(`result.duration ${short(result.duration)} is not an ISO 8601 duration (9.5.4.1)`);
  if (verb === 'completed') {
    if (result.completion !== true) bad('result.completion is not true (9.5.3)');
    if (result.extensions?.[CMI5.progress] !== undefined) bad('a progress extension on completed (9.5.5.1: SHOULD NOT)');
    if (!want.all) bad(`completed with ${want.read} of ${want.total} sections read`);
  }
  if (verb === 'passed' || verb === 'failed') {
    if (result.success !== (verb === 'passed')) bad(`result.success is ${result.success}`);
    if (passMark !== null && launch.launchData.masteryScore !== undefined && ctx.extensions?.[CMI5.masteryscore] !== launch.launchData.masteryScore) {
      bad(`context.extensions masteryscore is ${short(ctx.extensions?.[CMI5.masteryscore])}, not LMS.LaunchData's ${launch.launchData.masteryScore} (9.6.3.2)`);
    }
    if (want.qc) {
      const sc = result.score ?? {};
      const exp = { scaled: want.share, raw: want.qc.correct, min: 0, max: want.qc.total };
      if (!near(sc.scaled, exp.scaled, 0.0001) || sc.raw !== exp.raw || sc.min !== 0 || sc.max !== exp.max) bad(`result.score ${short(sc)}, expected ${short(exp)} (the page showed "${quiz?.text ?? '?'}")`);
      if (passMark !== null && verb === 'passed' && sc.scaled < passMark) bad(`passed with scaled ${sc.scaled} below the mastery score ${passMark} (9.3.4)`);
      if (passMark !== null && verb === 'failed' && sc.scaled >= passMark) bad(`failed with scaled ${sc.scaled} at or above the mastery score ${passMark} (9.3.5)`);
    }
  }
  if (verb === 'progressed') {
    const p = result.extensions?.[CMI5.progress];
    if (!Number.isInteger(p) || p < 0 || p > 100) bad(`the progress extension is ${short(p)}, not an integer 0..100`);
    if (cats.includes(CMI5.category)) bad('progressed carries the cmi5 category (the contract: cmi5 allowed)');
    if (st.object?.id !== activityId) bad(`object.id ${short(st.object?.id)} is not the activityId`);
  }
  if (verb === 'answered') {
    const lab = st.object?.id?.split('/lab/')[1];
    if (st.object?.id !== `${activityId}/lab/${lab}`) bad(`object.id ${short(st.object?.id)} is not activityId + "/lab/<lab>"`);
    if (st.object?.definition?.type !== 'http://adlnet.gov/expapi/activities/cmi.interaction' || st.object?.definition?.interactionType !== 'long-fill-in') bad(`object.definition ${short(st.object?.definition)}`);
    if (result.success !== true) bad(`result.success is ${short(result.success)}`);
    if (lab === LAB && result.response !== want.lesson.labs?.[LAB]?.code) bad(`result.response is ${short(result.response)}, not the learner's code`);
    if (!(ctx.contextActivities?.parent ?? []).some((p) => p.id === activityId)) bad('context.contextActivities.parent lacks the AU\'s activityId');
    if (cats.includes(CMI5.category)) bad('answered carries the cmi5 category (the contract: cmi5 allowed)');
  }
}

/** 9.3 and the contract: which cmi5 defined verbs the session sent, given the learner's progress. */
function checkDefinedVerbs(where, au, launch, { want, passMark, first }) {
  const { activityId } = launch.enrolment;
  // 9.3: no cmi5 defined verb twice in a session, not both passed and failed.
  const definedVerbs = au.filter((s) => categories(s).includes(CMI5.category)).map(verbOf);
  for (const v of new Set(definedVerbs)) if (definedVerbs.filter((x) => x === v).length > 1) problems.push(`${where}: ${v} was sent ${definedVerbs.filter((x) => x === v).length} times in one session (9.3)`);
  if (definedVerbs.includes('passed') && definedVerbs.includes('failed')) problems.push(`${where}: both passed and failed in one session (9.3)`);
  if (first) {
    if (want.all && !definedVerbs.includes('completed')) problems.push(`${where}: every section was read (${want.read} of ${want.total}) but no completed was sent`);
    if (want.passed && !definedVerbs.includes('passed')) problems.push(`${where}: the pass rule holds (quick check ${want.qc ? `${want.qc.correct}/${want.qc.total}` : 'not taken'}, mark ${passMark}; labs ${want.labsPassed.join(', ') || 'none'} passed) but no passed was sent`);
    if (want.failed && !definedVerbs.includes('failed')) problems.push(`${where}: the quick check is below the mastery score but no failed was sent`);
    if (!want.passed && definedVerbs.includes('passed')) problems.push(`${where}: passed was sent, but the pass rule does not hold`);
    if (want.labsPassed.includes(LAB) && !au.some((s) => verbOf(s) === 'answered' && s.stmt.object?.id === `${activityId}/lab/${LAB}`)) problems.push(`${where}: no answered statement for the passed lab ${LAB}`);
  }
}

/** 9.3, per registration: at most one completed and one passed, no failed after passed. */
export function checkRegistration(where, platform, enrolment) {
  const au = platform.statements.filter((s) => s.by === 'au' && !s.rejected && s.stmt.context?.registration === enrolment.registration && categories(s).includes(CMI5.category));
  for (const v of ['completed', 'passed']) {
    const n = au.filter((s) => verbOf(s) === v).length;
    if (n > 1) problems.push(`${where}: ${v} was sent ${n} times in one registration (9.3)`);
  }
  const passedAt = au.findIndex((s) => verbOf(s) === 'passed');
  if (passedAt >= 0 && au.slice(passedAt).some((s) => verbOf(s) === 'failed')) problems.push(`${where}: failed after passed in one registration (9.3)`);
}

/** The main check: a learner's first launch, then a second on another computer. */
export async function cmi5Walk(pkg, manifest, lrs) {
  const config = pkg.config;
  const enrolment = platform.cmi5Enrol(manifest);
  const launch = platform.cmi5Launch(enrolment, { lrs });
  const passMark = launch.launchData.masteryScore ?? config.passQuiz ?? null;
  say(`cmi5: LMS.LaunchData: moveOn ${launch.launchData.moveOn}, masteryScore ${launch.launchData.masteryScore ?? 'none'} (lms-config's passQuiz ${config.passQuiz}); activityId ${enrolment.activityId} (the AU's id is ${manifest.au.id}); LRS on ${lrs === 'same' ? 'the same origin' : 'another origin'}`);
  const own = manifest.au.launchMethod === 'OwnWindow';
  const where = 'cmi5 first launch';
  const { context, page } = await freshPage(where);
  await page.goto(own ? launch.url : launch.host);
  const { lms, app } = await openApp(page, { framed: !own });
  const walked = await firstSession(where, app, config);
  const progress = await progressIn(app);
  const want = expect(config, progress, passMark);
  say(`${where}: the app's progress: last ${want.last}, ${want.read}/${want.total} read, quick check ${JSON.stringify(want.qc)}, labs passed ${want.labsPassed.join(', ') || 'none'}; the rule ${want.passed ? 'holds' : 'does not hold'} (mark ${passMark})`);
  await app.waitForTimeout(1500);
  const [shown, text] = await noteOf(lms);
  if (shown) problems.push(`${where}: #lms-note is shown with a working LRS: "${text}"`);
  await closeTab(page);
  const terminated = () => platform.sessionStatements(launch).some((s) => verbOf(s) === 'terminated');
  if (!(await poll(terminated))) problems.push(`${where}: no terminated statement within 15 s of closing the page`);
  await context.close();
  checkStatements(where, platform, launch, { want, quiz: walked.quiz, passMark, first: true });
  const stateKey = platform.stateKey(enrolment.actor, enrolment.activityId, enrolment.registration, 'lockstep.progress');
  const state = platform.states.get(stateKey);
  if (!state) problems.push(`${where}: no lockstep.progress state document was stored`);
  else {
    say(`${where}: the lockstep.progress state is ${state.body.length} chars (${state.type})`);
    const l = progressInside(where, 'the lockstep.progress state', state.body)?.lessons?.[config.lesson] ?? {};
    if (l.last !== want.last || JSON.stringify(l.quick_check ?? null) !== JSON.stringify(want.qc)) problems.push(`${where}: the lockstep.progress state (last ${l.last}, quick check ${short(l.quick_check)}) is not the app's (last ${want.last}, ${short(want.qc)})`);
  }

  // Another computer, the same registration and state store: the learner resumes.
  const launch2 = platform.cmi5Launch(enrolment, { lrs });
  const where2 = 'cmi5 second launch';
  const second = await freshPage(where2);
  await second.page.goto(own ? launch2.url : launch2.host);
  const opened = await openApp(second.page, { framed: !own });
  await resumeChecks(where2, opened.app, config, want);
  const progress2 = await progressIn(opened.app);
  if (own) await closeTab(second.page); else await lmsExit(second.page);
  if (!(await poll(() => platform.sessionStatements(launch2).some((s) => verbOf(s) === 'terminated')))) problems.push(`${where2}: no terminated statement within 15 s of the LMS's exit`);
  await second.context.close();
  checkStatements(where2, platform, launch2, { want: expect(config, progress2, passMark), passMark, first: false });
  checkRegistration('cmi5', platform, enrolment);
  for (const p of platform.lrsProblems.splice(0)) problems.push(`cmi5 LRS: ${p}`);
  const reqs = platform.requests.filter((r) => r.launch === launch.key || r.launch === launch2.key);
  say(`cmi5: ${reqs.length} LRS requests in the two sessions (${reqs.filter((r) => r.path === 'activities/state' && r.method !== 'GET').length} state writes, ${platform.statements.filter((s) => s.by === 'au').length} statements)`);
}

/**
 * cmi5 in Browse mode (10.2.2): every section read, and still nothing but initialized and
 * terminated is sent.
 */
export async function browseMode(manifest, lrs) {
  const where = 'cmi5 in Browse mode';
  const config = platform.packages.get('cmi5').config;
  const launch = platform.cmi5Launch(platform.cmi5Enrol(manifest), { lrs, launchMode: 'Browse' });
  const { context, page } = await freshPage(where);
  const framed = manifest.au.launchMethod !== 'OwnWindow';
  await page.goto(framed ? launch.host : launch.url);
  const { app } = await openApp(page, { framed });
  for (const o of config.sections.map((s) => s.order).sort((a, b) => a - b)) await goTo(app, config, o);
  await readToEnd(app);
  await app.waitForTimeout(2500);
  await closeTab(page);
  await poll(() => platform.sessionStatements(launch).some((s) => verbOf(s) === 'terminated'));
  await context.close();
  const verbs = platform.sessionStatements(launch).filter((s) => s.by === 'au').map(verbOf);
  say(`${where}: every section read; the AU sent ${verbs.join(', ') || 'nothing'}`);
  const defined = platform.sessionStatements(launch).filter((s) => s.by === 'au' && categories(s).includes(CMI5.category)).map(verbOf);
  if (defined.join() !== 'initialized,terminated') problems.push(`${where}: the AU's cmi5 defined statements were ${defined.join(', ') || 'none'}, not only initialized and terminated`);
}

/**
 * The LMS's masteryScore, not lms-config's passQuiz, decides (the contract; 10.2.4): the
 * lab passed and the quick check done badly, once with a masteryScore under the score
 * (passed expected) and once over it (failed expected).
 */
export async function masteryOverride(manifest, lrs) {
  const config = platform.packages.get('cmi5').config;
  const orders = config.sections.map((s) => s.order).sort((a, b) => a - b);
  const labAt = config.sections.find((s) => s.id === LAB)?.order;
  for (const [mastery, verb] of [[0.05, 'passed'], [0.9, 'failed']]) {
    const where = `cmi5 with masteryScore ${mastery}`;
    const enrolment = platform.cmi5Enrol(manifest);
    const launch = platform.cmi5Launch(enrolment, { lrs, masteryScore: mastery });
    const { context, page } = await freshPage(where);
    const framed = manifest.au.launchMethod !== 'OwnWindow';
    await page.goto(framed ? launch.host : launch.url);
    const { app } = await openApp(page, { framed });
    if (labAt !== undefined && config.labs.includes(LAB)) {
      await goTo(app, config, labAt);
      await passLab(app, LAB, FIXED);
    }
    await goTo(app, config, orders.at(-1));
    if (!(await app.locator('section.quiz .quiz-score').count())) {
      say(`${where}: the last section has no quick check; skipped`);
      await context.close();
      return;
    }
    const quiz = await answerQuickCheckBadly(app, keys);
    await app.waitForTimeout(2500);
    const want = expect(config, await progressIn(app), mastery);
    await closeTab(page);
    await poll(() => platform.sessionStatements(launch).some((s) => verbOf(s) === 'terminated'));
    await context.close();
    say(`${where} (passQuiz ${config.passQuiz}): the quick check "${quiz.text}"; expected ${verb}`);
    const au = checkStatements(where, platform, launch, { want, quiz, passMark: mastery, first: true });
    if (!au.some((s) => verbOf(s) === verb)) problems.push(`${where}: no ${verb} statement (score ${quiz.correct}/${quiz.total}: the LMS's masteryScore ${mastery} decides, not passQuiz ${config.passQuiz})`);
  }
}
