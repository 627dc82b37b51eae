// The test platform (#39): one HTTP server on 127.0.0.1 that serves each unzipped package
// under /<format>/, and plays the LMS around it.
// - SCORM: a host page per launch that puts scorm-again's runtime on `window.API`
//   (1.2) or `window.API_1484_11` (2004) with the learner's stored CMI loaded, frames the
//   SCO in <iframe id="sco">, and sends every API call the SCO makes (its arguments, what
//   it returned, the error code) back here, with the CMI after each commit. A failing
//   API instead answers "false" to every write and commit, with an error code.
// - cmi5: an LRS at /lrs/ (the fetch URL, the State API, the Statements API) that records
//   every request, checks the auth token and the xAPI version header on each, keeps state
//   documents per agent, activity, registration and state id, and writes LMS.LaunchData
//   and the "launched" statement itself before each launch. The same LRS answers on a
//   second port too, another origin, as an LMS's LRS mostly is (CORS, preflights).
import { createServer } from 'node:http';
import { readFileSync } from 'node:fs';
import { extname } from 'node:path';
import { randomUUID, randomBytes, createHash } from 'node:crypto';

const SCORM_AGAIN = new URL('../node_modules/scorm-again/dist/', import.meta.url).pathname;
const TYPES = {
  '.html': 'text/html; charset=utf-8', '.js': 'text/javascript; charset=utf-8', '.mjs': 'text/javascript; charset=utf-8',
  '.css': 'text/css; charset=utf-8', '.wasm': 'application/wasm', '.json': 'application/json', '.xml': 'application/xml',
  '.toml': 'text/plain; charset=utf-8', '.md': 'text/plain; charset=utf-8', '.txt': 'text/plain; charset=utf-8',
  '.svg': 'image/svg+xml', '.png': 'image/png', '.ico': 'image/x-icon', '.xsd': 'application/xml',
};

export const CMI5 = {
  category: 'https://w3id.org/xapi/cmi5/context/categories/cmi5',
  moveon: 'https://w3id.org/xapi/cmi5/context/categories/moveon',
  sessionid: 'https://w3id.org/xapi/cmi5/context/extensions/sessionid',
  masteryscore: 'https://w3id.org/xapi/cmi5/context/extensions/masteryscore',
  launchmode: 'https://w3id.org/xapi/cmi5/context/extensions/launchmode',
  launchurl: 'https://w3id.org/xapi/cmi5/context/extensions/launchurl',
  moveonExt: 'https://w3id.org/xapi/cmi5/context/extensions/moveon',
  launchparameters: 'https://w3id.org/xapi/cmi5/context/extensions/launchparameters',
  progress: 'https://w3id.org/xapi/cmi5/result/extensions/progress',
  verb: (v) => `http://adlnet.gov/expapi/verbs/${v}`,
};

const sameAgent = (a, b) => !!a && !!b && a.account?.homePage === b.account?.homePage && a.account?.name === b.account?.name
  && (a.objectType ?? 'Agent') === (b.objectType ?? 'Agent');

/** Reads a request's body as text. */
function body(req) {
  return new Promise((resolve, reject) => {
    const chunks = [];
    req.on('data', (c) => chunks.push(c));
    req.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    req.on('error', reject);
  });
}

export class Platform {
  constructor() {
    /** format (or another folder, as `choices`) -> package (e2e/lms/package.mjs), served under /<key>/ */
    this.packages = new Map();
    /** run id -> a SCORM launch: `{ id, format, cmi, failing, calls: [], gaps }` */
    this.scorm = new Map();
    /** cmi5 launches by fetch key and by auth token */
    this.launches = new Map();
    this.byToken = new Map();
    /** The LRS: state documents, and every statement with the request it came in. */
    this.states = new Map();
    this.statements = [];
    /** What an AU did that a real LRS would refuse (or that the spec forbids the AU). */
    this.lrsProblems = [];
    this.requests = [];
  }

  /** Starts both listeners; resolves when they answer. */
  async start() {
    const handler = (req, res) => this.handle(req, res).catch((e) => {
      res.writeHead(500, { 'content-type': 'text/plain' });
      res.end(String(e?.stack ?? e));
    });
    this.server = createServer(handler);
    this.other = createServer(handler);
    await Promise.all([this.server, this.other].map((s) => new Promise((r) => s.listen(0, '127.0.0.1', r))));
    this.base = `http://127.0.0.1:${this.server.address().port}`;
    this.otherBase = `http://127.0.0.1:${this.other.address().port}`;
    return this;
  }

  stop() {
    return Promise.all([this.server, this.other].map((s) => new Promise((r) => { s.closeAllConnections?.(); s.close(r); })));
  }

  async handle(req, res) {
    const url = new URL(req.url, this.base);
    const path = decodeURIComponent(url.pathname);
    if (path.startsWith('/lrs/')) return this.lrs(req, res, url, path.slice(5));
    const [, first, ...rest] = path.split('/');
    if (this.packages.has(first)) {
      const file = rest.join('/') || 'index.html';
      const bytes = this.packages.get(first).files.get(file);
      if (!bytes) return this.send(res, 404, 'text/plain', `not in the package: ${file}`);
      return this.send(res, 200, TYPES[extname(file)] ?? 'application/octet-stream', Buffer.from(bytes), { 'cache-control': 'no-cache' });
    }
    if (first === 'scorm-again' && /^[\w.]+\.js$/.test(rest[0] ?? '')) {
      return this.send(res, 200, TYPES['.js'], readFileSync(SCORM_AGAIN + rest[0]));
    }
    if (first === 'host' && this.scorm.has(rest[0])) return this.send(res, 200, TYPES['.html'], this.scormHost(this.scorm.get(rest[0])));
    if (first === 'host5' && this.launches.has(rest[0])) return this.send(res, 200, TYPES['.html'], this.cmi5Host(this.launches.get(rest[0])));
    if (first === 'record' && req.method === 'POST' && this.scorm.has(rest[0])) {
      const run = this.scorm.get(rest[0]);
      for (const e of JSON.parse(await body(req))) run.calls.push(e);
      run.calls.sort((a, b) => a.seq - b.seq);
      return this.send(res, 204);
    }
    if (first === 'returned') return this.send(res, 200, TYPES['.html'], '<!doctype html><title>Back at the test LMS</title><p id="returned">Back at the course.</p>');
    return this.send(res, 404, 'text/plain', 'not here');
  }

  send(res, status, type, payload, headers = {}) {
    res.writeHead(status, { ...(type ? { 'content-type': type } : {}), ...headers });
    res.end(payload);
  }

  // ---- SCORM ---------------------------------------------------------------------------

  /**
   * A SCORM launch: `cmi` (scorm-again's JSON form of what the LMS stored, or null for a
   * first attempt) is loaded before the SCO starts; `failing` ('false' or 'throw') gives
   * the SCO an API that refuses every write; `dir`: the package served under /<dir>/
   * (another package of the same format than the format's own). Returns the run; its host
   * page is `${base}/host/${id}`.
   */
  scormLaunch(format, { cmi = null, failing = false, launch = 'lms.html', dir = format } = {}) {
    const run = { id: randomUUID().slice(0, 8), format, dir, cmi, failing, launch, calls: [] };
    this.scorm.set(run.id, run);
    return run;
  }

  scormHost(run) {
    const v12 = run.format === 'scorm12';
    const names = v12
      ? ['LMSInitialize', 'LMSFinish', 'LMSGetValue', 'LMSSetValue', 'LMSCommit', 'LMSGetLastError', 'LMSGetErrorString', 'LMSGetDiagnostic']
      : ['Initialize', 'Terminate', 'GetValue', 'SetValue', 'Commit', 'GetLastError', 'GetErrorString', 'GetDiagnostic'];
    const global = v12 ? 'API' : 'API_1484_11';
    const cls = v12 ? 'Scorm12API' : 'Scorm2004API';
    // The failing API: initializes, reads nothing, refuses every write and commit with a
    // general error code, as an LMS whose server went away mid-session does ('false'), or
    // throws from them ('throw', an API object whose backend is gone).
    const refuse = (code) => (run.failing === 'throw' ? `throw new Error('the test LMS is gone (${code})');` : `err = '${code}'; return 'false';`);
    const failing = `{
      ${names[0]}: function () { err = '0'; return 'true'; },
      ${names[1]}: function () { err = '0'; return 'true'; },
      ${names[2]}: function (k) { err = '0'; return /lesson_status$/.test(k) ? 'not attempted' : /completion_status$/.test(k) ? 'unknown' : ''; },
      ${names[3]}: function () { ${refuse(v12 ? '101' : '351')} },
      ${names[4]}: function () { ${refuse(v12 ? '101' : '391')} },
      ${names[5]}: function () { return err; },
      ${names[6]}: function () { return 'General exception'; },
      ${names[7]}: function () { return 'The test LMS refuses every write on purpose'; }
    }`;
    return `<!doctype html>
<html lang="en">
<head>
<meta charset="utf-8">
<title>Test LMS: ${run.format} (${run.id})</title>
<style>html, body { margin: 0; height: 100%; } iframe#sco { display: block; border: 0; width: 100%; height: 100%; }</style>
<script src="/scorm-again/${v12 ? 'scorm12' : 'scorm2004'}.min.js"></script>
<script>
(function () {
  var RUN = ${JSON.stringify({ id: run.id, cmi: run.cmi, failing: run.failing })};
  var buffer = [], seq = 0, timer = null, err = '0';
  function flush() {
    clearTimeout(timer); timer = null;
    if (!buffer.length) return;
    var payload = JSON.stringify(buffer); buffer = [];
    if (!navigator.sendBeacon('/record/' + RUN.id, new Blob([payload], { type: 'text/plain' }))) {
      fetch('/record/' + RUN.id, { method: 'POST', body: payload, keepalive: true });
    }
  }
  var api;
  if (RUN.failing) {
    api = ${failing};
  } else {
    api = new ${cls}({ autocommit: true, autocommitSeconds: 2, lmsCommitUrl: false, logLevel: 4 });
    if (RUN.cmi) api.loadFromJSON(RUN.cmi);
  }
  var names = ${JSON.stringify(names)};
  names.forEach(function (n) {
    var f = api[n];
    api[n] = function () {
      var args = [].slice.call(arguments), e = { fn: n, args: args, t: Date.now() };
      try {
        e.ret = f.apply(api, args);
      } catch (x) {
        e.threw = String(x);
        e.seq = seq++; buffer.push(e); flush();
        throw x;
      }
      if (!RUN.failing) e.error = String(api.lastErrorCode);
      var end = n === names[1] || n === names[4];
      if (end && !RUN.failing) e.cmi = api.renderCMIToJSONObject();
      // Every call but GetLastError (asked after each failure) is kept, numbered.
      if (n !== names[5]) { e.seq = seq++; buffer.push(e); }
      if (end) flush(); else if (!timer) timer = setTimeout(flush, 250);
      return e.ret;
    };
  });
  window.${global} = api;
  window.__lmsFlush = flush;
  addEventListener('pagehide', flush);
})();
</script>
</head>
<body>
<iframe id="sco" title="Course content" src="/${run.dir}/${run.launch}"></iframe>
</body>
</html>`;
  }

  // ---- cmi5 ----------------------------------------------------------------------------

  /**
   * A cmi5 enrolment: the learner, the registration and the activity id the LMS made
   * for the AU (8.1.5: never the AU's own id from cmi5.xml; the same on every launch).
   */
  cmi5Enrol(manifest, { activityId } = {}) {
    const name = `learner-${randomBytes(3).toString('hex')}`;
    return {
      actor: { objectType: 'Agent', account: { homePage: this.base, name }, name: 'Test Learner' },
      registration: randomUUID(),
      activityId: activityId ?? `${this.base}/lms/activities/${createHash('sha256').update(manifest.au.id).digest('hex').slice(0, 16)}`,
      manifest,
    };
  }

  /**
   * Launches the AU for `enrolment`, as 10.0 and 9.3.1 ask of an LMS: writes LMS.LaunchData
   * (a fresh session id in the context template, the AU's publisher id in its grouping),
   * records the "launched" statement, and returns the launch with its URL.
   * `lrs`: 'cross' (another origin, the default) or 'same'. `failing`: statements get a
   * 500 ('500'), or no answer at all ('hang').
   */
  cmi5Launch(enrolment, { launchMode = 'Normal', masteryScore, lrs = 'cross', failing = false } = {}) {
    const { manifest, actor, registration, activityId } = enrolment;
    const au = manifest.au;
    const key = randomUUID().slice(0, 8);
    const session = randomUUID();
    const token = Buffer.from(`lms-test:${randomBytes(12).toString('hex')}`).toString('base64');
    const lrsBase = lrs === 'same' ? this.base : this.otherBase;
    const mastery = masteryScore === undefined ? au.masteryScore : masteryScore;
    const contextTemplate = { contextActivities: { grouping: [{ id: au.id }] }, extensions: { [CMI5.sessionid]: session } };
    const launchData = {
      contextTemplate,
      launchMode,
      moveOn: au.moveOn,
      returnURL: `${this.base}/returned?launch=${key}`,
      ...(mastery === null ? {} : { masteryScore: mastery }),
      ...(au.launchParameters === null ? {} : { launchParameters: au.launchParameters }),
    };
    this.states.set(this.stateKey(actor, activityId, registration, 'LMS.LaunchData'), { type: 'application/json', body: JSON.stringify(launchData) });
    const page = `${this.base}/cmi5/${manifest.launch}`;
    const launch = {
      key, session, token, enrolment, launchData, failing, fetched: 0, started: Date.now(),
      url: `${page}${page.includes('?') ? '&' : '?'}${new URLSearchParams({
        endpoint: `${lrsBase}/lrs/`,
        fetch: `${lrsBase}/lrs/fetch?k=${key}`,
        actor: JSON.stringify(actor),
        registration,
        activityId,
      })}`,
      host: `${this.base}/host5/${key}`,
    };
    this.launches.set(key, launch);
    this.byToken.set(token, launch);
    this.statements.push({
      by: 'lms', launch: key, at: Date.now(),
      stmt: {
        id: randomUUID(),
        timestamp: new Date().toISOString(),
        actor,
        verb: { id: CMI5.verb('launched'), display: { 'en-US': 'launched' } },
        object: { id: activityId, objectType: 'Activity', definition: { type: 'https://w3id.org/xapi/cmi5/activitytype/au' } },
        context: {
          registration,
          contextActivities: { grouping: [{ id: au.id }], category: [{ id: CMI5.category }] },
          extensions: {
            [CMI5.sessionid]: session,
            [CMI5.launchmode]: launchMode,
            [CMI5.launchurl]: page,
            [CMI5.moveonExt]: au.moveOn,
            ...(mastery === null ? {} : { [CMI5.masteryscore]: mastery }),
            ...(au.launchParameters === null ? {} : { [CMI5.launchparameters]: au.launchParameters }),
          },
        },
      },
    });
    return launch;
  }

  /** The LMS's page that frames the AU (launchMethod AnyWindow). */
  cmi5Host(launch) {
    return `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Test LMS: cmi5 (${launch.key})</title>
<style>html, body { margin: 0; height: 100%; } iframe#sco { display: block; border: 0; width: 100%; height: 100%; }</style>
</head><body><iframe id="sco" title="Course content" src="${launch.url.replace(/&/g, '&amp;').replace(/"/g, '&quot;')}"></iframe></body></html>`;
  }

  stateKey(agent, activityId, registration, stateId) {
    return JSON.stringify([agent?.account?.homePage, agent?.account?.name, activityId, registration ?? null, stateId]);
  }

  /** The statements of one launch's session, AU's and LMS's, in the order they came. */
  sessionStatements(launch) {
    return this.statements.filter((s) => s.launch === launch.key);
  }

  cors(req) {
    return {
      'access-control-allow-origin': req.headers.origin ?? '*',
      'access-control-allow-methods': 'GET, PUT, POST, DELETE, OPTIONS',
      'access-control-allow-headers': 'Authorization, Content-Type, X-Experience-API-Version, If-Match, If-None-Match',
      'access-control-expose-headers': 'ETag, Last-Modified, X-Experience-API-Version, X-Experience-API-Consistent-Through',
      'access-control-max-age': '600',
    };
  }

  async lrs(req, res, url, path) {
    const cors = this.cors(req);
    const reply = (status, json, headers = {}) => this.send(res, status, json === undefined ? null : 'application/json',
      json === undefined ? undefined : JSON.stringify(json), { ...cors, 'x-experience-api-version': '1.0.3', ...headers });
    const raw = (status, type, payload) => this.send(res, status, type, payload, { ...cors, 'x-experience-api-version': '1.0.3' });
    if (req.method === 'OPTIONS') return reply(204);
    const text = await body(req);
    const record = { at: Date.now(), method: req.method, path, query: Object.fromEntries(url.searchParams), origin: req.headers.origin ?? null };
    this.requests.push(record);
    if (path === 'fetch') {
      const launch = this.launches.get(url.searchParams.get('k'));
      record.launch = launch?.key;
      if (req.method !== 'POST') {
        this.lrsProblems.push(`the fetch URL was asked with ${req.method}, not POST (8.2.1)`);
        return reply(405, { 'error-code': '3', 'error-text': 'POST only' });
      }
      if (!launch) return reply(200, { 'error-code': '2', 'error-text': 'No such launch' });
      launch.fetched++;
      if (launch.fetched > 1) {
        this.lrsProblems.push(`launch ${launch.key}: the fetch URL was asked ${launch.fetched} times (8.2: once per launch)`);
        return reply(200, { 'error-code': '1', 'error-text': 'The authorization token has already been returned.' });
      }
      return reply(200, { 'auth-token': launch.token });
    }
    if (path === 'about') return reply(200, { version: ['1.0.3'] });
    // Every other call: the session's token, and the xAPI version.
    const auth = req.headers.authorization ?? '';
    const launch = this.byToken.get(auth.replace(/^Basic\s+/, ''));
    record.launch = launch?.key;
    record.version = req.headers['x-experience-api-version'] ?? null;
    if (!launch) {
      this.lrsProblems.push(`${req.method} /lrs/${path} came with Authorization ${JSON.stringify(auth)}, not "Basic <the fetched auth-token>"`);
      return reply(401, { error: 'unauthorized' });
    }
    if (!/^1\.0(\.\d+)?$/.test(record.version ?? '')) {
      this.lrsProblems.push(`${req.method} /lrs/${path} came without X-Experience-API-Version 1.0.x (${JSON.stringify(record.version)})`);
    }
    if (path === 'activities/state') return this.stateApi(req, url, text, launch, reply, raw);
    if (path === 'agents/profile' || path === 'activities/profile') {
      if (req.method === 'GET') return reply(404, { error: 'no such document' });
      return reply(204);
    }
    if (path === 'statements') {
      if (req.method === 'GET') return reply(200, { statements: [], more: '' });
      if (req.method !== 'POST' && req.method !== 'PUT') return reply(405, { error: 'method' });
      let parsed;
      try {
        parsed = JSON.parse(text);
      } catch {
        this.lrsProblems.push(`a statement that is not JSON: ${text.slice(0, 80)}`);
        return reply(400, { error: 'not JSON' });
      }
      const list = Array.isArray(parsed) ? parsed : [parsed];
      if (req.method === 'PUT' && list.length === 1 && !list[0].id) list[0].id = url.searchParams.get('statementId');
      const rejected = !!launch.failing;
      for (const stmt of list) {
        this.statements.push({ by: 'au', launch: launch.key, at: Date.now(), stmt, auth, version: record.version, rejected, contentType: req.headers['content-type'] ?? null });
      }
      if (launch.failing === 'hang') return null; // never answered (ended when the server stops)
      if (rejected) return reply(500, { error: 'The test LRS refuses statements on purpose' });
      return req.method === 'PUT' ? reply(204) : reply(200, list.map((s) => s.id));
    }
    return reply(404, { error: `no ${path} here` });
  }

  stateApi(req, url, text, launch, reply, raw) {
    const q = url.searchParams;
    const { enrolment } = launch;
    let agent = null;
    try {
      agent = JSON.parse(q.get('agent') ?? 'null');
    } catch { /* checked below */ }
    const id = q.get('stateId');
    const where = `${req.method} state ${JSON.stringify(id)}`;
    if (!sameAgent(agent, enrolment.actor)) this.lrsProblems.push(`${where}: agent ${q.get('agent')} is not the launch's actor`);
    if (q.get('activityId') !== enrolment.activityId) this.lrsProblems.push(`${where}: activityId ${q.get('activityId')} is not the launch's ${enrolment.activityId}`);
    if (q.get('registration') !== enrolment.registration) this.lrsProblems.push(`${where}: registration ${q.get('registration')} is not the launch's ${enrolment.registration}`);
    const key = this.stateKey(agent, q.get('activityId'), q.get('registration'), id);
    if (req.method === 'GET') {
      if (!id) return reply(200, [...this.states.keys()].map((k) => JSON.parse(k)).filter((k) => k[2] === q.get('activityId')).map((k) => k[4]));
      const doc = this.states.get(key);
      return doc ? raw(200, doc.type, doc.body) : reply(404, { error: 'no such document' });
    }
    if (id === 'LMS.LaunchData') {
      this.lrsProblems.push(`the AU ${req.method === 'DELETE' ? 'deleted' : 'wrote'} LMS.LaunchData, which it MUST NOT (10.2.1)`);
      return reply(403, { error: 'LMS.LaunchData is the LMS\'s' });
    }
    if (req.method === 'DELETE') {
      this.states.delete(key);
      return reply(204);
    }
    if (req.method === 'PUT' || req.method === 'POST') {
      const type = req.headers['content-type'] ?? 'application/octet-stream';
      const before = this.states.get(key);
      let stored = text;
      // POST merges JSON objects (xAPI 1.0.3, Document merging).
      if (req.method === 'POST' && before && /json/.test(before.type) && /json/.test(type)) {
        try { stored = JSON.stringify({ ...JSON.parse(before.body), ...JSON.parse(text) }); } catch { /* kept as sent */ }
      }
      this.states.set(key, { type, body: stored, at: Date.now(), launch: launch.key });
      return reply(204);
    }
    return reply(405, { error: 'method' });
  }
}
