// The engine's module (src/bin/engine.rs) in a plain Worker of the page, for the page's
// own long runs: "Can this break?" and §4's trade-off table (ARCHITECTURE.md, "The
// engine, off the page"). The page posts JSON text; the worker answers JSON text, one
// message per batch or row:
//   {"type":"explore","scenario":"<the scenario's JSON, as text>","seed":"123","batches":20}
//     (text, so no number of the scenario passes through a JavaScript number)
//     → {"type":"batch","batch":B,"report":{…sim::explore::BatchSummary}} … {"type":"done"}
//   {"type":"sweep","id":N,"scenario":"<JSON text>","seed":"123","ttls":[300,500,…]}
//     → {"type":"row","id":N,"index":I,"row":{…sim::sweep::TtlPoint}} … {"type":"done","id":N}
//     (the page keeps this worker for every table: `id` tells a stale answer)
//   or, for either, {"type":"error","message":M}
// The page cancels by terminating the worker; batches and rows run back to back.
'use strict';
importScripts('engine.js');
const started = wasm_bindgen({ module_or_path: 'engine_bg.wasm' });

const say = (msg) => postMessage(JSON.stringify(msg));

onmessage = async (event) => {
  let msg;
  try {
    msg = JSON.parse(String(event.data));
  } catch (err) {
    say({ type: 'error', message: `engine worker: bad JSON: ${err.message}` });
    return;
  }
  try {
    await started;
  } catch (err) {
    say({ type: 'error', message: `engine worker: the engine did not start: ${err && err.message}` });
    return;
  }
  if (msg && msg.type === 'sweep') {
    const id = Number(msg.id) || 0;
    const ttls = Array.isArray(msg.ttls) ? msg.ttls.slice(0, 100).map(Number) : [];
    for (let i = 0; i < ttls.length; i++) {
      let row;
      try {
        row = wasm_bindgen.sweep_point(String(msg.scenario), String(msg.seed), ttls[i]);
      } catch (err) {
        say({ type: 'error', id, message: String(err && err.message) });
        return;
      }
      postMessage(`{"type":"row","id":${id},"index":${i},"row":${row}}`);
    }
    say({ type: 'done', id });
    return;
  }
  if (!msg || msg.type !== 'explore') {
    say({ type: 'error', message: `engine worker: unknown message type ${JSON.stringify(msg && msg.type)}` });
    return;
  }
  const scenario = String(msg.scenario);
  const batches = Math.min(Math.max(Number(msg.batches) | 0, 0), 1000);
  for (let b = 0; b < batches; b++) {
    let report;
    try {
      report = wasm_bindgen.explore_batch(scenario, String(msg.seed), b);
    } catch (err) {
      say({ type: 'error', message: String(err && err.message) });
      return;
    }
    // The report is JSON text already: spliced, not parsed and written again.
    postMessage(`{"type":"batch","batch":${b},"report":${report}}`);
  }
  say({ type: 'done' });
};
