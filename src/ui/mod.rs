//! The browser app (yew). The only module that knows the browser: it renders the
//! `lesson` model and feeds browser events (URL, keys, storage) back into it.

mod app;
mod browser;
mod components;
pub mod embed;
mod engine_worker;
pub mod lab;
pub mod pack_loader;
mod panic;
pub mod scenario;

pub use app::App;

use wasm_bindgen::JsCast;

/// Starts the app in the page: installs the panic panel and mounts into `#app`
/// (or `<body>` if the page has no `#app`).
pub fn start() {
    panic::install();
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    let root = document
        .get_element_by_id("app")
        .or_else(|| document.body().map(|b| b.unchecked_into()));
    if let Some(root) = root {
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
