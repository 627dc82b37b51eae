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
    use lockstep::sim::lab::seq::{Draw, TrialSeq};
    use lockstep::sim::lab::LabTexts;
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
    /// replay (`sim::lab::seq::TrialSeq`, `draw`: `trials`, `run` or `replay`).
    #[wasm_bindgen]
    pub struct Trials(TrialSeq);

    #[wasm_bindgen]
    impl Trials {
        /// `seed` is decimal text (a u64 does not fit a JavaScript number). The lab's
        /// three texts and the session's numbers are the sandbox's message, as it came.
        #[wasm_bindgen(constructor)]
        #[allow(clippy::too_many_arguments)]
        pub fn new(
            dir: &str,
            lab_toml: &str,
            scenario_toml: &str,
            seed: &str,
            total: u32,
            group: u32,
            groups: u32,
            draw: &str,
        ) -> Result<Trials, JsError> {
            let seed: u64 = seed
                .parse()
                .map_err(|_| JsError::new("the seed is not a number"))?;
            let texts = LabTexts {
                dir: dir.to_string(),
                lab_toml: lab_toml.to_string(),
                scenario_toml: scenario_toml.to_string(),
            };
            let draw = Draw::from_name(draw).ok_or_else(|| JsError::new("draw: trials, run or replay"))?;
            TrialSeq::new(&texts, seed, total, group, groups)
                .map(|t| Trials(t.drawing(draw)))
                .map_err(|e| JsError::new(&e))
        }

        /// The next message for the harness, or `undefined` when the group is done.
        pub fn next(&mut self) -> Option<String> {
            self.0.next_message()
        }

        pub fn answer(&mut self, answer: &str) {
            self.0.answer(answer)
        }

        pub fn limit(&mut self, trial: u32) {
            self.0.limit(trial)
        }

        /// The trial in flight, or -1.
        pub fn trial(&self) -> i32 {
            self.0.trial().and_then(|t| i32::try_from(t).ok()).unwrap_or(-1)
        }

        pub fn finished(&self) -> u32 {
            self.0.finished()
        }

        /// The name of process `pid` in the trial in flight (a worker's, `A`).
        pub fn name_of(&self, pid: u32) -> Option<String> {
            self.0.process_name(pid)
        }

        /// `{finished, failure}` as JSON (`sim::lab::seq::GroupReport`).
        pub fn report(&self) -> String {
            self.0.report_json()
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
