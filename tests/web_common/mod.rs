//! Helpers shared by the browser tests: an exclusive page, mounting, waiting, querying.
#![allow(dead_code)]

use gloo::timers::future::TimeoutFuture;
use wasm_bindgen::JsCast;
use web_sys::{Element, HtmlElement};

pub fn document() -> web_sys::Document {
    web_sys::window().and_then(|w| w.document()).expect("a document")
}

pub fn storage() -> web_sys::Storage {
    web_sys::window()
        .and_then(|w| w.local_storage().ok().flatten())
        .expect("localStorage")
}

thread_local! {
    static BUSY: std::cell::Cell<bool> = const { std::cell::Cell::new(false) };
}

/// wasm-bindgen-test interleaves async tests at their awaits, but they share one page
/// (URL, storage, document): each test holds this for its whole run.
pub struct Exclusive;

impl Exclusive {
    pub async fn acquire() -> Exclusive {
        while BUSY.with(|b| b.replace(true)) {
            TimeoutFuture::new(10).await;
        }
        Exclusive
    }
}

impl Drop for Exclusive {
    fn drop(&mut self) {
        BUSY.with(|b| b.set(false));
    }
}

/// A mounted app that is unmounted when the test ends, so its listeners go with it.
pub struct Mounted(pub Option<yew::AppHandle<lockstep::ui::App>>);

impl Mounted {
    pub fn new(root: &Element) -> Mounted {
        Mounted(Some(lockstep::ui::mount(root.clone())))
    }
    pub fn unmount(mut self) {
        if let Some(app) = self.0.take() {
            app.destroy();
        }
    }
}

impl Drop for Mounted {
    fn drop(&mut self) {
        if let Some(app) = self.0.take() {
            app.destroy();
        }
    }
}

/// A fresh page: empty storage, the given hash, a new root element.
pub fn fresh(hash: &str) -> Element {
    storage().clear().expect("clear storage");
    set_hash(hash);
    reset_search();
    new_root()
}

/// The engine's worker, as the app's page names it (`index.html`), built for the tests
/// by scripts/web-engine.sh: the tests' page runs every engine job where learners' does.
pub const ENGINE_WORKER: &str = "/target/web-engine/engine-worker.js";

/// Names the engine's worker in the page's head, as index.html does (once per page).
pub fn name_the_engine() {
    let doc = document();
    if doc
        .query_selector("meta[name=lockstep-engine-worker]")
        .ok()
        .flatten()
        .is_none()
    {
        let meta = doc.create_element("meta").expect("meta");
        meta.set_attribute("name", "lockstep-engine-worker")
            .expect("name");
        meta.set_attribute("content", ENGINE_WORKER).expect("content");
        doc.head().expect("head").append_child(&meta).expect("append");
    }
}

pub fn new_root() -> Element {
    name_the_engine();
    let doc = document();
    if let Some(old) = doc.get_element_by_id("test-root") {
        old.remove();
    }
    let root = doc.create_element("div").expect("div");
    root.set_id("test-root");
    doc.body().expect("body").append_child(&root).expect("append");
    root
}

pub fn set_hash(hash: &str) {
    let w = web_sys::window().expect("window");
    let url = format!(
        "{}{}",
        w.location().pathname().unwrap_or_default(),
        if hash.is_empty() { "#" } else { hash }
    );
    w.history()
        .expect("history")
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .expect("replace");
}

pub fn reset_search() {
    set_search("");
}

/// Replaces the page's query (`search`: "" or "?a=b"), keeping its path and hash.
pub fn set_search(search: &str) {
    let w = web_sys::window().expect("window");
    let loc = w.location();
    let url = format!(
        "{}{search}{}",
        loc.pathname().unwrap_or_default(),
        loc.hash().unwrap_or_default()
    );
    w.history()
        .expect("history")
        .replace_state_with_url(&wasm_bindgen::JsValue::NULL, "", Some(&url))
        .expect("replace");
}

/// Waits (up to ~5 s of polling) until `cond` holds; yew renders asynchronously.
pub async fn wait_until(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..250 {
        if cond() {
            return;
        }
        TimeoutFuture::new(20).await;
    }
    panic!("timed out waiting until {what}");
}

pub fn query(root: &Element, selector: &str) -> Option<Element> {
    root.query_selector(selector).ok().flatten()
}

/// The text of the first element matching `sel` inside `el` ("" if none).
pub fn text(el: &Element, sel: &str) -> String {
    query(el, sel).and_then(|e| e.text_content()).unwrap_or_default()
}

pub fn query_all(root: &Element, selector: &str) -> Vec<Element> {
    let list = root.query_selector_all(selector).expect("valid selector");
    (0..list.length())
        .filter_map(|i| list.item(i))
        .filter_map(|n| n.dyn_into::<Element>().ok())
        .collect()
}

pub fn heading(root: &Element) -> String {
    query(root, "#section-title")
        .and_then(|h| h.text_content())
        .unwrap_or_default()
}

pub fn click(root: &Element, selector: &str) {
    query(root, selector)
        .unwrap_or_else(|| panic!("no element {selector}"))
        .dyn_into::<HtmlElement>()
        .expect("an HTML element")
        .click();
}

pub async fn mounted(root: &Element) {
    let r = root.clone();
    wait_until("the app has rendered a section", move || {
        query(&r, "#section-title").is_some()
    })
    .await;
    // What sits below the text (the quiz, question panels) follows a task or two later
    // (`ui::components::Deferred`): wait until nothing is left to draw.
    let r = root.clone();
    wait_until("the section's deferred parts have rendered", move || {
        query(&r, ".deferred").is_none()
    })
    .await;
    // Their runs and generated questions come from the engine's worker: nothing busy.
    let r = root.clone();
    wait_long("the engine's worker has answered every part", move || {
        query(&r, "[aria-busy=true]").is_none()
    })
    .await;
}

/// Like `wait_until`, for work that takes seconds in a debug build (up to ~60 s).
pub async fn wait_long(what: &str, mut cond: impl FnMut() -> bool) {
    for _ in 0..3000 {
        if cond() {
            return;
        }
        TimeoutFuture::new(20).await;
    }
    panic!("timed out waiting until {what}");
}

/// Dispatches a bubbling `keydown` of `key` at `target`.
pub fn press_key(target: &web_sys::EventTarget, key: &str) {
    let init = web_sys::KeyboardEventInit::new();
    init.set_key(key);
    init.set_bubbles(true);
    let e = web_sys::KeyboardEvent::new_with_keyboard_event_init_dict("keydown", &init).expect("a key event");
    target.dispatch_event(&e).expect("dispatched");
}

/// Submits the form matching `selector` inside `root`, as Enter or its submit button would.
pub fn submit_form(root: &Element, selector: &str) {
    query(root, selector)
        .unwrap_or_else(|| panic!("no form {selector}"))
        .dyn_into::<web_sys::HtmlFormElement>()
        .expect("a form")
        .request_submit()
        .expect("submitted");
}

/// The page's location hash (`#/…`).
pub fn current_hash() -> String {
    web_sys::window()
        .and_then(|w| w.location().hash().ok())
        .unwrap_or_default()
}

/// Types `value` into the field `field` inside `root` (see [`type_into`]), then submits
/// the form `form` inside `root`: a knob, a fault, a console line as a learner sends it.
pub async fn type_and_submit(root: &Element, field: &str, value: &str, form: &str) {
    let f = query(root, field).unwrap_or_else(|| panic!("no field {field}"));
    type_into(&f, value).await;
    submit_form(root, form);
}

/// Types `value` into a text field or text area as a learner would (an `input` event
/// follows), then lets the app re-render.
pub async fn type_into(field: &web_sys::EventTarget, value: &str) {
    if let Some(i) = field.dyn_ref::<web_sys::HtmlInputElement>() {
        i.set_value(value);
    } else if let Some(t) = field.dyn_ref::<web_sys::HtmlTextAreaElement>() {
        t.set_value(value);
    }
    field
        .dispatch_event(&web_sys::InputEvent::new("input").expect("an input event"))
        .expect("dispatched");
    TimeoutFuture::new(30).await;
}

/// Collects the messages this window receives (an embedding host's view), as JSON text,
/// while the listener is kept.
#[allow(dead_code)]
pub fn collect_messages() -> (
    std::rc::Rc<std::cell::RefCell<Vec<String>>>,
    gloo::events::EventListener,
) {
    let got = std::rc::Rc::new(std::cell::RefCell::new(Vec::new()));
    let sink = got.clone();
    let listener =
        gloo::events::EventListener::new(&web_sys::window().expect("window"), "message", move |e| {
            if let Some(m) = wasm_bindgen::JsCast::dyn_ref::<web_sys::MessageEvent>(e) {
                if let Some(s) = js_sys::JSON::stringify(&m.data())
                    .ok()
                    .and_then(|s| s.as_string())
                {
                    sink.borrow_mut().push(s);
                }
            }
        });
    (got, listener)
}
