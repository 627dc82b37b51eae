// Without a working platform (#39), in every format: lms.html opened by itself becomes
// the app (`noplatform`), and a platform that fails leaves the lesson usable with
// #lms-note saying the results are not saved (`failing`).
import { openApp, startApp, goTo } from './learner.mjs';
import { platform, freshPage, noteOf, poll } from './stage.mjs';
import { problems, say } from './report.mjs';

/** lms.html opened by itself (no API, no launch query): it becomes the app. */
export async function noPlatform(format) {
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
export async function failingPlatform(format, manifest, mode) {
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
