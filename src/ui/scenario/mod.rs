//! A live scenario inside a lesson section: the timeline (SVG swimlanes), the controls,
//! the cluster view and event log at the cursor, and a Redis console that forks the run.
//!
//! Everything drawn comes from `crate::timeline::Model`, which comes from the simulator.

mod console;
mod editor;
mod explore;
mod faults;
mod svg;
mod tradeoff;

pub use console::ConsoleExercise;
pub use svg::{Shared, TimelineSvg};
pub use ScenarioPanel as Panel;

use crate::lesson::content::Lang;
use crate::lesson::embed::EmbedConfig;
use crate::lesson::route::query_param;
use crate::sim::scenario::builtin;
use crate::sim::Fault;
use crate::store::parse_line;
use crate::timeline::{
    band_sentence, build, build_with, describe, fork, link, pace, snapshot, view, words, Model, Variant,
};
use crate::ui::browser;
use gloo::timers::callback::Timeout;
use std::rc::Rc;
use yew::prelude::*;

/// Scenarios a lesson pack brings, looked up before the built-ins.
#[derive(Clone, PartialEq, Default)]
pub struct PackScenarios(pub Rc<Vec<crate::sim::scenario::Scenario>>);

/// A scenario by name: the pack's first, then the built-ins.
fn find(name: &str, pack: &Option<PackScenarios>) -> Option<Result<crate::sim::scenario::Scenario, String>> {
    if let Some(s) = pack.as_ref().and_then(|p| p.0.iter().find(|s| s.name == name)) {
        return Some(Ok(s.clone()));
    }
    builtin(name).map(|r| r.map_err(|e| e.to_string()))
}

/// Broken and fixed versions the lesson pairs; either can be compared with the other.
const PAIRS: [(&str, &str); 5] = [
    ("unsafe-del", "safe-release"),
    ("no-fencing", "fencing"),
    ("failover", "failover-wait"),
    ("redlock-pause-acquire-unchecked", "redlock-pause-acquire"),
    ("double-charge-no-lock", "double-charge-redis-lock"),
];

/// The scenario paired with `name`, if any.
pub fn pair_of(name: &str) -> Option<&'static str> {
    PAIRS.iter().find_map(|(a, b)| {
        if *a == name {
            Some(*b)
        } else if *b == name {
            Some(*a)
        } else {
            None
        }
    })
}

/// Playback speeds offered (× the 1× pace of `timeline::pace`).
const SPEEDS: [f64; 7] = [0.25, 0.5, 1.0, 2.0, 4.0, 8.0, 16.0];

/// The view a run opens on: its events framed (see `view::initial`).
fn first_view(m: &Model) -> Option<(u64, u64)> {
    let last = m
        .trace
        .iter()
        .rev()
        .find(|e| !matches!(e.kind, crate::sim::TraceKind::End))
        .map_or(0, |e| e.t_us);
    view::initial(last, m.end_us.max(1))
}

#[derive(Properties, PartialEq)]
pub struct ScenarioPanelProps {
    /// Built-in scenario names this panel offers (the first is shown first).
    pub names: Vec<String>,
    pub lang: Lang,
    /// Stop the run at this true time (ms) until it is cleared ("what happens next?");
    /// clearing it plays the rest.
    #[prop_or_default]
    pub hold_at_ms: Option<u64>,
    /// Whether this panel owns the URL's scenario state (the section's main panel does).
    #[prop_or(true)]
    pub url_state: bool,
}

/// Where a link puts the cursor: `t`, the true time in ms (readable, and what an older
/// link has), and `e`, the event's index, which is exact where several events share a
/// millisecond. The same scenario, seed, knobs and faults give the same trace, so the
/// index points at the same event.
#[derive(Clone, Copy, Debug, PartialEq)]
struct UrlCursor {
    t_ms: Option<u64>,
    event: Option<usize>,
}

impl UrlCursor {
    /// The cursor in `m`: the event the link names if `m` has it at the link's time (a
    /// hand-edited `t` wins over a stale `e`), else the last event at or before `t`.
    fn index_in(self, m: &Model) -> Option<usize> {
        self.event
            .filter(|&e| {
                m.trace
                    .get(e)
                    .is_some_and(|ev| self.t_ms.is_none_or(|t| ev.t_us / 1000 == t))
            })
            .or_else(|| self.t_ms.map(|t| m.index_at(t.saturating_mul(1000))))
    }
}

/// The part of the URL hash after `?`: `scenario=…&seed=…&t=…&e=…` (t in ms).
fn url_state() -> (Option<String>, Option<u64>, UrlCursor) {
    let query = hash_query();
    let scenario = query_param(&query, "scenario");
    let seed = query_param(&query, "seed").and_then(|s| s.parse().ok());
    let cursor = UrlCursor {
        t_ms: query_param(&query, "t").and_then(|s| s.parse().ok()),
        event: query_param(&query, "e").and_then(|s| s.parse().ok()),
    };
    (scenario, seed, cursor)
}

/// The part of the hash after `?`.
fn hash_query() -> String {
    browser::hash()
        .split_once('?')
        .map(|(_, q)| q.to_string())
        .unwrap_or_default()
}

/// The knobs and the faults a link carries (`ttl`, `drift`, `timeout`, `faults`).
fn url_changes() -> (Variant, Vec<(u64, Fault)>) {
    let query = hash_query();
    let variant = link::decode_variant(|k| query_param(&query, k));
    let faults = query_param(&query, "faults")
        .map(|f| link::decode_faults(&f))
        .unwrap_or_default();
    (variant, faults)
}

fn write_url_state(
    name: &str,
    seed: u64,
    (t_ms, event): (u64, usize),
    variant: &Variant,
    faults: &[(u64, Fault)],
) {
    let mut q = format!("scenario={name}&seed={seed}&t={t_ms}&e={event}");
    for (k, v) in link::encode_variant(variant) {
        q.push_str(&format!("&{k}={v}"));
    }
    if !faults.is_empty() {
        q.push_str(&format!("&faults={}", link::encode_faults(faults)));
    }
    // After the route, in the hash: the query stays what the visitor opened.
    browser::replace_hash(&crate::lesson::route::hash_with_state(&browser::hash(), &q));
}

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

#[function_component(ScenarioPanel)]
pub fn scenario_panel(props: &ScenarioPanelProps) -> Html {
    let names = props.names.clone();
    let pack = use_context::<PackScenarios>();
    // Initial state: from the URL if it names one of ours, else the first, seed 1.
    let initial = use_memo((), {
        let names = names.clone();
        let (own_url, hold) = (props.url_state, props.hold_at_ms);
        move |_| {
            let none = UrlCursor {
                t_ms: None,
                event: None,
            };
            if !own_url {
                let at = UrlCursor { t_ms: hold, ..none };
                return (names.first().cloned().unwrap_or_default(), 1, at);
            }
            let (s, seed, at) = url_state();
            match s.filter(|s| names.contains(s)) {
                Some(s) => (s, seed.unwrap_or(1), at),
                None => (names.first().cloned().unwrap_or_default(), 1, none),
            }
        }
    });
    let name = use_state(|| initial.0.clone());
    let seed = use_state(|| initial.1);
    // A link's knobs and faults apply to the scenario it names.
    let from_link = {
        let own = props.url_state && url_state().0.as_deref() == Some(initial.0.as_str());
        use_memo((), move |_| {
            if own {
                url_changes()
            } else {
                (Variant::default(), Vec::new())
            }
        })
    };
    let injections = use_state(|| from_link.1.clone());
    let variant = use_state(|| from_link.0.clone());
    // The scenario is parsed once per name, not on every frame of playback.
    let base: Rc<Result<crate::sim::scenario::Scenario, String>> =
        use_memo(((*name).clone(), pack.clone()), |(n, pack)| {
            find(n, pack).unwrap_or_else(|| Err(format!("unknown scenario `{n}`")))
        });
    let model: Rc<Result<Rc<Model>, String>> = use_memo(
        (base.clone(), *seed, (*injections).clone(), (*variant).clone()),
        |(base, seed, inj, variant)| match base.as_ref() {
            Ok(s) => build_with(&variant.apply(s), *seed, inj).map(Rc::new),
            Err(e) => Err(e.clone()),
        },
    );
    // §4's trade-off table reruns the scenario with the learner's knobs but each row's
    // TTL: built once per change, not on every frame of playback.
    let sweep_base: Rc<Option<Rc<crate::sim::scenario::Scenario>>> =
        use_memo((base.clone(), (*variant).clone()), |(base, variant)| {
            base.as_ref()
                .as_ref()
                .ok()
                .filter(|s| !s.sweep_ttl_ms.is_empty())
                .map(|s| {
                    Rc::new(
                        Variant {
                            ttl_ms: None,
                            ..variant.clone()
                        }
                        .apply(s),
                    )
                })
        });
    let embed_cfg = use_context::<Rc<EmbedConfig>>();
    // Side by side: the paired scenario on the same seed, drawn at the same true time.
    let compare = use_state(|| false);
    let other: Rc<Option<Rc<Model>>> = use_memo(((*name).clone(), *seed, *compare), |(n, seed, on)| {
        let other = pair_of(n).filter(|_| *on)?;
        builtin(other)
            .and_then(Result::ok)
            .and_then(|s| build_with(&s, *seed, &[]).ok())
            .map(Rc::new)
    });
    let cursor = use_state(|| 0usize);
    let playing = use_state(|| false);
    // Ids must be unique in the page, and one scenario can be drawn twice (the section's
    // panel and a "what happens next?" question).
    let panel_id = use_memo((), |_| next_panel_id());
    let speed = use_state(|| 1.0f64);
    let zoom = use_state(|| None::<(u64, u64)>);
    // The fingers on the timeline and where their gesture started (see `on_touch`).
    let touch = use_mut_ref(Touch::default);
    let wrap_ref = use_node_ref();
    let seed_input = use_state(String::new);
    // What the learner typed, if it was not a seed (said, not ignored).
    let seed_error = use_state(|| None::<String>);
    let console_out = use_state(Vec::<(String, String)>::new);
    let console_node = use_state(|| None::<u32>);

    // Place the cursor from the URL once the model exists.
    {
        let cursor = cursor.clone();
        let at = initial.2;
        let model = model.clone();
        use_effect_with((), move |_| {
            if let Some(i) = model.as_ref().as_ref().ok().and_then(|m| at.index_in(m)) {
                cursor.set(i);
            }
        });
    }
    // A new run (other scenario, seed or fork) keeps the cursor's time.
    let len = model.as_ref().as_ref().map_or(0, |m| m.trace.len());
    if *cursor >= len && len > 0 {
        cursor.set(len - 1);
    }

    // Playback, event by event, dwelling on each as `pace` says.
    {
        let (cursor, playing, model, hold) =
            (cursor.clone(), playing.clone(), model.clone(), props.hold_at_ms);
        let paced = use_memo(model.clone(), |m| {
            m.as_ref()
                .as_ref()
                .map_or(pace::Pace { scale: 1.0 }, |m| pace::Pace::of(m))
        });
        // Re-armed after every step: the closure must see the cursor it advances from.
        use_effect_with(
            (*playing, *speed, model.clone(), *cursor, hold),
            move |(is_playing, speed, ..)| {
                let timer = model.as_ref().as_ref().ok().filter(|_| *is_playing).map(|m| {
                    let limit = hold.map_or(m.trace.len().saturating_sub(1), |h| m.index_at(h * 1000));
                    let (next, wait) = paced.next(m, *cursor, limit, *speed);
                    Timeout::new(wait, move || {
                        cursor.set(next);
                        if next >= limit {
                            playing.set(false);
                        }
                    })
                });
                move || drop(timer)
            },
        );
    }
    // The first view frames the run's events; then the view follows the cursor.
    {
        let zoom = zoom.clone();
        let framed = model.as_ref().as_ref().ok().and_then(|m| first_view(m));
        use_effect_with((*name).clone(), move |_| zoom.set(framed));
    }
    {
        let zoom = zoom.clone();
        let (end, t) = model.as_ref().as_ref().map_or((0, 0), |m| {
            (m.end_us.max(1), m.trace.get(*cursor).map_or(0, |e| e.t_us))
        });
        use_effect_with(t, move |t| {
            let next = view::follow(*zoom, end, *t);
            if next != *zoom {
                zoom.set(next);
            }
        });
    }

    // Embedding: autoplay (unless the learner prefers less motion), and a host's
    // `goto { step }` moves the cursor.
    {
        let (playing, cursor) = (playing.clone(), cursor.clone());
        let autoplay = embed_cfg.as_ref().is_some_and(|c| c.autoplay) && props.hold_at_ms.is_none();
        use_effect_with((), move |_| {
            if autoplay && !browser::prefers_reduced_motion() {
                playing.set(true);
            }
            let listener = web_sys::window().and_then(|w| w.document()).map(|d| {
                gloo::events::EventListener::new(&d, crate::ui::embed::STEP_EVENT, move |e| {
                    use wasm_bindgen::JsCast;
                    if let Some(step) = e
                        .dyn_ref::<web_sys::CustomEvent>()
                        .and_then(|c| c.detail().as_f64())
                    {
                        playing.set(false);
                        cursor.set(step.max(0.0) as usize);
                    }
                })
            });
            move || drop(listener)
        });
    }

    // A held run that is released plays on by itself: the answer is revealed. A learner
    // who prefers less motion gets the outcome at once instead of an animation.
    {
        let (playing, cursor) = (playing.clone(), cursor.clone());
        let end = model
            .as_ref()
            .as_ref()
            .map_or(0, |m| m.trace.len().saturating_sub(1));
        let was_held = use_mut_ref(|| props.hold_at_ms.is_some());
        use_effect_with(props.hold_at_ms, move |hold| {
            let before = std::mem::replace(&mut *was_held.borrow_mut(), hold.is_some());
            if before && hold.is_none() {
                if browser::prefers_reduced_motion() {
                    cursor.set(end);
                } else {
                    playing.set(true);
                }
            }
        });
    }

    // Keep the URL in step (scenario, seed, cursor: its time and its event).
    let own_url = props.url_state;
    {
        let t_ms = model
            .as_ref()
            .as_ref()
            .ok()
            .and_then(|m| m.trace.get(*cursor))
            .map_or(0, |e| e.t_us / 1000);
        use_effect_with(
            (
                (*name).clone(),
                *seed,
                (t_ms, *cursor),
                *playing,
                (*variant).clone(),
                (*injections).clone(),
            ),
            move |(n, s, at, playing, v, f)| {
                if !*playing && own_url {
                    write_url_state(n, *s, *at, v, f);
                }
            },
        );
    }

    let shows = |c: &str| embed_cfg.as_ref().is_none_or(|cfg| cfg.shows(c));
    let m = match model.as_ref() {
        Ok(m) => m,
        Err(e) => {
            return html! { <div class="scenario error" role="alert">{ format!("This scenario cannot run: {e}") }</div> }
        }
    };
    // The furthest the cursor may go: the end, or the hold point.
    let last = props
        .hold_at_ms
        .map_or(m.trace.len().saturating_sub(1), |h| m.index_at(h * 1000));
    let cur = (*cursor).min(last);
    let t_us = m.trace.get(cur).map_or(0, |e| e.t_us);
    let snap = snapshot(m, cur);
    let view = zoom.unwrap_or((0, m.end_us.max(1)));

    let go = |to: usize| {
        let cursor = cursor.clone();
        let playing = playing.clone();
        Callback::from(move |_| {
            playing.set(false);
            cursor.set(to);
        })
    };
    let on_key = {
        let cursor = cursor.clone();
        let playing = playing.clone();
        Callback::from(move |e: KeyboardEvent| {
            let target = target_tag(&e);
            let space = matches!(e.key().as_str(), " " | "Spacebar");
            // Fields keep their keys; a focused button keeps Space (it presses it).
            if matches!(target.as_str(), "INPUT" | "TEXTAREA" | "SELECT")
                || (target == "BUTTON" && space)
                || e.ctrl_key()
                || e.meta_key()
                || e.alt_key()
            {
                return;
            }
            let c = *cursor;
            match e.key().as_str() {
                " " | "Spacebar" => playing.set(!*playing),
                "ArrowLeft" => cursor.set(c.saturating_sub(1)),
                "ArrowRight" => cursor.set((c + 1).min(last)),
                "Home" => cursor.set(0),
                "End" => cursor.set(last),
                _ => return,
            }
            e.prevent_default();
        })
    };
    let on_scrub = {
        let cursor = cursor.clone();
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            if let Ok(i) = v.parse::<usize>() {
                cursor.set(i.min(last));
            }
        })
    };
    let on_speed = {
        let speed = speed.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            if let Ok(x) = v.parse::<f64>() {
                speed.set(x);
            }
        })
    };
    let on_scenario = {
        let name = name.clone();
        let variant = variant.clone();
        let injections = injections.clone();
        let cursor = cursor.clone();
        let zoom = zoom.clone();
        Callback::from(move |e: Event| {
            name.set(e.target_unchecked_into::<web_sys::HtmlSelectElement>().value());
            injections.set(Vec::new());
            variant.set(Variant::default());
            cursor.set(0);
            zoom.set(None);
        })
    };
    let on_new_seed = {
        let seed = seed.clone();
        let injections = injections.clone();
        Callback::from(move |_| {
            seed.set(browser::random_u64() % 1_000_000_000);
            injections.set(Vec::new());
        })
    };
    let on_seed_input = {
        let seed_input = seed_input.clone();
        Callback::from(move |e: InputEvent| {
            seed_input.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
        })
    };
    let on_seed_submit = {
        let (seed, seed_input, injections, seed_error) = (
            seed.clone(),
            seed_input.clone(),
            injections.clone(),
            seed_error.clone(),
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            match seed_input.trim().parse::<u64>() {
                Ok(s) => {
                    seed.set(s);
                    injections.set(Vec::new());
                    seed_error.set(None);
                }
                Err(_) => seed_error.set(Some(seed_input.trim().to_string())),
            }
        })
    };
    let end_us = m.end_us.max(1);
    let zoom_by = |factor: f64| {
        let zoom = zoom.clone();
        Callback::from(move |_| zoom.set(view::zoom_at(*zoom, end_us, factor, t_us)))
    };
    let pan_by = |dir: f64| {
        let zoom = zoom.clone();
        Callback::from(move |_| zoom.set(view::pan(*zoom, end_us, 0.25 * dir)))
    };
    let on_wheel = {
        let zoom = zoom.clone();
        Callback::from(move |e: WheelEvent| {
            // Only with Ctrl/⌘ (zoom, and a trackpad's pinch) or Shift (pan): a plain
            // wheel keeps scrolling the page.
            if e.ctrl_key() || e.meta_key() {
                e.prevent_default();
                let factor = if e.delta_y() > 0.0 { 1.25 } else { 0.8 };
                zoom.set(view::zoom(*zoom, end_us, factor));
            } else if e.shift_key() && zoom.is_some() {
                e.prevent_default();
                zoom.set(view::pan(*zoom, end_us, 0.1 * e.delta_y().signum()));
            }
        })
    };
    // Touch: two fingers pinch to zoom, one finger drags sideways to pan. The wrap's CSS
    // (`touch-action: pan-y`) leaves vertical scrolling to the page.
    let on_touch = {
        let (zoom, touch, wrap) = (zoom.clone(), touch.clone(), wrap_ref.clone());
        Callback::from(move |e: PointerEvent| {
            if e.pointer_type() != "touch" {
                return;
            }
            let Some(el) = wrap.cast::<web_sys::Element>() else {
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
                from: *zoom,
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
                        if next != *zoom {
                            zoom.set(next);
                        }
                    }
                }
                _ => t.start = Some(now),
            }
        })
    };
    let on_seek_index = {
        let cursor = cursor.clone();
        let playing = playing.clone();
        Callback::from(move |i: usize| {
            playing.set(false);
            cursor.set(i);
        })
    };
    let nodes: Vec<(u32, String)> = m
        .lanes
        .iter()
        .filter(|l| l.kind == crate::timeline::LaneKind::Node)
        .map(|l| (l.pid, l.name.clone()))
        .collect();
    let on_console = {
        let (injections, console_out, console_node) =
            (injections.clone(), console_out.clone(), console_node.clone());
        let first_node = nodes.first().map(|n| n.0);
        let (seed, model) = (*seed, model.clone());
        let scenario = base.as_ref().as_ref().ok().map(|s| variant.apply(s));
        let no_reply = crate::lesson::i18n::Texts::new(props.lang).t("sc_node_no_reply");
        Callback::from(move |line: String| {
            let (Some(node), Some(s), Ok(m)) =
                ((*console_node).or(first_node), scenario.as_ref(), model.as_ref())
            else {
                return;
            };
            let mut out = (*console_out).clone();
            match parse_line(&line) {
                Ok(args) if !args.is_empty() => {
                    // The fork runs now, to read the reply the node gave at the cursor.
                    let run = fork::console_command(s, seed, m, &injections, t_us, node, args);
                    // The words of the one reply the store did not give, in the reader's language.
                    let reply = if run.reply == fork::NOT_RUN {
                        no_reply.clone()
                    } else {
                        run.reply
                    };
                    out.push((line, reply));
                    if let Some((inj, _)) = run.fork {
                        injections.set(inj);
                    }
                }
                Ok(_) => {}
                Err(e) => out.push((line, format!("(error) {e}"))),
            }
            console_out.set(out);
        })
    };
    let on_inject = {
        let injections = injections.clone();
        Callback::from(move |faults: Vec<(u64, Fault)>| {
            let mut inj = (*injections).clone();
            inj.extend(faults);
            injections.set(inj);
        })
    };
    let on_variant = {
        let (variant, cursor, injections) = (variant.clone(), cursor.clone(), injections.clone());
        Callback::from(move |v: Variant| {
            // A knob or script change reruns from the start with the same seed.
            injections.set(Vec::new());
            cursor.set(0);
            variant.set(v);
        })
    };
    let on_counterexample = {
        let (seed, injections, cursor) = (seed.clone(), injections.clone(), cursor.clone());
        Callback::from(move |(s, ops): (u64, Vec<(u64, Fault)>)| {
            seed.set(s);
            injections.set(ops);
            cursor.set(0);
        })
    };
    let on_undo = {
        let (injections, console_out, cursor) = (injections.clone(), console_out.clone(), cursor.clone());
        let (model, unforked) = (
            model.clone(),
            base.as_ref().as_ref().ok().map(|s| variant.apply(s)),
        );
        let seed = *seed;
        Callback::from(move |_| {
            // The run without the fork, at the moment the learner was looking at.
            if let (Ok(m), Some(b)) = (
                model.as_ref(),
                unforked.as_ref().and_then(|s| build(s, seed).ok()),
            ) {
                cursor.set(fork::same_moment(m, cur, &b));
            }
            injections.set(Vec::new());
            console_out.set(Vec::new());
        })
    };
    let on_node = {
        let console_node = console_node.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            console_node.set(v.parse().ok());
        })
    };

    let log: Vec<Html> = m.trace[..=cur.min(last)]
        .iter()
        .rev()
        .take(8)
        .collect::<Vec<_>>()
        .into_iter()
        .rev()
        .map(|e| {
            // The events the story is made of stand out among the mechanics.
            if words::is_key_event(&e.kind) {
                html! { <li class="ev-key"><strong>{ describe(m, e, props.lang) }</strong></li> }
            } else {
                html! { <li>{ describe(m, e, props.lang) }</li> }
            }
        })
        .collect();
    let story: Vec<Html> = words::story(m, cur.min(last), 8, props.lang)
        .into_iter()
        .map(|line| html! { <li>{ line }</li> })
        .collect();
    let bands: Vec<Html> = m
        .bands
        .iter()
        .map(|b| html! { <li class="violation-text">{ format!("⚠ {}", band_sentence(b, props.lang)) }</li> })
        .collect();
    // The panel's own words in the reader's language, the icon buttons' names too.
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    let log_id = format!("log-{}-{}", *name, *panel_id);
    let cluster_id = format!("cluster-{}-{}", *name, *panel_id);
    // Several events can share a time: the slider says which one it is on, as the text does.
    let cursor_text = tx.fmt(
        "sc_cursor",
        &[
            ("ms", format!("{:.1}", t_us as f64 / 1000.0)),
            ("n", (cur + 1).to_string()),
            ("total", m.trace.len().to_string()),
        ],
    );
    let selected_node = (*console_node).or(nodes.first().map(|n| n.0));

    html! {
        <section class="scenario" aria-label={format!("{} {}", tx.t("sc_scenario"), *name)} onkeydown={on_key} data-scenario={(*name).clone()}>
            <div class="scenario-head">
                if names.len() > 1 {
                    <label>{ format!("{} ", tx.t("sc_scenario")) }
                        <select onchange={on_scenario} aria-label={tx.t("sc_scenario")}>
                            { for names.iter().map(|n| html! { <option value={n.clone()} selected={*n == *name}>{ n.clone() }</option> }) }
                        </select>
                    </label>
                } else {
                    <strong class="scenario-name">{ (*name).clone() }</strong>
                }
                <span class="seed">{ tx.fmt("sc_seed", &[("seed", seed.to_string())]) }</span>
                if shows("seed") {
                    <button type="button" onclick={on_new_seed}>{ tx.t("sc_new_seed") }</button>
                    <form class="seed-form" onsubmit={on_seed_submit}>
                        <label>{ format!("{} ", tx.t("sc_seed_label")) }<input type="text" inputmode="numeric" size="10" aria-label={tx.t("sc_type_seed")} value={(*seed_input).clone()} oninput={on_seed_input} /></label>
                        <button type="submit">{ tx.t("sc_use_seed") }</button>
                    </form>
                    if let Some(bad) = &*seed_error { <span class="hint seed-error" role="alert">{ tx.fmt("sc_bad_seed", &[("seed", bad.clone())]) }</span> }
                }
                if !injections.is_empty() {
                    <button type="button" class="undo-fork" onclick={on_undo}>{ tx.fmt("sc_undo_fork", &[("n", injections.len().to_string())]) }</button>
                }
            </div>
            if let Some(d) = base.as_ref().as_ref().ok().map(|s| s.description_in(props.lang.code()).to_string()).filter(|d| !d.is_empty()) {
                <p class="scenario-desc">{ d }</p>
            }
            // A named group, not a toolbar: each control is its own Tab stop, where a
            // toolbar would promise one stop with the arrow keys moving inside it.
            <div class="controls" role="group" aria-label={tx.t("sc_playback")}>
                if shows("step") {
                    <button type="button" aria-label={tx.t("sc_go_start")} onclick={go(0)}>{"⇤"}</button>
                    <button type="button" aria-label={tx.t("sc_step_back")} onclick={go(cur.saturating_sub(1))}>{"◀"}</button>
                }
                if !shows("play") {
                } else if *playing {
                    <button type="button" class="play" aria-label={tx.t("sc_pause")} onclick={{ let p = playing.clone(); Callback::from(move |_| p.set(false)) }}>{"❚❚"}</button>
                } else {
                    <button type="button" class="play" aria-label={tx.t("sc_play")} onclick={{ let p = playing.clone(); let c = cursor.clone(); Callback::from(move |_| { if *c >= last { c.set(0); } p.set(true) }) }}>{"▶"}</button>
                }
                if shows("step") {
                    <button type="button" aria-label={tx.t("sc_step_forward")} onclick={go((cur + 1).min(last))}>{"▶|"}</button>
                    <button type="button" aria-label={tx.t("sc_go_end")} onclick={go(last)}>{"⇥"}</button>
                }
                <button type="button" aria-label={tx.t("sc_reset")} onclick={{ let z = zoom.clone(); let c = cursor.clone(); let p = playing.clone(); let f = first_view(m); Callback::from(move |_| { p.set(false); c.set(0); z.set(f); }) }}>{"↺"}</button>
                if shows("speed") {
                    <label class="speed">{ format!("{} ", tx.t("sc_speed")) }
                        <select onchange={on_speed} aria-label={tx.t("sc_speed")}>
                            { for SPEEDS.iter().map(|s| html! { <option value={s.to_string()} selected={(*s - *speed).abs() < 1e-9}>{ format!("{s}×") }</option> }) }
                        </select>
                    </label>
                }
                if shows("zoom") {
                <span class="zoom-buttons">
                    <button type="button" aria-label={tx.t("sc_zoom_in")} onclick={zoom_by(0.5)}>{"+"}</button>
                    <button type="button" aria-label={tx.t("sc_zoom_out")} onclick={zoom_by(2.0)}>{"−"}</button>
                    <button type="button" aria-label={tx.t("sc_pan_left")} onclick={pan_by(-1.0)} disabled={zoom.is_none()}>{"←"}</button>
                    <button type="button" aria-label={tx.t("sc_pan_right")} onclick={pan_by(1.0)} disabled={zoom.is_none()}>{"→"}</button>
                </span>
                }
            </div>
            if shows("scrub") {
                <input class="scrub" type="range" min="0" max={last.to_string()} value={cur.to_string()}
                       aria-label={tx.t("sc_time")} aria-valuetext={cursor_text.clone()} oninput={on_scrub} />
            }
            <p class="cursor-time">{ cursor_text }</p>
            if let Some(other_name) = pair_of(&name) {
                <label class="compare-toggle">
                    <input type="checkbox" checked={*compare} onchange={{ let c = compare.clone(); Callback::from(move |_| c.set(!*c)) }} />
                    { format!(" {}", tx.fmt("sc_side_by_side", &[("other", other_name.to_string())])) }
                </label>
            }
            <div class="timeline-wrap" ref={wrap_ref} onwheel={on_wheel} onpointerdown={on_touch.clone()} onpointermove={on_touch.clone()} onpointerup={on_touch.clone()} onpointercancel={on_touch}>
                <svg::TimelineSvg model={svg::Shared(m.clone())} {t_us} view={view} on_seek={on_seek_index} lang={props.lang} />
            </div>
            if let Some(o) = other.as_ref() {
                <div class="compare">
                    <h3>{ o.scenario.clone() }</h3>
                    <div class="timeline-wrap">
                        <svg::TimelineSvg model={svg::Shared(o.clone())} {t_us} view={view} on_seek={Callback::noop()} lang={props.lang} />
                    </div>
                    <ul class="violations">
                        { for o.bands.iter().map(|b| html! { <li class="violation-text">{ format!("⚠ {}", band_sentence(b, props.lang)) }</li> }) }
                        if o.bands.is_empty() { <li class="safe-text">{ tx.t("sc_no_violation") }</li> }
                    </ul>
                </div>
            }
            if !bands.is_empty() {
                <ul class="violations">{ for bands }</ul>
            } else if !m.truncated {
                // Said, not left to an absent band: after a knob or script change the
                // learner sees that this run is safe.
                <ul class="violations"><li class="safe-text">{ tx.t("sc_no_violation") }</li></ul>
            }
            if let Some(sweep) = sweep_base.as_ref() {
                <tradeoff::TradeoffTable
                    scenario={sweep.clone()}
                    seed={*seed}
                    ttl_ms={variant.ttl_ms.unwrap_or_else(|| sweep.clients.first().map_or(0.0, |c| c.ttl_ms))}
                    on_pick={{ let (v, on) = ((*variant).clone(), on_variant.clone()); Callback::from(move |t: f64| on.emit(Variant { ttl_ms: Some(t), ..v.clone() })) }}
                    lang={props.lang} />
            }
            <div class="scenario-side">
                // A `<div>` may not carry a name (aria-label); the group takes its heading's.
                <div class="cluster" role="group" aria-labelledby={cluster_id.clone()}>
                    <h3 id={cluster_id}>{ tx.t("sc_at_cursor") }</h3>
                    <ul class="cluster-clients">
                        { for snap.clients.iter().map(|c| html! {
                            <li data-status={c.status}>
                                <strong>{ c.name.clone() }</strong>{": "}{ tx.t(&format!("sc_status_{}", c.status)) }
                                if let Some(t) = &c.token { { format!(", token {t}") } }
                                if let Some(v) = c.validity_left_ms { { tx.fmt("sc_validity", &[("v", v.to_string())]) } }
                            </li>
                        }) }
                    </ul>
                    <ul class="cluster-nodes">
                        { for snap.nodes.iter().map(|n| html! {
                            <li>
                                <strong>{ n.name.clone() }</strong>{": "}{ tx.t(if n.up { "sc_up" } else { "sc_down" }) }
                                if n.clock_offset_ms != 0 { { tx.fmt("sc_clock", &[("offset", format!("{:+}", n.clock_offset_ms))]) } }
                                if n.keys.is_empty() { { tx.t("sc_no_keys") } }
                                { for n.keys.iter().map(|(k, v, left)| html! {
                                    <span class="key">{ format!(" · {k} = {v}{}", left.map(|l| format!(" (PTTL ≈ {l})")).unwrap_or_default()) }</span>
                                }) }
                            </li>
                        }) }
                    </ul>
                    if let Some(r) = &snap.resource {
                        <p class="cluster-resource"><strong>{ r.name.clone() }</strong>
                            { tx.fmt("sc_highest_token", &[("h", r.highest_token.map_or_else(|| tx.t("sc_none"), |h| h.to_string()))]) }
                            { for r.last_writes.iter().map(|w| html! { <span>{ match &w.rejected {
                                None => format!(" · ✓ {}: {}", w.client, w.text),
                                Some(why) => format!(" · ✗ {}: {}: {}", w.client, w.text, words::reason(why, props.lang)),
                            } }</span> }) }
                        </p>
                    }
                </div>
                <div class="story-log">
                    <h3>{ tx.t("sc_story") }</h3>
                    <ol class="story">{ for story }</ol>
                </div>
                <div class="event-log">
                    <h3 id={log_id.clone()}>{ tx.t("sc_events") }</h3>
                    // The live region wraps the list: `role="log"` on the `<ol>` itself
                    // would take away its list semantics.
                    // While playing, the log changes every frame: a screen reader would
                    // read a torrent, so it speaks again once playback stops or steps.
                    <div role="log" aria-live={if *playing { "off" } else { "polite" }} aria-labelledby={log_id}>
                        <ol>{ for log }</ol>
                    </div>
                </div>
            </div>
            if let Some(base) = base.as_ref().as_ref().ok().filter(|_| shows("editor")).cloned() {
                <editor::VariantEditor key={format!("{}-{}", *name, *seed)} {base} seed={*seed} variant={(*variant).clone()} on_change={on_variant} lang={props.lang} />
            }
            if let Some(base) = base.as_ref().as_ref().ok().filter(|_| shows("editor")) {
                <explore::ExplorePanel key={(*name).clone()} scenario={variant.apply(base)} seed={*seed} on_load={on_counterexample} lang={props.lang} />
            }
            if shows("faults") {
                <faults::FaultForm lanes={m.lanes.clone()} {t_us} on_inject={on_inject} lang={props.lang} />
            }
            if !nodes.is_empty() && shows("console") {
                <div class="scenario-console">
                    <h3>{ tx.t("sc_take_over") }</h3>
                    if nodes.len() > 1 {
                        <label>{ format!("{} ", tx.t("sc_node")) }
                            <select onchange={on_node}>
                                { for nodes.iter().map(|(pid, n)| html! { <option value={pid.to_string()} selected={selected_node == Some(*pid)}>{ n.clone() }</option> }) }
                            </select>
                        </label>
                    }
                    <console::ConsoleInput on_line={on_console} history={(*console_out).clone()} lang={props.lang} />
                    <p class="hint">{ tx.t("sc_take_over_hint") }</p>
                </div>
            }
        </section>
    }
}

/// A number no other panel on the page has (the app runs on one thread).
fn next_panel_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}

/// The upper-case tag name of the element a key event is aimed at.
fn target_tag(e: &KeyboardEvent) -> String {
    use wasm_bindgen::JsCast;
    e.target()
        .and_then(|t| t.dyn_into::<web_sys::Element>().ok())
        .map(|t| t.tag_name().to_ascii_uppercase())
        .unwrap_or_default()
}
