//! A panic shows a readable panel instead of a frozen page.
//!
//! The shipped build's panics trap at once (`-Cpanic=immediate-abort`, scripts/trunk.sh):
//! no hook runs, and the trap reaches the page as an uncaught `WebAssembly.RuntimeError`,
//! which [`show_on_trap`] turns into the panel. Other builds (the browser tests, `trunk
//! serve`) run the hook first, with the panic's message.

use gloo::events::EventListener;
use wasm_bindgen::JsCast;

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};

pub fn install() {
    #[cfg(not(panic = "immediate-abort"))]
    std::panic::set_hook(Box::new(|info| {
        console_error_panic_hook::hook(info);
        show_panel(&info.to_string());
    }));
    show_on_trap();
}

/// Shows the panel when our module traps: an uncaught `WebAssembly.RuntimeError`, thrown
/// out of an event's handler (`error`) or a future (`unhandledrejection`). The page's
/// other errors (a script's, the browser's) are left to the console.
pub fn show_on_trap() {
    let Some(window) = web_sys::window() else {
        return;
    };
    for (kind, field) in [("error", "error"), ("unhandledrejection", "reason")] {
        EventListener::new(&window, kind, move |event| {
            let error = js_sys::Reflect::get(event, &field.into()).unwrap_or_default();
            if error.is_instance_of::<js_sys::WebAssembly::RuntimeError>() {
                show_panel(&String::from(js_sys::Object::from(error).to_string()));
            }
        })
        .forget();
    }
}

fn show_panel(details: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    // One panel: a build whose hook has shown it traps right after.
    if document.query_selector(".error-panel").ok().flatten().is_some() {
        return;
    }
    let lang = document
        .document_element()
        .and_then(|e| e.get_attribute("lang"))
        .and_then(|code| Lang::from_code(&code))
        .unwrap_or(Lang::En);
    let t = Texts::new(lang);
    let Ok(panel) = document.create_element("div") else {
        return;
    };
    panel.set_class_name("error-panel");
    let _ = panel.set_attribute("role", "alert");
    let heading = document.create_element("h2").ok();
    let body = document.create_element("p").ok();
    let pre = document.create_element("pre").ok();
    let reload = document.create_element("a").ok();
    if let Some(h) = &heading {
        h.set_text_content(Some(&t.t(k::ERROR_TITLE)));
        let _ = panel.append_child(h);
    }
    if let Some(p) = &body {
        p.set_text_content(Some(&t.t(k::ERROR_BODY)));
        let _ = panel.append_child(p);
    }
    if let Some(pre) = &pre {
        // text, never HTML: the message may contain anything
        pre.set_text_content(Some(details));
        let _ = panel.append_child(pre);
    }
    if let Some(a) = &reload {
        let href = web_sys::window()
            .and_then(|w| w.location().href().ok())
            .unwrap_or_default();
        let _ = a.set_attribute("href", &href);
        a.set_class_name("button");
        a.set_text_content(Some(&t.t(k::RELOAD)));
        let _ = panel.append_child(a);
    }
    if let Some(body) = document.body() {
        let _ = body.prepend_with_node_1(&panel);
    }
}
