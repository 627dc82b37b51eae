//! "Can this break?": the simulator's explorer, run in small batches between frames so
//! the page stays responsive, with a progress bar and a cancel button. The smallest
//! counterexample found can be loaded into the timeline.

use crate::sim::explore::{explore, wilson, Counterexample, ExploreConfig};
use crate::sim::scenario::Scenario;
use crate::sim::Fault;
use crate::sim::Property;
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use std::collections::BTreeMap;
use std::rc::Rc;
use yew::prelude::*;

/// Trials per batch (one batch runs between two frames).
const BATCH: u64 = 10;
const TRIALS: u64 = 200;

#[derive(Properties, PartialEq)]
pub struct ExploreProps {
    pub scenario: Scenario,
    pub seed: u64,
    /// Load a counterexample: (sim seed, faults at true times).
    pub on_load: Callback<(u64, Vec<(u64, Fault)>)>,
    pub lang: crate::lesson::content::Lang,
}

#[derive(Clone, Default)]
struct Progress {
    done: u64,
    violating: u64,
    /// Per property: the trials that broke it.
    by_property: BTreeMap<Property, u64>,
    /// Trials with violations the resource absorbed (not broken).
    absorbed: u64,
    running: bool,
    smallest: Option<Rc<Counterexample>>,
    error: Option<String>,
}

impl PartialEq for Progress {
    fn eq(&self, o: &Self) -> bool {
        self.done == o.done
            && self.violating == o.violating
            && self.by_property == o.by_property
            && self.absorbed == o.absorbed
            && self.running == o.running
            && self.error == o.error
    }
}

#[function_component(ExplorePanel)]
pub fn explore_panel(props: &ExploreProps) -> Html {
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    let progress = use_state(Progress::default);
    let cancel = use_mut_ref(|| false);
    let timer = use_mut_ref(|| None::<Timeout>);

    let on_start = {
        let (progress, cancel, timer) = (progress.clone(), cancel.clone(), timer.clone());
        let (scenario, seed) = (props.scenario.clone(), props.seed);
        Callback::from(move |_| {
            *cancel.borrow_mut() = false;
            let state = Rc::new(RefCell::new(Progress {
                running: true,
                ..Progress::default()
            }));
            progress.set(state.borrow().clone());
            schedule(
                0,
                state,
                scenario.clone(),
                seed,
                progress.clone(),
                cancel.clone(),
                timer.clone(),
            );
        })
    };
    let on_cancel = {
        let (cancel, timer, progress) = (cancel.clone(), timer.clone(), progress.clone());
        Callback::from(move |_| {
            *cancel.borrow_mut() = true;
            timer.borrow_mut().take();
            progress.set(Progress {
                running: false,
                ..(*progress).clone()
            });
        })
    };
    let p = &*progress;
    let (lo, hi) = wilson(p.violating, p.done.max(1));
    let on_load = {
        let smallest = p.smallest.clone();
        let on_load = props.on_load.clone();
        Callback::from(move |_| {
            if let Some(c) = &smallest {
                let ops = c.faults.iter().flat_map(|u| u.ops.iter().cloned()).collect();
                on_load.emit((c.seed, ops));
            }
        })
    };
    html! {
        <div class="explore">
            <h3>{ tx.t("explore_title") }</h3>
            <p class="hint">{ tx.fmt("explore_hint", &[("trials", TRIALS.to_string())]) }</p>
            if p.running {
                <progress max={TRIALS.to_string()} value={p.done.to_string()} aria-label={tx.t("explore_trials_run")}></progress>
                <button type="button" class="explore-cancel" onclick={on_cancel}>{ tx.t("explore_cancel") }</button>
            } else {
                <button type="button" class="explore-start" onclick={on_start}>{ tx.t(if p.done == 0 { "explore_title" } else { "explore_again" }) }</button>
            }
            if p.done > 0 {
                <p class="explore-result" role="status">
                    { tx.fmt("explore_result", &[
                        ("broke", p.violating.to_string()),
                        ("done", p.done.to_string()),
                        ("pct", format!("{:.1}", 100.0 * p.violating as f64 / p.done as f64)),
                        ("lo", format!("{:.1}", 100.0 * lo)),
                        ("hi", format!("{:.1}", 100.0 * hi)),
                    ]) }
                    if let Some(c) = &p.smallest {
                        { format!(" {}", tx.fmt("explore_smallest", &[("seed", c.seed.to_string()), ("faults", if c.faults.is_empty() { tx.t("explore_no_fault") } else { fault_list(c, props.lang) })])) }
                        { format!(" {}", tx.fmt("explore_it_breaks", &[("what", c.broken.iter().map(|p| tx.t(&format!("prop_{}", p.kind()))).collect::<Vec<_>>().join(", "))])) }
                    }
                </p>
                if !p.by_property.is_empty() || p.absorbed > 0 {
                    <ul class="explore-properties">
                        { for p.by_property.iter().map(|(prop, n)| html! {
                            <li data-property={prop.kind().as_str()}>{ tx.fmt("explore_property", &[("n", n.to_string()), ("what", tx.t(&format!("prop_{}", prop.kind())))]) }</li>
                        }) }
                        if p.absorbed > 0 {
                            <li data-property="absorbed">{ tx.fmt("explore_absorbed", &[("n", p.absorbed.to_string())]) }</li>
                        }
                    </ul>
                }
                if p.smallest.is_some() && !p.running {
                    <button type="button" class="explore-load" onclick={on_load}>{ tx.t("explore_load") }</button>
                }
            }
            if let Some(e) = &p.error { <p class="hint" role="alert">{ e.clone() }</p> }
        </div>
    }
}

#[allow(clippy::too_many_arguments)]
fn schedule(
    batch: u64,
    state: Rc<RefCell<Progress>>,
    scenario: Scenario,
    seed: u64,
    view: UseStateHandle<Progress>,
    cancel: Rc<RefCell<bool>>,
    timer: Rc<RefCell<Option<Timeout>>>,
) {
    let t2 = timer.clone();
    *timer.borrow_mut() = Some(Timeout::new(0, move || {
        if *cancel.borrow() {
            return;
        }
        let cfg = ExploreConfig {
            trials: BATCH,
            seed: seed.wrapping_add(batch.wrapping_mul(0x9E37_79B9)),
        };
        match explore(&scenario, &cfg) {
            Ok(r) => {
                let mut s = state.borrow_mut();
                s.done += r.trials;
                s.violating += r.violating;
                s.absorbed += r.absorbed;
                for (p, n) in r.by_property {
                    *s.by_property.entry(p).or_insert(0) += n;
                }
                if let Some(c) = r.smallest {
                    let better = s
                        .smallest
                        .as_ref()
                        .is_none_or(|b| c.faults.len() < b.faults.len());
                    if better {
                        s.smallest = Some(Rc::new(c));
                    }
                }
            }
            Err(e) => {
                let mut s = state.borrow_mut();
                s.error = Some(e);
                s.running = false;
            }
        }
        let finished = state.borrow().done >= TRIALS || state.borrow().error.is_some();
        if finished {
            state.borrow_mut().running = false;
        }
        view.set(state.borrow().clone());
        if !finished {
            schedule(
                batch + 1,
                state.clone(),
                scenario.clone(),
                seed,
                view.clone(),
                cancel.clone(),
                t2.clone(),
            );
        }
    }));
}

/// The counterexample's faults in the reader's language (the explorer's English labels
/// for English, and for any shape `words` does not know).
fn fault_list(c: &crate::sim::explore::Counterexample, lang: crate::lesson::content::Lang) -> String {
    c.faults
        .iter()
        .zip(&c.fault_labels)
        .map(|(u, label)| {
            if lang == crate::lesson::content::Lang::En {
                label.clone()
            } else {
                crate::timeline::words::fault_unit(&c.names, &u.ops, lang).unwrap_or_else(|| label.clone())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
