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
