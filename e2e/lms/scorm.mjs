// SCORM 1.2 and 2004 (#39): the main check's walk (a learner's first launch, then a
// second on another computer with what the LMS stored), and what the API calls left
// behind held to the contract: the session's shape (initialize first, one finish last,
// a commit, no refused write), the values set (location, score, status, exit, session
// time), the suspend data (within the format's limit, the app's progress inside), the
// passed lab's interaction; and what an LMS keeps of an attempt for the next launch.
import { openApp, progressIn } from './learner.mjs';
import { LAB, expect, near, progressInside } from './expect.mjs';
import { platform, freshPage, noteOf, poll, closeTab, lmsExit } from './stage.mjs';
import { firstSession, resumeChecks } from './sessions.mjs';
import { problems, say, short } from './report.mjs';

const API = {
  scorm12: { init: 'LMSInitialize', finish: 'LMSFinish', get: 'LMSGetValue', set: 'LMSSetValue', commit: 'LMSCommit' },
  scorm2004: { init: 'Initialize', finish: 'Terminate', get: 'GetValue', set: 'SetValue', commit: 'Commit' },
};

/** The SCO's calls in a run, and the last value it set successfully for each element. */
export function callsOf(run) {
  const api = API[run.format];
  const values = {};
  for (const c of run.calls) if (c.fn === api.set && c.ret === 'true') values[c.args[0]] = c.args[1];
  return { api, calls: run.calls, values, finished: run.calls.filter((c) => c.fn === api.finish) };
}

/** The session's shape: Initialize first, one Finish/Terminate last, a commit, no refused write. */
export function checkSession(where, run) {
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
  // Always "suspend": the learner's progress stays for the next launch, finished or not.
  eq('cmi.core.exit', 'suspend');
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
  eq('cmi.exit', 'suspend');
  if (!/^P(?!$)(\d+Y)?(\d+M)?(\d+D)?(T(?=\d)(\d+H)?(\d+M)?(\d+(\.\d{1,2})?S)?)?$/.test(values['cmi.session_time'] ?? '')) problems.push(`${where}: cmi.session_time is ${short(values['cmi.session_time'])}, not an ISO 8601 duration`);
  suspendData(where, values['cmi.suspend_data'], 64000, want);
  interaction(where, values, {
    type: 'long-fill-in', response: 'learner_response', limit: 4000, time: ['timestamp', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}/], description: true,
  }, want, config);
}

/** suspend_data: set, within `limit`, and the app's progress inside it (last, visited, quick check, LAB's code). */
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

/** The passed lab's cmi.interactions.N (`how`: the format's type, response element, limit, time). */
export function interaction(where, values, how, want, config) {
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
export function storedCmi(format, run, learner) {
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

/** The main check: a learner's first launch, then a second on another computer with what the LMS stored. */
export async function scormWalk(format, pkg, manifest) {
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
