//! The engine's module: the simulator and store without the page, built by Trunk as a
//! second wasm module (`index.html`, `data-type="worker"`) and run inside the labs'
//! sandboxed worker, beside the learner's harness (`labs/sandbox.html`). There an
//! exchange between the simulator and the learner's code is a function call, not a
//! message between threads (ARCHITECTURE.md, "The engine, off the page").
//!
//! The page runs the same module in a plain Worker of its own (`static/engine-worker.js`)
//! for every request of `lockstep::calls::Request` (the scenario panels' runs, "Can
//! this break?", §4's trade-off table, generated questions, packs, the console, script
//! checks, Markdown), so none of them blocks the page: `EngineJob`.
//!
//! It imports no browser API: only `wasm-bindgen` to export [`Trials`] and `EngineJob`.

#[cfg(target_arch = "wasm32")]
mod web {
    use lockstep::sim::lab::frame::SandboxTrials;
    use wasm_bindgen::prelude::*;

    /// A request of the page (`lockstep::calls::Request`, in the wire's form), made into
    /// its answers one at a time by the page's engine worker (`static/engine-worker.js`).
    #[wasm_bindgen]
    pub struct EngineJob(lockstep::calls::Steps);

    #[wasm_bindgen]
    impl EngineJob {
        #[wasm_bindgen(constructor)]
        pub fn new(request: &str) -> Result<EngineJob, JsError> {
            let request =
                lockstep::wire::from_text(request).map_err(|e| JsError::new(&format!("the request: {e}")))?;
            Ok(EngineJob(lockstep::calls::Steps::new(request)))
        }

        /// The next answer (`lockstep::calls::Answer`, in the wire's form), or
        /// `undefined` when the request is answered.
        #[wasm_bindgen(js_name = next)]
        pub fn next_answer(&mut self) -> Result<Option<String>, JsError> {
            self.0
                .next_answer()
                .map(|a| lockstep::wire::to_text(&a))
                .transpose()
                .map_err(|e| JsError::new(&e))
        }
    }

    /// The file of the lesson's text this module was built with (`lockstep::text`): the
    /// app's module is built without it, and its worker fetches it (the page fetched the
    /// same file, so it usually comes from the browser's cache). Empty where the module
    /// carries the text (`inline-text`: the browser tests' engine).
    #[wasm_bindgen]
    pub fn text_file() -> String {
        match cfg!(feature = "inline-text") {
            true => String::new(),
            false => lockstep::text::FILE.to_string(),
        }
    }

    /// Takes the lesson's text, fetched beside the module; an error if it is not the one
    /// the module was built with.
    #[wasm_bindgen]
    pub fn take_text(text: String) -> Result<(), JsError> {
        lockstep::text::take(text).map_err(|e| JsError::new(&e))
    }

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
