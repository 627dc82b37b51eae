//! "Can this break?": the simulator's explorer, run in batches in the page's engine
//! worker (`ui::engine_worker`), so the page stays responsive, with a progress bar and a
//! cancel button. The smallest counterexample found can be loaded into the timeline.

use crate::calls::{Answer, Request};
use crate::lesson::i18n::k;
use crate::sim::explore::{wilson, BatchSummary, Smallest, BATCH_TRIALS};
use crate::sim::scenario::Scenario;
use crate::sim::Fault;
use crate::sim::Property;
use crate::ui::engine_worker::{self, Job};
use crate::vecmap::VecMap;
use gloo::timers::callback::Timeout;
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

const TRIALS: u64 = 200;
/// The engine's worker starts this long after the panel is shown: after the page's own
/// start, well before a learner reads down to the button.
const WARM_AFTER_MS: u32 = 1500;
const BATCHES: u64 = TRIALS / BATCH_TRIALS;

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
    by_property: VecMap<Property, u64>,
    /// Trials with violations the resource absorbed (not broken).
    absorbed: u64,
    running: bool,
    smallest: Option<Rc<Smallest>>,
    error: Option<String>,
    /// Where the batches ran: "worker" (the engine's worker), or "" before any.
    ran_in: &'static str,
}

impl PartialEq for Progress {
    fn eq(&self, o: &Self) -> bool {
        self.done == o.done
            && self.violating == o.violating
            && self.by_property == o.by_property
            && self.absorbed == o.absorbed
            && self.running == o.running
            && self.error == o.error
            && self.ran_in == o.ran_in
    }
}

#[function_component(ExplorePanel)]
pub fn explore_panel(props: &ExploreProps) -> Html {
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    let progress = use_state(Progress::default);
    let cancel = use_mut_ref(|| false);
    // The session's run in the page's engine worker; dropped, it is cancelled.
    let job = use_mut_ref(|| None::<Job>);
    // The worker starts (and loads the engine) a moment after the panel is shown, or when
    // the pointer or the keyboard reaches the button, so it is ready by the click. A
    // panel taken off the page cancels its run (the worker's answers hold the session).
    {
        let job = job.clone();
        use_effect_with((), move |_| {
            let t = Timeout::new(WARM_AFTER_MS, engine_worker::warm);
            move || {
                drop(t);
                drop(job.borrow_mut().take());
            }
        });
    }
    let warm = Callback::from(|_: ()| engine_worker::warm());

    let on_start = {
        let (progress, cancel, job) = (progress.clone(), cancel.clone(), job.clone());
        let (scenario, seed) = (props.scenario.clone(), props.seed);
        Callback::from(move |_| {
            *cancel.borrow_mut() = false;
            let state = Rc::new(RefCell::new(Progress {
                running: true,
                ..Progress::default()
            }));
            progress.set(state.borrow().clone());
            Session {
                state,
                scenario: Rc::new(scenario.clone()),
                seed,
                view: progress.clone(),
                cancel: cancel.clone(),
                job: job.clone(),
            }
            .start();
        })
    };
    let on_cancel = {
        let (cancel, progress, job) = (cancel.clone(), progress.clone(), job.clone());
        Callback::from(move |_| {
            *cancel.borrow_mut() = true;
            // The worker stops before its next batch; its answers are no longer heard.
            job.borrow_mut().take();
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
        <div class="explore" data-ran-in={(!p.ran_in.is_empty()).then_some(p.ran_in)}>
            <h3>{ tx.t(k::EXPLORE_TITLE) }</h3>
            <p class="hint">{ tx.fmt(k::EXPLORE_HINT, &[("trials", TRIALS.to_string())]) }</p>
            if p.running {
                <progress max={TRIALS.to_string()} value={p.done.to_string()} aria-label={tx.t(k::EXPLORE_TRIALS_RUN)}></progress>
                <button type="button" class="explore-cancel" onclick={on_cancel}>{ tx.t(k::EXPLORE_CANCEL) }</button>
            } else {
                <button type="button" class="explore-start" onclick={on_start}
                    onpointerenter={warm.reform(|_: PointerEvent| ())} onfocus={warm.reform(|_: FocusEvent| ())}>{ tx.t(if p.done == 0 { k::EXPLORE_TITLE } else { k::EXPLORE_AGAIN }) }</button>
            }
            if p.done > 0 {
                <p class="explore-result" role="status">
                    { tx.fmt(k::EXPLORE_RESULT, &[
                        ("broke", p.violating.to_string()),
                        ("done", p.done.to_string()),
                        ("pct", format!("{:.1}", 100.0 * p.violating as f64 / p.done as f64)),
                        ("lo", format!("{:.1}", 100.0 * lo)),
                        ("hi", format!("{:.1}", 100.0 * hi)),
                    ]) }
                    if let Some(c) = &p.smallest {
                        { format!(" {}", tx.fmt(k::EXPLORE_SMALLEST, &[("seed", c.seed.to_string()), ("faults", if c.faults.is_empty() { tx.t(k::EXPLORE_NO_FAULT) } else { fault_list(c, props.lang) })])) }
                        { format!(" {}", tx.fmt(k::EXPLORE_IT_BREAKS, &[("what", c.broken.iter().map(|p| tx.t_named(&format!("prop_{}", p.kind()))).collect::<Vec<_>>().join(", "))])) }
                    }
                </p>
                if !p.by_property.is_empty() || p.absorbed > 0 {
                    <ul class="explore-properties">
                        { for p.by_property.iter().map(|(prop, n)| html! {
                            <li data-property={prop.kind().as_str()}>{ tx.fmt(k::EXPLORE_PROPERTY, &[("n", n.to_string()), ("what", tx.t_named(&format!("prop_{}", prop.kind())))]) }</li>
                        }) }
                        if p.absorbed > 0 {
                            <li data-property="absorbed">{ tx.fmt(k::EXPLORE_ABSORBED, &[("n", p.absorbed.to_string())]) }</li>
                        }
                    </ul>
                }
                if p.smallest.is_some() && !p.running {
                    <button type="button" class="explore-load" onclick={on_load}>{ tx.t(k::EXPLORE_LOAD) }</button>
                }
            }
            if let Some(e) = &p.error { <p class="hint" role="alert">{ crate::ui::engine_worker::in_words(tx, e) }</p> }
        </div>
    }
}

/// One "Can this break?" session: [`BATCHES`] batches of the explorer, in the engine's
/// worker when it runs, on the page (a batch between two frames) when it does not.
/// Either way batch `b` is `sim::explore::explore_batch(scenario, seed, b)`, so the
/// result does not depend on where it ran.
#[derive(Clone)]
struct Session {
    state: Rc<RefCell<Progress>>,
    scenario: Rc<Scenario>,
    seed: u64,
    view: UseStateHandle<Progress>,
    cancel: Rc<RefCell<bool>>,
    job: Rc<RefCell<Option<Job>>>,
}

impl Session {
    fn start(self) {
        let request = Request::Explore {
            scenario: (*self.scenario).clone(),
            seed: self.seed,
            batches: BATCHES as u32,
        };
        let (heard, failed) = (self.clone(), self.clone());
        let job = engine_worker::submit(&request, move |v| heard.heard(v), move || failed.worker_failed());
        match job {
            Some(job) => *self.job.borrow_mut() = Some(job),
            None => self.worker_failed(),
        }
    }

    /// An answer from the engine's worker.
    fn heard(&self, m: &engine_worker::Message) {
        if *self.cancel.borrow() {
            return;
        }
        if m.is_done() {
            return drop(self.job.borrow_mut().take());
        }
        match (m.answer(), m.error()) {
            (Some(Answer::Batch { report, .. }), _) => self.absorb(Ok(report)),
            // The explorer's own error (the scenario cannot run): shown.
            (Some(Answer::Error(why)), _) | (None, Some(why)) => {
                self.job.borrow_mut().take();
                self.absorb(Err(why));
            }
            _ => self.worker_failed(),
        }
    }

    /// The worker did not start or broke: the session ends with that said.
    fn worker_failed(&self) {
        self.job.borrow_mut().take();
        if *self.cancel.borrow() || !self.state.borrow().running {
            return;
        }
        self.absorb(Err(crate::timeline::panel::NO_ENGINE.to_string()));
    }

    /// Add one batch's result (or the explorer's error) and show it.
    fn absorb(&self, r: Result<BatchSummary, String>) {
        {
            let mut s = self.state.borrow_mut();
            s.ran_in = "worker";
            match r {
                Ok(r) => {
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
                    s.error = Some(e);
                    s.running = false;
                }
            }
            if s.done >= TRIALS || s.error.is_some() {
                s.running = false;
            }
        }
        self.view.set(self.state.borrow().clone());
    }
}

/// The counterexample's faults in the reader's language (the explorer's English labels
/// for English, and for any shape `words` does not know).
fn fault_list(c: &Smallest, lang: crate::lesson::content::Lang) -> String {
    c.faults
        .iter()
        .map(|u| {
            if lang == crate::lesson::content::Lang::En {
                u.label.clone()
            } else {
                crate::timeline::words::fault_unit(&c.names, &u.ops, lang).unwrap_or_else(|| u.label.clone())
            }
        })
        .collect::<Vec<_>>()
        .join(", ")
}
