//! The engine's module: the simulator and store without the page, built by Trunk as a
//! second wasm module (`index.html`, `data-type="worker"`) and run inside the labs'
//! sandboxed worker, beside the learner's harness (`labs/sandbox.html`). There an
//! exchange between the simulator and the learner's code is a function call, not a
//! message between threads (ARCHITECTURE.md, "The engine, off the page").
//!
//! The page runs the same module in a plain Worker of its own (`static/engine-worker.js`)
//! for the requests of `lockstep::calls::Request` a learner's lesson makes (the scenario
//! panels' runs, "Can this break?", §4's trade-off table, generated questions, the
//! console, script checks, a lab's replay), so none of them blocks the page: `EngineJob`
//! (`common/engine_job.rs`). Packs and Markdown are the authoring module's
//! (`src/bin/authoring.rs`): this one is built without the `authoring` feature, so it
//! carries no TOML or Markdown reader and no pack loader; a lab reaches it in the wire's
//! form, and a generated question's texts get their trees from their templates'.
//!
//! It imports no browser API: only `wasm-bindgen` to export [`Trials`] and `EngineJob`.

#[cfg(target_arch = "wasm32")]
#[path = "common/engine_job.rs"]
mod engine_job;

#[cfg(target_arch = "wasm32")]
mod web {
    use lockstep::sim::lab::frame::SandboxTrials;
    use wasm_bindgen::prelude::*;

    /// One group of a "Try to break it" session, or a lab's Run or a shared trial's
    /// replay, in a sandbox's worker (`sim::lab::frame::SandboxTrials`): it reads the
    /// page's `trials` message and writes what the worker posts back, so the worker
    /// (`labs/sandbox.html`) only relays text.
    #[wasm_bindgen]
    pub struct Trials(SandboxTrials);

    #[wasm_bindgen]
    impl Trials {
        /// `request` is the page's `trials` message, as it came (JSON text).
        #[wasm_bindgen(constructor)]
        pub fn new(request: &str) -> Result<Trials, JsError> {
            SandboxTrials::new(request)
                .map(Trials)
                .map_err(|e| JsError::new(&e))
        }

        /// The next message for the harness, or `undefined` when the group is done.
        pub fn next(&mut self) -> Option<String> {
            self.0.next_message()
        }

        /// `at`, for the page, when a trial has started since the last call.
        pub fn news(&mut self) -> Option<String> {
            self.0.news()
        }

        pub fn answer(&mut self, answer: &str) {
            self.0.answer(answer)
        }

        pub fn limit(&mut self, trial: u32) {
            self.0.limit(trial)
        }

        /// Whether this is one watched trial (Run, a replay): only then does
        /// [`Trials::watched`] say anything.
        pub fn watching(&self) -> bool {
            self.0.watching()
        }

        /// The harness's watch message (JSON text) as the page reads it, or `undefined`.
        pub fn watched(&self, watch: &str) -> Option<String> {
            self.0.watched(watch)
        }

        /// `done`, for the page: the group's report.
        pub fn done(&self) -> String {
            self.0.done()
        }
    }
}

fn main() {
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("`engine` is the browser's engine module (a worker): the command line is `lockstep`");
        std::process::exit(2);
    }
}
