//! The page's engine worker (`static/engine-worker.js`, around `src/bin/engine.rs`): one
//! per page, shared by everything the page hands off (the scenario panels' runs and
//! forks, generated questions, "Can this break?", §4's trade-off tables, a lab's replay,
//! packs, the console, Markdown), so none of them holds the page's thread and the engine
//! loads once. What `Request::for_authoring` names (a pack's files, Markdown) the worker
//! hands to a worker of its own around the authoring module (`src/bin/authoring.rs`),
//! started then, so the built-in lesson never downloads the TOML and Markdown readers.
//!
//! A request is a [`crate::calls::Request`], handed over as a [`Job`] with an id; its
//! answers ([`crate::calls::Answer`], then its end) come back as small JSON envelopes
//! carrying that id, read by the browser's own JSON parser ([`Message`]), the answer in
//! them in the wire's form (`crate::wire`), so the page has no JSON reader of its own.
//! Dropping the job forgets it and tells the worker to stop it before its next answer
//! (Cancel, a new seed). If the worker cannot start or breaks, every job's `on_failed`
//! runs once; a broken worker is started again for the next job, twice at most. The page
//! has no engine of its own: a job that fails says the simulator could not start
//! (`timeline::panel::NO_ENGINE`, shown in the reader's language by [`in_words`]).

use crate::calls::{Answer, Request};
use crate::lesson::i18n::k;
use crate::vecmap::VecMap;
use gloo::events::EventListener;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};

struct Worker {
    worker: web_sys::Worker,
    _message: EventListener,
    _error: EventListener,
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.worker.terminate();
    }
}

struct Handler {
    on_message: Rc<dyn Fn(&Message)>,
    on_failed: Rc<dyn Fn()>,
}

/// The page's HTML names the worker's script (`<meta name="lockstep-engine-worker">`;
/// the browser tests' page names the one scripts/web-engine.sh builds).
const META: &str = "meta[name=lockstep-engine-worker]";

thread_local! {
    static WORKER: RefCell<Option<Worker>> = const { RefCell::new(None) };
    /// The worker failed once on this page (its script not served, say).
    static UNAVAILABLE: Cell<bool> = const { Cell::new(false) };
    /// How many times the worker has broken on this page.
    static BROKE: Cell<u32> = const { Cell::new(0) };
    static JOBS: RefCell<VecMap<u64, Handler>> = const { RefCell::new(VecMap::new()) };
    static NEXT_ID: Cell<u64> = const { Cell::new(1) };
}

/// Starts the worker, so that it has loaded the engine by the time a job comes (a
/// section that needs it is shown, a pointer reaches a button).
pub fn warm() {
    ensure();
}

/// The worker's script, as the page's HTML names it.
fn script() -> Option<String> {
    gloo::utils::document()
        .query_selector(META)
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .filter(|c| !c.is_empty())
}

/// Where the engine's module is served, as an absolute URL ending in `/`: beside the
/// worker's script (`engine.js`, `engine_bg.wasm`). The worker is told it (its name), and
/// the labs' sandboxes take the module from there too. `None` where the page names no
/// worker.
pub fn module_dir() -> Option<String> {
    let base = gloo::utils::document().base_uri().ok().flatten()?;
    let url = web_sys::Url::new_with_base(&script()?, &base).ok()?;
    let href = url.href();
    Some(href[..=href.rfind('/')?].to_string())
}

/// Starts the worker if it is not running; true if it runs.
fn ensure() -> bool {
    if UNAVAILABLE.with(Cell::get) {
        return false;
    }
    WORKER.with(|w| {
        let mut w = w.borrow_mut();
        if w.is_none() {
            *w = start();
            if w.is_none() {
                UNAVAILABLE.with(|u| u.set(true));
            }
        }
        w.is_some()
    })
}

fn start() -> Option<Worker> {
    let options = web_sys::WorkerOptions::new();
    options.set_name(&module_dir()?);
    let worker = web_sys::Worker::new_with_options(&script()?, &options).ok()?;
    let message = EventListener::new(&worker, "message", |e| {
        if let Some(m) = e.dyn_ref::<web_sys::MessageEvent>() {
            route(m.data());
        }
    });
    let error = EventListener::new(&worker, "error", |e| {
        e.prevent_default();
        broke();
    });
    Some(Worker {
        worker,
        _message: message,
        _error: error,
    })
}

/// A run handed to the worker; dropping it cancels it.
pub struct Job {
    id: u64,
}

impl Drop for Job {
    fn drop(&mut self) {
        let known = JOBS
            .try_with(|j| j.try_borrow_mut().ok().and_then(|mut j| j.remove(&self.id)))
            .ok()
            .flatten();
        if known.is_some() {
            post(&format!("{{\"cancel\":{}}}", self.id));
        }
    }
}

/// One of the worker's answers, as the browser's JSON parser read it.
pub struct Message {
    text: JsValue,
    value: JsValue,
}

impl Message {
    /// The message in `text` (one the worker posted), if it is a JSON object. Parsed
    /// where it is, in JavaScript: a run's piece is not copied into the module to be read.
    pub fn read(text: JsValue) -> Option<Message> {
        if !text.is_string() {
            return None;
        }
        let value = parse_json(&text).ok()?;
        value.is_object().then_some(Message { text, value })
    }

    fn field(&self, name: &str) -> Option<JsValue> {
        js_sys::Reflect::get(&self.value, &JsValue::from_str(name)).ok()
    }

    /// The answer it carries (`crate::calls::Answer`), if it carries one that reads.
    pub fn answer(&self) -> Option<Answer> {
        crate::wire::from_text(&self.text_field("bin")?).ok()
    }

    /// Whether it says that its request is answered.
    pub fn is_done(&self) -> bool {
        self.field("done").is_some_and(|d| d.is_truthy())
    }

    /// The engine's error that ended its request (the request did not read, or the
    /// engine threw), if it is one.
    pub fn error(&self) -> Option<String> {
        self.text_field("error")
    }

    /// Its field `name`, if that is a string.
    fn text_field(&self, name: &str) -> Option<String> {
        self.field(name)?.as_string()
    }

    /// Its field `name`, if that is a whole number.
    pub fn whole(&self, name: &str) -> Option<u64> {
        self.field(name)?
            .as_f64()
            .filter(|n| n.fract() == 0.0 && *n >= 0.0 && *n < 9.0e15)
            .map(|n| n as u64)
    }

    /// The text the worker posted.
    pub fn text(&self) -> String {
        self.text.as_string().unwrap_or_default()
    }
}

#[wasm_bindgen::prelude::wasm_bindgen]
extern "C" {
    /// `JSON.parse` of a string that stays in JavaScript (`js_sys::JSON::parse` takes a
    /// `&str`, a copy made in the module first).
    #[wasm_bindgen(js_namespace = JSON, js_name = parse, catch)]
    fn parse_json(text: &JsValue) -> Result<JsValue, JsValue>;
}

/// `why` in the reader's words: the simulator that did not start
/// (`timeline::panel::NO_ENGINE`, wherever it stands in `why`: a console's reply puts
/// `(error) ` before it) is the text table's `no_engine`; the rest is the engine's own
/// (a scenario's mistake, a script's error).
pub fn in_words(tx: crate::lesson::i18n::Texts, why: &str) -> String {
    why.replace(crate::timeline::panel::NO_ENGINE, &tx.t(k::NO_ENGINE))
}

/// Hands `request` to the worker. Each of its messages (an answer, then `done`; or an
/// error) goes to `on_message`; if the worker fails, `on_failed` runs once instead of any
/// more. `None` when the worker does not run (or the request cannot be written): the
/// caller says the simulator could not start.
pub fn submit(
    request: &Request,
    on_message: impl Fn(&Message) + 'static,
    on_failed: impl Fn() + 'static,
) -> Option<Job> {
    let wire = crate::wire::to_text(request).ok()?;
    if !ensure() {
        return None;
    }
    let id = NEXT_ID.with(|n| n.replace(n.get() + 1));
    // `what` is for people reading the traffic: the worker does not dispatch on it, but
    // on `module`, the engine module that answers it.
    let module = match request.for_authoring() {
        true => "authoring",
        false => "engine",
    };
    let text = format!(
        "{{\"id\":{id},\"module\":\"{module}\",\"what\":\"{}\",\"request\":\"{wire}\"}}",
        request.name()
    );
    JOBS.with(|j| {
        j.borrow_mut().insert(
            id,
            Handler {
                on_message: Rc::new(on_message),
                on_failed: Rc::new(on_failed),
            },
        )
    });
    if post(&text) {
        return Some(Job { id });
    }
    // Not sent: forgotten, and the worker is not used again on this page.
    JOBS.with(|j| j.borrow_mut().remove(&id));
    WORKER.with(|w| w.borrow_mut().take());
    UNAVAILABLE.with(|u| u.set(true));
    None
}

fn post(text: &str) -> bool {
    WORKER.with(|w| {
        w.borrow()
            .as_ref()
            .is_some_and(|w| w.worker.post_message(&text.into()).is_ok())
    })
}

/// An answer, to the job whose id it carries (a forgotten job's answers are dropped).
fn route(data: JsValue) {
    let Some(message) = Message::read(data) else {
        return broke();
    };
    let Some(id) = message.whole("id") else {
        // Not an answer: the worker itself failed (its engine did not start).
        return broke();
    };
    let handler = JOBS.with(|j| j.borrow().get(&id).map(|h| h.on_message.clone()));
    if let Some(on_message) = handler {
        on_message(&message);
    }
}

/// How many times the page starts its worker again after it broke (a run that made the
/// engine run out of memory, say), so one such run does not cost every later one; after
/// that the page gives up on it.
const RESTARTS: u32 = 2;

/// The worker failed: it goes, and every job it had is told; the next job starts a new
/// one, [`RESTARTS`] times at most.
fn broke() {
    let times = BROKE.with(|b| {
        b.set(b.get() + 1);
        b.get()
    });
    if times > RESTARTS {
        UNAVAILABLE.with(|u| u.set(true));
    }
    WORKER.with(|w| w.borrow_mut().take());
    let failed: Vec<Rc<dyn Fn()>> = JOBS.with(|j| {
        std::mem::take(&mut *j.borrow_mut())
            .into_values()
            .map(|h| h.on_failed)
            .collect()
    });
    for on_failed in failed {
        on_failed();
    }
}

/// `request`'s first answer, made in the worker: `None` where the worker cannot make it
/// (not served, broken) or the engine failed.
pub async fn call(request: Request) -> Option<Answer> {
    let slot: Rc<RefCell<Option<Answer>>> = Rc::new(RefCell::new(None));
    let mut job = None;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let done = move || {
            let _ = resolve.call0(&JsValue::NULL);
        };
        let (slot, on_answer, on_failed) = (slot.clone(), done.clone(), done.clone());
        job = submit(
            &request,
            move |m| {
                if let Some(a) = m.answer().filter(|a| !matches!(a, Answer::Error(_))) {
                    *slot.borrow_mut() = Some(a);
                }
                // Its answer, its end, or the engine's error: the wait is over.
                on_answer();
            },
            on_failed,
        );
        if job.is_none() {
            done();
        }
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    drop(job);
    slot.take()
}
