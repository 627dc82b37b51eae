//! The engine's module in a plain Worker of the page (`static/engine-worker.js`, around
//! `src/bin/engine.rs`): "Can this break?" runs there, so the explorer never holds the
//! page's thread. Dropping the handle terminates the worker (Cancel answers at once).

use gloo::events::EventListener;
use std::cell::Cell;
use std::rc::Rc;
use wasm_bindgen::JsCast;

thread_local! {
    /// The worker failed once on this page (its script not served, say): the page runs
    /// the explorer itself from then on instead of asking for the script again.
    static UNAVAILABLE: Cell<bool> = const { Cell::new(false) };
}

pub struct EngineWorker {
    worker: web_sys::Worker,
    _message: EventListener,
    _error: EventListener,
}

impl EngineWorker {
    /// Starts the worker, or `None` where it cannot run (it failed before on this page).
    /// Each message it posts (JSON text) goes to `on_message`; a failure to start or to
    /// run it (its script not served, as on the browser tests' page) goes to `on_error`,
    /// once.
    pub fn start(
        on_message: impl Fn(String) + 'static,
        on_error: impl Fn() + 'static,
    ) -> Option<EngineWorker> {
        if UNAVAILABLE.with(Cell::get) {
            return None;
        }
        let worker = web_sys::Worker::new("engine-worker.js").ok()?;
        let message = EventListener::new(&worker, "message", move |e| {
            if let Some(text) = e
                .dyn_ref::<web_sys::MessageEvent>()
                .and_then(|m| m.data().as_string())
            {
                on_message(text);
            }
        });
        let failed = Rc::new(Cell::new(false));
        let error = EventListener::new(&worker, "error", move |e| {
            e.prevent_default();
            UNAVAILABLE.with(|u| u.set(true));
            if !failed.replace(true) {
                on_error();
            }
        });
        Some(EngineWorker {
            worker,
            _message: message,
            _error: error,
        })
    }

    /// Posts JSON text to the worker.
    pub fn post(&self, text: &str) -> bool {
        self.worker.post_message(&text.into()).is_ok()
    }
}

impl Drop for EngineWorker {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}
