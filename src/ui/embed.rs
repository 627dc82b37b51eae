//! The embed API: messages to the host page (`ready`, `resize`, `section`, `answer`,
//! `complete`), and `goto` messages from it, only with the origin the instructor named.
//! Every message is `{source: "lockstep", type, …}`.

use crate::lesson::embed::{goto_of, EmbedConfig, Goto, HostFields};
use gloo::events::EventListener;
use wasm_bindgen::prelude::*;
use wasm_bindgen::JsCast;

/// The DOM event a scenario panel listens to for a host's `goto { step }`.
pub const STEP_EVENT: &str = "lockstep-step";

/// Sends `{source: "lockstep", type: kind, ...fields}` to the host. `ready` and `resize`
/// go to `*` when no origin was named; everything else only to the named origin.
pub fn send(cfg: &EmbedConfig, kind: &str, fields: &[(&str, JsValue)]) {
    let Some(window) = web_sys::window() else { return };
    let Ok(Some(parent)) = window.parent() else { return };
    let target = match (&cfg.origin, kind) {
        (Some(o), _) => o.clone(),
        (None, "ready" | "resize") => "*".to_string(),
        (None, _) => return,
    };
    let msg = js_sys::Object::new();
    let head = [
        ("source", JsValue::from_str("lockstep")),
        ("type", JsValue::from_str(kind)),
    ];
    for (key, value) in head.iter().chain(fields) {
        let _ = js_sys::Reflect::set(&msg, &JsValue::from_str(key), value);
    }
    let _ = parent.post_message(&msg, &target);
}

/// Listens for the host's `goto` messages from the named origin only.
pub fn listen(cfg: &EmbedConfig, on_goto: impl Fn(Goto) + 'static) -> Option<EventListener> {
    let origin = cfg.origin.clone()?;
    let window = web_sys::window()?;
    Some(EventListener::new(&window, "message", move |event| {
        let Some(e) = event.dyn_ref::<web_sys::MessageEvent>() else {
            return;
        };
        if e.origin() != origin {
            return; // not the instructor's page: ignored
        }
        if let Some(goto) = goto_of(&host_fields(&e.data())) {
            on_goto(goto);
        }
    }))
}

/// What a posted message holds for a `goto` (an object's `source`, `type`, `section` and
/// `step`): read as `lesson::embed::parse_host_message` reads its JSON text.
fn host_fields(data: &JsValue) -> HostFields {
    let get = |key: &str| js_sys::Reflect::get(data, &JsValue::from_str(key)).ok();
    let text = |key: &str| get(key).and_then(|v| v.as_string());
    // A JSON number that is a whole number from 0 to u64::MAX (`as_u64`).
    let whole = |key: &str| {
        get(key)
            .and_then(|v| v.as_f64())
            .filter(|n| *n >= 0.0 && n.fract() == 0.0 && *n < 18_446_744_073_709_551_616.0)
            .map(|n| n as u64)
    };
    HostFields {
        source: text("source"),
        kind: text("type"),
        section: whole("section"),
        step: whole("step"),
    }
}

/// Tells the scenario panels to move their cursor to `step`.
pub fn dispatch_step(step: usize) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let init = web_sys::CustomEventInit::new();
    init.set_detail(&JsValue::from_f64(step as f64));
    if let Ok(e) = web_sys::CustomEvent::new_with_event_init_dict(STEP_EVENT, &init) {
        let _ = document.dispatch_event(&e);
    }
}

/// Reports the content height whenever it changes (so the host can size the iframe).
pub struct ResizeReporter {
    observer: web_sys::ResizeObserver,
    _callback: Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for ResizeReporter {
    /// The browser keeps an observer alive as long as what it observes (the body): stop
    /// it, or it would call the dropped callback after the app is gone.
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

pub fn report_resizes(cfg: EmbedConfig, element: &web_sys::Element) -> Option<ResizeReporter> {
    let last = std::cell::Cell::new(0i32);
    let callback = Closure::<dyn FnMut(js_sys::Array)>::new(move |_entries: js_sys::Array| {
        let height = web_sys::window()
            .and_then(|w| w.document())
            .and_then(|d| d.document_element())
            .map_or(0, |e| e.scroll_height());
        if height != last.replace(height) {
            send(&cfg, "resize", &[("height", height.into())]);
        }
    });
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(element);
    Some(ResizeReporter {
        observer,
        _callback: callback,
    })
}
