//! The scenario panel's dealings with time and the page: playback's timer, an embedding
//! page's autoplay and `goto`, a released hold, and the URL kept in step. Each only
//! dispatches actions of `timeline::panel`.

use super::model::Handle;
use super::url::write_url_state;
use crate::calls::{Answer, Request};
use crate::timeline::pace::Pace;
use crate::timeline::panel::{PanelAction, Parts, RunAnswer, RunJob, RunPart, RunsIn};
use crate::ui::browser;
use crate::ui::engine_worker;
use gloo::timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

/// A run the panel asked for is made in the engine's worker and comes back as
/// `PanelAction::Ran`; if the worker cannot make it (not served, broken), the page makes
/// it. A newer run asked for drops the older: the worker is told, its answer ignored.
#[hook]
pub fn use_runs(panel: &Handle) {
    let pending = panel.state.pending.clone();
    let dispatch = panel.dispatcher();
    use_effect_with(pending.as_ref().map(|p| p.id), move |_| {
        let job = pending.map(|p| {
            let id = p.id;
            make_elsewhere(p.job.clone(), move |answer, made_in| {
                dispatch.dispatch(PanelAction::Ran {
                    id,
                    answer: crate::timeline::panel::Answer::new(answer),
                    made_in,
                })
            })
        });
        move || drop(job)
    });
}

/// What one of the worker's messages about a run says: a piece of the run's long lists,
/// the answer without them (`Answer::RunPart`, `Answer::Ran`), or the end.
enum Said {
    Part(RunPart),
    Answer(Box<RunAnswer>),
    Done,
}

fn said(m: &engine_worker::Message) -> Option<Said> {
    if m.is_done() {
        return Some(Said::Done);
    }
    match m.answer()? {
        Answer::RunPart(part) => Some(Said::Part(part)),
        Answer::Ran(answer) => Some(Said::Answer(answer)),
        _ => None,
    }
}

/// `job` made in the engine's worker, its answer to `on_answer` (with where it was made);
/// where the worker is not there or fails, the answer says the simulator could not start
/// ([`RunJob::unmade`]). Dropping what it returns
/// forgets the run (and tells the worker).
pub fn make_elsewhere(
    job: RunJob,
    on_answer: impl Fn(RunAnswer, RunsIn) + 'static,
) -> Option<engine_worker::Job> {
    let on_answer = Rc::new(on_answer);
    let job = Rc::new(job);
    let here = {
        let (job, on_answer) = (job.clone(), on_answer.clone());
        move || on_answer(job.unmade(), RunsIn::Elsewhere)
    };
    let Ok(text) = crate::wire::to_text(job.as_ref()) else {
        here();
        return None;
    };
    // While prerendering, what the worker posts is kept to be written out: the runs the
    // hand-over from the prerendered page takes instead of making them.
    let recording = browser::prerendering().then(|| (job_key(&text), std::cell::RefCell::new(Vec::new())));
    let request = Request::Run((*job).clone());
    let parts = std::cell::RefCell::new(Parts::default());
    let on_text = {
        let here = here.clone();
        move |m: &engine_worker::Message| {
            let heard = said(m);
            if let (Some((key, texts)), Some(h)) = (&recording, &heard) {
                if !matches!(h, Said::Done) {
                    texts.borrow_mut().push(m.text());
                }
                if matches!(h, Said::Answer(_)) {
                    browser::record_run(key, &texts.borrow());
                }
            }
            match heard {
                Some(Said::Part(part)) => parts.borrow_mut().add(part),
                // Taken in a task of its own: reading the answer and drawing it are two tasks.
                Some(Said::Answer(answer)) => {
                    let (answer, on_answer) = (parts.take().finish(*answer), on_answer.clone());
                    Timeout::new(0, move || on_answer(answer, RunsIn::Elsewhere)).forget();
                }
                Some(Said::Done) => {}
                // The engine's own error, or an answer that does not read.
                None => here(),
            }
        }
    };
    let handle = engine_worker::submit(&request, on_text, here.clone());
    if handle.is_none() {
        here();
    }
    handle
}

/// The name of a run's job (its wire text) among the runs made ahead of time.
pub fn job_key(job: &str) -> String {
    format!("{:016x}", crate::fnv::fnv1a(job.as_bytes()))
}

/// A run made ahead of time for `job`, as the worker posted it at build time (see
/// `browser::run_made_ahead`): `None` if there is none, or it does not read.
pub fn made_ahead(job: &RunJob) -> Option<RunAnswer> {
    let texts = browser::run_made_ahead(&job_key(&crate::wire::to_text(job).ok()?))?;
    let mut parts = Parts::default();
    for text in texts {
        match said(&engine_worker::Message::read(text)?)? {
            Said::Part(part) => parts.add(part),
            Said::Answer(answer) => return Some(parts.finish(*answer)),
            Said::Done => {}
        }
    }
    None
}

/// Playback, event by event, dwelling on each as `pace` says.
#[hook]
pub fn use_playback(panel: &Handle) {
    let s = &panel.state;
    let model = s.model.clone();
    let paced = use_memo((s.name.clone(), s.made), move |_| {
        model
            .as_ref()
            .as_ref()
            .map_or(Pace { scale: 1.0 }, |m| Pace::of(m))
    });
    // Re-armed after every step: the timer must see the cursor it advances from.
    let deps = (s.playing, s.speed, s.name.clone(), s.made, s.cursor, s.hold_at_ms);
    let panel = panel.clone();
    use_effect_with(deps, move |(playing, speed, ..)| {
        let s = &panel.state;
        let timer = s.model().filter(|_| *playing).map(|m| {
            let (next, wait) = paced.next(m, s.cursor, s.last(), *speed);
            let panel = panel.clone();
            Timeout::new(wait, move || panel.dispatch(PanelAction::Advance(next)))
        });
        move || drop(timer)
    });
}

/// Embedding: autoplay (unless the learner prefers less motion), and a host's
/// `goto { step }` moves the cursor.
#[hook]
pub fn use_embed(panel: &Handle, autoplay: bool) {
    let dispatch = panel.dispatcher();
    use_effect_with((), move |_| {
        if autoplay && !browser::prefers_reduced_motion() {
            dispatch.dispatch(PanelAction::Autoplay);
        }
        let listener = web_sys::window().and_then(|w| w.document()).map(|d| {
            gloo::events::EventListener::new(&d, crate::ui::embed::STEP_EVENT, move |e| {
                use wasm_bindgen::JsCast;
                if let Some(step) = e
                    .dyn_ref::<web_sys::CustomEvent>()
                    .and_then(|c| c.detail().as_f64())
                {
                    dispatch.dispatch(PanelAction::Seek(step.max(0.0) as usize));
                }
            })
        });
        move || drop(listener)
    });
}

/// A held run that is released plays on by itself: the answer is revealed. A learner
/// who prefers less motion gets the outcome at once instead of an animation.
#[hook]
pub fn use_hold(panel: &Handle, hold_at_ms: Option<u64>) {
    let dispatch = panel.dispatcher();
    let held = panel.state.hold_at_ms;
    use_effect_with(hold_at_ms, move |at| {
        if *at != held {
            dispatch.dispatch(PanelAction::Hold {
                at_ms: *at,
                reduced_motion: at.is_none() && browser::prefers_reduced_motion(),
            });
        }
    });
}

/// Keep the URL in step (scenario, seed, cursor: its time and its event) while not playing.
#[hook]
pub fn use_url_sync(panel: &Handle, own_url: bool) {
    let s = &panel.state;
    let t_ms = s
        .model()
        .and_then(|m| m.trace.get(s.cursor))
        .map_or(0, |e| e.t_us / 1000);
    use_effect_with(
        (
            s.name.clone(),
            s.seed,
            (t_ms, s.cursor),
            s.playing || s.running(),
            s.variant.clone(),
            s.injections.clone(),
        ),
        // Not while a run is out: the cursor's time would be the run before's.
        move |(n, seed, at, busy, v, f)| {
            if !*busy && own_url {
                write_url_state(n, *seed, *at, v, f);
            }
        },
    );
}
