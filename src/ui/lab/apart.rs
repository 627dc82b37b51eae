//! The lab panel as a module of its own (`src/bin/lab.rs`, `lab.js` and `lab_bg.wasm`):
//! the page's module is built with the `lab-apart` feature and draws a
//! [`crate::ui::lab_host::LabHost`] where a lesson has a lab, which loads this module
//! the first time a lab is shown and mounts a [`LabPanel`] into it. A reader who never
//! opens a lab section never downloads the panel, its editor, its sandboxes' driver and
//! the replayed run's reader (issue #16: the page's module under 400 KB).
//!
//! Here the panel runs as its own small yew app, given what the page's contexts give it
//! inside the page: the learner's saved labs ([`LabStore`], kept current by
//! [`Mounted::set_saved`]), the pack's own lab if the lab is one, and the page's callbacks
//! for a changed editor and a graded run.

use super::contexts::{LabStore, PackLabs};
use super::LabPanel;
use crate::lesson::content::Lang;
use crate::lesson::progress::{LabOutcome, LabProgress};
use crate::sim::lab::Lab;
use crate::vecmap::VecMap;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// What the page hands the module for one lab, in the wire's form (`crate::wire`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Opening {
    pub id: String,
    /// The page's language code (`en`, `nb`).
    pub lang: String,
    /// The learner's saved labs in this lesson.
    pub saved: VecMap<String, LabProgress>,
    /// The pack's own lab of that id, if it is one (with its driver and solution).
    pub pack_lab: Option<Lab>,
    /// The Markdown trees the page learned from the engine for that lab's texts (a
    /// pack's lab: the module has no parser, as the page has none).
    pub trees: Vec<(String, String)>,
}

#[derive(Properties, PartialEq, Clone)]
pub struct LabRootProps {
    pub id: String,
    pub lang: Lang,
    pub store: LabStore,
    pub pack: PackLabs,
}

/// The module's app: the page's contexts, then the panel.
#[function_component(LabRoot)]
pub fn lab_root(props: &LabRootProps) -> Html {
    html! {
        <ContextProvider<PackLabs> context={props.pack.clone()}>
            <ContextProvider<LabStore> context={props.store.clone()}>
                <LabPanel id={props.id.clone()} lang={props.lang} />
            </ContextProvider<LabStore>>
        </ContextProvider<PackLabs>>
    }
}

/// A lab mounted by the page: its app (once drawn), and what it was opened with.
pub struct Mounted {
    app: Rc<RefCell<Option<yew::AppHandle<LabRoot>>>>,
    props: Rc<RefCell<LabRootProps>>,
    /// The first drawing, a task after the mount: the page's task that mounted the panel
    /// and the panel's first drawing are each well under 50 ms with the CPU slowed 4×
    /// (#40), and would not be together. Dropped, it is never drawn.
    first: Option<gloo::timers::callback::Timeout>,
}

impl Mounted {
    /// Mounts the lab that `opening` (the wire's form of an [`Opening`]) names into
    /// `host`, drawn in the next task (a timer set now: one the page sets after this call
    /// fires after it); `on_code(id, code)` and `on_run(id, "outcome" or
    /// "outcome:check")` (its [`LabOutcome::word`] and the first check that broke) reach
    /// the page.
    pub fn open(
        host: web_sys::Element,
        opening: &str,
        on_code: js_sys::Function,
        on_run: js_sys::Function,
    ) -> Result<Mounted, String> {
        let o: Opening = crate::wire::from_text(opening).map_err(|e| format!("the lab's opening: {e}"))?;
        crate::lesson::docs::learn(o.trees);
        let lang = Lang::from_code(&o.lang).unwrap_or(Lang::En);
        let store = LabStore {
            saved: Rc::new(o.saved),
            on_code: Callback::from(move |(id, code): (String, String)| {
                let _ = on_code.call2(&wasm_bindgen::JsValue::NULL, &id.into(), &code.into());
            }),
            on_run: Callback::from(
                move |(id, outcome, broke): (String, LabOutcome, Option<String>)| {
                    // `outcome` or `outcome:check`: the page's one callback shape (lab_host).
                    let said = match broke {
                        Some(check) => format!("{}:{check}", outcome.word()),
                        None => outcome.word().to_string(),
                    };
                    let _ = on_run.call2(&wasm_bindgen::JsValue::NULL, &id.into(), &said.into());
                },
            ),
        };
        let props = LabRootProps {
            id: o.id,
            lang,
            store,
            pack: PackLabs(Rc::new(o.pack_lab.into_iter().collect())),
        };
        let (app, props) = (Rc::new(RefCell::new(None)), Rc::new(RefCell::new(props)));
        let first = {
            let (app, props) = (app.clone(), props.clone());
            gloo::timers::callback::Timeout::new(0, move || {
                skip_the_page_subtree_ids(&host);
                let root = yew::Renderer::<LabRoot>::with_root_and_props(host, props.borrow().clone());
                *app.borrow_mut() = Some(root.render());
            })
        };
        Ok(Mounted {
            app,
            props,
            first: Some(first),
        })
    }

    /// The learner's saved labs changed on the page (a run was graded, the code saved).
    pub fn set_saved(&mut self, saved: &str) -> Result<(), String> {
        let saved: VecMap<String, LabProgress> =
            crate::wire::from_text(saved).map_err(|e| format!("the saved labs: {e}"))?;
        self.props.borrow_mut().store.saved = Rc::new(saved);
        if let Some(app) = self.app.borrow_mut().as_mut() {
            app.update(self.props.borrow().clone());
        }
        Ok(())
    }

    /// Takes the panel out of the page (its section was left).
    pub fn close(&mut self) {
        self.first.take();
        if let Some(app) = self.app.borrow_mut().take() {
            app.destroy();
        }
    }
}

/// A root that draws nothing: mounted and taken down to use up one subtree id.
#[function_component(Nothing)]
fn nothing() -> Html {
    html! {}
}

/// The yew subtree id an element is branded with (`__yew_subtree_id`), if any.
fn subtree_id(el: &web_sys::Element) -> Option<u32> {
    js_sys::Reflect::get(el, &"__yew_subtree_id".into())
        .ok()
        .and_then(|v| v.as_f64())
        .map(|v| v as u32)
}

/// The page's module and this one each carry their own yew, and each yew numbers its
/// subtrees from 1 and brands every element that listens with its subtree's number. The
/// page's yew listens on its root for events below it, the lab's among them: an event
/// from an element branded with the page's own number is taken for the page's, and the
/// element's listener number is looked up among the page's listeners. So the first lab
/// mounted (number 1, as the page's root) ran a page handler beside its own: "Start
/// again" went to the previous section, a click in an editor put the focus on `main` or
/// opened Share (#40 item 1). Before a lab's root is made, this uses up numbers in this
/// module until the next one is none of the page's above `host` (at most a few; bounded).
fn skip_the_page_subtree_ids(host: &web_sys::Element) {
    let mut above = Vec::new();
    let mut el = host.parent_element();
    while let Some(e) = el {
        above.extend(subtree_id(&e));
        el = e.parent_element();
    }
    let Some(document) = web_sys::window().and_then(|w| w.document()) else {
        return;
    };
    for _ in 0..=above.len() {
        let Ok(probe) = document.create_element("div") else {
            return;
        };
        let app = yew::Renderer::<Nothing>::with_root(probe.clone()).render();
        let used = subtree_id(&probe);
        app.destroy();
        // The next root made here takes the number after `used`.
        match used {
            Some(n) if above.contains(&(n + 1)) => continue,
            _ => return,
        }
    }
}
