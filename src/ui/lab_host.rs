//! Where the page's module (built with `lab-apart`) shows a lab: a host that loads the lab
//! panel's module the first time a lab is shown (`static/lab-module.js`: `lab.js`,
//! `lab_bg.wasm`) and mounts the panel in it (`ui::lab::apart`). The page keeps what
//! the panel needs from it, the learner's saved labs, and hands each change over.

use crate::lesson::content::Lang;
use crate::lesson::i18n::Texts;
use crate::lesson::progress::LabOutcome;
use crate::ui::lab::apart::Opening;
use crate::ui::lab::{LabStore, PackLabs};
use js_sys::{Array, Function, Promise, Reflect};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use wasm_bindgen::closure::Closure;
use wasm_bindgen::{JsCast, JsValue};
use wasm_bindgen_futures::JsFuture;
use yew::prelude::*;

/// A lab, where a section (or an embed of one lab) shows it.
pub fn lab_view(id: &str, lang: Lang) -> Html {
    let id = id.to_string();
    // The page's module (`lab-apart`) loads the panel's own module for it.
    #[cfg(feature = "lab-apart")]
    return html! { <LabHost key={id.clone()} id={id.clone()} {lang} /> };
    #[cfg(not(feature = "lab-apart"))]
    html! { <crate::ui::lab::LabPanel key={id.clone()} id={id.clone()} {lang} /> }
}

/// The loader's script, named by the page (`<meta name="lockstep-lab-module">`).
const META: &str = "meta[name=lockstep-lab-module]";
const DEFAULT_LOADER: &str = "lab-module.js";

#[derive(Properties, PartialEq)]
pub struct LabHostProps {
    pub id: String,
    pub lang: Lang,
}

#[derive(Clone, PartialEq)]
enum Status {
    Opening,
    Open,
    Failed(String),
}

/// What the panel's module calls: (lab id, text). The same shape for both callbacks (one
/// closure type's glue in the page's module).
type Callback2 = dyn Fn(String, String);

/// A mounted panel and the callbacks it calls, kept while it is shown, and the learner's
/// saved labs as last handed on (the wire's form).
#[derive(Default)]
struct Held {
    mount: Option<JsValue>,
    saved: String,
    _on_code: Option<Closure<Callback2>>,
    _on_run: Option<Closure<Callback2>>,
}

impl Held {
    /// Calls the mount's `method` (`set_saved`, `close`), if a panel is mounted.
    fn call(&self, method: &str, args: &[JsValue]) {
        if let Some(m) = &self.mount {
            invoke(m, method, args);
        }
    }

    /// Takes the panel out and frees the module's side of it (wasm-bindgen's `free`).
    fn close(&mut self) {
        if let Some(m) = self.mount.take() {
            invoke(&m, "close", &[]);
            invoke(&m, "free", &[]);
        }
    }
}

/// Calls `object.method(...args)`, if it has that method.
fn invoke(object: &JsValue, method: &str, args: &[JsValue]) {
    if let Ok(f) = Reflect::get(object, &method.into()).and_then(|f| f.dyn_into::<Function>()) {
        let _ = f.apply(object, &args.iter().collect::<Array>());
    }
}

#[function_component(LabHost)]
pub fn lab_host(props: &LabHostProps) -> Html {
    let store = use_context::<LabStore>();
    let pack = use_context::<PackLabs>();
    let host = use_node_ref();
    let held = use_mut_ref(Held::default);
    let status = use_state_eq(|| Status::Opening);
    // At the hand-over from the prerendered page, its drawing of this lab (with what the
    // learner typed), inert, until the panel comes.
    let snapshot = use_state(|| {
        (!crate::ui::browser::app_started() && !crate::ui::browser::prerendering())
            .then(|| crate::ui::browser::take_lab_snapshot(&props.id))
            .flatten()
            .map(AttrValue::from)
    });
    let saved = store.as_ref().map(|s| s.saved.clone()).unwrap_or_default();

    {
        let (host, held, status) = (host.clone(), held.clone(), status.clone());
        let (store, saved) = (store.clone(), saved.clone());
        use_effect_with((props.id.clone(), props.lang, pack), move |(id, lang, pack)| {
            let pack_lab = pack
                .as_ref()
                .and_then(|p| p.0.iter().find(|l| l.id == *id).cloned());
            let trees = pack_lab.as_ref().map_or_else(Vec::new, |l| {
                crate::lesson::docs::learned(&l.goal.values().cloned().collect::<Vec<_>>())
            });
            let opening = Opening {
                id: id.clone(),
                lang: lang.code().to_string(),
                saved: (*saved).clone(),
                pack_lab,
                trees,
            };
            status.set(Status::Opening);
            // A link that names this lab lands on its place at once, while the panel
            // loads; the panel, drawn, comes to it again (`ui::lab`).
            if crate::ui::lab::in_url(id) {
                if let Some(place) = host.cast::<web_sys::Element>().and_then(|m| m.parent_element()) {
                    place.scroll_into_view();
                }
            }
            let alive = Rc::new(Cell::new(true));
            {
                let (alive, held) = (alive.clone(), held.clone());
                wasm_bindgen_futures::spawn_local(async move {
                    // A lab the URL names (a shared link, a replayed trial) opens at
                    // once; another when any of its place comes near the screen (the
                    // whole place: a tall snapshot may hold the view far below the top).
                    let near = (!crate::ui::lab::in_url(&opening.id))
                        .then(|| host.get().and_then(|mount| mount.parent_node()))
                        .flatten();
                    let result = match module(near, &opening.lang).await {
                        // Left before the module came: nothing to mount.
                        _ if !alive.get() => return,
                        Ok(module) => mount(&module, &host, &opening, store.as_ref(), &held),
                        Err(e) => Err(e),
                    };
                    if let Err(e) = result {
                        status.set(Status::Failed(e));
                        return;
                    }
                    // The panel draws itself in the next task (`apart::Mounted`); what
                    // stood in for it (the snapshot, "Opening…") is hidden by the style
                    // sheet as it is drawn, and goes in the task after that, a timer set
                    // later than the panel's: each its own task (#40).
                    gloo::timers::future::TimeoutFuture::new(0).await;
                    if alive.get() {
                        status.set(Status::Open);
                    }
                });
            }
            move || {
                alive.set(false);
                held.borrow_mut().close();
            }
        });
    }
    {
        // A graded run or saved code changes the learner's progress: the panel is told.
        let held = held.clone();
        use_effect_with(saved, move |saved| {
            if let Ok(text) = crate::wire::to_text(&**saved) {
                let mut h = held.borrow_mut();
                h.call("set_saved", &[text.as_str().into()]);
                h.saved = text;
            }
        });
    }

    let t = Texts::new(props.lang);
    let opening = *status == Status::Opening;
    html! {
        <div class={classes!("lab-host", (opening && snapshot.is_none()).then_some("lab-waiting"))}
            data-lab={props.id.clone()} aria-busy={opening.then_some("true")}>
            <div class="lab-mount" ref={host}></div>
            if opening {
                if let Some(s) = &*snapshot {
                    <div class="lab-snapshot" inert="">{ Html::from_html_unchecked(s.clone()) }</div>
                } else {
                    <p class="hint" role="status">{ t.t("lab_opening") }</p>
                }
            }
            if let Status::Failed(why) = &*status {
                <p class="lab-error" role="alert">{ t.fmt("lab_module_failed", &[("why", why.clone())]) }</p>
            }
        </div>
    }
}

/// Mounts the panel `opening` names in `host`, with the lab panel's module.
fn mount(
    module: &JsValue,
    host: &NodeRef,
    opening: &Opening,
    store: Option<&LabStore>,
    held: &Rc<RefCell<Held>>,
) -> Result<(), String> {
    let el = host.cast::<web_sys::Element>().ok_or("the lab's place is gone")?;
    let ctor = Reflect::get(module, &"LabMount".into())
        .ok()
        .and_then(|f| f.dyn_into::<Function>().ok())
        .ok_or("lab.js has no LabMount")?;
    let on_code = store.map(|s| s.on_code.clone());
    let on_code = Closure::<Callback2>::new(move |id, code| {
        if let Some(c) = &on_code {
            c.emit((id, code));
        }
    });
    let on_run = store.map(|s| s.on_run.clone());
    // `outcome` or `outcome:check` (the first check that broke).
    let on_run = Closure::<Callback2>::new(move |id, said: String| {
        let (word, broke) = said
            .split_once(':')
            .map_or((said.as_str(), None), |(w, c)| (w, Some(c.to_string())));
        if let (Some(c), Some(outcome)) = (&on_run, LabOutcome::from_word(word)) {
            c.emit((id, outcome, broke));
        }
    });
    let text = crate::wire::to_text(opening)?;
    let args: Array = [
        el.into(),
        JsValue::from(text),
        on_code.as_ref().clone(),
        on_run.as_ref().clone(),
    ]
    .into_iter()
    .collect();
    let mount = Reflect::construct(&ctor, &args).map_err(describe)?;
    let mut h = held.borrow_mut();
    h.close();
    let saved = std::mem::take(&mut h.saved);
    *h = Held {
        mount: Some(mount),
        saved,
        _on_code: Some(on_code),
        _on_run: Some(on_run),
    };
    // The saved labs changed while the module loaded: the panel gets them now.
    if crate::wire::to_text(&opening.saved).is_ok_and(|t| t != h.saved) && !h.saved.is_empty() {
        h.call("set_saved", &[h.saved.as_str().into()]);
    }
    Ok(())
}

/// The lab panel's module, loaded and given the parts of the lesson's text that `lang`
/// (a language's code) needs (`static/lab-module.js`), once `near` (the lab's place) is
/// near the screen.
async fn module(near: Option<web_sys::Node>, lang: &str) -> Result<JsValue, String> {
    let window = web_sys::window().ok_or("no window")?;
    let loader = || {
        Reflect::get(&window, &"lockstepLabModule".into())
            .ok()
            .and_then(|f| f.dyn_into::<Function>().ok())
    };
    if loader().is_none() {
        // One <script> for every lab on the page: two labs opening at once each added
        // one, and the second lab.js failed ("wasm_bindgen has already been declared").
        if LOADING.with(|l| l.replace(true)) {
            // Another lab is adding it: wait for it to have run (or failed), 15 s at most.
            for _ in 0..750 {
                if loader().is_some() || !LOADING.with(Cell::get) {
                    break;
                }
                gloo::timers::future::TimeoutFuture::new(20).await;
            }
        } else {
            let added = load_script(&window).await;
            LOADING.with(|l| l.set(false));
            added?;
        }
    }
    let load = loader().ok_or("lab-module.js did not start")?;
    let promise: Promise = load
        .call2(
            &JsValue::NULL,
            &near.map_or(JsValue::NULL, JsValue::from),
            &lang.into(),
        )
        .map_err(describe)?
        .dyn_into()
        .map_err(describe)?;
    JsFuture::from(promise).await.map_err(describe)
}

thread_local! {
    /// A lab is adding the loader's `<script>` now.
    static LOADING: Cell<bool> = const { Cell::new(false) };
}

/// Adds the loader's `<script>` and waits for it.
async fn load_script(window: &web_sys::Window) -> Result<(), String> {
    let document = window.document().ok_or("no document")?;
    let src = document
        .query_selector(META)
        .ok()
        .flatten()
        .and_then(|m| m.get_attribute("content"))
        .unwrap_or_else(|| DEFAULT_LOADER.to_string());
    let script = document.create_element("script").map_err(describe)?;
    script.set_attribute("src", &src).map_err(describe)?;
    let loaded = Promise::new(&mut |resolve, reject| {
        let _ = Reflect::set(&script, &"onload".into(), &resolve);
        let _ = Reflect::set(&script, &"onerror".into(), &reject);
    });
    document
        .head()
        .ok_or("no head")?
        .append_child(&script)
        .map_err(describe)?;
    JsFuture::from(loaded)
        .await
        .map(|_| ())
        .map_err(|_| format!("{src} could not be loaded"))
}

/// What a JavaScript error says.
fn describe(e: JsValue) -> String {
    crate::json::error_message(&e).unwrap_or_else(|| "an error in the lab's module".to_string())
}
