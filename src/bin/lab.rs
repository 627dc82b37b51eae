//! The lab panel's module (`lab.js`, `lab_bg.wasm`), built by Trunk beside the page's
//! (`index.html`) and loaded by `static/lab-module.js` the first time the page shows a
//! lab (`lockstep::ui::lab_host`): the page's own module carries no lab panel
//! (ARCHITECTURE.md, "The lab panel, apart"). It exports what that loader and the page
//! call: the lesson's text files it lacks and their hand-over, and [`LabMount`].

#[cfg(target_arch = "wasm32")]
mod web {
    use lockstep::ui::lab::apart::Mounted;
    use wasm_bindgen::prelude::*;

    /// The files of the lesson's text (`lockstep::text`) this module lacks for a lab in
    /// `lang` (a language's code): its loader (`static/lab-module.js`) hands it them.
    #[wasm_bindgen]
    pub fn texts_missing(lang: &str) -> Vec<String> {
        lockstep::text::missing(lang)
            .into_iter()
            .map(str::to_string)
            .collect()
    }

    /// Takes a part of the lesson's text; an error if it is none this module was built with.
    #[wasm_bindgen]
    pub fn take_text(text: String) -> Result<(), JsError> {
        lockstep::text::take(text).map_err(|e| JsError::new(&e))
    }

    /// One lab panel in the page.
    #[wasm_bindgen]
    pub struct LabMount(Mounted);

    #[wasm_bindgen]
    impl LabMount {
        /// Mounts the lab `opening` names (`lockstep::ui::lab::apart::Opening`, in the
        /// wire's form) into `host`.
        #[wasm_bindgen(constructor)]
        pub fn new(
            host: web_sys::Element,
            opening: &str,
            on_code: js_sys::Function,
            on_run: js_sys::Function,
        ) -> Result<LabMount, JsError> {
            Mounted::open(host, opening, on_code, on_run)
                .map(LabMount)
                .map_err(|e| JsError::new(&e))
        }

        /// The learner's saved labs, changed on the page.
        pub fn set_saved(&mut self, saved: &str) -> Result<(), JsError> {
            self.0.set_saved(saved).map_err(|e| JsError::new(&e))
        }

        /// Takes the panel out of the page.
        pub fn close(&mut self) {
            self.0.close();
        }
    }
}

fn main() {
    // Called when the loader initialises the module: a panic shows the page's error panel.
    #[cfg(target_arch = "wasm32")]
    lockstep::ui::install_panic_panel();
    #[cfg(not(target_arch = "wasm32"))]
    {
        eprintln!("`lab` is the browser build of Lockstep's lab panel: run `make serve` and open http://127.0.0.1:8080");
        std::process::exit(2);
    }
}
