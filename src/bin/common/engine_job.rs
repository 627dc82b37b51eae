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

    /// The files of the lesson's text this job needs and the module lacks (its
    /// language's part: only a question has one), which the worker fetches and hands to
    /// [`take_text`] before it asks for the first answer.
    #[wasm_bindgen(js_name = textsMissing)]
    pub fn texts_missing(&self) -> Vec<String> {
        match self.0.request().lang() {
            Some(lang) if !cfg!(feature = "authoring") => lockstep::text::missing(lang.code())
                .into_iter()
                .map(str::to_string)
                .collect(),
            _ => Vec::new(),
        }
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

/// The files of the lesson's text (`lockstep::text`) this module lacks before any
/// request: the part every request needs (every part, for the authoring module, whose
/// packs may name any; none where the module carries the text, `inline-text`: the
/// browser tests' engine). Its worker fetches them at start and hands them to
/// [`take_text`] (the page fetched them too, so they usually come from the browser's
/// cache).
#[wasm_bindgen]
pub fn texts_missing() -> Vec<String> {
    let files = match cfg!(feature = "authoring") {
        true => lockstep::text::missing_all(),
        false => lockstep::text::missing_common().into_iter().collect(),
    };
    files.into_iter().map(str::to_string).collect()
}

/// Takes the lesson's text, fetched beside the module; an error if it is not the one
/// the module was built with.
#[wasm_bindgen]
pub fn take_text(text: String) -> Result<(), JsError> {
    lockstep::text::take(text).map_err(|e| JsError::new(&e))
}
