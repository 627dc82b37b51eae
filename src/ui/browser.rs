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
    replace_url(Some(search), None);
}

/// Replaces both the query string (`""`: none) and the hash, without a reload.
pub fn replace_search_and_hash(search: &str, hash: &str) {
    replace_url(Some(search), Some(hash));
}

/// Replaces the query string and/or the hash (`None`: keep the current one) without a
/// new history entry or a reload.
fn replace_url(search: Option<&str>, hash: Option<&str>) {
    let Some(w) = window() else { return };
    let loc = w.location();
    let path = loc.pathname().unwrap_or_default();
    let search = search.map_or_else(|| loc.search().unwrap_or_default(), str::to_string);
    let hash = hash.map_or_else(|| loc.hash().unwrap_or_default(), str::to_string);
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

/// Copies text to the clipboard: whether the browser let it. It may not: a page that is
/// not a secure context has no clipboard, and an `<iframe>` without
/// `allow="clipboard-write"` is refused.
pub async fn copy(text: &str) -> bool {
    let Some(navigator) = window().map(|w| w.navigator()) else {
        return false;
    };
    let has = js_sys::Reflect::get(&navigator, &"clipboard".into()).is_ok_and(|c| c.is_object());
    if !has {
        return false;
    }
    wasm_bindgen_futures::JsFuture::from(navigator.clipboard().write_text(text))
        .await
        .is_ok()
}

/// Copies `text`, then tells `done` whether it could (one body for every caller: the
/// page's module is counted in bytes).
pub fn copy_then(text: String, done: impl FnOnce(bool) + 'static) {
    let done: Box<dyn FnOnce(bool)> = Box::new(done);
    wasm_bindgen_futures::spawn_local(async move { done(copy(&text).await) });
}

/// 64 fresh random bits from the browser (`crypto.getRandomValues`), for new seeds.
/// Falls back to the clock only if the browser refuses, which no supported one does.
pub fn random_u64() -> u64 {
    let mut buf = [0u8; 8];
    if getrandom::getrandom(&mut buf).is_ok() {
        u64::from_le_bytes(buf)
    } else {
        js_sys::Date::now() as u64
    }
}

/// The learner's local date, `YYYY-MM-DD` (when a lab was passed).
pub fn today() -> String {
    let d = js_sys::Date::new_0();
    format!(
        "{:04}-{:02}-{:02}",
        d.get_full_year(),
        d.get_month() + 1,
        d.get_date()
    )
}

/// A `YYYY-MM-DD` date as the reader's language writes it ("6 December 2026",
/// "6. desember 2026"); the date itself if it is not one.
pub fn local_date(iso: &str, lang: crate::lesson::content::Lang) -> String {
    let mut parts = iso.split('-').map(|p| p.parse::<u32>().ok());
    let (Some(Some(y)), Some(Some(m)), Some(Some(d))) = (parts.next(), parts.next(), parts.next()) else {
        return iso.to_string();
    };
    let date = js_sys::Date::new_with_year_month_day(y, m.saturating_sub(1) as i32, d as i32);
    let options = js_sys::Object::new();
    for (k, v) in [("day", "numeric"), ("month", "long"), ("year", "numeric")] {
        let _ = js_sys::Reflect::set(&options, &k.into(), &v.into());
    }
    String::from(date.to_locale_date_string(lang.code(), &options))
}

/// Offers `text` as a file download named `name`.
pub fn download(name: &str, mime: &str, text: &str) {
    let Some(document) = window().and_then(|w| w.document()) else {
        return;
    };
    let parts = js_sys::Array::of1(&wasm_bindgen::JsValue::from_str(text));
    let bag = web_sys::BlobPropertyBag::new();
    bag.set_type(mime);
    let Ok(blob) = web_sys::Blob::new_with_str_sequence_and_options(&parts, &bag) else {
        return;
    };
    let Ok(url) = web_sys::Url::create_object_url_with_blob(&blob) else {
        return;
    };
    if let Ok(a) = document.create_element("a") {
        let _ = a.set_attribute("href", &url);
        let _ = a.set_attribute("download", name);
        if let Some(a) = wasm_bindgen::JsCast::dyn_ref::<web_sys::HtmlElement>(&a) {
            a.click();
        }
    }
    let _ = web_sys::Url::revoke_object_url(&url);
}

/// Reads the first chosen file of a file input as text and hands it to `done`.
pub fn read_first_file(input: &web_sys::HtmlInputElement, done: impl FnOnce(String) + 'static) {
    let Some(file) = input.files().and_then(|f| f.get(0)) else {
        return;
    };
    wasm_bindgen_futures::spawn_local(async move {
        let text = wasm_bindgen_futures::JsFuture::from(file.text()).await;
        done(text.ok().and_then(|v| v.as_string()).unwrap_or_default());
    });
}

/// Replaces `location.hash` without a new history entry (state that changes often).
/// A hash without its `#` would land in the query: it is added.
pub fn replace_hash(hash: &str) {
    if hash.starts_with('#') {
        replace_url(None, Some(hash));
    } else {
        replace_url(None, Some(&format!("#{hash}")));
    }
}

pub fn storage_remove(key: &str) {
    if let Some(s) = local_storage() {
        let _ = s.remove_item(key);
    }
}

/// Forces `light` or `dark` on `<html data-theme>`, or follows the system with `None`.
pub fn set_document_theme(theme: Option<&str>) {
    if let Some(el) = window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
    {
        match theme {
            Some(t) => {
                let _ = el.set_attribute("data-theme", t);
            }
            None => {
                let _ = el.remove_attribute("data-theme");
            }
        }
    }
}

/// Whether the learner asked for less motion (no autoplay then).
pub fn prefers_reduced_motion() -> bool {
    window()
        .and_then(|w| w.match_media("(prefers-reduced-motion: reduce)").ok().flatten())
        .is_some_and(|m| m.matches())
}

/// True while `scripts/prerender.sh` takes its snapshot of a page (it sets
/// `window.lockstepPrerender`): what is drawn then is what a first visitor sees before
/// the app has loaded, so it must not hold anything that changes per visit.
pub fn prerendering() -> bool {
    window()
        .and_then(|w| js_sys::Reflect::get(&w, &"lockstepPrerender".into()).ok())
        .is_some_and(|v| v.is_truthy())
}

/// True once the app has drawn its first frame (see [`announce_ready`]): what it draws
/// from then on is not a hand-over from the prerendered page.
pub fn app_started() -> bool {
    window()
        .and_then(|w| w.document())
        .and_then(|d| d.document_element())
        .is_some_and(|el| el.get_attribute("data-lockstep").as_deref() == Some("ready"))
}

/// Tells the page's loader (`static/boot.js`) and the prerender script that the app has
/// drawn its first frame: `<html data-lockstep="ready">` and a `lockstep-ready` event.
pub fn announce_ready() {
    let Some(w) = window() else { return };
    if let Some(el) = w.document().and_then(|d| d.document_element()) {
        let _ = el.set_attribute("data-lockstep", "ready");
    }
    if let Ok(event) = web_sys::Event::new("lockstep-ready") {
        let _ = w.dispatch_event(&event);
    }
}

/// True when the page has been scrolled (not merely opened) and the bottom of the first
/// element matching `selector` is in the window.
pub fn scrolled_to_end_of(selector: &str) -> bool {
    let Some(w) = window() else { return false };
    let scrolled = w.scroll_y().is_ok_and(|y| y > 0.0);
    let height = w.inner_height().ok().and_then(|h| h.as_f64()).unwrap_or(0.0);
    let bottom = w
        .document()
        .and_then(|d| d.query_selector(selector).ok().flatten())
        .map(|el| el.get_bounding_client_rect().bottom());
    scrolled && bottom.is_some_and(|b| b <= height + 1.0)
}

/// Calls `on` with an element's width in CSS pixels whenever it changes; stops when
/// dropped.
pub struct WidthWatcher {
    observer: web_sys::ResizeObserver,
    _callback: wasm_bindgen::closure::Closure<dyn FnMut(js_sys::Array)>,
}

impl Drop for WidthWatcher {
    fn drop(&mut self) {
        self.observer.disconnect();
    }
}

pub fn watch_width(el: &web_sys::Element, on: impl Fn(f64) + 'static) -> Option<WidthWatcher> {
    use wasm_bindgen::JsCast;
    let target = el.clone();
    let callback =
        wasm_bindgen::closure::Closure::<dyn FnMut(js_sys::Array)>::new(move |_: js_sys::Array| {
            on(f64::from(target.client_width()));
        });
    let observer = web_sys::ResizeObserver::new(callback.as_ref().unchecked_ref()).ok()?;
    observer.observe(el);
    Some(WidthWatcher {
        observer,
        _callback: callback,
    })
}

/// The runs made ahead of time for the page the prerendered snapshot showed: the JSON
/// texts the engine's worker posted for each at build time, by the key of its job
/// (`e2e/prerender.mjs` writes them, `static/boot.js` puts them in `window.lockstepRuns`
/// before the app starts). Left as JavaScript strings: `engine_worker::Message` parses
/// them there.
pub fn run_made_ahead(key: &str) -> Option<Vec<wasm_bindgen::JsValue>> {
    use wasm_bindgen::JsCast;
    let runs = js_sys::Reflect::get(&window()?.into(), &"lockstepRuns".into()).ok()?;
    if !runs.is_object() {
        return None;
    }
    let texts: js_sys::Array = js_sys::Reflect::get(&runs, &key.into()).ok()?.dyn_into().ok()?;
    Some(texts.iter().collect())
}

/// While prerendering: keeps `texts`, what the engine's worker posted for the run of job
/// `key`, in `window.lockstepRunTexts` for `e2e/prerender.mjs` to write out.
pub fn record_run(key: &str, texts: &[String]) {
    let Some(w) = window() else { return };
    let runs = match js_sys::Reflect::get(&w, &"lockstepRunTexts".into()) {
        Ok(r) if r.is_object() => r,
        _ => {
            let r: wasm_bindgen::JsValue = js_sys::Object::new().into();
            let _ = js_sys::Reflect::set(&w, &"lockstepRunTexts".into(), &r);
            r
        }
    };
    let list: js_sys::Array = texts.iter().map(|t| wasm_bindgen::JsValue::from_str(t)).collect();
    let _ = js_sys::Reflect::set(&runs, &key.into(), &list);
}

/// The prerendered page's own drawing of the panel on `scenario`, taken once: at the
/// hand-over `static/boot.js` keeps each panel's HTML (`window.lockstepPanels`, pairs of
/// name and HTML), for a panel to show until its first run comes.
pub fn take_panel_snapshot(scenario: &str) -> Option<String> {
    take_snapshot("lockstepPanels", scenario)
}

/// The prerendered page's drawing of the lab `id` as the learner left it, taken once:
/// `static/boot.js` keeps it as the app replaces the page (`window.lockstepLabs`, pairs
/// as above; [`before_mount`] asks for them).
pub fn take_lab_snapshot(id: &str) -> Option<String> {
    take_snapshot("lockstepLabs", id)
}

/// Lets the page's loader (`static/boot.js`) keep what it must before the app replaces the
/// prerendered page (`window.lockstepBeforeMount`, if it set one).
pub fn before_mount() {
    use wasm_bindgen::JsCast;
    if let Some(f) = window()
        .and_then(|w| js_sys::Reflect::get(&w, &"lockstepBeforeMount".into()).ok())
        .and_then(|f| f.dyn_into::<js_sys::Function>().ok())
    {
        let _ = f.call0(&wasm_bindgen::JsValue::NULL);
    }
}

/// The HTML kept under `key` in `list` (a global array of `[key, html]` pairs), taken.
fn take_snapshot(list: &str, key: &str) -> Option<String> {
    use wasm_bindgen::JsCast;
    let pairs: js_sys::Array = js_sys::Reflect::get(&window()?.into(), &list.into())
        .ok()?
        .dyn_into()
        .ok()?;
    let i = pairs.iter().position(|p| {
        js_sys::Reflect::get(&p, &0.into())
            .ok()
            .and_then(|n| n.as_string())
            .is_some_and(|n| n == key)
    })?;
    let html = js_sys::Reflect::get(&pairs.get(i as u32), &1.into())
        .ok()?
        .as_string();
    // Taken: another panel on the same key gets the next.
    pairs.set(i as u32, wasm_bindgen::JsValue::NULL);
    html
}
