//! The learner's code, off the page: a hidden `<iframe sandbox="allow-scripts">` whose
//! document (`labs/sandbox.html`) has an opaque origin and a CSP without network, and
//! runs the harness, the driver and the learner's code in a Worker. The page only posts
//! the simulator's messages (docs/labs.md) and reads the answers; an answer that does
//! not come within [`ANSWER_LIMIT_MS`] (an infinite loop) or a Cancel removes the
//! iframe, which ends its worker.

use crate::sim::lab::frame::{FromSandbox, ToSandbox};
use crate::sim::lab::{CodeError, MAX_SOURCE_BYTES};
use gloo::events::EventListener;
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;

/// How long one answer of the learner's code may take (wall clock).
pub const ANSWER_LIMIT_MS: i32 = 5_000;

/// Resolves the pending answer's promise.
type Waiter = Rc<RefCell<Option<js_sys::Function>>>;
/// Answers that came while nobody waited (a group of trials reports as it goes).
type Inbox = Rc<RefCell<std::collections::VecDeque<JsValue>>>;

/// The engine's module for the sandbox's worker: its wasm-bindgen glue and its wasm.
pub struct EngineFiles {
    pub glue: Rc<str>,
    pub wasm: js_sys::ArrayBuffer,
}

/// A session's Stop: once pressed, every wait on its sandboxes ends at once (an infinite
/// loop is not waited out), and the sandboxes, dropped, end their workers.
#[derive(Default)]
pub struct Stop {
    stopped: std::cell::Cell<bool>,
    /// Who waits for an answer now: told when Stop is pressed.
    wakers: RefCell<Vec<js_sys::Function>>,
}

impl Stop {
    pub fn get(&self) -> bool {
        self.stopped.get()
    }

    pub fn press(&self) {
        self.stopped.set(true);
        for wake in self.wakers.take() {
            let _ = wake.call0(&JsValue::NULL);
        }
    }

    /// A promise that resolves (to `undefined`) when Stop is pressed.
    fn pressed(&self) -> js_sys::Promise {
        if self.get() {
            return js_sys::Promise::resolve(&JsValue::UNDEFINED);
        }
        js_sys::Promise::new(&mut |resolve, _| self.wakers.borrow_mut().push(resolve))
    }
}

pub struct Sandbox {
    frame: web_sys::HtmlIFrameElement,
    waiter: Waiter,
    inbox: Inbox,
    /// The worker's end of a direct line, once the frame has handed it over.
    port: Rc<RefCell<Option<web_sys::MessagePort>>>,
    _listener: EventListener,
    _port_listener: Rc<RefCell<Option<EventListener>>>,
}

fn err(e: impl Into<String>) -> CodeError {
    CodeError::new(e)
}

/// A promise that resolves (to `undefined`) after `ms` milliseconds, and its timer's id
/// (to clear it when the race is won otherwise: one answer per message would otherwise
/// leave thousands of timers pending during a session).
fn sleep_promise(ms: i32) -> (js_sys::Promise, i32) {
    let mut id = 0;
    let p = js_sys::Promise::new(&mut |resolve, _| {
        if let Some(w) = web_sys::window() {
            id = w
                .set_timeout_with_callback_and_timeout_and_arguments_0(&resolve, ms)
                .unwrap_or(0);
        }
    });
    (p, id)
}

fn clear_timer(id: i32) {
    if let Some(w) = web_sys::window() {
        w.clear_timeout_with_handle(id);
    }
}

impl Sandbox {
    /// A fresh sandbox with the harness and the engine loaded (`html` is
    /// `labs/sandbox.html`): its worker runs the trials by itself ([`Sandbox::receive`]).
    /// A `spare` is opened ahead of a session and marked so until it is taken.
    pub async fn open(
        html: &str,
        harness: &str,
        engine: &EngineFiles,
        spare: bool,
    ) -> Result<Sandbox, CodeError> {
        let doc = web_sys::window()
            .and_then(|w| w.document())
            .ok_or_else(|| err("no document"))?;
        let frame: web_sys::HtmlIFrameElement = doc
            .create_element("iframe")
            .map_err(|_| err("could not make the sandbox"))?
            .dyn_into()
            .map_err(|_| err("could not make the sandbox"))?;
        let _ = frame.set_attribute("sandbox", "allow-scripts");
        let _ = frame.set_attribute("title", "lab sandbox");
        let _ = frame.set_attribute("aria-hidden", "true");
        let _ = frame.set_attribute("tabindex", "-1");
        let _ = frame.set_attribute("class", Sandbox::class(spare));
        frame.set_srcdoc(html);
        let loaded = js_sys::Promise::new(&mut |resolve, _| {
            frame.set_onload(Some(&resolve));
        });
        let body = doc.body().ok_or_else(|| err("no body"))?;
        body.append_child(&frame)
            .map_err(|_| err("could not add the sandbox"))?;
        let (limit, timer) = sleep_promise(ANSWER_LIMIT_MS);
        let ready = js_sys::Promise::race(&js_sys::Array::of2(&loaded, &limit));
        let _ = JsFuture::from(ready).await;
        clear_timer(timer);
        frame.set_onload(None);
        let waiter: Waiter = Rc::new(RefCell::new(None));
        let inbox: Inbox = Rc::new(RefCell::new(Default::default()));
        let port: Rc<RefCell<Option<web_sys::MessagePort>>> = Rc::new(RefCell::new(None));
        let port_listener: Rc<RefCell<Option<EventListener>>> = Rc::new(RefCell::new(None));
        let listener = {
            let (waiter, inbox) = (waiter.clone(), inbox.clone());
            let (port, port_listener) = (port.clone(), port_listener.clone());
            let source = frame.content_window();
            let window = web_sys::window().ok_or_else(|| err("no window"))?;
            EventListener::new(&window, "message", move |e| {
                let Some(m) = e.dyn_ref::<web_sys::MessageEvent>() else {
                    return;
                };
                // Only our frame's window speaks on this channel.
                let from_frame = match (m.source(), &source) {
                    (Some(s), Some(w)) => JsValue::from(s) == JsValue::from(w.clone()),
                    _ => false,
                };
                if !from_frame {
                    return;
                }
                let data = m.data();
                let is_port = js_sys::Reflect::get(&data, &"type".into())
                    .ok()
                    .and_then(|t| t.as_string())
                    .is_some_and(|t| t == FromSandbox::Port.name());
                if is_port {
                    if let Ok(p) = m.ports().get(0).dyn_into::<web_sys::MessagePort>() {
                        let (waiter, inbox) = (waiter.clone(), inbox.clone());
                        let l = EventListener::new(&p, "message", move |e| {
                            let Some(m) = e.dyn_ref::<web_sys::MessageEvent>() else {
                                return;
                            };
                            deliver(&waiter, &inbox, m.data());
                        });
                        p.start();
                        *port_listener.borrow_mut() = Some(l);
                        *port.borrow_mut() = Some(p);
                    }
                    return;
                }
                deliver(&waiter, &inbox, data);
            })
        };
        let sandbox = Sandbox {
            frame,
            waiter,
            inbox,
            port,
            _listener: listener,
            _port_listener: port_listener,
        };
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"type".into(), &ToSandbox::Harness.name().into());
        let _ = js_sys::Reflect::set(&msg, &"source".into(), &harness.into());
        sandbox.post(&msg)?;
        let msg = js_sys::Object::new();
        let _ = js_sys::Reflect::set(&msg, &"type".into(), &ToSandbox::Engine.name().into());
        let _ = js_sys::Reflect::set(&msg, &"glue".into(), &(*engine.glue).into());
        let _ = js_sys::Reflect::set(&msg, &"wasm".into(), &engine.wasm);
        sandbox.post(&msg)?;
        Ok(sandbox)
    }

    /// Marks the frame as a spare (opened ahead of a session, no code in it yet) or not.
    pub fn set_spare(&self, spare: bool) {
        let _ = self.frame.set_attribute("class", Sandbox::class(spare));
    }

    fn class(spare: bool) -> &'static str {
        match spare {
            true => "lab-sandbox lab-spare",
            false => "lab-sandbox",
        }
    }

    /// Post a message (JSON text) without waiting for an answer.
    pub fn send(&self, message: &str) -> Result<(), CodeError> {
        self.post(&JsValue::from_str(message))
    }

    /// The next message from the worker (JSON text), or the infinite-loop error when
    /// none comes within [`ANSWER_LIMIT_MS`] or Stop is pressed first.
    pub async fn receive(&self, stop: &Stop) -> Result<String, CodeError> {
        let queued = self.inbox.borrow_mut().pop_front();
        match queued {
            Some(v) => self.text_of(v),
            None => {
                let message = self.next_message();
                let either = js_sys::Promise::race(&js_sys::Array::of2(&message, &stop.pressed()));
                self.answer(either).await
            }
        }
    }

    /// A promise of the next message; the listener resolves it.
    fn next_message(&self) -> js_sys::Promise {
        let waiter = self.waiter.clone();
        js_sys::Promise::new(&mut |resolve, _| {
            *waiter.borrow_mut() = Some(resolve);
        })
    }

    /// The text of `message`, or the infinite-loop error after [`ANSWER_LIMIT_MS`].
    async fn answer(&self, message: js_sys::Promise) -> Result<String, CodeError> {
        let (limit, timer) = sleep_promise(ANSWER_LIMIT_MS);
        let raced = js_sys::Promise::race(&js_sys::Array::of2(&message, &limit));
        let v = JsFuture::from(raced).await.unwrap_or(JsValue::UNDEFINED);
        clear_timer(timer);
        self.text_of(v)
    }

    fn text_of(&self, v: JsValue) -> Result<String, CodeError> {
        if v.is_undefined() {
            self.waiter.borrow_mut().take();
            let s = ANSWER_LIMIT_MS / 1000;
            return Err(CodeError::coded(
                format!("your code did not return within {s} s: an infinite loop?"),
                "endless_loop",
                &[("s", s.to_string())],
            ));
        }
        if let Some(text) = v.as_string() {
            return Ok(text);
        }
        js_sys::JSON::stringify(&v)
            .ok()
            .and_then(|s| s.as_string())
            .ok_or_else(|| err("the sandbox's answer is not JSON"))
    }

    fn post(&self, msg: &JsValue) -> Result<(), CodeError> {
        if let Some(p) = self.port.borrow().as_ref() {
            return p
                .post_message(msg)
                .map_err(|_| err("could not reach the sandbox"));
        }
        let w = self
            .frame
            .content_window()
            .ok_or_else(|| err("the sandbox is gone"))?;
        // An opaque origin can only be addressed as "*"; the frame is ours and answers
        // are checked by their source.
        w.post_message(msg, "*")
            .map_err(|_| err("could not reach the sandbox"))
    }

    /// Send one message (JSON text) and wait for the answer (JSON text).
    pub async fn exchange(&self, message: &str) -> Result<String, CodeError> {
        if message.len() > 4 * MAX_SOURCE_BYTES {
            return Err(err("message too large for the sandbox"));
        }
        // Through the port, JSON text (cheap to send across threads, answered as text);
        // before the frame has handed the port over, an object the frame can read.
        let msg = if self.port.borrow().is_some() {
            JsValue::from_str(message)
        } else {
            js_sys::JSON::parse(message).map_err(|_| err("not JSON"))?
        };
        self.inbox.borrow_mut().clear();
        let answer = self.next_message();
        self.post(&msg)?;
        self.answer(answer).await
    }
}

/// A message from the frame or the worker: to whoever waits, or into the inbox.
fn deliver(waiter: &Waiter, inbox: &Inbox, data: JsValue) {
    match waiter.borrow_mut().take() {
        Some(resolve) => {
            let _ = resolve.call1(&JsValue::NULL, &data);
        }
        None => inbox.borrow_mut().push_back(data),
    }
}

impl Drop for Sandbox {
    fn drop(&mut self) {
        // Removing the frame ends its worker, however busy it is.
        self.frame.remove();
    }
}
