//! A lab inside a section: the goal, the functions to write, an editor, **Run** (one run
//! on a fixed seed), **Try to break it** (many attacked trials, with progress and
//! Cancel) and, after a first attempt, a solution. A failure opens its run on the
//! timeline at the moment it broke, with the trial's seed in the URL.
//!
//! The learner's code only runs in the sandbox ([`sandbox`]) and only when they press
//! Run or Try to break it. Its trials run in the sandboxes' workers, beside the
//! engine's module ([`engine`]); the page replays a failing one in its own engine
//! worker to draw it.

mod code_editor;
mod contexts;
mod engine;
mod files;
pub mod host;
mod link;
mod model;
mod result;
mod sandbox;
mod session;

pub use contexts::{LabStore, PackLabs};
pub use files::preload;
pub use link::*;
use result::*;
use session::*;
pub use session::{warm, SANDBOXES};

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::sim::lab::seq::{self, Draw};
use crate::sim::lab::Lab;
use crate::timeline;
use crate::timeline::lab_panel::{Broken, LabAction, LabState, LinkKind, Phase};
use crate::ui::components::block_panel;
use crate::ui::components::doc;
use crate::ui::components::render;
use crate::ui::components::CodeBlock;
use contexts::find_lab;
use files::lab_file;
use model::LabModel;
use sandbox::Stop;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct LabPanelProps {
    pub id: String,
    pub lang: Lang,
}

/// `code`'s trials in fresh sandboxes, made by the engine beside the code exactly as the
/// panel makes them: Run (`Draw::Run`, one trial, one sandbox) or "Try to break it"
/// (`Draw::Trials`, `trials` of them in [`SANDBOXES`] groups). The lowest failing trial
/// (its tape is what the engine graded; the browser tests replay it), or `None` if
/// every check held.
pub async fn trials_in_sandboxes(
    lab_id: &str,
    code: &str,
    draw: Draw,
    seed: u64,
    trials: u32,
) -> Result<Option<seq::FailedTrial>, String> {
    let mut lab = crate::labs::shown(lab_id).ok_or("no such lab")??;
    lab.driver = lab_file(&format!("{lab_id}/driver.js")).await?.to_string();
    let (harness, html) = (lab_file("harness.js").await?, lab_file("sandbox.html").await?);
    let engine = engine::files().await.ok_or(crate::timeline::panel::NO_ENGINE)?;
    let groups = if draw == Draw::Trials { SANDBOXES } else { 1 };
    let sandboxes = open_all(&lab, code, (&html, &harness), groups, &engine)
        .await?
        .map_err(|e| e.to_string())?;
    let out = engine::run(
        &lab,
        draw,
        seed,
        trials,
        &sandboxes,
        &Stop::default(),
        &Callback::noop(),
    )
    .await?;
    Ok(out.failure)
}

/// The code in the editor: a shared link's, else the learner's saved code, else the
/// starter in the reader's language. Stored progress may arrive after the first render:
/// it replaces the starter, never code the learner has typed; a switch of language
/// swaps an untouched starter for the other language's.
#[hook]
fn use_lab_code(
    id: &str,
    lab: &Option<Result<Lab, String>>,
    saved: &Option<crate::lesson::progress::LabProgress>,
    lang: Lang,
) -> UseStateHandle<String> {
    let starter = match lab {
        Some(Ok(l)) => l.starter_in(lang.code()).to_string(),
        _ => String::new(),
    };
    let starters: Vec<String> = match lab {
        // (A language whose part is not here yet has an empty starter: an emptied
        // editor is the learner's, not a starter.)
        Some(Ok(l)) => std::iter::once(l.starter.clone())
            .chain(l.starters.values().cloned())
            .filter(|s| !s.is_empty())
            .collect(),
        _ => Vec::new(),
    };
    let saved_code = saved
        .as_ref()
        .map(|s| s.code.clone())
        .filter(|c| !c.trim().is_empty());
    let code = {
        let (saved_code, starter) = (saved_code.clone(), starter.clone());
        let id = id.to_string();
        use_state(move || shared_code(&id).or(saved_code).unwrap_or(starter))
    };
    // Stored progress may arrive after the first render: it replaces the starter,
    // never code the learner has typed.
    {
        let code = code.clone();
        let starter = starter.clone();
        use_effect_with(saved_code, move |saved| {
            if let Some(s) = saved {
                if *code == starter && *s != starter {
                    code.set(s.clone());
                }
            }
        });
    }
    // The language changed: an untouched starter (any language's) becomes this one's.
    {
        let code = code.clone();
        use_effect_with(lang, move |_| {
            if *code != starter && starters.contains(&*code) {
                code.set(starter);
            }
        });
    }
    code
}

/// A link that names this lab (`lab=<id>`: code shared with it, a trial to replay, a row
/// of the progress page) opens on it: once the panel is drawn, the page scrolls to the
/// lab and its title takes the focus, so a screen reader starts there too.
#[hook]
fn use_scroll_to_a_linked_lab(id: &str, section: &NodeRef) {
    let (id, section) = (id.to_string(), section.clone());
    use_effect_with((), move |_| {
        let Some(el) = section.cast::<web_sys::Element>().filter(|_| in_url(&id)) else {
            return;
        };
        el.scroll_into_view();
        if let Some(title) = el
            .query_selector("h2")
            .ok()
            .flatten()
            .and_then(|h| wasm_bindgen::JsCast::dyn_into::<web_sys::HtmlElement>(h).ok())
        {
            // In view already: the focus does not move the page.
            let _ = title.focus();
        }
        // What is above it may still be filling in (a panel's run, a figure): it comes
        // back to the lab a few times in the next seconds, unless the learner has moved
        // (a wheel, a touch, a key, a click) meanwhile.
        let moved = Rc::new(Cell::new(false));
        let listeners: Vec<gloo::events::EventListener> = web_sys::window()
            .map(|w| {
                ["wheel", "touchstart", "keydown", "pointerdown"]
                    .into_iter()
                    .map(|kind| {
                        let moved = moved.clone();
                        gloo::events::EventListener::new(&w, kind, move |_| moved.set(true))
                    })
                    .collect()
            })
            .unwrap_or_default();
        let listeners = Rc::new(RefCell::new(Some(listeners)));
        for ms in [200, 600, 1200, 2400] {
            let (el, moved, listeners) = (el.clone(), moved.clone(), listeners.clone());
            gloo::timers::callback::Timeout::new(ms, move || {
                if !moved.get() {
                    el.scroll_into_view();
                }
                if ms == 2400 {
                    listeners.borrow_mut().take();
                }
            })
            .forget();
        }
    });
}

/// "Reset to the starter", after the learner confirms.
fn reset_handler(
    code: &UseStateHandle<String>,
    save: impl Fn(&str) + 'static,
    starter: String,
    msg: String,
) -> Callback<MouseEvent> {
    let code = code.clone();
    Callback::from(move |_: MouseEvent| {
        let ok = web_sys::window()
            .and_then(|w| w.confirm_with_message(&msg).ok())
            .unwrap_or(false);
        if ok {
            code.set(starter.clone());
            save(&starter);
        }
    })
}

/// What the lab says now: the progress of a run, or its result.
fn status_view(phase: &Phase, lang: Lang, goto_line: &impl Fn(u32) -> Callback<MouseEvent>) -> Html {
    let t = Texts::new(lang);
    match phase {
        Phase::Idle => html! {},
        Phase::Loading => html! { <p class="lab-status" role="status">{ t.t(k::LAB_RUNNING) }</p> },
        // One run: it has no trials to count.
        Phase::Running { total: 1, .. } => {
            html! { <p class="lab-status" role="status">{ t.t(k::LAB_RUNNING_CODE) }</p> }
        }
        Phase::Running { done, total } => html! {
            <p class="lab-status" role="status">
                <progress max={total.to_string()} value={done.to_string()}></progress>
                { " " }{ t.fmt(k::LAB_PROGRESS, &[("done", done.to_string()), ("total", total.to_string())]) }
            </p>
        },
        Phase::Failed(e) => {
            // The simulator that did not start, in the reader's words; other whys are the
            // browser's or the sandbox's own.
            let why = crate::ui::engine_worker::in_words(t, e);
            html! { <p class="lab-error" role="alert">{ t.fmt(k::LAB_LOAD_FAILED, &[("why", why)]) }</p> }
        }
        Phase::Shown(s) => result_view(s, lang, &goto_line),
    }
}

/// A lab's text in the reader's language, else in English.
fn in_lang(texts: &crate::vecmap::VecMap<String, String>, lang: Lang) -> String {
    texts
        .get(lang.code())
        .or_else(|| texts.get("en"))
        .cloned()
        .unwrap_or_default()
}

/// Typing saves the code a moment after the last key (a reload keeps it), not on every
/// key: saving rewrites the learner's whole progress. Leaving the editor saves at once.
#[hook]
fn use_saving(
    code: &UseStateHandle<String>,
    save: impl Fn(&str) + Clone + 'static,
) -> (Callback<InputEvent>, Callback<Event>) {
    let pending_save = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
    let oninput = {
        let (code, save) = (code.clone(), save.clone());
        Callback::from(move |e: InputEvent| {
            if let Some(el) = e.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                let value = el.value();
                code.set(value.clone());
                let save = save.clone();
                *pending_save.borrow_mut() =
                    Some(gloo::timers::callback::Timeout::new(800, move || save(&value)));
            }
        })
    };
    let onchange = {
        let save = save.clone();
        Callback::from(move |e: Event| {
            if let Some(el) = e.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                save(&el.value());
            }
        })
    };
    (oninput, onchange)
}

/// "Copy a link with your code": the code (and a shared trial) in the link.
fn copy_link_handler(
    id: &str,
    code: &UseStateHandle<String>,
    replay: Option<u64>,
    dispatch: Callback<LabAction>,
) -> Callback<MouseEvent> {
    let (id, code) = (id.to_string(), code.clone());
    Callback::from(move |_: MouseEvent| {
        if let Some(link) = link_with_code(&id, &code, replay) {
            copy_link(LinkKind::Code, link, dispatch.clone());
        }
    })
}

#[function_component(LabPanel)]
pub fn lab_panel(props: &LabPanelProps) -> Html {
    let t = Texts::new(props.lang);
    let store = use_context::<LabStore>();
    let pack = use_context::<PackLabs>();
    // Found again when the language changes: a built-in lab's starters are in their
    // languages' parts of the text, and the page has the new part by then.
    let lab = use_memo((props.id.clone(), pack, props.lang), |(id, pack, _)| {
        find_lab(id, pack.as_ref())
    });
    let saved = store.as_ref().and_then(|s| s.saved.get(&props.id).cloned());
    let code = use_lab_code(&props.id, &lab, &saved, props.lang);
    let state = {
        let id = props.id.clone();
        use_reducer(move || LabModel(LabState::new(shared_trial(&id))))
    };
    let dispatch = {
        let state = state.clone();
        Callback::from(move |a: LabAction| state.dispatch(a))
    };
    let cancel = use_mut_ref(|| Rc::new(Stop::default()));
    let from_link = *use_state(|| shared_code(&props.id).is_some());
    let s = &state.0;
    let on_copy_link = copy_link_handler(&props.id, &code, s.replay, dispatch.clone());
    let editor = use_node_ref();
    let verdict_ref = use_node_ref();
    let section_ref = use_node_ref();
    use_scroll_to_a_linked_lab(&props.id, &section_ref);
    let Some(Ok(lab)) = (*lab).clone() else {
        let why = match &*lab {
            Some(Err(e)) => e.clone(),
            _ => t.fmt(k::LAB_UNKNOWN, &[("id", props.id.clone())]),
        };
        return html! { <p class="lab-error" role="alert">{ why }</p> };
    };
    let attempted = saved.as_ref().is_some_and(|s| s.runs > 0) || matches!(s.phase, Phase::Shown(_));
    let running = s.running();

    let save = {
        let store = store.clone();
        let id = props.id.clone();
        move |code: &str| {
            if let Some(s) = &store {
                s.on_code.emit((id.clone(), code.to_string()));
            }
        }
    };
    let (oninput, onchange) = use_saving(&code, save.clone());
    let start = {
        let h = Handles {
            state: state.clone(),
            cancel: cancel.clone(),
            code: code.clone(),
            store: store.clone(),
            verdict_ref: verdict_ref.clone(),
            editor: editor.clone(),
            lab: lab.clone(),
            id: props.id.clone(),
        };
        move |break_it: bool| start_session(&h, break_it)
    };
    let on_run = {
        let start = start.clone();
        Callback::from(move |_: MouseEvent| start(false))
    };
    let on_break = {
        let start = start.clone();
        Callback::from(move |_: MouseEvent| start(true))
    };
    let on_cancel = {
        let cancel = cancel.clone();
        Callback::from(move |_: MouseEvent| cancel.borrow().press())
    };
    let on_solution = toggle_solution(s.solution.is_some(), dispatch.clone(), &lab);
    let on_reset = reset_handler(
        &code,
        save.clone(),
        lab.starter_in(props.lang.code()).to_string(),
        t.t(k::LAB_RESET_CONFIRM),
    );
    let code_editor = code_editor::use_code_editor(
        &editor,
        props.lang,
        &code,
        running,
        marks_of(&s.phase, props.lang),
        Callback::from(move |()| start(false)),
    );
    let goto_line = {
        let (editor, code) = (editor.clone(), code.clone());
        move |line: u32| select_line(editor.clone(), code.clone(), code_editor.clone(), line)
    };
    let onkeydown = run_on_ctrl_enter(on_run.clone());

    let lang = props.lang;
    let (title, goal) = (in_lang(&lab.title, lang), in_lang(&lab.goal, lang));
    let editor_id = format!("lab-editor-{}", props.id);
    let status = status_view(&s.phase, lang, &goto_line);
    html! {
        <section class="lab" aria-labelledby={format!("lab-title-{}", props.id)} data-lab={props.id.clone()} ref={section_ref}>
            <h2 id={format!("lab-title-{}", props.id)} tabindex="-1">{ title }</h2>
            { render(&doc(&goal), lang, block_panel) }
            <h3>{ t.t(k::LAB_SIGNATURE) }</h3>
            <CodeBlock lang={Some("js".to_string())} code={lab.signature_in(lang.code()).trim().to_string()} ui_lang={lang} />
            if from_link {
                <p class="lab-note" role="note">{ t.t(k::LAB_LINK_CODE) }</p>
            }
            if let Some(seed) = s.replay {
                <p class="lab-note" role="note">{ t.fmt(k::LAB_SHARED, &[("seed", seed.to_string())]) }</p>
            }
            <label for={editor_id.clone()} id={format!("{editor_id}-label")} class="lab-editor-label">{ t.t(k::LAB_EDITOR) }</label>
            <textarea id={editor_id} class="lab-editor" ref={editor} spellcheck="false" autocapitalize="off"
                      rows={code.lines().count().clamp(12, 40).to_string()} value={(*code).clone()}
                      {oninput} {onchange} {onkeydown} onfocus={Callback::from(|_: FocusEvent| warm())} readonly={running} aria-describedby={format!("lab-keys-{}", props.id)} />
            <p class="lab-keys" id={format!("lab-keys-{}", props.id)}>{ t.t(k::LAB_KEYS) }</p>
            <div class="lab-actions">
                <button type="button" class="primary" onclick={on_run} disabled={running}>
                    { match s.replay { Some(seed) => t.fmt(k::LAB_REPLAY, &[("seed", seed.to_string())]), None => t.t(k::LAB_RUN) } }
                </button>
                <button type="button" onclick={on_break} disabled={running}>{ t.fmt(k::LAB_BREAK, &[("trials", lab.trials.to_string())]) }</button>
                if running {
                    <button type="button" onclick={on_cancel}>{ t.t(k::LAB_CANCEL) }</button>
                }
                if attempted {
                    <button type="button" onclick={on_solution} aria-expanded={s.solution.is_some().to_string()}>
                        { if s.solution.is_some() { t.t(k::LAB_SOLUTION_HIDE) } else { t.t(k::LAB_SOLUTION_SHOW) } }
                    </button>
                }
                <button type="button" class="quiet" onclick={on_reset} disabled={running}>{ t.t(k::LAB_RESET) }</button>
                <button type="button" class="quiet" onclick={on_copy_link}>
                    { if s.copied(LinkKind::Code) { t.t(k::LAB_LINK_COPIED) } else { t.t(k::LAB_COPY_LINK) } }
                </button>
            </div>
            { copy_blocked_view(s, &props.id, &t) }
            { standing_view(saved.as_ref(), lang) }
            // What a screen reader announces: the verdict and the checks. The broken run's
            // timeline and violations follow outside it (they are read on demand).
            <div class="lab-status" aria-live="polite" ref={verdict_ref}>{ status }</div>
            { after_the_verdict(s, &props.id, lang, &dispatch) }
        </section>
    }
}

/// Ctrl+Enter (⌘+Enter) in the plain textarea runs the code, as Run does.
fn run_on_ctrl_enter(on_run: Callback<MouseEvent>) -> Callback<KeyboardEvent> {
    Callback::from(move |e: KeyboardEvent| {
        if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
            e.prevent_default();
            if let Ok(m) = web_sys::MouseEvent::new("click") {
                on_run.emit(m);
            }
        }
    })
}

/// What the code editor marks after a run: the line of the code's error, with its message.
fn marks_of(phase: &Phase, lang: Lang) -> code_editor::Marks {
    let Phase::Shown(shown) = phase else {
        return code_editor::Marks::default();
    };
    // Line 0: the editor marks the first bracket that pairs with nothing (a SyntaxError
    // names no line of the learner's when a brace is missing or one too many).
    let error = shown.code_error.as_ref().and_then(|e| {
        let who = e.worker.clone().map(|w| format!("{w}: ")).unwrap_or_default();
        let line = e.line.or(e.message.starts_with("SyntaxError").then_some(0))?;
        Some((
            line,
            format!("{who}{}", timeline::words::lab::code_error(e, lang)),
        ))
    });
    // The line that sent the command the run broke on, when the run's tape says it.
    let sent = shown
        .broken
        .as_ref()
        .and_then(Broken::sent_from_line)
        .map(|line| (line, Texts::new(lang).t(k::LAB_SENT_HERE)));
    code_editor::Marks {
        run: Rc::as_ptr(shown) as usize,
        error,
        sent,
    }
}

/// A link the browser would not let the panel copy, shown to copy by hand.
fn copy_blocked_view(s: &LabState, id: &str, t: &Texts) -> Html {
    let Some((_, Err(link))) = &s.copied else {
        return html! {};
    };
    html! {
        <div class="lab-note" role="status">
            <label for={format!("lab-link-{id}")}>{ t.t(k::LAB_COPY_BLOCKED) }</label>
            <input id={format!("lab-link-{id}")} class="lab-link" type="text" readonly=true value={link.clone()}
                   onfocus={Callback::from(|e: FocusEvent| e.target_unchecked_into::<web_sys::HtmlInputElement>().select())} />
        </div>
    }
}

/// Below the verdict: a broken run's hints and timeline, and the solution if it is shown.
fn after_the_verdict(s: &LabState, id: &str, lang: Lang, dispatch: &Callback<LabAction>) -> Html {
    let t = Texts::new(lang);
    html! {
        <>
        {
            match (s.broken(), &s.phase) {
                (Some(b), Phase::Shown(shown)) => {
                    let link = link_with_code(id, &shown.code, Some(b.seed));
                    html! {
                        <>
                            { hints_view(b, s.hints, lang, dispatch) }
                            { broken_view(b, lang, (s.cursor, s.view), dispatch, (link, s.copied(LinkKind::Run))) }
                        </>
                    }
                }
                _ => html! {},
            }
        }
        {
            match &s.solution {
                Some(Ok(solution)) => html! {
                    <div class="lab-solution">
                        <h3>{ t.t(k::LAB_SOLUTION) }</h3>
                        <CodeBlock lang={Some("js".to_string())} code={solution.clone()} ui_lang={lang} />
                    </div>
                },
                Some(Err(e)) => html! { <p class="lab-error" role="alert">{ t.fmt(k::LAB_LOAD_FAILED, &[("why", e.clone())]) }</p> },
                None => html! {},
            }
        }
        </>
    }
}
