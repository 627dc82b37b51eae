//! A live scenario inside a lesson section: the timeline (SVG swimlanes), the controls,
//! the cluster view and event log at the cursor, and a Redis console that forks the run.
//!
//! Everything drawn comes from `crate::timeline::Model`, which comes from the simulator:
//! the panel's first run on the page, the later ones from the engine's worker where the
//! page has it (`hooks::use_runs`).
//! The state and its changes are `crate::timeline::panel` (plain Rust, tested natively);
//! this wraps it in yew's `Reducible`, and each part of the panel is a component of its
//! own that dispatches `PanelAction`s.

mod catalog;
mod cluster;
mod console;
mod controls;
mod editor;
mod explore;
mod faults;
mod head;
mod hooks;
pub use hooks::make_elsewhere;
mod lens;
mod logs;
mod model;
mod plot;
mod svg;
mod takeover;
mod tradeoff;
mod url;

pub use catalog::{pair_of, PackScenarios};
pub use console::ConsoleExercise;
pub use lens::{lens, LensProps};
pub use model::{Handle, PanelModel};
pub use svg::{Shared, TimelineSvg};
pub use ScenarioPanel as Panel;

use crate::lesson::content::Lang;
use crate::lesson::embed::EmbedConfig;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::panel::{PanelAction, PanelState, RunsIn};
use crate::timeline::Variant;
use crate::ui::browser;
use catalog::find;
use std::rc::Rc;
use yew::prelude::*;

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

/// The panel as it opens: the scenario the URL names if it is one of ours, else the
/// first, seed 1. Every run is made in the engine's worker, the first too.
fn opening(names: &[String], own_url: bool, hold: Option<u64>, pack: &Option<PackScenarios>) -> PanelModel {
    let open = url::opening(names, own_url, hold);
    let base = find(&open.name, pack).unwrap_or_else(|| Err(format!("unknown scenario `{}`", open.name)));
    // At the hand-over from the prerendered page the panel takes the run made ahead of
    // time from the same job at build time (`e2e/prerender.mjs`), so it shows at once
    // what the snapshot showed; for a run too long to ship (§4's) it shows the
    // snapshot's own drawing until the worker's run comes.
    let at = (open.at.t_ms, open.at.event);
    let state = PanelState::opening_elsewhere(open.name, base, open.seed, open.changes, hold, at);
    let handing_over = !browser::app_started() && !browser::prerendering();
    let ahead = handing_over
        .then(|| state.pending.as_ref().and_then(|p| hooks::made_ahead(&p.job)))
        .flatten();
    let snapshot = (handing_over && ahead.is_none())
        .then(|| browser::take_panel_snapshot(&state.name))
        .flatten()
        .map(AttrValue::from);
    PanelModel {
        ahead: ahead.is_some(),
        state: match ahead {
            Some(answer) => state.answered_now(answer),
            None => state,
        },
        version: 0,
        snapshot,
    }
}

#[function_component(ScenarioPanel)]
pub fn scenario_panel(props: &ScenarioPanelProps) -> Html {
    let pack = use_context::<PackScenarios>();
    let embed_cfg = use_context::<Rc<EmbedConfig>>();
    // Opened from the URL if it names one of ours, else the first, seed 1; run once.
    let panel = use_reducer({
        let pack = pack.clone();
        let (names, own_url, hold) = (props.names.clone(), props.url_state, props.hold_at_ms);
        move || opening(&names, own_url, hold, &pack)
    });
    // Ids must be unique in the page, and one scenario can be drawn twice (the section's
    // panel and a "what happens next?" question).
    let panel_id = *use_memo((), |_| next_panel_id());
    hooks::use_runs(&panel);
    hooks::use_playback(&panel);
    let autoplay = embed_cfg.as_ref().is_some_and(|c| c.autoplay) && props.hold_at_ms.is_none();
    hooks::use_embed(&panel, autoplay);
    hooks::use_hold(&panel, props.hold_at_ms);
    hooks::use_url_sync(&panel, props.url_state);
    use_follow_links(&panel, props.names.clone(), props.url_state, pack.clone());
    let s = &panel.state;
    // §4's trade-off table reruns the scenario with the learner's knobs but each row's
    // TTL: built once per change, not on every frame of playback.
    let sweep_base: Rc<Option<Rc<crate::sim::scenario::Scenario>>> = {
        let base = s.base.clone();
        use_memo((s.name.clone(), s.variant.clone()), move |(_, variant)| {
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
        })
    };

    let shows = |c: &str| embed_cfg.as_ref().is_none_or(|cfg| cfg.shows(c));
    let m = match s.model.as_ref() {
        Ok(m) => m,
        // Its first run is on its way from the engine's worker: the prerendered page's
        // drawing of it meanwhile (inert: it does not answer yet), or a word.
        Err(_) if s.running() => {
            if let Some(snapshot) = &panel.snapshot {
                return html! {
                    <div class="scenario-snapshot" inert="" aria-busy="true">
                        { Html::from_html_unchecked(snapshot.clone()) }
                    </div>
                };
            }
            return html! {
                <section class="scenario scenario-opening" aria-busy="true" data-scenario={s.name.clone()}
                    aria-label={format!("{} {}", Texts::new(props.lang).t(k::SC_SCENARIO), s.base.as_ref().as_ref().ok().map_or(s.name.as_str(), |b| b.title_in(props.lang.code())))}>
                    <p class="hint" role="status">{ Texts::new(props.lang).t(k::SC_RUNNING) }</p>
                </section>
            };
        }
        Err(e) => {
            let why = crate::ui::engine_worker::in_words(Texts::new(props.lang), e);
            let said = Texts::new(props.lang).fmt(k::SC_CANNOT_RUN, &[("why", why)]);
            return html! { <div class="scenario error" role="alert">{ said }</div> };
        }
    };
    let on_key = {
        let (panel, cursor, last) = (panel.clone(), s.cursor, s.last());
        Callback::from(move |e: KeyboardEvent| {
            if let Some(a) = controls::key_action(&e, cursor, last) {
                e.prevent_default();
                panel.dispatch(a);
            }
        })
    };
    let on_variant = dispatch_with(&panel, PanelAction::SetVariant);
    let lang = props.lang;
    let tx = Texts::new(lang);
    let base = s.base.as_ref().as_ref().ok().filter(|_| shows("editor"));
    let title = s
        .base
        .as_ref()
        .as_ref()
        .ok()
        .map_or_else(|| s.name.clone(), |b| b.title_in(lang.code()).to_string());
    html! {
        <section class="scenario" aria-label={format!("{} {}", tx.t(k::SC_SCENARIO), title)} onkeydown={on_key} data-scenario={s.name.clone()}
            aria-busy={s.running().then_some("true")} data-made-in={match s.made_in { RunsIn::Here => "page", RunsIn::Elsewhere if panel.ahead && s.runs == 1 => "build", RunsIn::Elsewhere => "worker" }}>
            { head::head(&head::HeadProps { panel: panel.clone(), pack: pack.clone(), names: props.names.clone(), seeds: shows("seed"), lang }) }
            if let Some(d) = s.base.as_ref().as_ref().ok().map(|b| b.description_in(lang.code()).to_string()).filter(|d| !d.is_empty()) {
                <p class="scenario-desc">{ d }</p>
            }
            { controls::controls(&controls::ControlsProps { panel: panel.clone(), step: shows("step"), play: shows("play"), speed: shows("speed"), zoom: shows("zoom"), scrub: shows("scrub"), lang }) }
            <plot::Plot panel={panel.clone()} {lang} />
            if let Some(sweep) = sweep_base.as_ref() {
                <tradeoff::TradeoffTable
                    scenario={sweep.clone()}
                    seed={s.seed}
                    ttl_ms={s.variant.ttl_ms.unwrap_or_else(|| sweep.clients.first().map_or(0.0, |c| c.ttl_ms))}
                    on_pick={{ let v = s.variant.clone(); dispatch_with(&panel, move |t| PanelAction::SetVariant(Variant { ttl_ms: Some(t), ..v.clone() })) }}
                    {lang} />
            }
            <div class="scenario-side">
                { cluster::cluster(&cluster::ClusterProps { panel: panel.clone(), panel_id, lang }) }
                { logs::logs(&logs::LogsProps { panel: panel.clone(), panel_id, lang }) }
            </div>
            if let Some(base) = base.cloned() {
                <editor::VariantEditor key={format!("{}-{}", s.name, s.seed)} {base} seed={s.seed} variant={s.variant.clone()} on_change={on_variant} {lang} />
            }
            if let Some(base) = base {
                <explore::ExplorePanel key={s.name.clone()} scenario={s.variant.apply(base)} seed={s.seed} on_load={dispatch_with(&panel, |(seed, faults)| PanelAction::Counterexample { seed, faults })} {lang} />
            }
            if shows("faults") {
                <faults::FaultForm lanes={m.lanes.clone()} t_us={s.t_us()} on_inject={dispatch_with(&panel, PanelAction::Inject)} {lang} />
            }
            if shows("console") {
                { takeover::take_over(&takeover::TakeOverProps { panel: panel.clone(), lang }) }
            }
        </section>
    }
}

/// A link to a moment followed while the panel is open (a "step by step" line, a
/// link in the text): the panel goes there at once, as a fresh visit of the link would.
/// Only the panel that owns the URL follows, and only to a scenario it offers.
#[hook]
fn use_follow_links(panel: &Handle, names: Vec<String>, own_url: bool, pack: Option<PackScenarios>) {
    let dispatch = panel.dispatcher();
    use_effect_with((names, own_url), move |(names, own_url)| {
        let names = names.clone();
        let listener = web_sys::window().filter(|_| *own_url).map(|w| {
            gloo::events::EventListener::new(&w, "hashchange", move |_| {
                let Some(open) = url::followed(&names) else {
                    return;
                };
                let base = find(&open.name, &pack)
                    .unwrap_or_else(|| Err(format!("unknown scenario `{}`", open.name)));
                let (variant, injections) = open.changes;
                dispatch.dispatch(PanelAction::FollowLink {
                    name: open.name,
                    base: Rc::new(base),
                    seed: open.seed,
                    variant,
                    injections,
                    t_ms: open.at.t_ms,
                    event: open.at.event,
                });
            })
        });
        move || drop(listener)
    });
}

/// A callback that dispatches what `f` makes of its value.
fn dispatch_with<T: 'static>(panel: &Handle, f: impl Fn(T) -> PanelAction + 'static) -> Callback<T> {
    let panel = panel.clone();
    Callback::from(move |x| panel.dispatch(f(x)))
}

/// A number no other panel on the page has (the app runs on one thread).
fn next_panel_id() -> u32 {
    use std::sync::atomic::{AtomicU32, Ordering};
    static NEXT: AtomicU32 = AtomicU32::new(1);
    NEXT.fetch_add(1, Ordering::Relaxed)
}
