//! What both engine modules export to their worker (`static/engine-worker.js`): a
//! request made into its answers ([`EngineJob`]), and the lesson's text, which the module
//! fetches rather than carries. Included by `src/bin/engine.rs` and `src/bin/authoring.rs`
//! (a module each: a `#[wasm_bindgen]` export in the library would be in every module).

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

/// The files of the lesson's text (`lockstep::text`) this module lacks for `request`
/// (an `EngineJob`'s, in the wire's form; empty: for none, only the part every request
/// needs), which its worker fetches and hands to [`take_text`] before the job starts
/// (the page fetched them too, so they usually come from the browser's cache). None
/// where the module carries the text (`inline-text`: the browser tests' engine); every
/// one for the authoring module, whose packs may name any.
#[wasm_bindgen]
pub fn texts_missing(request: &str) -> Vec<String> {
    let files = match cfg!(feature = "authoring") {
        true => lockstep::text::missing_all(),
        false => {
            let lang = lockstep::wire::from_text::<lockstep::calls::Request>(request)
                .ok()
                .and_then(|r| r.lang());
            // Without a language, only the common part.
            let code = lang.map_or("", |l| l.code());
            lockstep::text::missing(code)
                .into_iter()
                .filter(|f| lang.is_some() || *f == lockstep::text::PARTS[0].1)
                .collect()
        }
    };
    files.into_iter().map(str::to_string).collect()
}

/// Takes the lesson's text, fetched beside the module; an error if it is not the one
/// the module was built with.
#[wasm_bindgen]
pub fn take_text(text: String) -> Result<(), JsError> {
    lockstep::text::take(text).map_err(|e| JsError::new(&e))
}
