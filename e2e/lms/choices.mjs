// `choices` (#39): an instructor's choices hold in a platform. A SCORM 2004 package made
// with `lockstep package dist --format scorm2004 --pack packs/example --lang nb --sections 2`
// (scripts/e2e.sh --lms writes it to $PACKAGES/choices/) is launched in the scorm-again
// 2004 host: the app must show the pack (its Norwegian title, its sections) in Norwegian
// and open on section 2, the first (and only) section included; reading it completes the
// attempt (progress_measure 1.00, only section 2 counts), reading the pack's section 1 too
// changes nothing of that, success stays unknown (no rule), the suspend data keeps the
// progress under the pack's lesson id, and a relaunch in a fresh profile resumes on the
// pack's section the learner was on (section 1, outside the included ones). What it
// expects comes from the instructor's side: packs/example (the pack's id, titles and
// sections in nb) and content/ui.toml (the app's own nb lines, and the English ones that
// must not show).
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { loadPackage, validateManifest, FORMATS } from './package.mjs';
import { openApp, progressIn, sectionOnScreen, goTo, readToEnd } from './learner.mjs';
import { progressInside } from './expect.mjs';
import { platform, freshPage, noteOf, poll, closeTab, lmsExit } from './stage.mjs';
import { callsOf, checkSession, storedCmi } from './scorm.mjs';
import { ROOT } from '../lesson.mjs';
import { problems, say, short } from './report.mjs';

/** Where the package is served (/choices/), and the folder of $PACKAGES it is in. */
export const CHOICES = 'choices';
const FORMAT = 'scorm2004';
/** What the instructor chose: the pack's folder, the language, the sections included. */
const CHOSEN = { pack: 'packs/example', lang: 'nb', sections: [2] };
/** Lines of the app's own interface on every section (content/ui.toml's keys). */
const UI_KEYS = ['skip_to_content', 'contents', 'progress', 'section_of', 'progress_link'];

/** content/ui.toml's UI_KEYS in `lang`, as patterns ({n} a number). */
function uiLines(lang) {
  const table = readFileSync(join(ROOT, 'content/ui.toml'), 'utf8').split(/^\[(\w+)\]\s*$/m);
  const body = table[table.indexOf(lang) + 1] ?? '';
  return UI_KEYS.map((k) => body.match(new RegExp(`^${k}\\s*=\\s*"([^"]*)"`, 'm'))?.[1]).filter(Boolean)
    .map((t) => new RegExp(t.split(/\{\w+\}/).map((x) => x.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\d+')));
}

/** The pack as the instructor's folder has it: `{ id, title: {en, nb}, sections: [{order, id, title}] }` in CHOSEN.lang. */
export function instructorPack() {
  const dir = join(ROOT, CHOSEN.pack);
  const toml = readFileSync(join(dir, 'pack.toml'), 'utf8');
  const title = Object.fromEntries([...(toml.match(/^title\s*=\s*\{([^}]*)\}/m)?.[1] ?? '').matchAll(/(\w+)\s*=\s*"([^"]*)"/g)].map((m) => [m[1], m[2]]));
  const sections = readdirSync(join(dir, 'sections', CHOSEN.lang)).filter((f) => f.endsWith('.md')).map((f) => {
    const front = readFileSync(join(dir, 'sections', CHOSEN.lang, f), 'utf8').split(/^\+\+\+\s*$/m)[1] ?? '';
    const field = (k) => front.match(new RegExp(`^${k}\\s*=\\s*"?([^"\\n]*)"?`, 'm'))?.[1];
    return { order: Number(field('order')), id: field('id'), title: field('title') };
  }).sort((a, b) => a.order - b.order);
  return { id: toml.match(/^id\s*=\s*"([^"]+)"/m)?.[1], title, sections };
}

/** The package in $PACKAGES/choices/, loaded and validated; null (said so) when there is none. */
export async function loadChoices(packages) {
  const dir = join(packages, CHOICES);
  if (!existsSync(join(dir, FORMATS[FORMAT].zip))) {
    say(`choices: no ${CHOICES}/${FORMATS[FORMAT].zip} in ${packages} (scripts/e2e.sh --lms makes it with --format ${FORMAT} --pack ${CHOSEN.pack} --lang ${CHOSEN.lang} --sections ${CHOSEN.sections}); the check is skipped`);
    return null;
  }
  const pkg = loadPackage(dir, FORMAT, problems);
  platform.packages.set(CHOICES, pkg);
  const before = problems.length;
  const manifest = await validateManifest(pkg, problems);
  say(`choices: ${CHOICES}/${FORMATS[FORMAT].zip}: ${pkg.files.size} files; imsmanifest.xml ${problems.length === before ? 'valid' : 'INVALID'}; lms-config ${short(pkg.config, 400)}`);
  return pkg.config && manifest ? { pkg, manifest } : null;
}

/** lms-config against the instructor's choices: the pack's lesson, the language, only section 2, no rule. */
function checkConfig(where, pkg, pack) {
  const c = pkg.config;
  const want = pack.sections.filter((s) => CHOSEN.sections.includes(s.order)).map((s) => `${s.order}:${s.id}`);
  const got = (c.sections ?? []).map((s) => `${s.order}:${s.id}`);
  if (c.lesson !== pack.id) problems.push(`${where}: lms-config's lesson is ${short(c.lesson)}, not the pack's ${short(pack.id)}`);
  if (c.lang !== CHOSEN.lang) problems.push(`${where}: lms-config's lang is ${short(c.lang)}, not ${CHOSEN.lang}`);
  if (!c.pack || !pkg.files.has(c.pack)) problems.push(`${where}: lms-config's pack ${short(c.pack)} is not a file in the zip`);
  if (got.join() !== want.join()) problems.push(`${where}: lms-config's sections are ${short(got)}, not ${short(want)}`);
  if (c.passQuiz !== null || (c.passLabs ?? []).length) problems.push(`${where}: lms-config has a rule (passQuiz ${c.passQuiz}, passLabs ${short(c.passLabs)}), none was asked for`);
  const manifest = pkg.text('imsmanifest.xml') ?? '';
  if (!manifest.includes(`<title>${pack.title[CHOSEN.lang]}</title>`)) problems.push(`${where}: imsmanifest.xml has no <title>${pack.title[CHOSEN.lang]}</title> (the pack's ${CHOSEN.lang} title)`);
}

/** What the learner sees: the pack in Norwegian (lms.html's and the app's lang, titles, contents, UI). */
async function checkShown(where, lms, app, pack) {
  await app.waitForSelector('article.section[data-section-id]', { timeout: 60000 });
  const seen = await app.evaluate(() => ({
    lang: document.documentElement.lang,
    title: document.title,
    text: document.body.innerText,
    toc: [...document.querySelectorAll('#toc a[href]')].map((a) => [a.getAttribute('href'), a.innerText.replace(/\s+/g, ' ').trim()]),
  }));
  const lmsLang = await lms.evaluate(() => document.documentElement.lang);
  if (lmsLang !== CHOSEN.lang) problems.push(`${where}: lms.html's <html lang> is ${short(lmsLang)}, not ${CHOSEN.lang}`);
  if (seen.lang !== CHOSEN.lang) problems.push(`${where}: the app's <html lang> is ${short(seen.lang)}, not ${CHOSEN.lang}`);
  const title = pack.title[CHOSEN.lang];
  if (!seen.title.includes(title) || !seen.text.includes(title)) problems.push(`${where}: the pack's title "${title}" is not in the page's title (${short(seen.title)}) and on the page`);
  if (seen.text.includes(pack.title.en)) problems.push(`${where}: the page shows the pack's English title "${pack.title.en}"`);
  const nb = uiLines(CHOSEN.lang);
  const en = uiLines('en');
  const missing = nb.filter((re) => !re.test(seen.text));
  const english = en.filter((re) => re.test(seen.text));
  if (nb.length < UI_KEYS.length || missing.length) problems.push(`${where}: the app's ${CHOSEN.lang} interface lines ${short(missing.map(String))} are not on the page (of ${nb.length} read from content/ui.toml)`);
  if (english.length) problems.push(`${where}: the app shows English interface lines ${short(english.map(String))}`);
  for (const s of pack.sections) {
    const link = seen.toc.find(([href]) => href === `#/${pack.id}/${s.order}`);
    if (!link || !link[1].includes(s.title)) problems.push(`${where}: the contents have no link #/${pack.id}/${s.order} "${s.title}" (the pack's section ${s.order}): ${short(seen.toc, 200)}`);
  }
  const [shown, note] = await noteOf(lms);
  if (shown) problems.push(`${where}: #lms-note is shown with a working API: "${note}"`);
  say(`${where}: lang ${seen.lang}, title ${short(seen.title)}, contents ${short(seen.toc.map((t) => t[1]), 200)}, ${nb.length - missing.length} of ${nb.length} ${CHOSEN.lang} interface lines, ${english.length} English`);
}

/** The values lms.js set for `el` in `run`, in order. */
const setsOf = (run, el) => callsOf(run).calls.filter((c) => c.fn === callsOf(run).api.set && c.ret === 'true' && c.args[0] === el).map((c) => String(c.args[1]));

/** The pack's lesson in the progress lms.js last put in the suspend data (held to the contract in judgeFirst), or null. */
function lessonInSuspend(run, pack) {
  try {
    const s = JSON.parse(callsOf(run).values['cmi.suspend_data'] ?? '');
    return (s?.p ?? s)?.lessons?.[pack.id] ?? null;
  } catch {
    return null;
  }
}

/** The first launch: on section 2; section 2 read (completed), then section 1 read too (nothing changes). Returns the run. */
async function firstLaunch(where, manifest, pack, learner) {
  const nav = { lesson: pack.id, sections: pack.sections };
  const run = platform.scormLaunch(FORMAT, { cmi: { learner_id: learner.id, learner_name: learner.name, credit: 'credit', mode: 'normal' }, launch: manifest.launch, dir: CHOICES });
  const { context, page } = await freshPage(where);
  await page.goto(`${platform.base}/host/${run.id}`);
  const { lms, app } = await openApp(page);
  await checkShown(where, lms, app, pack);
  const start = await sectionOnScreen(app, nav);
  if (start !== CHOSEN.sections[0]) problems.push(`${where}: a first launch opened on section ${start} (${short(app.url())}), not ${CHOSEN.sections[0]}, the first included`);
  const values = () => callsOf(run).values;
  await goTo(app, nav, CHOSEN.sections[0]);
  await readToEnd(app);
  const done = await poll(() => values()['cmi.completion_status'] === 'completed' && values()['cmi.progress_measure'] === '1.00');
  say(`${where}: section ${CHOSEN.sections[0]} read: progress_measure ${short(values()['cmi.progress_measure'])}, completion_status ${short(values()['cmi.completion_status'])}, the app's visited ${short((await progressIn(app))?.lessons?.[pack.id]?.visited)}`);
  if (!done) problems.push(`${where}: section ${CHOSEN.sections[0]} (the only one included) read, and within 15 s cmi.progress_measure is ${short(values()['cmi.progress_measure'])}, cmi.completion_status ${short(values()['cmi.completion_status'])}, not "1.00" and completed`);
  const atRead = setsOf(run, 'cmi.progress_measure').length;
  const other = pack.sections.find((s) => !CHOSEN.sections.includes(s.order)).order;
  await goTo(app, nav, other);
  await readToEnd(app);
  const reported = await poll(() => { const l = lessonInSuspend(run, pack); return l?.last === other && (l.visited ?? []).length === pack.sections.length; });
  if (!reported) problems.push(`${where}: section ${other} read, and within 15 s the suspend data did not say so (${short(lessonInSuspend(run, pack), 160)})`);
  const after = setsOf(run, 'cmi.progress_measure').slice(atRead);
  if (after.some((v) => v !== '1.00')) problems.push(`${where}: reading section ${other} (not included) set cmi.progress_measure to ${short(after)}; only section ${CHOSEN.sections[0]} counts`);
  await app.waitForTimeout(500);
  await closeTab(page);
  if (!(await poll(() => callsOf(run).finished.length > 0))) problems.push(`${where}: no Terminate within 15 s of closing the page`);
  await context.close();
  return { run, last: other };
}

/** After the first launch closed: what the platform holds (measure, statuses, exit, suspend data). */
function judgeFirst(where, run, pack, last) {
  checkSession(where, run);
  const v = callsOf(run).values;
  const eq = (el, want) => { if (v[el] !== want) problems.push(`${where}: ${el} is ${short(v[el])}, expected ${short(want)}`); };
  eq('cmi.progress_measure', '1.00');
  eq('cmi.completion_status', 'completed');
  eq('cmi.success_status', 'unknown');
  eq('cmi.location', String(last));
  const success = setsOf(run, 'cmi.success_status');
  if (success.some((s) => s !== 'unknown')) problems.push(`${where}: cmi.success_status was set to ${short(success)} with no rule`);
  const completion = setsOf(run, 'cmi.completion_status');
  if (completion.includes('completed') && completion.slice(completion.indexOf('completed')).some((s) => s !== 'completed')) problems.push(`${where}: cmi.completion_status went ${completion.join(' → ')}`);
  const sd = v['cmi.suspend_data'];
  const p = sd ? progressInside(where, 'cmi.suspend_data', sd) : null;
  const keys = Object.keys(p?.lessons ?? {});
  if (keys.join() !== pack.id) problems.push(`${where}: the suspend data keeps progress under ${short(keys)}, not the pack's lesson id ${short(pack.id)} alone`);
  const l = p?.lessons?.[pack.id];
  const ids = pack.sections.map((s) => s.id);
  if (l && (l.last !== last || ids.some((id) => !(l.visited ?? []).includes(id)))) problems.push(`${where}: the suspend data's ${pack.id} has last ${l.last}, visited ${short(l.visited)}; expected last ${last} and ${short(ids)}`);
  // A "normal" exit ends the attempt: a SCORM 2004 platform would start the next launch
  // afresh (ab-initio), without the progress. lms.js always exits "suspend".
  if (v['cmi.exit'] !== 'suspend') problems.push(`${where}: cmi.exit is ${short(v['cmi.exit'])} for a completed attempt; "suspend" keeps the progress for the next launch`);
  say(`${where}: progress_measure ${setsOf(run, 'cmi.progress_measure').join(' → ')}; completion_status ${completion.join(' → ')}; success_status ${success.join(' → ')}; location ${v['cmi.location']}; exit ${v['cmi.exit']}; suspend data ${short(sd, 160)}`);
}

/** The relaunch in a fresh profile, with what the platform stored: it must open on `last`. */
async function relaunch(where, manifest, pack, first, learner) {
  const stored = storedCmi(FORMAT, first.run, learner);
  const run = platform.scormLaunch(FORMAT, { cmi: stored, launch: manifest.launch, dir: CHOICES });
  const { context, page } = await freshPage(where);
  await page.goto(`${platform.base}/host/${run.id}`);
  const { lms, app } = await openApp(page);
  await checkShown(where, lms, app, pack);
  const at = await sectionOnScreen(app, { lesson: pack.id, sections: pack.sections });
  const l = (await progressIn(app))?.lessons?.[pack.id] ?? {};
  say(`${where}: opened on section ${at} (${short(new URL(app.url()).hash)}); the app was given last ${l.last}, visited ${short(l.visited)}`);
  if (at !== first.last) problems.push(`${where}: the relaunch opened on section ${at}, not ${first.last} where the learner was`);
  if (l.last !== first.last) problems.push(`${where}: the app was given last ${short(l.last)}, not ${first.last}`);
  await app.waitForTimeout(2000);
  await lmsExit(page);
  if (!(await poll(() => callsOf(run).finished.length > 0))) problems.push(`${where}: no Terminate within 15 s of the LMS's exit`);
  await context.close();
  checkSession(where, run);
  const completion = setsOf(run, 'cmi.completion_status');
  if (completion.some((s) => s !== 'completed')) problems.push(`${where}: the attempt was completed and the relaunch set cmi.completion_status ${short(completion)}`);
  const measure = setsOf(run, 'cmi.progress_measure');
  if (measure.some((s) => s !== '1.00')) problems.push(`${where}: the relaunch set cmi.progress_measure ${short(measure)}, not 1.00`);
}

/** The check: the package's config, a first launch, what the platform holds, a relaunch. */
export async function instructorChoices({ pkg, manifest }) {
  const pack = instructorPack();
  const learner = { id: 'learner-choices', name: 'Learner, Choices' };
  checkConfig(`${CHOICES} package`, pkg, pack);
  const first = await firstLaunch(`${CHOICES} first launch`, manifest, pack, learner);
  judgeFirst(`${CHOICES} first launch`, first.run, pack, first.last);
  await relaunch(`${CHOICES} relaunch`, manifest, pack, first, learner);
}
