//! "Try to break it" off the page: each sandbox's worker holds the engine's module
//! (`src/bin/engine.rs`) beside the learner's harness and runs a group of the trials by
//! itself (`sim::lab::seq`), so an exchange between the simulator and the learner's code
//! is a function call in one thread. The page only starts the groups, counts the
//! trials they report, tells the others to stop past a failure, and keeps the lowest
//! failing trial: the one a single sequential run finds.

use super::files::FILE_LIMIT;
use super::sandbox::{EngineFiles, Sandbox, Stop};
use crate::sim::lab::frame::{limit_text, FromSandbox, TrialsRequest};
use crate::sim::lab::seq::{Draw, FailedTrial};
use crate::sim::lab::{CodeError, Lab};
use std::cell::RefCell;
use std::rc::Rc;
use wasm_bindgen::JsCast;
use wasm_bindgen_futures::JsFuture;
use yew::Callback;

thread_local! {
    /// The engine's files, once fetched: `Some(None)` when they are not served.
    static ENGINE: RefCell<Option<Option<Rc<EngineFiles>>>> = const { RefCell::new(None) };
}

/// The engine's module as Trunk writes it beside the page (`engine.js`, its wasm-bindgen
/// glue, and `engine_bg.wasm`), fetched once per page. `None` where it is not served
/// (the browser tests' page): the page then runs the trials itself, as before.
pub async fn files() -> Option<Rc<EngineFiles>> {
    if let Some(known) = ENGINE.with(|e| e.borrow().clone()) {
        return known;
    }
    let got = fetch().await.map(Rc::new);
    ENGINE.with(|e| *e.borrow_mut() = Some(got.clone()));
    got
}

async fn fetch() -> Option<EngineFiles> {
    let dir = crate::ui::engine_worker::module_dir()?;
    let glue = crate::ui::pack_loader::fetch_text(&format!("{dir}engine.js"), FILE_LIMIT)
        .await
        .ok()?;
    let window = web_sys::window()?;
    let resp: web_sys::Response = JsFuture::from(window.fetch_with_str(&format!("{dir}engine_bg.wasm")))
        .await
        .ok()?
        .dyn_into()
        .ok()?;
    if !resp.ok() {
        return None;
    }
    let wasm = JsFuture::from(resp.array_buffer().ok()?).await.ok()?;
    Some(EngineFiles {
        glue: Rc::from(glue.as_str()),
        wasm: wasm.dyn_into().ok()?,
    })
}

/// What the groups found together.
#[derive(Default)]
pub struct Outcome {
    /// Trials finished over all groups.
    pub finished: u32,
    /// The lowest failing trial.
    pub failure: Option<FailedTrial>,
}

struct State {
    /// Per group: trials finished (as last reported).
    finished: Vec<u32>,
    failure: Option<FailedTrial>,
    reported: u32,
}

impl State {
    fn total(&self) -> u32 {
        self.finished.iter().sum()
    }

    /// Keep `f` if it is the lowest failure so far; `true` when it is.
    fn fail(&mut self, f: FailedTrial) -> bool {
        if self.failure.as_ref().is_some_and(|g| g.trial <= f.trial) {
            return false;
        }
        self.failure = Some(f);
        true
    }
}

/// Run `total` trials of `lab` from `seed` in these sandboxes (each opened with the
/// engine and the learner's code), one group each.
pub async fn run(
    lab: &Lab,
    draw: Draw,
    seed: u64,
    total: u32,
    sandboxes: &[Sandbox],
    cancel: &Stop,
    progress: &Callback<(u32, u32)>,
) -> Result<Outcome, String> {
    let groups = sandboxes.len().max(1);
    let state = RefCell::new(State {
        finished: vec![0; groups],
        failure: None,
        reported: 0,
    });
    let runs = (0..groups).map(|g| {
        let request = TrialsRequest {
            lab: lab.clone(),
            seed,
            draw,
            total,
            group: g as u32,
            groups: groups as u32,
        };
        group(
            g,
            request.text(),
            sandboxes,
            &state,
            (draw, seed),
            cancel,
            progress,
            total,
        )
    });
    let results = futures_util::future::join_all(runs).await;
    results.into_iter().collect::<Result<Vec<()>, String>>()?;
    let state = state.into_inner();
    Ok(Outcome {
        finished: state.total(),
        failure: state.failure,
    })
}

/// Group `g`: start it, then follow its reports until it is done, stopped or cancelled.
#[allow(clippy::too_many_arguments)]
async fn group(
    g: usize,
    message: String,
    sandboxes: &[Sandbox],
    state: &RefCell<State>,
    (draw, seed): (Draw, u64),
    cancel: &Stop,
    progress: &Callback<(u32, u32)>,
    total: u32,
) -> Result<(), String> {
    let Some(sandbox) = sandboxes.get(g) else {
        return Ok(());
    };
    sandbox.send(&message).map_err(|e| e.message)?;
    let step = (total / 20).max(1);
    // The trial in flight, as the worker last said.
    let mut current: Option<u32> = None;
    // Where the learner's code was last, in one trial: (worker, function).
    let mut site: (Option<String>, Option<String>) = (None, None);
    loop {
        if cancel.get() {
            return Ok(());
        }
        let failed = match sandbox.receive(cancel).await {
            Ok(text) => match FromSandbox::read(&text)? {
                FromSandbox::At { trial, finished } => {
                    current = Some(trial);
                    let mut s = state.borrow_mut();
                    if let Some(f) = s.finished.get_mut(g) {
                        *f = finished;
                    }
                    let all = s.total();
                    if all >= s.reported + step {
                        s.reported = all;
                        drop(s);
                        progress.emit((all, total));
                    }
                    continue;
                }
                FromSandbox::In { worker, within } => {
                    site = (worker, within);
                    continue;
                }
                FromSandbox::Doing { worker, running } => {
                    // An event runs in a worker: in the continuation of the one
                    // function of theirs still running, if it is one.
                    let within = match running.as_slice() {
                        [one] => Some(one.clone()),
                        _ => None,
                    };
                    site = (worker, within);
                    continue;
                }
                FromSandbox::Done(report) => {
                    if let Some(f) = state.borrow_mut().finished.get_mut(g) {
                        *f = report.finished;
                    }
                    report.failure
                }
                FromSandbox::Error(e) => return Err(e.message),
                FromSandbox::Port | FromSandbox::Ready => {
                    return Err("the sandbox answered out of turn".to_string())
                }
            },
            // Silence: the learner's code loops in trial `current`.
            // Stopped: nothing to grade (the session says so).
            Err(_) if cancel.get() => return Ok(()),
            Err(mut e) => match current {
                Some(trial) => {
                    (e.worker, e.within) = site.clone();
                    Some(hung(draw, seed, trial, e))
                }
                None => return Err(e.message),
            },
        };
        if let Some(f) = failed {
            let trial = f.trial;
            if state.borrow_mut().fail(f) {
                let limit = limit_text(trial);
                for (k, other) in sandboxes.iter().enumerate() {
                    if k != g {
                        let _ = other.send(&limit);
                    }
                }
            }
        }
        return Ok(());
    }
}

/// Trial `trial` never returned: its failure is the code error, with no run to draw.
fn hung(draw: Draw, seed: u64, trial: u32, e: CodeError) -> FailedTrial {
    FailedTrial {
        trial,
        seed: draw.seed(seed, trial),
        code_error: Some(e),
        tape: Vec::new(),
    }
}
