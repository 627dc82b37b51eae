//! The engine's module: the simulator and store without the page, built by Trunk as a
//! second wasm module (`index.html`, `data-type="worker"`) and run inside the labs'
//! sandboxed worker, beside the learner's harness (`labs/sandbox.html`). There an
//! exchange between the simulator and the learner's code is a function call, not a
//! message between threads (ARCHITECTURE.md, "The engine, off the page").
//!
//! The page runs the same module in a plain Worker of its own (`static/engine-worker.js`)
//! for the scenario panels' runs (`panel_run`), "Can this break?" (`explore_batch`),
//! §4's trade-off table (`sweep_point`) and the calls of `lockstep::calls` (`call`:
//! generated questions, packs, the console, script checks), so none of them blocks the
//! page.
//!
//! It imports no browser API: only `wasm-bindgen` to export [`Trials`], `panel_run`,
//! `call`, `explore_batch` and `sweep_point`.

#[cfg(target_arch = "wasm32")]
mod web {
    use lockstep::sim::lab::seq::{Draw, TrialSeq};
    use lockstep::sim::lab::LabTexts;
    use lockstep::sim::scenario::Scenario;
    use wasm_bindgen::prelude::*;

    /// One batch of the page's "Can this break?" (`sim::explore::explore_batch`), run in
    /// the page's engine worker (`static/engine-worker.js`).
    #[wasm_bindgen]
    pub fn explore_batch(scenario: &str, seed: &str, batch: u32) -> Result<String, JsError> {
        answer(scenario, seed, |s, seed| {
            lockstep::sim::explore::explore_batch(s, seed, u64::from(batch))
        })
    }

    /// One row of §4's trade-off table (`sim::sweep::ttl_point`), run in the page's engine
    /// worker; the TTL in ms.
    #[wasm_bindgen]
    pub fn sweep_point(scenario: &str, seed: &str, ttl_ms: f64) -> Result<String, JsError> {
        answer(scenario, seed, |s, seed| {
            lockstep::sim::sweep::ttl_point(s, seed, ttl_ms)
        })
    }

    /// A scenario panel's run (`timeline::panel::RunJob` in the wire's form): the run, or a console
    /// line's fork, as texts to post one by one (`timeline::panel::answer_parts`):
    /// the pieces of its long lists, then the `RunAnswer` without them.
    #[wasm_bindgen]
    pub fn panel_run(job: &str) -> Result<Vec<String>, JsError> {
        use lockstep::timeline::panel::{answer_parts, run_job, RunJob};
        let job: RunJob =
            lockstep::wire::from_text(job).map_err(|e| JsError::new(&format!("the run: {e}")))?;
        answer_parts(run_job(&job)).map_err(|e| JsError::new(&e))
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

    /// One of the engine's calls by name (`lockstep::calls`): wire text in and out.
    #[wasm_bindgen]
    pub fn call(name: &str, arg: &str) -> Result<String, JsError> {
        lockstep::calls::call(name, arg).map_err(|e| JsError::new(&e))
    }

    /// The worker's calls: the scenario in the wire's form and the seed as decimal text (a
    /// u64 does not fit a JavaScript number) in, `run`'s answer in the wire's form out.
    fn answer<T: serde::Serialize>(
        scenario: &str,
        seed: &str,
        run: impl FnOnce(&Scenario, u64) -> Result<T, String>,
    ) -> Result<String, JsError> {
        let scenario: Scenario =
            lockstep::wire::from_text(scenario).map_err(|e| JsError::new(&format!("the scenario: {e}")))?;
        let seed: u64 = seed
            .parse()
            .map_err(|_| JsError::new("the seed is not a number"))?;
        let out = run(&scenario, seed).map_err(|e| JsError::new(&e))?;
        lockstep::wire::to_text(&out).map_err(|e| JsError::new(&e))
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
