// Lockstep's LMS packages (#39) played by a test platform, in Debian's Chromium: each zip
// in $PACKAGES (lockstep-scorm12.zip, lockstep-scorm2004.zip, lockstep-cmi5.zip, as
// `lockstep package` writes them) is validated as an LMS imports it, served, launched in
// a page that plays the LMS (e2e/lms/platform.mjs: scorm-again's SCORM runtime, or an LRS
// for cmi5), and used by a learner (e2e/lms/learner.mjs): sections read, the safe-release
// lab passed, the final quick check answered, the page closed. What the platform recorded
// is held to /work/lms-contract.md (and the standards); then a second launch in a fresh
// browser profile (another computer) with the platform's stored data must resume where
// the learner was, with the lab passed. Also: lms.html opened with no platform becomes
// the app, and a platform that fails leaves the lesson usable with #lms-note shown. And
// (SCORM 1.2, `big`) a learner whose progress is too long for its 4096-character
// cmi.suspend_data: what lms.js keeps fits, keeps what the contract keeps, and resumes.
//   PACKAGES=<dir> node e2e/lms.mjs          (LMS_ONLY=scorm12,cmi5 for some formats;
//   LMS_CHECKS=main,noplatform,failing,browse,mastery,big for some checks; CMI5_LRS=same for an LRS on the
//   package's own origin instead of another one)
// Exits 1 with what the platform recorded against what was expected.
import { existsSync, readFileSync } from 'node:fs';
import { join } from 'node:path';
import { chromium } from 'playwright-core';
import { FIXED } from './safe-release.mjs';
import { FORMATS, loadPackage, validateManifest } from './lms/package.mjs';
import { Platform, CMI5 } from './lms/platform.mjs';
import { ROOT } from './lesson.mjs';
import { PROGRESS_KEY, openApp, startApp, progressIn, sectionOnScreen, goTo, readToEnd, passLab, labOnReturn, answerKeys, answerQuickCheck, answerQuickCheckBadly } from './lms/learner.mjs';

const PACKAGES = process.env.PACKAGES;
const ONLY = (process.env.LMS_ONLY ?? '').split(',').filter(Boolean);
const CHECKS = (process.env.LMS_CHECKS ?? 'main,noplatform,failing,browse,mastery,big').split(',');
const CMI5_LRS = process.env.CMI5_LRS ?? 'cross';
const SHOTS = process.env.SHOTS ?? null;
const LAB = 'safe-release';
const problems = [];
const say = (...a) => console.log('lms:', ...a);
const short = (v, n = 80) => {
  const s = JSON.stringify(v);
  return s === undefined ? 'undefined' : s.length > n ? `${s.slice(0, n)}… (${typeof v === 'string' ? `${v.length} chars` : `${s.length} chars of JSON`})` : s;
};

if (!PACKAGES) {
  console.error('lms: set PACKAGES to the directory `lockstep package` wrote the zips to');
  process.exit(2);
}

// ---- what the contract expects, from the app's own progress --------------------------

/** FNV-1a 64 of the UTF-8 bytes of `s`, 16 hex digits (a lab's pass mark). */
function fnv1a64(s) {
  let h = 0xcbf29ce484222325n;
  for (const b of new TextEncoder().encode(s)) h = ((h ^ BigInt(b)) * 0x100000001b3n) & 0xffffffffffffffffn;
  return h.toString(16).padStart(16, '0');
}

/**
 * What a package must report for `progress` (the app's localStorage), by the contract's
 * rules: sections read, the quick check's share, labs passed, passed/failed.
 */
function expect(config, progress, passMark) {
  const lesson = progress?.lessons?.[config.lesson] ?? {};
  const ids = config.sections.map((s) => s.id);
  const read = (lesson.visited ?? []).filter((v) => ids.includes(v)).length;
  const qc = lesson.quick_check ?? null;
  const share = qc && qc.total ? qc.correct / qc.total : null;
  const labsPassed = Object.entries(lesson.labs ?? {}).filter(([, l]) => l.pass && l.pass.split(' ')[0] === fnv1a64(l.code ?? '')).map(([k]) => k);
  const rule = passMark !== null || config.passLabs.length > 0;
  const passed = rule && (passMark === null || (share !== null && share >= passMark)) && config.passLabs.every((l) => labsPassed.includes(l));
  const failed = !passed && passMark !== null && share !== null && share < passMark;
  return { lesson, last: lesson.last, read, all: read === ids.length, total: ids.length, qc, share, labsPassed, passed, failed };
}

// ---- SCORM: what the API calls left behind ---------------------------------------------

const API = {
  scorm12: { init: 'LMSInitialize', finish: 'LMSFinish', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit' },
  scorm2004: { init: 'Initialize', finish: 'Terminate', get: 'GetValue', set: 'SetValue', commit: 'Commit' },
};

/** The SCO's calls in a run, and the last value it set successfully for each element. */
function callsOf(run) {
  const api = API[run.format];
  const values = {};
  for (const c of run.calls) if (c.fn === api.set && c.ret === 'true') values[c.args[0]] = c.args[1];
  return { api, calls: run.calls, values, finished: run.calls.filter((c) => c.fn === api.finish) };
}

/** The session's shape: Initialize first, one Finish/Terminate last, a commit, no refused write. */
function checkSession(where, run) {
  const { api, calls, finished } = callsOf(run);
  const seqs = calls.map((c) => c.seq);
  if (seqs.some((s, i) => s !== i)) say(`${where}: (the record of API calls has gaps: ${calls.length} calls, last seq ${seqs.at(-1)})`);
  if (calls[0]?.fn !== api.init) problems.push(`${where}: the first API call was ${calls[0]?.fn ?? 'none'}, not ${api.init}`);
  else if (calls[0].ret !== 'true') problems.push(`${where}: ${api.init} returned ${calls[0].ret} (error ${calls[0].error})`);
  else if (calls[0].args[0] !== '') problems.push(`${where}: ${api.init} was called with ${short(calls[0].args)}, not ("")`);
  if (calls.filter((c) => c.fn === api.init).length > 1) problems.push(`${where}: ${api.init} was called ${calls.filter((c) => c.fn === api.init).length} times`);
  if (finished.length !== 1) problems.push(`${where}: ${api.finish} was called ${finished.length} times after the page closed (once expected, on pagehide)`);
  const after = calls.slice(calls.indexOf(finished[0]) + 1).filter((c) => !/Get(Last)?Error|ErrorString|Diagnostic/.test(c.fn));
  if (finished.length && after.length) problems.push(`${where}: ${after.length} calls after ${api.finish}: ${after.slice(0, 3).map((c) => `${c.fn}(${short(c.args[0], 40)})`).join(', ')}`);
  if (!calls.some((c) => c.fn === api.commit)) problems.push(`${where}: ${api.commit} was never called`);
  else if (finished.length) {
    const lastCommit = calls.filter((c) => c.fn === api.commit).at(-1);
    if (lastCommit.seq > finished[0].seq) problems.push(`${where}: the last ${api.commit} came after ${api.finish}`);
  }
  for (const c of calls) {
    if (c.threw) problems.push(`${where}: ${c.fn}(${short(c.args[0], 60)}) threw ${c.threw}`);
    else if ((c.fn === api.set || c.fn === api.commit || c.fn === api.finish) && c.ret !== 'true') {
      problems.push(`${where}: ${c.fn}(${c.args.map((a) => short(a, 60)).join(', ')}) returned ${JSON.stringify(c.ret)}, error ${c.error} (scorm-again refused it)`);
    }
  }
  const counts = {};
  for (const c of calls) counts[c.fn] = (counts[c.fn] ?? 0) + 1;
  say(`${where}: ${calls.length} API calls: ${Object.entries(counts).map(([k, v]) => `${k} ${v}`).join(', ')}`);
}

const near = (a, b, eps = 0.005) => Number.isFinite(Number(a)) && Math.abs(Number(a) - b) <= eps;

/** SCORM 1.2 values against the contract. */
function check12(where, run, want, config, quiz) {
  const { values, calls, api } = callsOf(run);
  const eq = (el, v) => { if (values[el] !== v) problems.push(`${where}: ${el} is ${short(values[el])}, expected ${short(v)}`); };
  const firstStatus = calls.find((c) => c.fn === api.set && c.args[0] === 'cmi.core.lesson_status');
  if (firstStatus?.args[1] !== 'incomplete') problems.push(`${where}: the first cmi.core.lesson_status set on a "not attempted" attempt was ${short(firstStatus?.args[1])}, not "incomplete" at the start`);
  eq('cmi.core.lesson_location', String(want.last));
  if (want.qc) {
    eq('cmi.core.score.raw', String(Math.round((100 * want.qc.correct) / want.qc.total)));
    eq('cmi.core.score.min', '0');
    eq('cmi.core.score.max', '100');
    if (quiz && (want.qc.correct !== quiz.correct || want.qc.total !== quiz.total)) problems.push(`${where}: the app stored the quick check as ${want.qc.correct}/${want.qc.total}, the page showed "${quiz.text}"`);
  } else if (values['cmi.core.score.raw'] !== undefined) problems.push(`${where}: a score ${values['cmi.core.score.raw']} without a quick check taken`);
  const status = want.passed ? 'passed' : want.failed && want.all ? 'failed' : want.all ? 'completed' : 'incomplete';
  eq('cmi.core.lesson_status', status);
  const exit = values['cmi.core.exit'];
  const done = ['passed', 'completed', 'failed'].includes(status);
  if (!(exit === 'suspend' || (done && exit === ''))) problems.push(`${where}: cmi.core.exit is ${short(exit)}, expected "suspend"${done ? ' or ""' : ''}`);
  if (!/^\d{2,4}:\d{2}:\d{2}(\.\d{1,2})?$/.test(values['cmi.core.session_time'] ?? '')) problems.push(`${where}: cmi.core.session_time is ${short(values['cmi.core.session_time'])}, not HHHH:MM:SS.SS`);
  suspendData(where, values['cmi.suspend_data'], 4096, want);
  interaction(where, values, {
    type: 'performance', response: 'student_response', limit: 255, time: ['time', /^\d{2}:\d{2}:\d{2}(\.\d{1,2})?$/],
  }, want, config);
}

/** SCORM 2004 values against the contract. */
function check2004(where, run, want, config, quiz) {
  const { values } = callsOf(run);
  const eq = (el, v) => { if (values[el] !== v) problems.push(`${where}: ${el} is ${short(values[el])}, expected ${short(v)}`); };
  eq('cmi.location', String(want.last));
  if (!near(values['cmi.progress_measure'], want.read / want.total)) problems.push(`${where}: cmi.progress_measure is ${short(values['cmi.progress_measure'])}, expected ${(want.read / want.total).toFixed(2)} (${want.read} of ${want.total} read)`);
  if (want.qc) {
    if (!near(values['cmi.score.scaled'], want.share, 0.0001)) problems.push(`${where}: cmi.score.scaled is ${short(values['cmi.score.scaled'])}, expected ${want.share}`);
    eq('cmi.score.raw', String(want.qc.correct));
    eq('cmi.score.min', '0');
    eq('cmi.score.max', String(want.qc.total));
    if (quiz && (want.qc.correct !== quiz.correct || want.qc.total !== quiz.total)) problems.push(`${where}: the app stored the quick check as ${want.qc.correct}/${want.qc.total}, the page showed "${quiz.text}"`);
  }
  eq('cmi.completion_status', want.all ? 'completed' : 'incomplete');
  eq('cmi.success_status', want.passed ? 'passed' : want.failed ? 'failed' : 'unknown');
  eq('cmi.exit', want.all && want.passed ? 'normal' : 'suspend');
  if (!/^P(?!$)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d{1,2})?S)?)?$/.test(values['cmi.session_time'] ?? '')) problems.push(`${where}: cmi.session_time is ${short(values['cmi.session_time'])}, not an ISO 8601 duration`);
  suspendData(where, values['cmi.suspend_data'], 64000, want);
  interaction(where, values, {
    type: 'long-fill-in', response: 'learner_response', limit: 4000, time: ['timestamp', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/], description: true,
  }, want, config);
}

/**
 * The app's progress inside what the adapter stored (suspend_data, the cmi5 state): the
 * progress JSON itself, or wrapped in an object of the adapter's as its `p`.
 */
function progressInside(where, what, text) {
  let p;
  try {
    p = JSON.parse(text);
  } catch {
    problems.push(`${where}: ${what} is not JSON (${short(text, 60)})`);
    return null;
  }
  if (p?.lessons && typeof p.lessons === 'object') return p;
  const inner = p && typeof p === 'object' ? Object.entries(p).find(([, v]) => v?.lessons && typeof v.lessons === 'object') : null;
  if (inner) {
    say(`${where}: ${what} holds the progress as .${inner[0]}, beside ${short(Object.keys(p).filter((k) => k !== inner[0]))}`);
    return inner[1];
  }
  problems.push(`${where}: ${what} holds no progress ({"v":2,"lessons":…}): ${short(text, 80)}`);
  return null;
}

function suspendData(where, sd, limit, want) {
  if (typeof sd !== 'string' || !sd) {
    problems.push(`${where}: no suspend_data was set`);
    return;
  }
  say(`${where}: suspend_data is ${sd.length} chars (the limit is ${limit})`);
  if (sd.length > limit) problems.push(`${where}: suspend_data is ${sd.length} chars, over ${limit}`);
  const p = progressInside(where, 'suspend_data', sd);
  if (!p) return;
  const l = p.lessons[Object.keys(p.lessons)[0]] ?? {};
  if (l.last !== want.last) problems.push(`${where}: suspend_data's last section is ${l.last}, the app's ${want.last}`);
  if ((l.visited ?? []).length !== (want.lesson.visited ?? []).length) problems.push(`${where}: suspend_data has ${(l.visited ?? []).length} sections visited, the app ${(want.lesson.visited ?? []).length}`);
  if (JSON.stringify(l.quick_check ?? null) !== JSON.stringify(want.qc)) problems.push(`${where}: suspend_data's quick check ${short(l.quick_check)} is not the app's ${short(want.qc)}`);
  const code = l.labs?.[LAB]?.code;
  if (code === undefined) say(`${where}: suspend_data carries no code for ${LAB} (the contract drops labs' code that would not fit)`);
  else if (code !== want.lesson.labs?.[LAB]?.code) problems.push(`${where}: suspend_data's ${LAB} code differs from the app's`);
}

const LINE_BREAKS = ['\n', '\\n', ' ', '\u2424', '\u23ce', '\u21b5', '\u00b6', ' / ', ' | '];

function interaction(where, values, how, want, config) {
  const ids = Object.keys(values).filter((k) => /^cmi\.interactions\.\d+\.id$/.test(k));
  const mine = ids.find((k) => values[k] === `lab-${LAB}`);
  if (!want.labsPassed.includes(LAB) || !config.labs.includes(LAB)) return;
  if (!mine) {
    problems.push(`${where}: no cmi.interactions.N.id = "lab-${LAB}" for the passed lab (ids set: ${short(ids.map((k) => values[k]))})`);
    return;
  }
  const base = mine.slice(0, -'id'.length);
  const v = (k) => values[base + k];
  if (v('type') !== how.type) problems.push(`${where}: ${base}type is ${short(v('type'))}, expected "${how.type}"`);
  if (v('result') !== 'correct') problems.push(`${where}: ${base}result is ${short(v('result'))}, expected "correct"`);
  const code = want.lesson.labs[LAB].code;
  // The code as it is, or (scorm-again, as the SCORM data types' "." does, refuses a
  // line break in a response) with each line break written some other way.
  const sep = LINE_BREAKS.find((b) => v(how.response) === code.replaceAll('\n', b).slice(0, how.limit));
  if (sep === undefined) problems.push(`${where}: ${base}${how.response} is ${short(v(how.response))}, expected the code${code.length > how.limit ? ` cut to ${how.limit}` : ''} (${code.length} chars)`);
  else if (sep !== '\n') say(`${where}: ${base}${how.response} is the code with its line breaks written ${JSON.stringify(sep)}`);
  if (!how.time[1].test(v(how.time[0]) ?? '')) problems.push(`${where}: ${base}${how.time[0]} is ${short(v(how.time[0]))}`);
  if (how.description && v('description') !== LAB) problems.push(`${where}: ${base}description is ${short(v('description'))}, expected "${LAB}"`);
  if (ids.filter((k) => values[k] === `lab-${LAB}`).length > 1) problems.push(`${where}: the lab's interaction was recorded ${ids.filter((k) => values[k] === `lab-${LAB}`).length} times`);
}

/** What an LMS keeps of a SCORM attempt for the next launch (entry "resume"). */
function storedCmi(format, run, learner) {
  const { values } = callsOf(run);
  const get = (el) => values[el];
  if (format === 'scorm12') {
    const score = ['raw', 'min', 'max'].filter((k) => get(`cmi.core.score.${k}`) !== undefined);
    return {
      core: {
        student_id: learner.id, student_name: learner.name, entry: 'resume', credit: 'credit', lesson_mode: 'normal',
        lesson_location: get('cmi.core.lesson_location') ?? '', lesson_status: get('cmi.core.lesson_status') ?? 'not attempted',
        ...(score.length ? { score: Object.fromEntries(score.map((k) => [k, get(`cmi.core.score.${k}`)])) } : {}),
      },
      suspend_data: get('cmi.suspend_data') ?? '',
    };
  }
  const score = ['scaled', 'raw', 'min', 'max'].filter((k) => get(`cmi.score.${k}`) !== undefined);
  const interactions = {};
  for (const k of Object.keys(values)) {
    const m = k.match(/^cmi\.interactions\.(\d+)\.(id|type|learner_response|result|description|timestamp)$/);
    if (m) (interactions[m[1]] ??= {})[m[2]] = values[k];
  }
  return {
    learner_id: learner.id, learner_name: learner.name, entry: 'resume', credit: 'credit', mode: 'normal',
    location: get('cmi.location') ?? '', completion_status: get('cmi.completion_status') ?? 'unknown',
    success_status: get('cmi.success_status') ?? 'unknown',
    ...(get('cmi.progress_measure') !== undefined ? { progress_measure: get('cmi.progress_measure') } : {}),
    ...(score.length ? { score: Object.fromEntries(score.map((k) => [k, get(`cmi.score.${k}`)])) } : {}),
    suspend_data: get('cmi.suspend_data') ?? '',
    ...(Object.keys(interactions).length ? { interactions } : {}),
  };
}

// ---- cmi5: what the LRS received ------------------------------------------------------

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;
const DURATION = /^P(?!$)(\d+(\.\d+)?Y)?(\d+(\.\d+)?M)?(\d+(\.\d+)?W)?(\d+(\.\d+)?D)?(T(?=\d)(\d+(\.\d+)?H)?(\d+(\.\d+)?M)?(\d+(\.\d+)?S)?)?$/;
const verbOf = (s) => s.stmt.verb?.id?.split('/').pop();
const categories = (s) => (s.stmt.context?.contextActivities?.category ?? []).map((c) => c.id);
const DEFINED = ['initialized', 'completed', 'passed', 'failed', 'terminated'];

/** Every statement of a session against 7.1, 9 and the contract. Returns the AU's, in order. */
function checkStatements(where, platform, launch, { want, quiz, passMark, first }) {
  const all = platform.sessionStatements(launch);
  const au = all.filter((s) => s.by === 'au');
  const { activityId, registration, actor } = launch.enrolment;
  const template = launch.launchData.contextTemplate;
  say(`${where}: ${au.length} statements from the AU: ${au.map(verbOf).join(', ')}`);
  if (!all.length || verbOf(all[0]) !== 'launched' || all[0].by !== 'lms') problems.push(`${where}: the session does not start with the LMS's launched`);
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
  const ids = new Set();
  for (const s of au) {
    const st = s.stmt;
    const verb = verbOf(s);
    const w = `${where}: ${verb} (${st.id ?? 'no id'})`;
    const bad = (what) => problems.push(`${w}: ${what}`);
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
  return au;
}

/** 9.3, per registration: at most one completed and one passed, no failed after passed. */
function checkRegistration(where, platform, enrolment) {
  const au = platform.statements.filter((s) => s.by === 'au' && !s.rejected && s.stmt.context?.registration === enrolment.registration && categories(s).includes(CMI5.category));
  for (const v of ['completed', 'passed']) {
    const n = au.filter((s) => verbOf(s) === v).length;
    if (n > 1) problems.push(`${where}: ${v} was sent ${n} times in one registration (9.3)`);
  }
  const passedAt = au.findIndex((s) => verbOf(s) === 'passed');
  if (passedAt >= 0 && au.slice(passedAt).some((s) => verbOf(s) === 'failed')) problems.push(`${where}: failed after passed in one registration (9.3)`);
}

// ---- the walks ------------------------------------------------------------------------

let browser;
const platform = await new Platform().start();
const keys = answerKeys();

/** A fresh browser profile (another computer: empty localStorage) and a page in it. */
let lastPage = null;
async function freshPage(where) {
  const context = await browser.newContext({ viewport: { width: 1280, height: 900 } });
  const page = await context.newPage();
  lastPage = page;
  page.on('pageerror', (e) => problems.push(`${where}: page error: ${e.message}`));
  page.on('dialog', (d) => d.accept().catch(() => {}));
  page.on('console', (m) => { if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) say(`${where}: console: ${short(m.text(), 200)}`); });
  return { context, page };
}

/** The note lms.html shows when the platform failed: [visible, text]. */
const noteOf = (lms) => lms.evaluate(() => {
  const n = document.getElementById('lms-note');
  return n ? [!n.hidden && n.getClientRects().length > 0, n.textContent.trim()] : [false, '(no #lms-note)'];
});

/** Polls `fn` until it is truthy (then returns it) or `ms` pass (then returns the last value). */
async function poll(fn, ms = 15000) {
  const until = Date.now() + ms;
  let v;
  while (!(v = await fn()) && Date.now() < until) await new Promise((r) => setTimeout(r, 100));
  return v;
}

/**
 * The first launch's learner: every included section read with Next and the final quick
 * check answered on the last one, then the lab passed on its section (so the rule comes
 * to hold once the quick check's score is final), then an earlier section opened from the
 * contents, so the section to resume on is not the last one read.
 */
async function firstSession(where, app, config) {
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

/** Closes the page as a learner closes the tab: pagehide in every frame, beforeunload too. */
async function closeTab(page) {
  await page.close({ runBeforeUnload: true });
}

/** The LMS ends the SCO as its Exit button does: its own page in the content frame. */
async function lmsExit(page) {
  await page.evaluate(() => { document.getElementById('sco').src = '/returned'; });
}

/** The second launch, in another profile: where it opens, what the app got, the lab. */
async function resumeChecks(where, app, config, before) {
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

async function scormWalk(format, pkg, manifest) {
  const config = pkg.config;
  const learner = { id: 'learner-1', name: 'Learner, Test' };
  const initial = format === 'scorm12'
    ? { core: { student_id: learner.id, student_name: learner.name, credit: 'credit', lesson_mode: 'normal' } }
    : { learner_id: learner.id, learner_name: learner.name, credit: 'credit', mode: 'normal' };
  const run = platform.scormLaunch(format, { cmi: initial, launch: manifest.launch });
  const where = `${format} first launch`;
  const { context, page } = await freshPage(where);
  await page.goto(`${platform.base}/host/${run.id}`);
  const { lms, app } = await openApp(page);
  const walked = await firstSession(where, app, config);
  const progress = await progressIn(app);
  const want = expect(config, progress, config.passQuiz ?? null);
  say(`${where}: the app's progress: last ${want.last}, ${want.read}/${want.total} read, quick check ${JSON.stringify(want.qc)}, labs passed ${want.labsPassed.join(', ') || 'none'}; the rule ${want.passed ? 'holds' : 'does not hold'}`);
  await app.waitForTimeout(1500);
  const [shown, text] = await noteOf(lms);
  if (shown) problems.push(`${where}: #lms-note is shown with a working API: "${text}"`);
  await closeTab(page);
  const api = API[format];
  if (!(await poll(() => run.calls.some((c) => c.fn === api.finish)))) problems.push(`${where}: no ${api.finish} within 15 s of closing the page`);
  await context.close();
  checkSession(where, run);
  (format === 'scorm12' ? check12 : check2004)(where, run, want, config, walked.quiz);

  // Another computer, the LMS's data: the learner resumes.
  const stored = storedCmi(format, run, learner);
  const run2 = platform.scormLaunch(format, { cmi: stored, launch: manifest.launch });
  const where2 = `${format} second launch`;
  const second = await freshPage(where2);
  await second.page.goto(`${platform.base}/host/${run2.id}`);
  const opened = await openApp(second.page);
  await resumeChecks(where2, opened.app, config, want);
  const progress2 = await progressIn(opened.app);
  await lmsExit(second.page);
  if (!(await poll(() => run2.calls.some((c) => c.fn === api.finish)))) problems.push(`${where2}: no ${api.finish} within 15 s of the LMS's exit`);
  await second.context.close();
  checkSession(where2, run2);
  const want2 = expect(config, progress2, config.passQuiz ?? null);
  const { values } = callsOf(run2);
  const location = format === 'scorm12' ? 'cmi.core.lesson_location' : 'cmi.location';
  if (values[location] !== String(want2.last)) problems.push(`${where2}: ${location} is ${short(values[location])}, expected ${want2.last}`);
  const statusEl = format === 'scorm12' ? 'cmi.core.lesson_status' : 'cmi.success_status';
  const was = format === 'scorm12' ? stored.core.lesson_status : stored.success_status;
  const sets = run2.calls.filter((c) => c.fn === api.set && c.args[0] === statusEl).map((c) => c.args[1]);
  if (['passed', 'completed'].includes(was) && sets.some((s) => s !== was && !(was === 'completed' && s === 'passed'))) problems.push(`${where2}: ${statusEl} was ${was} and the second launch set it to ${short(sets)}`);
}

async function cmi5Walk(pkg, manifest) {
  const config = pkg.config;
  const enrolment = platform.cmi5Enrol(manifest);
  const launch = platform.cmi5Launch(enrolment, { lrs: CMI5_LRS });
  const passMark = launch.launchData.masteryScore ?? config.passQuiz ?? null;
  say(`cmi5: LMS.LaunchData: moveOn ${launch.launchData.moveOn}, masteryScore ${launch.launchData.masteryScore ?? 'none'} (lms-config's passQuiz ${config.passQuiz}); activityId ${enrolment.activityId} (the AU's id is ${manifest.au.id}); LRS on ${CMI5_LRS === 'same' ? 'the same origin' : 'another origin'}`);
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
  const launch2 = platform.cmi5Launch(enrolment, { lrs: CMI5_LRS });
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

/** lms.html opened by itself (no API, no launch query): it becomes the app. */
async function noPlatform(format) {
  const where = `${format} with no platform`;
  const { context, page } = await freshPage(where);
  await page.goto(`${platform.base}/${format}/lms.html`);
  const lang = platform.packages.get(format).config?.lang ?? 'en';
  const became = await page.waitForURL((u) => u.pathname === `/${format}/index.html` && u.searchParams.get('lang') === lang, { timeout: 20000 }).then(() => true, () => false);
  if (!became) {
    problems.push(`${where}: lms.html stayed at ${page.url()}, not index.html?lang=${lang}`);
  } else {
    await page.waitForLoadState('domcontentloaded');
    const ready = await startApp(page.mainFrame(), 60000).catch(() => false);
    if (!ready) problems.push(`${where}: the app did not start at ${page.url()}`);
    else say(`${where}: lms.html became ${new URL(page.url()).pathname}${new URL(page.url()).search}, the app running`);
  }
  await context.close();
}

/**
 * A platform that fails (`mode`: SCORM 'false' or 'throw', cmi5 '500' or 'hang'): the
 * lesson goes on, and #lms-note says the results are not saved.
 */
async function failingPlatform(format, manifest, mode) {
  const where = `${format} with a failing platform (${mode})`;
  const { context, page } = await freshPage(where);
  let url;
  let framed = true;
  if (format === 'cmi5') {
    const launch = platform.cmi5Launch(platform.cmi5Enrol(manifest), { lrs: 'same', failing: mode });
    framed = manifest.au.launchMethod !== 'OwnWindow';
    url = framed ? launch.host : launch.url;
  } else {
    url = `${platform.base}/host/${platform.scormLaunch(format, { failing: mode, launch: manifest.launch }).id}`;
  }
  const t0 = Date.now();
  await page.goto(url);
  const { lms, app } = await openApp(page, { framed });
  const config = platform.packages.get(format).config;
  const orders = config.sections.map((s) => s.order).sort((a, b) => a - b);
  await goTo(app, config, orders[1]);
  const note = await poll(async () => { const n = await noteOf(lms); return n[0] ? n : null; }, 25000);
  if (!note) problems.push(`${where}: #lms-note was not shown within 25 s (it reads ${JSON.stringify((await noteOf(lms))[1])})`);
  else {
    say(`${where}: #lms-note shown ${((Date.now() - t0) / 1000).toFixed(1)} s after the launch: "${note[1]}"`);
    if (!note[1]) problems.push(`${where}: #lms-note is shown empty`);
    const role = await lms.evaluate(() => document.getElementById('lms-note')?.getAttribute('role'));
    if (role !== 'status') problems.push(`${where}: #lms-note has role ${role}, not status`);
  }
  // The lesson goes on: the next section opens.
  const ok = await goTo(app, config, orders[2]).then(() => true, () => false);
  if (!ok) problems.push(`${where}: after the failure the lesson no longer moves on to section ${orders[2]}`);
  await context.close();
}

/**
 * cmi5 in Browse mode (10.2.2): every section read, and still nothing but initialized and
 * terminated is sent.
 */
async function browseMode(manifest) {
  const where = 'cmi5 in Browse mode';
  const config = platform.packages.get('cmi5').config;
  const launch = platform.cmi5Launch(platform.cmi5Enrol(manifest), { lrs: CMI5_LRS, launchMode: 'Browse' });
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
async function masteryOverride(manifest) {
  const config = platform.packages.get('cmi5').config;
  const orders = config.sections.map((s) => s.order).sort((a, b) => a - b);
  const labAt = config.sections.find((s) => s.id === LAB)?.order;
  for (const [mastery, verb] of [[0.05, 'passed'], [0.9, 'failed']]) {
    const where = `cmi5 with masteryScore ${mastery}`;
    const enrolment = platform.cmi5Enrol(manifest);
    const launch = platform.cmi5Launch(enrolment, { lrs: CMI5_LRS, masteryScore: mastery });
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

// ---- a learner whose progress is too long for SCORM 1.2 (`big`) -----------------------

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
async function bigLearner(format, manifest) {
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

try {
  browser = await chromium.launch({
    executablePath: process.env.CHROMIUM ?? '/usr/bin/chromium',
    args: ['--no-sandbox', '--disable-gpu', '--disable-background-networking'],
  });
  const formats = Object.keys(FORMATS).filter((f) => !ONLY.length || ONLY.includes(f));
  const manifests = {};
  for (const format of formats) {
    if (!existsSync(join(PACKAGES, FORMATS[format].zip))) {
      problems.push(`${format}: no ${FORMATS[format].zip} in ${PACKAGES}`);
      continue;
    }
    const pkg = loadPackage(PACKAGES, format, problems);
    platform.packages.set(format, pkg);
    const before = problems.length;
    manifests[format] = await validateManifest(pkg, problems);
    say(`${format}: ${FORMATS[format].zip}: ${(pkg.bytes / 1e6).toFixed(2)} MB, ${pkg.files.size} files; ${FORMATS[format].manifest} ${problems.length === before ? 'valid' : 'INVALID'}; ${pkg.config ? `${pkg.config.sections.length} sections, passQuiz ${pkg.config.passQuiz}, passLabs ${pkg.config.passLabs.join(',') || 'none'}` : 'no config'}`);
  }
  for (const format of formats) {
    const pkg = platform.packages.get(format);
    const manifest = manifests[format];
    if (!pkg?.config || !manifest) continue;
    const step = async (name, fn) => {
      if (!CHECKS.includes(name)) return;
      const t = Date.now();
      try {
        await fn();
      } catch (e) {
        const at = (e.stack ?? '').split('\n').filter((l) => /e2e\/lms/.test(l)).slice(0, 3).map((l) => l.trim().replace(/^at /, '').replace(/\(?file:\/\/\S*\/e2e\//, '').replace(/\)$/, ''));
        problems.push(`${format} ${name}: stopped: ${e.message.split('\n')[0]} (${at.join(' < ')})`);
        if (SHOTS && lastPage && !lastPage.isClosed()) {
          await lastPage.screenshot({ path: join(SHOTS, `lms-${format}-${name}.png`) }).catch(() => {});
          say(`${format} ${name}: the page as it stopped: ${join(SHOTS, `lms-${format}-${name}.png`)}`);
        }
      }
      say(`${format} ${name}: ${((Date.now() - t) / 1000).toFixed(0)} s`);
    };
    await step('main', () => (format === 'cmi5' ? cmi5Walk(pkg, manifest) : scormWalk(format, pkg, manifest)));
    await step('noplatform', () => noPlatform(format));
    for (const mode of { scorm12: ['false', 'throw'], scorm2004: ['false'], cmi5: ['500', 'hang'] }[format]) {
      await step('failing', () => failingPlatform(format, manifest, mode));
    }
    if (format === 'cmi5') await step('browse', () => browseMode(manifest));
    if (format === 'cmi5') await step('mastery', () => masteryOverride(manifest));
    if (format === 'scorm12') await step('big', () => bigLearner(format, manifest));
  }
  for (const p of platform.lrsProblems) problems.push(`cmi5 LRS: ${p}`);
} finally {
  await browser?.close();
  await platform.stop();
}
if (problems.length) {
  for (const p of problems) console.error('lms: PROBLEM:', p);
  process.exit(1);
}
say('OK');
