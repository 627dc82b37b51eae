// Lockstep's LMS packages (#39) played by a test platform, in Debian's Chromium: each zip
// in $PACKAGES (lockstep-scorm12.zip, lockstep-scorm2004.zip, lockstep-cmi5.zip, as
// `lockstep package` writes them) is validated as an LMS imports it, served, launched in
// a page that plays the LMS (scorm-again's SCORM runtime, or an LRS for cmi5), and used
// by a learner: sections read, the safe-release lab passed, the final quick check
// answered, the page closed. What the platform recorded is held to /work/lms-contract.md
// (and the standards); then a second launch in a fresh browser profile (another
// computer) with the platform's stored data must resume where the learner was, with the
// lab passed. Also: lms.html opened with no platform becomes the app, and a platform
// that fails leaves the lesson usable with #lms-note shown. And (SCORM 1.2, `big`) a
// learner whose progress is too long for its 4096-character cmi.suspend_data: what
// lms.js keeps fits, keeps what the contract keeps, and resumes. And (`sticky`, every
// format) a lab reported passed counts for the rule after its code was edited, a pass the
// platform holds stays when the learner edits that code afterwards, and the lab is not
// reported again, nor on a relaunch. And (`choices`, SCORM 2004) an instructor's choices:
// a package of the example lesson pack in Norwegian with only its section 2
// ($PACKAGES/choices/lockstep-scorm2004.zip) shows the pack in Norwegian, opens on
// section 2, counts only it, and resumes on the pack's section the learner was on.
// This file is the driver (the options, which checks run for which format, the summary);
// the rest is in e2e/lms/:
//   package.mjs   a zip as a platform imports it: unzipped, its manifest validated
//   platform.mjs  the test platform: SCORM host pages on scorm-again, the cmi5 LRS
//   stage.mjs     the platform and the browser, fresh profiles, polling, closing a launch
//   learner.mjs   the learner's hands: open the app, read, pass the lab, answer
//   sessions.mjs  the main check's learner, first launch and resume, in every format
//   expect.mjs    what the contract expects from the app's progress (fnv1a64, LAB)
//   scorm.mjs     `main` for SCORM 1.2/2004: the calls, values, suspend data, interactions
//   cmi5.mjs      `main` for cmi5: statements, context, order, state; `browse`, `mastery`
//   fallback.mjs  `noplatform` and `failing`: the lesson without a working platform
//   big.mjs       `big`: a SCORM 1.2 learner over 4096 characters of suspend data
//   sticky.mjs    `sticky`: a pass kept after the passed lab's code is edited, and on a relaunch
//   choices.mjs   `choices`: a package of a lesson pack, in nb, with some sections (--pack --lang --sections)
//   report.mjs    the problems every check pushes to, and `say`
//   PACKAGES=<dir> node e2e/lms.mjs          (LMS_ONLY=scorm12,cmi5 for some formats;
//   LMS_CHECKS=main,noplatform,failing,browse,mastery,big,sticky,choices for some checks; CMI5_LRS=same for an LRS on the
//   package's own origin instead of another one; SHOTS=<dir> for the page where a check
//   stopped; CHROMIUM=<path> for another browser than /usr/bin/chromium)
// Exits 1 with what the platform recorded against what was expected.
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { FORMATS, loadPackage, validateManifest } from './lms/package.mjs';
import { platform, setStage, launchBrowser, clearStage, shootLastPage } from './lms/stage.mjs';
import { scormWalk } from './lms/scorm.mjs';
import { cmi5Walk, browseMode, masteryOverride } from './lms/cmi5.mjs';
import { noPlatform, failingPlatform } from './lms/fallback.mjs';
import { bigLearner } from './lms/big.mjs';
import { stickyPass } from './lms/sticky.mjs';
import { loadChoices, instructorChoices } from './lms/choices.mjs';
import { problems, say } from './lms/report.mjs';

const PACKAGES = process.env.PACKAGES;
const ONLY = (process.env.LMS_ONLY ?? '').split(',').filter(Boolean);
const CHECKS = (process.env.LMS_CHECKS ?? 'main,noplatform,failing,browse,mastery,big,sticky,choices').split(',');
const CMI5_LRS = process.env.CMI5_LRS ?? 'cross';
const SHOTS = process.env.SHOTS ?? null;

if (!PACKAGES) {
  console.error('lms: set PACKAGES to the directory `lockstep package` wrote the zips to');
  process.exit(2);
}

/** Each format's zip, loaded onto the platform with its manifest validated: format -> manifest. */
async function loadPackages(formats) {
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
  return manifests;
}

/** Check `name` of `format`, if LMS_CHECKS names it: `fn` run and timed, what it throws a problem. */
async function step(format, name, fn) {
  if (!CHECKS.includes(name)) return;
  const t = Date.now();
  try {
    await fn();
  } catch (e) {
    const at = (e.stack ?? '').split('\n').filter((l) => /e2e\/lms/.test(l)).slice(0, 3).map((l) => l.trim().replace(/^at /, '').replace(/\(?file:\/\/\S*\/e2e\//, '').replace(/\)$/, ''));
    problems.push(`${format} ${name}: stopped: ${e.message.split('\n')[0]} (${at.join(' < ')})`);
    if (SHOTS && await shootLastPage(join(SHOTS, `lms-${format}-${name}.png`))) {
      say(`${format} ${name}: the page as it stopped: ${join(SHOTS, `lms-${format}-${name}.png`)}`);
    }
  }
  say(`${format} ${name}: ${((Date.now() - t) / 1000).toFixed(0)} s`);
}

/** The checks a format has, in order. */
async function runChecks(format, pkg, manifest) {
  await step(format, 'main', () => (format === 'cmi5' ? cmi5Walk(pkg, manifest, CMI5_LRS) : scormWalk(format, pkg, manifest)));
  await step(format, 'noplatform', () => noPlatform(format));
  for (const mode of { scorm12: ['false', 'throw'], scorm2004: ['false'], cmi5: ['500', 'hang'] }[format]) {
    await step(format, 'failing', () => failingPlatform(format, manifest, mode));
  }
  if (format === 'cmi5') await step(format, 'browse', () => browseMode(manifest, CMI5_LRS));
  if (format === 'cmi5') await step(format, 'mastery', () => masteryOverride(manifest, CMI5_LRS));
  if (format === 'scorm12') await step(format, 'big', () => bigLearner(format, manifest));
  await step(format, 'sticky', () => stickyPass(format, manifest, CMI5_LRS));
}

await setStage();
try {
  await launchBrowser(process.env.CHROMIUM ?? '/usr/bin/chromium');
  const formats = Object.keys(FORMATS).filter((f) => !ONLY.length || ONLY.includes(f));
  const manifests = await loadPackages(formats);
  for (const format of formats) {
    const pkg = platform.packages.get(format);
    const manifest = manifests[format];
    if (!pkg?.config || !manifest) continue;
    await runChecks(format, pkg, manifest);
  }
  // The instructor's choices: a package of its own, in $PACKAGES/choices/ (skipped, said so, when there is none).
  if (CHECKS.includes('choices') && formats.includes('scorm2004')) {
    const choices = await loadChoices(PACKAGES);
    if (choices) await step('scorm2004', 'choices', () => instructorChoices(choices));
  }
  for (const p of platform.lrsProblems) problems.push(`cmi5 LRS: ${p}`);
} finally {
  await clearStage();
}
if (problems.length) {
  for (const p of problems) console.error('lms: PROBLEM:', p);
  process.exit(1);
}
say('OK');
