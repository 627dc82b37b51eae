//! Thin, fallible wrappers over the browser APIs the app uses. Every call tolerates a
//! missing window, blocked storage or a full quota: it returns `None`/`Err`, never panics.

use web_sys::{Storage, Window};

fn window() -> Option<Window> {
    web_sys::window()
}

/// localStorage, if the browser lets us have it (private modes may throw).
pub fn local_storage() -> Option<Storage> {
    window()?.local_storage().ok().flatten()
}

pub fn storage_get(key: &str) -> Result<Option<String>, ()> {
    local_storage().ok_or(())?.get_item(key).map_err(|_| ())
}

pub fn storage_set(key: &str, value: &str) -> Result<(), ()> {
    local_storage().ok_or(())?.set_item(key, value).map_err(|_| ())
}

pub fn hash() -> String {
    window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

pub fn search() -> String {
    window()
        .and_then(|w| w.location().search().ok())
        .unwrap_or_default()
}

/// Sets `location.hash` (a new history entry, so the back button returns).
pub fn set_hash(hash: &str) {
    if let Some(w) = window() {
        let _ = w.location().set_hash(hash);
    }
}

/// Replaces the query string without a new history entry or a reload.
pub fn replace_search(search: &str) {
    let Some(w) = window() else { return };
    let loc = w.location();
    let path = loc.pathname().unwrap_or_default();
    let hash = loc.hash().unwrap_or_default();
    if let Ok(history) = w.history() {
        let _ = history.replace_state_with_url(
            &wasm_bindgen::JsValue::NULL,
            "",
            Some(&format!("{path}{search}{hash}")),
        );
    }
}

/// The browser's preferred language, e.g. `nb-NO`.
pub fn navigator_language() -> Option<String> {
    window()?.navigator().language()
}

pub fn set_document_lang(code: &str) {
    if let Some(el) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        let _ = el.set_attribute("lang", code);
    }
}

pub fn set_title(title: &str) {
    if let Some(d) = window().and_then(|w| w.document()) {
        d.set_title(title);
    }
}

pub fn scroll_to_top() {
    if let Some(w) = window() {
        w.scroll_to_with_x_and_y(0.0, 0.0);
    }
}

/// Copies text to the clipboard; resolves silently if the browser refuses.
pub fn copy_text(text: &str) {
    if let Some(w) = window() {
        let _ = w.navigator().clipboard().write_text(text);
    }
}
