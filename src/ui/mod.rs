//! The browser app (yew). The only module that knows the browser: it renders the
//! `lesson` model and feeds browser events (URL, keys, storage) back into it.

mod app;
mod browser;
mod components;
pub mod embed;
mod engine_worker;
pub mod lab;
pub mod pack_loader;
pub mod panic;
pub mod scenario;
pub mod texts;

pub use app::App;

use wasm_bindgen::JsCast;

/// Starts the app in the page: installs the panic panel, and mounts into `#app` (or
/// `<body>` if the page has no `#app`) once the lesson's text is there: at once when it
/// is part of the module, else when [`texts::load_texts`] has fetched the parts the reader's
/// language needs.
pub fn start() {
    panic::install();
    #[cfg(feature = "inline-text")]
    show();
    #[cfg(not(feature = "inline-text"))]
    wasm_bindgen_futures::spawn_local(async {
        match texts::load_texts(app::initial_lang()).await {
            Ok(_) => show(),
            Err(e) => text_missing(&e),
        }
    });
}

/// Without its text the app cannot draw: the page (the prerendered section, if any)
/// stays, and a status line says what went wrong and what to do, in the page's language.
#[cfg(not(feature = "inline-text"))]
fn text_missing(error: &str) {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let nb = document
        .document_element()
        .is_some_and(|e| e.get_attribute("lang").as_deref() == Some("nb"));
    let text = if nb {
        format!("Lockstep fikk ikke lastet inn teksten til leksjonen ({error}). Last inn siden på nytt for å prøve igjen.")
    } else {
        format!("Lockstep could not load the lesson's text ({error}). Reload the page to try again.")
    };
    let status = match document.query_selector(".boot-status").ok().flatten() {
        Some(s) => s,
        None => {
            let Ok(p) = document.create_element("p") else {
                return;
            };
            p.set_class_name("boot-status");
            let _ = p.set_attribute("role", "status");
            if let Some(body) = document.body() {
                let _ = body.append_child(&p);
            }
            p
        }
    };
    status.set_text_content(Some(&text));
}

/// Replaces the page's placeholder (or prerendered section) with the app.
fn show() {
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let root = document
        .get_element_by_id("app")
        .or_else(|| document.body().map(|b| b.unchecked_into()));
    if let Some(root) = root {
        browser::before_mount();
        // Replace the "Loading…" placeholder (node by node: the UI never sets inner_html).
        while let Some(child) = root.first_child() {
            let _ = root.remove_child(&child);
        }
        mount(root);
    }
}

/// Mounts the app into `root`; the handle lets tests unmount and mount again.
pub fn mount(root: web_sys::Element) -> yew::AppHandle<App> {
    yew::Renderer::<App>::with_root(root).render()
}
