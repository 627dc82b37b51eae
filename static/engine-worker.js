// The engine's module (src/bin/engine.rs) in a plain Worker of the page, one per page
// (src/ui/engine_worker.rs), for the page's requests: the scenario panels' runs and forks,
// "Can this break?", §4's trade-off tables, questions, the console, a lab's replay. A
// request for the authoring module (a pack's files, Markdown: `"module":"authoring"`) goes to a
// worker of this worker's own, this same script around src/bin/authoring.rs, started the
// first time one comes, whose messages it passes back unchanged (ARCHITECTURE.md, "The
// engine, off the page"). What a request and its answers are is
// declared once, in Rust (src/calls.rs: `Request`, `Answer`); here they are texts in the
// wire's form (postcard in base64, which needs no escaping), carried with the request's id.
// This script knows no kind of request by name:
//   {"id":N,"module":"engine","what":"run","request":"<Request, wire>"}
//     ("what" is for people reading; "module" is `engine` or `authoring`)
//     → {"id":N,"bin":"<Answer, wire>"} … one per answer, then {"id":N,"done":true};
//       or {"id":N,"error":M} if the request does not read or the engine threw;
//   {"cancel":N}: the request stops before its next answer.
// It yields between two answers, so a cancel is heard and requests share the worker.
// A message without an id ({"error":M}) says the worker itself failed.
'use strict';
// The module's files are beside this script: the page names their folder (an absolute
// URL) as the worker's name, since a script loaded through a wrapper (the browser tests'
// runner wraps every worker in a blob) cannot resolve a relative URL; the authoring
// worker is named "authoring <folder>".
const [module, base] = /^(engine|authoring) (.*)$/.exec(self.name || '')?.slice(1) ?? ['engine', self.name || ''];
importScripts(`${base}${module}.js`);
// The module carries no lesson text (src/text.rs): the built-in scenarios, questions and
// texts are in files the page fetched too, usually in the browser's cache by now. It
// fetches the common part at start, and a language's part before the first request that
// needs it (`job.textsMissing()`), once however many requests wait for it (again after a
// failure).
const parts = {};
const texts = async (files) => {
  for (const file of files) {
    parts[file] ??= fetch(`${base}${file}`, { credentials: 'same-origin' }).then(async (response) => {
      if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
      wasm_bindgen.take_text(await response.text());
    }).catch((e) => { delete parts[file]; throw e; });
    await parts[file];
  }
};
const started = wasm_bindgen({ module_or_path: `${base}${module}_bg.wasm` })
  .then(() => texts(wasm_bindgen.texts_missing()));

const say = (msg) => postMessage(JSON.stringify(msg));
const cancelled = new Set();
const finished = new Set();
// A turn of the event loop, so that a cancel (or another request) is heard: a message to
// itself, which unlike a nested setTimeout(0) is not held back 4 ms.
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
const tick = () => new Promise((resolve) => {
  waiting.push(resolve);
  channel.port2.postMessage(0);
});

// The authoring module's worker, once a request has needed it.
let authoring = null;
const toAuthoring = (text) => {
  if (!authoring) {
    authoring = new Worker(`${base}engine-worker.js`, { name: `authoring ${base}` });
    authoring.onmessage = (event) => postMessage(event.data);
    // It broke (its module not served, say): the page hears that this worker failed.
    authoring.onerror = (event) => {
      event.preventDefault();
      authoring.terminate();
      authoring = null;
      say({ error: `authoring worker: ${event.message || 'it did not start'}` });
    };
  }
  authoring.postMessage(text);
};

onmessage = async (event) => {
  let msg;
  try {
    msg = JSON.parse(String(event.data));
  } catch (err) {
    say({ error: `engine worker: bad JSON: ${err.message}` });
    return;
  }
  if (msg && msg.module === 'authoring' && module === 'engine') {
    toAuthoring(String(event.data));
    return;
  }
  if (msg && msg.cancel !== undefined) {
    if (authoring) authoring.postMessage(String(event.data));
    // Also for a request still waiting for the engine to start (it then never begins).
    // The ids of ended requests are kept (a number each) so that a late cancel is not.
    if (!finished.has(msg.cancel)) cancelled.add(msg.cancel);
    return;
  }
  try {
    await started;
  } catch (err) {
    say({ error: `engine worker: the engine did not start: ${err && err.message}` });
    return;
  }
  const id = Number(msg && msg.id) || 0;
  let job = null;
  try {
    if (cancelled.has(id)) return;
    job = new wasm_bindgen.EngineJob(String(msg && msg.request));
    await texts(job.textsMissing());
    for (;;) {
      if (cancelled.has(id)) return;
      const answer = job.next();
      if (answer === undefined) break;
      // The answer is base64 text: spliced as a string, with nothing to escape.
      postMessage(`{"id":${id},"bin":"${answer}"}`);
      await tick();
    }
    say({ id, done: true });
  } catch (err) {
    say({ id, error: String(err && err.message) });
  } finally {
    job?.free();
    cancelled.delete(id);
    finished.add(id);
  }
};
