//! The scenario panel's dealings with time and the page: playback's timer, an embedding
//! page's autoplay and `goto`, a released hold, and the URL kept in step. Each only
//! dispatches actions of `timeline::panel`.

use super::url::write_url_state;
use super::Handle;
use crate::timeline::pace::Pace;
use crate::timeline::panel::PanelAction;
use crate::ui::browser;
use gloo::timers::callback::Timeout;
use yew::prelude::*;

/// Playback, event by event, dwelling on each as `pace` says.
#[hook]
pub fn use_playback(panel: &Handle) {
    let s = &panel.state;
    let model = s.model.clone();
    let paced = use_memo((s.name.clone(), s.runs), move |_| {
        model
            .as_ref()
            .as_ref()
            .map_or(Pace { scale: 1.0 }, |m| Pace::of(m))
    });
    // Re-armed after every step: the timer must see the cursor it advances from.
    let deps = (s.playing, s.speed, s.name.clone(), s.runs, s.cursor, s.hold_at_ms);
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
            s.playing,
            s.variant.clone(),
            s.injections.clone(),
        ),
        move |(n, seed, at, playing, v, f)| {
            if !*playing && own_url {
                write_url_state(n, *seed, *at, v, f);
            }
        },
    );
}
