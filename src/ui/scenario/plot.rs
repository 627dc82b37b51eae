//! The timeline as the learner handles it: the drawing with its wheel and touch
//! gestures, and the paired scenario drawn beside it at the same true time.

use super::catalog::{pair_of, title_of};
use super::model::Handle;
use super::{hooks, svg};
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::sim::scenario::builtin;
use crate::timeline::panel::{PanelAction, RunAnswer, RunJob, RunsIn};
use crate::timeline::{band_sentence, view, Model};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The fingers on a timeline (pointer id, x, y) and the gesture they make, if any.
#[derive(Default)]
struct Touch {
    fingers: Vec<(i32, f64, f64)>,
    start: Option<Gesture>,
}

/// How a gesture started: the window, the fingers' midpoint (0..1 across the plot),
/// their distance in pixels, and how many fingers.
#[derive(Clone, Copy)]
struct Gesture {
    from: Option<(u64, u64)>,
    f0: f64,
    d0: f64,
    fingers: usize,
}

#[derive(Properties, PartialEq)]
pub struct PlotProps {
    pub panel: Handle,
    pub lang: Lang,
}

#[function_component(Plot)]
pub fn plot(props: &PlotProps) -> Html {
    let (panel, tx) = (&props.panel, Texts::new(props.lang));
    let s = &panel.state;
    // Side by side: the paired scenario on the same seed, drawn at the same true time;
    // made where the panel's runs are (the engine's worker, on a page that has it).
    let other = use_state(|| None::<(String, u64, Rc<Model>, RunsIn)>);
    {
        let other = other.clone();
        use_effect_with((s.name.clone(), s.seed, s.compare), move |(n, seed, on)| {
            let job = pair_of(n)
                .filter(|_| *on)
                .and_then(|o| builtin(o).and_then(Result::ok).map(|sc| (o, sc)))
                .and_then(|(o, scenario)| {
                    let job = RunJob::Run {
                        scenario,
                        seed: *seed,
                        injections: Vec::new(),
                    };
                    let (o, seed) = (o.to_string(), *seed);
                    let take = move |answer: RunAnswer, made_in| {
                        if let RunAnswer::Run(Ok(m)) = answer {
                            other.set(Some((o.clone(), seed, Rc::new(m), made_in)));
                        }
                    };
                    hooks::make_elsewhere(job, take)
                });
            move || drop(job)
        });
    }
    // Only the pair of what is shown now (an answer for an earlier seed is not it).
    let (other, other_made_in) = (*other)
        .as_ref()
        .filter(|(o, seed, ..)| s.compare && pair_of(&s.name) == Some(o.as_str()) && *seed == s.seed)
        .map(|(_, _, m, made_in)| (Some(m.clone()), *made_in))
        .unwrap_or((None, RunsIn::Elsewhere));
    let touch = use_mut_ref(Touch::default);
    let wrap_ref = use_node_ref();
    let Ok(m) = s.model.as_ref() else {
        return Html::default();
    };
    let (t_us, end_us, zoom) = (s.t_us(), s.end_us(), s.view);
    let view = zoom.unwrap_or((0, end_us));
    let on_wheel = {
        let panel = panel.clone();
        Callback::from(move |e: WheelEvent| {
            // Only with Ctrl/⌘ (zoom, and a trackpad's pinch) or Shift (pan): a plain
            // wheel keeps scrolling the page.
            if e.ctrl_key() || e.meta_key() {
                e.prevent_default();
                panel.dispatch(PanelAction::Zoom(if e.delta_y() > 0.0 { 1.25 } else { 0.8 }));
            } else if e.shift_key() && zoom.is_some() {
                e.prevent_default();
                panel.dispatch(PanelAction::Pan(0.1 * e.delta_y().signum()));
            }
        })
    };
    let on_touch = touch_handler(panel.clone(), touch.clone(), wrap_ref.clone(), zoom, end_us);
    let on_seek = {
        let panel = panel.clone();
        Callback::from(move |i: usize| panel.dispatch(PanelAction::Seek(i)))
    };
    let on_compare = {
        let panel = panel.clone();
        Callback::from(move |_: Event| panel.dispatch(PanelAction::ToggleCompare))
    };
    let cursor = s.cur();
    // A held run ("what happens next?") says only what broke up to the hold point, and
    // not yet whether the rest is safe: that is the learner's prediction to make.
    let held_until = s.hold_at_ms.map(|_| m.trace.get(s.last()).map_or(0, |e| e.t_us));
    html! {
        <>
            if let Some(other_name) = pair_of(&s.name) {
                <label class="compare-toggle">
                    <input type="checkbox" checked={s.compare} onchange={on_compare} />
                    { format!(" {}", tx.fmt(k::SC_SIDE_BY_SIDE, &[("other", title_of(other_name, None, props.lang))])) }
                </label>
            }
            if other.is_some() {
                <h3 class="run-name">{ m.title(props.lang).to_string() }</h3>
            }
            // The moment at the cursor, close up: each message readable, above the run.
            { super::lens::lens(&super::lens::LensProps { model: svg::Shared(m.clone()), cursor, lang: props.lang }) }
            <div class="timeline-wrap" ref={wrap_ref} onwheel={on_wheel} onpointerdown={on_touch.clone()} onpointermove={on_touch.clone()} onpointerup={on_touch.clone()} onpointercancel={on_touch}>
                <svg::TimelineSvg model={svg::Shared(m.clone())} {t_us} {cursor} {view} {on_seek} lang={props.lang} slices=true whole_first=true />
            </div>
            if !m.captions.is_empty() {
                // Said politely as the cursor passes a key moment (play, step, a click).
                <p class="caption" aria-live="polite" aria-atomic="true">
                    { m.caption_at(cursor).map(|c| c.text(props.lang).to_string()).unwrap_or_default() }
                </p>
            }
            { outcome(m, props.lang, held_until) }
            if let Some(o) = other.as_ref() {
                <div class="compare" data-made-in={if other_made_in == RunsIn::Elsewhere { "worker" } else { "page" }}>
                    <h3 class="run-name">{ o.title(props.lang).to_string() }</h3>
                    <div class="timeline-wrap">
                        <svg::TimelineSvg model={svg::Shared(o.clone())} {t_us} cursor={o.index_at(t_us)} {view} on_seek={Callback::noop()} lang={props.lang} />
                    </div>
                    { outcome(o, props.lang, held_until) }
                </div>
            }
        </>
    }
}

/// Touch: two fingers pinch to zoom, one finger drags sideways to pan. The wrap's CSS
/// (`touch-action: pan-y`) leaves vertical scrolling to the page.
fn touch_handler(
    panel: Handle,
    touch: Rc<RefCell<Touch>>,
    wrap: NodeRef,
    zoom: Option<(u64, u64)>,
    end_us: u64,
) -> Callback<PointerEvent> {
    Callback::from(move |e: PointerEvent| {
        if e.pointer_type() != "touch" {
            return;
        }
        // The drawing itself, which may be wider than its scrolling wrap (a phone).
        let Some(el) = wrap
            .cast::<web_sys::Element>()
            .and_then(|w| w.query_selector("svg.timeline").ok().flatten())
        else {
            return;
        };
        let r = el.get_bounding_client_rect();
        // Where across the plot (not the lane labels) a screen x falls, 0..1.
        let frac = |x: f64| svg::plot_fraction(x - r.left(), r.width());
        let mut t = touch.borrow_mut();
        let id = e.pointer_id();
        match e.type_().as_str() {
            "pointerdown" => {
                t.fingers.retain(|f| f.0 != id);
                t.fingers.push((id, e.client_x() as f64, e.client_y() as f64));
                t.start = None;
            }
            "pointermove" => {
                if let Some(f) = t.fingers.iter_mut().find(|f| f.0 == id) {
                    f.1 = e.client_x() as f64;
                    f.2 = e.client_y() as f64;
                }
            }
            _ => {
                t.fingers.retain(|f| f.0 != id);
                t.start = None;
                return;
            }
        }
        let (mid, dist) = match t.fingers.as_slice() {
            [(_, x, _)] => (*x, 1.0),
            [(_, x0, y0), (_, x1, y1), ..] => ((x0 + x1) / 2.0, (x1 - x0).hypot(y1 - y0).max(1.0)),
            [] => return,
        };
        let now = Gesture {
            from: zoom,
            f0: frac(mid),
            d0: dist,
            fingers: t.fingers.len(),
        };
        match t.start {
            Some(g) if g.fingers == now.fingers => {
                // A one-finger drag only pans a zoomed view; the page keeps it otherwise.
                if g.fingers > 1 || g.from.is_some() {
                    e.prevent_default();
                    let next = view::pinch(g.from, end_us, g.f0, g.d0, now.f0, now.d0);
                    if next != zoom {
                        panel.dispatch(PanelAction::SetView(next));
                    }
                }
            }
            _ => t.start = Some(now),
        }
    })
}

/// What broke in a run, under its own timeline; or that it is safe (said, not left to
/// an absent band: after a knob or script change the learner sees that this run is
/// safe). A run cut short says neither; a run held at `held_until` (µs) lists only what
/// began by then, and never says "safe".
fn outcome(m: &crate::timeline::Model, lang: Lang, held_until: Option<u64>) -> Html {
    let tx = Texts::new(lang);
    let shown: Vec<_> = m
        .bands
        .iter()
        .filter(|b| held_until.is_none_or(|t| b.from_us <= t))
        .collect();
    if !shown.is_empty() {
        html! { <ul class="violations" data-run={m.scenario.clone()}>{ for shown.iter().map(|b| html! { <li class="violation-text">{ format!("⚠ {}", band_sentence(b, lang)) }</li> }) }</ul> }
    } else if held_until.is_some() {
        Html::default()
    } else if !m.truncated {
        html! { <ul class="violations" data-run={m.scenario.clone()}><li class="safe-text">{ tx.t(k::SC_NO_VIOLATION) }</li></ul> }
    } else {
        Html::default()
    }
}
