// The engine's module (src/bin/engine.rs) in a plain Worker of the page, one per page
// (src/ui/engine_worker.rs), for the page's runs: the scenario panels' runs and forks,
// "Can this break?" and §4's trade-off tables (ARCHITECTURE.md, "The engine, off the page"). The page posts JSON
// text; every answer is JSON text carrying the request's id. The engine's values travel
// in them as strings in the wire's form (src/wire.rs: bincode in base64, which needs no
// escaping), so the page reads no JSON of its own:
//   {"type":"explore","id":N,"scenario":"<the scenario, wire>","seed":"123","batches":20}
//     → {"type":"batch","id":N,"batch":B,"report":"<sim::explore::BatchSummary, wire>"} … {"type":"done","id":N}
//   {"type":"sweep","id":N,"scenario":"<wire>","seed":"123","ttls":[300,500,…]}
//     → {"type":"row","id":N,"index":I,"row":"<sim::sweep::TtlPoint, wire>"} … {"type":"done","id":N}
//   {"type":"panel","id":N,"job":"<timeline::panel::RunJob, wire>"}
//     → {"type":"part","id":N,"bin":"<timeline::panel::RunPart>"} … (the run's long lists,
//       in pieces the page reads one task each), then
//       {"type":"ran","id":N,"bin":"<timeline::panel::RunAnswer without them>"} {"type":"done","id":N}
//       (each piece in the wire's form, bincode in base64: src/wire.rs)
//   {"type":"call","id":N,"name":"pack_load","arg":"<wire>"} (lockstep::calls)
//     → {"type":"result","id":N,"value":"<the call's answer, wire>"} {"type":"done","id":N}
//   or {"type":"error","id":N,"message":M} (the simulator's own error);
//   {"type":"cancel","id":N}: the run stops before its next batch or row.
// Runs yield between batches and rows, so a cancel is heard and runs share the worker.
// A message without an id ({"type":"error","message":M}) says the worker itself failed.
'use strict';
// The engine's files are beside this script: the page names their folder (an absolute
// URL) as the worker's name, since a script loaded through a wrapper (the browser tests'
// runner wraps every worker in a blob) cannot resolve a relative URL.
const base = self.name || '';
importScripts(`${base}engine.js`);
// The module carries no lesson text (src/text.rs): the built-in scenarios, questions and
// texts are in the file the page fetched too, usually in the browser's cache by now.
const started = wasm_bindgen({ module_or_path: `${base}engine_bg.wasm` }).then(async () => {
  const file = wasm_bindgen.text_file();
  if (!file) return; // the module carries the text (the browser tests' engine)
  const response = await fetch(`${base}${file}`, { credentials: 'same-origin' });
  if (!response.ok) throw new Error(`${file}: HTTP ${response.status}`);
  wasm_bindgen.take_text(await response.text());
});

const say = (msg) => postMessage(JSON.stringify(msg));
const cancelled = new Set();
const finished = new Set();
// A turn of the event loop, so that a cancel (or another run) is heard: a message to
// itself, which unlike a nested setTimeout(0) is not held back 4 ms.
const channel = new MessageChannel();
const waiting = [];
channel.port1.onmessage = () => waiting.shift()?.();
const tick = () => new Promise((resolve) => {
  waiting.push(resolve);
  channel.port2.postMessage(0);
});

// Runs `step(i)` for i = 0 … n-1 (each returns JSON text to post), yielding between
// steps; stops early when cancelled or on the simulator's error.
async function run(id, n, step) {
  try {
    for (let i = 0; i < n; i++) {
      if (cancelled.has(id)) return;
      let answer;
      try {
        answer = step(i);
      } catch (err) {
        say({ type: 'error', id, message: String(err && err.message) });
        return;
      }
      postMessage(answer);
      await tick();
    }
    say({ type: 'done', id });
  } finally {
    cancelled.delete(id);
    finished.add(id);
  }
}

onmessage = async (event) => {
  let msg;
  try {
    msg = JSON.parse(String(event.data));
  } catch (err) {
    say({ type: 'error', message: `engine worker: bad JSON: ${err.message}` });
    return;
  }
  if (msg && msg.type === 'cancel') {
    // Also for a run still waiting for the engine to start (it then never begins). The
    // ids of ended runs are kept (a number per run) so that a late cancel is not.
    if (!finished.has(msg.id)) cancelled.add(msg.id);
    return;
  }
  try {
    await started;
  } catch (err) {
    say({ type: 'error', message: `engine worker: the engine did not start: ${err && err.message}` });
    return;
  }
  const id = Number(msg && msg.id) || 0;
  const scenario = String(msg && msg.scenario);
  const seed = String(msg && msg.seed);
  if (msg && msg.type === 'panel') {
    let parts;
    try {
      if (cancelled.has(id)) return;
      parts = wasm_bindgen.panel_run(String(msg.job));
    } catch (err) {
      say({ type: 'error', id, message: String(err && err.message) });
      return;
    }
    const last = parts.length - 1;
    await run(id, parts.length, (i) => (i < last
      ? `{"type":"part","id":${id},"bin":"${parts[i]}"}`
      : `{"type":"ran","id":${id},"bin":"${parts[i]}"}`));
  } else if (msg && msg.type === 'call') {
    await run(id, 1, () => `{"type":"result","id":${id},"value":"${wasm_bindgen.call(String(msg.name), String(msg.arg))}"}`);
  } else if (msg && msg.type === 'sweep') {
    const ttls = Array.isArray(msg.ttls) ? msg.ttls.slice(0, 100).map(Number) : [];
    // The row is base64 text: spliced as a string, with nothing to escape.
    await run(id, ttls.length, (i) => `{"type":"row","id":${id},"index":${i},"row":"${wasm_bindgen.sweep_point(scenario, seed, ttls[i])}"}`);
  } else if (msg && msg.type === 'explore') {
    const batches = Math.min(Math.max(Number(msg.batches) | 0, 0), 1000);
    await run(id, batches, (b) => `{"type":"batch","id":${id},"batch":${b},"report":"${wasm_bindgen.explore_batch(scenario, seed, b)}"}`);
  } else {
    say({ type: 'error', id, message: `engine worker: unknown message type ${JSON.stringify(msg && msg.type)}` });
  }
};
