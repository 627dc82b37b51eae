// Lockstep's adapter for learning platforms: the launch page of a package made by
// `lockstep package` loads it. It finds the platform (SCORM 1.2's `API`, SCORM 2004's
// `API_1484_11` in a parent or opener frame; cmi5's launch parameters), hands the app the
// learner's stored progress, shows the app, follows its progress and reports it: the
// start, sections read, the quick check's score, each lab passed with its code,
// completion and success by the instructor's rule, and a clean finish when the page goes.
//
// The app is not changed for this: it keeps its progress in localStorage
// (`lockstep.progress.v2`), which this page writes before the app loads (so the platform,
// not the browser, says where a learner resumes) and reads when the app writes it (a
// `storage` event reaches every other page of the origin). With no platform the page
// becomes the app. A platform that fails or does not answer never stops the lesson: one
// quiet line says the results could not be saved.
(() => {
  'use strict';
  const cfg = JSON.parse(document.getElementById('lms-config').textContent);
  const KEY = 'lockstep.progress.v2';
  const FRESH = '{"v":2,"lessons":{}}';
  const WAIT_MS = 8000; // a cmi5 request not answered by then has failed
  const SETTLE_MS = 1500; // progress reported once the app has been quiet this long
  const NOTE = {
    en: 'Your results could not be saved to the course. The lesson goes on.',
    nb: 'Resultatene dine kunne ikke lagres i kurset. Leksjonen fortsetter.',
  };
  const started = Date.now();
  let mastery = cfg.passQuiz; // cmi5's masteryScore from the platform wins

  const appUrl = (hash) => `index.html?lang=${cfg.lang}${cfg.pack ? `&pack=${cfg.pack}` : ''}${hash || ''}`;

  // ---- what the app's progress means for the platform ----

  /** FNV-1a, 64 bits, of the text's UTF-8, in 16 hex digits (the app's `code_mark`). */
  function fnv(text) {
    let h = 0xcbf29ce484222325n;
    for (const b of new TextEncoder().encode(text)) h = BigInt.asUintN(64, (h ^ BigInt(b)) * 0x100000001b3n);
    return h.toString(16).padStart(16, '0');
  }

  /** The app's stored progress, read as the platform sees it. A lab reported passed in
   * this registration (`reported`) still counts for the rule after its code changed: the
   * app shows a pass only for the code that held, a gradebook keeps what was earned. */
  function derive(text, reported) {
    let p = null;
    try { p = JSON.parse(text); } catch (_) { /* the app only writes JSON */ }
    const l = (p && p.lessons && p.lessons[cfg.lesson]) || {};
    const visited = new Set(Array.isArray(l.visited) ? l.visited : []);
    const read = cfg.sections.filter((s) => visited.has(s.id)).length;
    const qc = cfg.quickCheck && l.quick_check && l.quick_check.total > 0 ? l.quick_check : null;
    const share = qc ? qc.correct / qc.total : null;
    const labs = {}; // lab id -> {code, mark}, for each lab whose code in the editor passed
    for (const id of cfg.labs) {
      const lab = l.labs && l.labs[id];
      const mark = lab && typeof lab.pass === 'string' ? lab.pass.split(' ')[0] : null;
      if (mark && typeof lab.code === 'string' && mark === fnv(lab.code)) labs[id] = { code: lab.code, mark };
    }
    const rule = mastery != null || cfg.passLabs.length > 0;
    const quizOk = mastery == null || (share != null && share + 1e-9 >= mastery);
    const passed = rule && quizOk && cfg.passLabs.every((id) => id in labs || (reported && reported[id]));
    return {
      read,
      total: cfg.sections.length,
      completed: read === cfg.sections.length,
      qc,
      share,
      labs,
      passed,
      failed: !passed && mastery != null && share != null && share + 1e-9 < mastery,
      last: Number.isInteger(l.last) ? l.last : null,
    };
  }

  // ---- the quiet line ----

  let noted = false;
  function fail(why) {
    if (typeof console !== 'undefined') console.warn('lockstep lms:', why);
    if (noted) return;
    noted = true;
    const note = document.getElementById('lms-note');
    note.textContent = NOTE[cfg.lang] || NOTE.en;
    note.hidden = false;
  }

  // ---- suspend data: the progress, and which passes were reported ----

  /** `{p: progress, r: {lab: mark reported}, s: {statement: true}}` (`s`: cmi5's
   * statements sent once per registration) as text within `limit` characters: other
   * lessons go first, then labs' code (largest first: the lab then shows as tried, its
   * pass day kept), then the questions' attempts. */
  function suspendOf(text, reported, limit, sent) {
    let p;
    try { p = JSON.parse(text); } catch (_) { p = JSON.parse(FRESH); }
    const out = () => JSON.stringify(sent ? { p, r: reported, s: sent } : { p, r: reported });
    if (out().length <= limit) return out();
    const l = p.lessons && p.lessons[cfg.lesson];
    p = { v: p.v, lessons: l ? { [cfg.lesson]: l } : {} };
    if (out().length <= limit) return out();
    const labs = Object.values((l && l.labs) || {}).sort((a, b) => (b.code || '').length - (a.code || '').length);
    for (const lab of labs) {
      lab.code = '';
      if (out().length <= limit) return out();
    }
    if (l) l.questions = {};
    if (out().length <= limit) return out();
    p = JSON.parse(FRESH);
    return out();
  }

  function fromSuspend(text) {
    try {
      const s = JSON.parse(text);
      if (s && typeof s.p === 'object' && s.p) return { progress: JSON.stringify(s.p), reported: s.r || {}, sent: s.s || {} };
    } catch (_) { /* not ours: start afresh */ }
    return { progress: FRESH, reported: {}, sent: {} };
  }

  const pad = (n, w = 2) => String(Math.floor(n)).padStart(w, '0');
  // A SCORM response is one line (runtimes refuse a line break in it): each line break of
  // the learner's code is written ⏎, so the platform's report still reads as code.
  const oneLine = (code, limit) => code.replace(/\r\n?|\n/g, '⏎').slice(0, limit);
  const isoDuration = (ms) => `PT${(ms / 1000).toFixed(2)}S`;

  // ---- SCORM 1.2 and 2004 ----

  function findApi(name) {
    const climb = (w) => {
      for (let i = 0; w && i < 500; i++) {
        try { if (w[name]) return w[name]; } catch (_) { /* another origin */ }
        if (!w.parent || w.parent === w) break;
        w = w.parent;
      }
      return null;
    };
    return climb(window.parent !== window ? window.parent : null) || climb(window.opener) || null;
  }

  function scorm(api, v2004) {
    const call = (v12, v04, ...args) => {
      try { return String(api[v2004 ? v04 : v12](...args)); } catch (e) { fail(e); return ''; }
    };
    const get = (k) => call('LMSGetValue', 'GetValue', k);
    const sent = new Map();
    const set = (k, v) => {
      v = String(v);
      if (sent.get(k) === v) return;
      if (call('LMSSetValue', 'SetValue', k, v) === 'true') sent.set(k, v);
      else fail(`${k}: ${call('LMSGetLastError', 'GetLastError')}`);
    };
    const commit = () => { if (call('LMSCommit', 'Commit', '') !== 'true') fail('commit'); };
    const limit = v2004 ? 64000 : 4096;
    let reported = {};
    let live = false;
    let wasPassed = false; // a pass the platform holds is not taken back
    return {
      start() {
        live = call('LMSInitialize', 'Initialize', '') === 'true';
        if (!live) { fail('initialize'); return FRESH; }
        const status = get(v2004 ? 'cmi.completion_status' : 'cmi.core.lesson_status');
        if (['', 'not attempted', 'unknown'].includes(status)) set(v2004 ? 'cmi.completion_status' : 'cmi.core.lesson_status', 'incomplete');
        const stored = fromSuspend(get('cmi.suspend_data'));
        reported = stored.reported;
        wasPassed = get(v2004 ? 'cmi.success_status' : 'cmi.core.lesson_status') === 'passed';
        commit();
        return stored.progress;
      },
      report(text) {
        if (!live) return;
        const d = derive(text, reported);
        if (d.last != null) set(v2004 ? 'cmi.location' : 'cmi.core.lesson_location', d.last);
        if (d.qc) {
          if (v2004) {
            set('cmi.score.scaled', d.share.toFixed(4));
            set('cmi.score.raw', d.qc.correct);
            set('cmi.score.min', 0);
            set('cmi.score.max', d.qc.total);
          } else {
            set('cmi.core.score.raw', Math.round(100 * d.share));
            set('cmi.core.score.min', 0);
            set('cmi.core.score.max', 100);
          }
        }
        for (const [id, lab] of Object.entries(d.labs)) {
          if (reported[id] === lab.mark) continue;
          const n = Number(get('cmi.interactions._count')) || 0;
          const at = `cmi.interactions.${n}`;
          const now = new Date();
          set(`${at}.id`, `lab-${id}`);
          if (v2004) {
            set(`${at}.type`, 'long-fill-in');
            set(`${at}.description`, id);
            set(`${at}.learner_response`, oneLine(lab.code, 4000));
            set(`${at}.result`, 'correct');
            set(`${at}.timestamp`, now.toISOString().slice(0, 19));
          } else {
            set(`${at}.type`, 'performance');
            set(`${at}.student_response`, oneLine(lab.code, 255));
            set(`${at}.result`, 'correct');
            set(`${at}.time`, `${pad(now.getHours())}:${pad(now.getMinutes())}:${pad(now.getSeconds())}`);
          }
          reported[id] = lab.mark;
        }
        wasPassed = wasPassed || d.passed;
        const passed = wasPassed;
        if (v2004) {
          set('cmi.progress_measure', (d.read / Math.max(1, d.total)).toFixed(2));
          set('cmi.completion_status', d.completed ? 'completed' : 'incomplete');
          set('cmi.success_status', passed ? 'passed' : d.failed ? 'failed' : 'unknown');
        } else {
          const status = passed ? 'passed' : d.failed && d.completed ? 'failed' : d.completed ? 'completed' : 'incomplete';
          set('cmi.core.lesson_status', status);
        }
        set('cmi.suspend_data', suspendOf(text, reported, limit));
        commit();
      },
      finish() {
        if (!live) return;
        live = false;
        const secs = (Date.now() - started) / 1000;
        // Always "suspend", finished or not: a "normal" exit ends the attempt, and the
        // platform's next launch would start afresh, without the learner's progress (their
        // code, their answers), which a learner who comes back to review expects to find.
        if (v2004) {
          set('cmi.session_time', isoDuration(secs * 1000));
          set('cmi.exit', 'suspend');
        } else {
          set('cmi.core.session_time', `${pad(secs / 3600, 4)}:${pad((secs / 60) % 60)}:${pad(secs % 60)}.00`);
          set('cmi.core.exit', 'suspend');
        }
        commit();
        if (call('LMSFinish', 'Terminate', '') !== 'true') fail('finish');
      },
    };
  }

  // ---- cmi5 ----

  const VERB = (name) => ({ id: `http://adlnet.gov/expapi/verbs/${name}`, display: { 'en-US': name } });
  const CMI5 = { id: 'https://w3id.org/xapi/cmi5/context/categories/cmi5' };
  const MOVEON = { id: 'https://w3id.org/xapi/cmi5/context/categories/moveon' };
  const PROGRESS = 'https://w3id.org/xapi/cmi5/result/extensions/progress';

  function uuid() {
    const b = crypto.getRandomValues(new Uint8Array(16));
    b[6] = (b[6] & 0x0f) | 0x40;
    b[8] = (b[8] & 0x3f) | 0x80;
    const h = [...b].map((x) => x.toString(16).padStart(2, '0')).join('');
    return `${h.slice(0, 8)}-${h.slice(8, 12)}-${h.slice(12, 16)}-${h.slice(16, 20)}-${h.slice(20)}`;
  }

  const MASTERY = 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore';

  /** The platform's learning record store, as the launch names it: xAPI requests with the
   * session's token, and statements sent one after another, in order. */
  function lrs(q) {
    const endpoint = q.get('endpoint').replace(/\/?$/, '/');
    let auth = null;
    const queue = [];
    let busy = false;
    let closing = false;
    const request = async (method, url, body, keepalive) => {
      const headers = { 'X-Experience-API-Version': '1.0.3' };
      if (auth) headers.Authorization = auth;
      if (body !== undefined) headers['Content-Type'] = 'application/json';
      const r = await fetch(url, {
        method, headers, keepalive: !!keepalive,
        body: body === undefined ? undefined : JSON.stringify(body),
        signal: keepalive ? undefined : AbortSignal.timeout(WAIT_MS),
      });
      if (!r.ok && r.status !== 404) throw new Error(`${method} ${url}: ${r.status}`);
      return r;
    };
    const pump = async () => {
      if (busy) return;
      busy = true;
      while (queue.length && !closing) {
        const next = queue.shift();
        await request('POST', `${endpoint}statements`, next).catch(fail);
      }
      busy = false;
    };
    return {
      request,
      state: (stateId, params) => `${endpoint}activities/state?${new URLSearchParams({ stateId, ...params })}`,
      async login() {
        const t = await (await request('POST', q.get('fetch'))).json();
        if (!t['auth-token']) throw new Error(`fetch: ${t['error-text'] || 'no token'}`);
        auth = `Basic ${t['auth-token']}`;
      },
      send(statement) {
        queue.push(statement);
        pump();
      },
      /** The page is going: what is still queued and the last statement, as one batch
       * (`keepalive`, so the request outlives the page; one request keeps their order). */
      close(last) {
        closing = true;
        const batch = queue.splice(0).concat([last]);
        return request('POST', `${endpoint}statements`, batch, true).catch(fail);
      },
    };
  }

  function cmi5(q) {
    const actor = JSON.parse(q.get('actor'));
    const registration = q.get('registration');
    const activityId = q.get('activityId');
    const store = lrs(q);
    const params = { activityId, agent: JSON.stringify(actor), registration };
    let template = {};
    let normal = true;
    let masteryFromPlatform = false;
    let live = false;
    let reported = {};
    // Statements a registration takes once (completed, passed, failed), kept in its state.
    let sent = {};
    let progressed = -1;

    const statement = (verb, { result, defined = true, moveOn = false, object, parent } = {}) => {
      const context = JSON.parse(JSON.stringify(template));
      context.registration = registration;
      context.contextActivities = context.contextActivities || {};
      const category = (context.contextActivities.category || []).slice();
      if (defined) category.push(CMI5);
      if (moveOn) category.push(MOVEON);
      if (category.length) context.contextActivities.category = category;
      if (parent) context.contextActivities.parent = [{ id: activityId, objectType: 'Activity' }];
      if (moveOn && masteryFromPlatform && result && 'success' in result) {
        context.extensions = { ...(context.extensions || {}), [MASTERY]: mastery };
      }
      const s = {
        id: uuid(), timestamp: new Date().toISOString(), actor, verb: VERB(verb),
        object: object || { id: activityId, objectType: 'Activity' }, context,
      };
      if (result) s.result = result;
      return s;
    };
    const duration = () => isoDuration(Date.now() - started);
    const once = (verb, options) => {
      if (sent[verb]) return;
      sent[verb] = true;
      store.send(statement(verb, options));
    };
    const labStatement = (id, code) => statement('answered', {
      defined: false,
      parent: true,
      object: {
        id: `${activityId}/lab/${id}`,
        objectType: 'Activity',
        definition: { type: 'http://adlnet.gov/expapi/activities/cmi.interaction', interactionType: 'long-fill-in', name: { 'en-US': `Lab: ${id}` } },
      },
      result: { success: true, response: code },
    });

    return {
      async start() {
        try {
          await store.login();
          const ld = await store.request('GET', store.state('LMS.LaunchData', params));
          const launch = ld.ok ? await ld.json() : {};
          template = launch.contextTemplate || {};
          normal = !launch.launchMode || launch.launchMode === 'Normal';
          if (typeof launch.masteryScore === 'number') {
            mastery = launch.masteryScore;
            masteryFromPlatform = true;
          }
          live = true;
          store.send(statement('initialized'));
          const st = await store.request('GET', store.state('lockstep.progress', params));
          const stored = fromSuspend(st.ok ? await st.text() : '');
          reported = stored.reported;
          sent = stored.sent;
          return stored.progress;
        } catch (e) {
          fail(e);
          return FRESH;
        }
      },
      report(text, closing) {
        if (!live) return;
        const d = derive(text, reported);
        if (normal) {
          const pct = Math.round((100 * d.read) / Math.max(1, d.total));
          if (pct !== progressed && progressed !== -1 && !d.completed) {
            store.send(statement('progressed', { defined: false, result: { extensions: { [PROGRESS]: pct } } }));
          }
          progressed = pct;
          for (const [id, lab] of Object.entries(d.labs)) {
            if (reported[id] === lab.mark) continue;
            reported[id] = lab.mark;
            store.send(labStatement(id, lab.code));
          }
          if (d.completed) once('completed', { moveOn: true, result: { completion: true, duration: duration() } });
          const score = d.qc ? { scaled: Number(d.share.toFixed(4)), raw: d.qc.correct, min: 0, max: d.qc.total } : undefined;
          if (d.passed) once('passed', { moveOn: true, result: { success: true, duration: duration(), ...(score && { score }) } });
          else if (d.failed && !sent.passed) once('failed', { moveOn: true, result: { success: false, duration: duration(), ...(score && { score }) } });
        }
        // After the statements, so the state says what was sent.
        const body = JSON.parse(suspendOf(text, reported, Infinity, sent));
        store.request('PUT', store.state('lockstep.progress', params), body, closing).catch(fail);
      },
      finish() {
        if (!live) return;
        live = false;
        store.close(statement('terminated', { result: { duration: duration() } }));
      },
    };
  }

  // ---- the launch ----

  function platform() {
    if (cfg.format === 'cmi5') {
      const q = new URLSearchParams(location.search);
      const ok = ['endpoint', 'fetch', 'actor', 'registration', 'activityId'].every((k) => q.get(k));
      if (!ok) return null;
      try { JSON.parse(q.get('actor')); } catch (_) { return null; }
      return cmi5(q);
    }
    const api = findApi(cfg.format === 'scorm2004' ? 'API_1484_11' : 'API');
    return api ? scorm(api, cfg.format === 'scorm2004') : null;
  }

  async function main() {
    const lms = platform();
    if (!lms) {
      location.replace(appUrl());
      return;
    }
    // A platform that has not answered in time: the app starts with what this browser
    // has, and the line says why nothing is saved.
    const progress = await Promise.race([lms.start(), new Promise((r) => setTimeout(r, WAIT_MS, null))]);
    let fresh = progress === FRESH;
    try {
      if (progress === null) fail('the platform did not answer');
      else localStorage.setItem(KEY, progress);
    } catch (e) {
      fail(e);
      fresh = false;
    }
    // A first launch opens the first included section; later ones resume where the
    // learner was (the app reads `last`).
    const first = cfg.sections[0];
    const frame = document.createElement('iframe');
    frame.id = 'lockstep-app';
    frame.title = cfg.title || 'Lockstep';
    frame.allow = 'clipboard-write';
    frame.src = appUrl(fresh && first ? `#/${cfg.lesson}/${first.order}` : '');
    document.body.insertBefore(frame, document.getElementById('lms-note'));
    frame.addEventListener('load', () => frame.focus(), { once: true });

    let timer = null;
    let pending = null;
    const flush = (closing) => {
      clearTimeout(timer);
      timer = null;
      if (pending !== null) lms.report(pending, closing);
      pending = null;
    };
    window.addEventListener('storage', (e) => {
      if (e.key !== KEY || e.newValue === null) return;
      pending = e.newValue;
      clearTimeout(timer);
      timer = setTimeout(() => flush(false), SETTLE_MS);
    });
    let gone = false;
    const leave = () => {
      if (gone) return;
      gone = true;
      flush(true);
      lms.finish();
    };
    window.addEventListener('pagehide', leave);
    window.addEventListener('beforeunload', leave);
  }

  main().catch(fail);
})();
