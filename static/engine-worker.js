// The engine's module (src/bin/engine.rs) in a plain Worker of the page, for the page's
// own long runs: "Can this break?" (ARCHITECTURE.md, "The engine, off the page").
// The page posts JSON text; the worker answers JSON text, one message per batch:
//   {"type":"explore","scenario":"<the scenario's JSON, as text>","seed":"123","batches":20}
//     (text, so no number of the scenario passes through a JavaScript number)
//     → {"type":"batch","batch":B,"report":{…sim::explore::BatchSummary}} … {"type":"done"}
//     or {"type":"error","message":M}
// The page cancels by terminating the worker; batches run back to back in between.
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
