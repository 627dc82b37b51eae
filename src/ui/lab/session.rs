//! A Run or a "Try to break it" session: the sandboxes started (those [`warm`] opened
//! ahead of the click first), the trials made in their workers by the engine beside the
//! learner's code, and the result shown.

use super::contexts::LabStore;
use super::engine;
use super::files::lab_file;
use super::model::LabModel;
use super::sandbox::{EngineFiles, Sandbox, Stop};
use crate::lesson::progress::LabOutcome;
use crate::lesson::route::hash_with_state;
use crate::sim::lab::frame::FromSandbox;
use crate::sim::lab::seq::{self, Draw};
use crate::sim::lab::{self, init_text, CodeError, Lab};
use crate::timeline::lab_panel::{Broken, LabAction, Shown};
use crate::ui::browser;
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

/// Everything a session needs, gathered before the first message.
pub(super) struct Session {
    pub(super) lab: Lab,
    pub(super) code: String,
    pub(super) seed: u64,
    pub(super) trials: u32,
    /// Replay this trial seed alone (a shared counterexample).
    pub(super) replay: Option<u64>,
    pub(super) cancel: Rc<Stop>,
}

/// How many sandboxes "Try to break it" runs its trials in, a group each
/// (`sim::lab::seq`): a worker each, so both of a laptop's cores work. The verdict does
/// not depend on the number (the lowest failing trial is the one shown).
pub const SANDBOXES: usize = 2;

thread_local! {
    /// Sandboxes opened ahead of the learner's click ([`warm`]): frame loaded, harness
    /// and engine sent, no code yet.
    static SPARES: RefCell<Vec<Sandbox>> = const { RefCell::new(Vec::new()) };
    static WARMING: Cell<bool> = const { Cell::new(false) };
    /// Who waits for the sandboxes being opened ([`warmed`]).
    static WARM_WAITERS: RefCell<Vec<js_sys::Function>> = const { RefCell::new(Vec::new()) };
}

/// Opens the sandboxes the next session takes ([`SANDBOXES`] of them, with the engine's
/// module), in the background: the frames load, the harness and the
/// engine's files are fetched and sent, and the engine is compiled in each frame before
/// the learner clicks. Called when the learner starts editing a lab's code (not merely
/// when the section is shown: a reader who never opens a lab downloads no engine) and
/// after each session.
pub fn warm() {
    if WARMING.with(Cell::get) || SPARES.with(|s| s.borrow().len()) >= SANDBOXES {
        return;
    }
    WARMING.with(|w| w.set(true));
    wasm_bindgen_futures::spawn_local(async {
        if let (Ok(harness), Ok(html)) = (lab_file("harness.js").await, lab_file("sandbox.html").await) {
            if let Some(engine) = engine::files().await {
                while SPARES.with(|s| s.borrow().len()) < SANDBOXES {
                    match Sandbox::open(&html, &harness, &engine, true).await {
                        Ok(sandbox) => SPARES.with(|s| s.borrow_mut().push(sandbox)),
                        Err(_) => break,
                    }
                }
            }
        }
        WARMING.with(|w| w.set(false));
        for resolve in WARM_WAITERS.with(|w| std::mem::take(&mut *w.borrow_mut())) {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
}

/// Waits until the sandboxes [`warm`] is opening are ready: a session that starts
/// meanwhile takes them rather than opening more beside them.
pub(super) async fn warmed() {
    if !WARMING.with(Cell::get) {
        return;
    }
    let p = js_sys::Promise::new(&mut |resolve, _| WARM_WAITERS.with(|w| w.borrow_mut().push(resolve)));
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// A spare sandbox, if one is open.
pub(super) fn take_spare() -> Option<Sandbox> {
    SPARES.with(|s| {
        let sandbox = s.borrow_mut().pop()?;
        sandbox.set_spare(false);
        Some(sandbox)
    })
}

/// Opens a sandbox and loads the learner's code into it: the sandbox, or the code's error.
pub(super) async fn open_sandbox(
    lab: &Lab,
    code: &str,
    html: &str,
    harness: &str,
    engine: &EngineFiles,
) -> Result<Result<Sandbox, CodeError>, String> {
    let sandbox = match take_spare() {
        Some(s) => s,
        None => Sandbox::open(html, harness, engine, false)
            .await
            .map_err(|e| e.to_string())?,
    };
    // The frame relays it to the harness (`ToSandbox::Relay`).
    let init = match init_text(lab, code) {
        Ok(init) => init,
        Err(e) => {
            return Ok(Err(CodeError::new(format!(
                "the lab's parameters cannot be sent to your code: {e}"
            ))))
        }
    };
    Ok(
        match sandbox.exchange(&init).await.map(|a| FromSandbox::read(&a)) {
            Ok(Ok(FromSandbox::Ready)) => Ok(sandbox),
            Ok(Ok(FromSandbox::Error(e))) => Err(e),
            Ok(Ok(_)) => Err(CodeError::new("the sandbox answered out of turn")),
            Ok(Err(e)) => Err(CodeError::new(e)),
            Err(e) => Err(e),
        },
    )
}

/// Opens `groups` sandboxes side by side (each loads a frame, a worker and the code):
/// the sandboxes, or the code's error.
pub(super) async fn open_all(
    lab: &Lab,
    code: &str,
    (html, harness): (&str, &str),
    groups: usize,
    engine: &EngineFiles,
) -> Result<Result<Vec<Sandbox>, CodeError>, String> {
    let opening = (0..groups).map(|_| open_sandbox(lab, code, html, harness, engine));
    let mut sandboxes = Vec::new();
    for opened in futures_util::future::join_all(opening).await {
        match opened? {
            Ok(sandbox) => sandboxes.push(sandbox),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(sandboxes))
}

/// Run a session in the sandbox, reporting progress; the result to show.
pub(super) async fn run_session(s: Session, progress: Callback<(u32, u32)>) -> Result<Shown, String> {
    let (harness, html) = (lab_file("harness.js").await?, lab_file("sandbox.html").await?);
    let mut lab = s.lab.clone();
    // A pack's lab brings its driver; a built-in one's is fetched.
    if lab.driver.is_empty() {
        lab.driver = lab_file(&format!("{}/driver.js", lab.id)).await?.to_string();
    }
    let break_it = s.trials > 1;
    let mut shown = Shown {
        trials: 0,
        total: s.trials,
        seed: s.replay.unwrap_or(s.seed),
        break_it,
        cancelled: false,
        code: Rc::from(s.code.as_str()),
        checks: lab.checks.iter().map(|c| (c.name().to_string(), true)).collect(),
        code_error: None,
        broken: None,
    };
    let groups = if break_it { SANDBOXES } else { 1 };
    warmed().await;
    // The runs are made in the sandboxes' workers, beside the learner's code, when the
    // engine's module is served: "Try to break it"'s trials, Run, and a shared trial's replay.
    let engine = engine::files().await.ok_or(crate::timeline::panel::NO_ENGINE)?;
    let (draw, seed) = match (break_it, s.replay) {
        (true, _) => (Draw::Trials, s.seed),
        (false, Some(t)) => (Draw::Replay, t),
        (false, None) => (Draw::Run, s.seed),
    };
    let sandboxes = match open_all(&lab, &s.code, (&html, &harness), groups, &engine).await? {
        Ok(v) => v,
        Err(e) => {
            shown.code_error = Some(e);
            return Ok(shown);
        }
    };
    // The code is in its sandboxes: from here it runs ("Running…", with Stop).
    progress.emit((0, s.trials));
    let out = engine::run(&lab, draw, seed, s.trials, &sandboxes, &s.cancel, &progress).await;
    drop(sandboxes);
    // The engine failed, not the learner's code (a browser that will not start it in
    // the sandbox, say): said as such (`lab_load_failed`, with the engine's why).
    let out = out?;
    shown.trials = out.finished;
    progress.emit((shown.trials, s.trials));
    shown.cancelled = s.cancel.get();
    if let Some(f) = out.failure.filter(|_| !shown.cancelled) {
        show_engine_failure(&lab, draw, &mut shown, f).await?;
    }
    Ok(shown)
}

/// The lowest failing trial the engine's groups found: the worker sends its tape, and
/// replaying it gives what the worker graded and the run to draw. The replay is made in
/// the page's engine worker (`timeline::panel::lab_replay`; on the page if it cannot). A
/// trial that never returned (an infinite loop) has no run to draw.
pub(super) async fn show_engine_failure(
    lab: &Lab,
    draw: Draw,
    shown: &mut Shown,
    f: seq::FailedTrial,
) -> Result<(), String> {
    shown.trials = f.trial + 1;
    if f.tape.is_empty() && f.code_error.is_some() {
        show_failure(shown, &[], f.code_error);
        return Ok(());
    }
    let job = crate::timeline::panel::RunJob::Lab {
        lab: crate::wire::to_text(&lab.for_engine())?,
        draw,
        seed: f.seed,
        tape: f.tape,
    };
    let replay = match made_elsewhere(job).await {
        crate::timeline::panel::RunAnswer::Lab(r) => r?,
        _ => return Err("the lab's run could not be replayed".into()),
    };
    show_failure(shown, &replay.verdicts, f.code_error.clone());
    shown.broken = Some(Broken {
        seed: f.seed,
        trial: f.trial + 1,
        violations: lab::violations_of(&replay.verdicts),
        attacks: replay.attacks,
        model: Rc::new(replay.model),
    });
    Ok(())
}

/// `job` made in the page's engine worker, awaited (or its answer that it could not be).
pub(super) async fn made_elsewhere(job: crate::timeline::panel::RunJob) -> crate::timeline::panel::RunAnswer {
    let slot = Rc::new(RefCell::new(None));
    let mut handle = None;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let slot = slot.clone();
        handle = crate::ui::scenario::make_elsewhere(job.clone(), move |answer, _| {
            *slot.borrow_mut() = Some(answer);
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        });
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    drop(handle);
    let made = slot.borrow_mut().take();
    made.unwrap_or_else(|| job.unmade())
}

/// Which checks a failing trial broke, and its code error.
pub(super) fn show_failure(shown: &mut Shown, verdicts: &[lab::Verdict], code_error: Option<CodeError>) {
    for (name, ok) in shown.checks.iter_mut() {
        *ok = verdicts
            .iter()
            .find(|v| v.check.name() == name)
            .is_none_or(|v| v.violations.is_empty());
    }
    shown.code_error = code_error;
}

/// The solution button's action: show the lab's reference solution (a pack's lab has it;
/// a built-in one's is fetched), or hide it.
pub(super) fn toggle_solution(shown: bool, dispatch: Callback<LabAction>, lab: &Lab) -> Callback<MouseEvent> {
    let (id, known) = (lab.id.clone(), lab.solution.clone());
    Callback::from(move |_: MouseEvent| {
        if shown {
            dispatch.emit(LabAction::HideSolution);
        } else if !known.is_empty() {
            dispatch.emit(LabAction::ShowSolution(Ok(known.clone())));
        } else {
            let (dispatch, id) = (dispatch.clone(), id.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let s = lab_file(&format!("{id}/solution.js"))
                    .await
                    .map(|s| s.to_string());
                dispatch.emit(LabAction::ShowSolution(s));
            });
        }
    })
}

/// A button's action: select line `line` of the editor's code (a code error's line).
pub(super) fn select_line(
    editor: NodeRef,
    code: UseStateHandle<String>,
    code_editor: super::code_editor::CodeEditor,
    line: u32,
) -> Callback<MouseEvent> {
    Callback::from(move |_: MouseEvent| {
        // The code editor, where it came; else the plain textarea.
        if code_editor.goto(line) {
            return;
        }
        let Some(el) = editor.cast::<web_sys::HtmlTextAreaElement>() else {
            return;
        };
        let before = line.saturating_sub(1) as usize;
        // Offsets in UTF-16 units, as the textarea counts them.
        let start: usize = code
            .split('\n')
            .take(before)
            .map(|l| l.encode_utf16().count() + 1)
            .sum();
        let len = code
            .split('\n')
            .nth(before)
            .map_or(0, |l| l.encode_utf16().count());
        let _ = el.focus();
        el.set_selection_start(Some(start as u32)).ok();
        el.set_selection_end(Some((start + len) as u32)).ok();
    })
}

/// What a session started from the panel reads and updates.
#[derive(Clone)]
pub(super) struct Handles {
    pub(super) state: UseReducerHandle<LabModel>,
    pub(super) cancel: Rc<RefCell<Rc<Stop>>>,
    pub(super) code: UseStateHandle<String>,
    pub(super) store: Option<LabStore>,
    pub(super) verdict_ref: NodeRef,
    pub(super) editor: NodeRef,
    pub(super) lab: Lab,
    pub(super) id: String,
}

/// Run or Try to break it: save the code, run the session in the background, show it.
pub(super) fn start_session(h: &Handles, break_it: bool) {
    let flag = Rc::new(Stop::default());
    *h.cancel.borrow_mut() = flag.clone();
    // What the editor shows now: this callback's `code` is the state of the last render,
    // which is not yet the text typed (or handed over by the first page's loader) in the
    // same task as the click.
    let code = match h.editor.cast::<web_sys::HtmlTextAreaElement>() {
        Some(t) => t.value(),
        None => (*h.code).clone(),
    };
    if code != *h.code {
        h.code.set(code.clone());
    }
    if let Some(s) = &h.store {
        s.on_code.emit((h.id.clone(), code.clone()));
    }
    let session = Session {
        lab: h.lab.clone(),
        code,
        seed: if break_it {
            browser::random_u64()
        } else {
            lab::RUN_SEED
        },
        trials: if break_it { h.lab.trials } else { 1 },
        replay: if break_it { None } else { h.state.0.replay },
        cancel: flag,
    };
    h.state.dispatch(LabAction::Start);
    let h = h.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let progress = {
            let state = h.state.clone();
            Callback::from(move |(done, total)| state.dispatch(LabAction::Progress { done, total }))
        };
        let result = run_session(session, progress).await;
        // The next session's sandboxes, ready before the next click.
        warm();
        // The answer was read in this task; the verdict is drawn in the next one, and the
        // timeline's details in the one after (`TimelineSvg`'s slices): no task holds the
        // page for the whole of it.
        gloo::timers::future::TimeoutFuture::new(0).await;
        match result {
            Ok(shown) => {
                if let Some(b) = &shown.broken {
                    let state = format!("lab={}&trial={}", h.id, b.seed);
                    browser::replace_hash(&hash_with_state(&browser::hash(), &state));
                }
                if !shown.cancelled {
                    if let Some(s) = &h.store {
                        let outcome = match (shown.passed(), shown.break_it) {
                            (true, true) => LabOutcome::Passed,
                            (true, false) => LabOutcome::Held,
                            (false, _) => LabOutcome::Broken,
                        };
                        let broke = shown
                            .checks
                            .iter()
                            .find(|(_, held)| !held)
                            .map(|(name, _)| name.clone());
                        s.on_run.emit((h.id.clone(), outcome, broke));
                    }
                }
                h.state.dispatch(LabAction::Finished(Ok(Rc::new(shown))));
                // The verdict where the learner can see it (below the editor on a phone).
                if let Some(el) = h.verdict_ref.cast::<web_sys::Element>() {
                    let opts = web_sys::ScrollIntoViewOptions::new();
                    opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    el.scroll_into_view_with_scroll_into_view_options(&opts);
                }
            }
            Err(e) => h.state.dispatch(LabAction::Finished(Err(e))),
        }
    });
}
