//! The engine's module: the simulator and store without the page, built by Trunk as a
//! second wasm module (`index.html`, `data-type="worker"`) and run inside the labs'
//! sandboxed worker, beside the learner's harness (`labs/sandbox.html`). There an
//! exchange between the simulator and the learner's code is a function call, not a
//! message between threads (ARCHITECTURE.md, "The engine, off the page").
//!
//! It imports no browser API: only `wasm-bindgen` to export [`Trials`].

#[cfg(target_arch = "wasm32")]
mod web {
    use lockstep::sim::lab::LabTexts;
    use lockstep::sim::lab_seq::TrialSeq;
    use wasm_bindgen::prelude::*;

    /// One group of a "Try to break it" session (`sim::lab_seq::TrialSeq`).
    #[wasm_bindgen]
    pub struct Trials(TrialSeq);

    #[wasm_bindgen]
    impl Trials {
        /// `seed` is decimal text (a u64 does not fit a JavaScript number).
        #[wasm_bindgen(constructor)]
        pub fn new(
            dir: &str,
            lab_toml: &str,
            scenario_toml: &str,
            seed: &str,
            total: u32,
            group: u32,
            groups: u32,
        ) -> Result<Trials, JsError> {
            let seed: u64 = seed
                .parse()
                .map_err(|_| JsError::new("the seed is not a number"))?;
            let texts = LabTexts {
                dir: dir.to_string(),
                lab_toml: lab_toml.to_string(),
                scenario_toml: scenario_toml.to_string(),
            };
            TrialSeq::new(&texts, seed, total, group, groups)
                .map(Trials)
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

        /// `{finished, failure}` as JSON (`sim::lab_seq::GroupReport`).
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
