//! §4's trade-off table: the scenario rerun once per TTL of its `sweep_ttl_ms`, with
//! the overlaps, the stale writes, the jobs done and how long the lock stayed stuck
//! after the crash.
//! A slider (and a button per row) picks the TTL the timeline above shows.
//!
//! The rows are computed in the page's engine worker (`ui::engine_worker`, one per page),
//! so the page never waits for them: row `i` is `sim::sweep::ttl_point(scenario, seed,
//! ttls[i])`.

use crate::calls::{Answer, Request};
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::sim::scenario::Scenario;
use crate::sim::sweep::TtlPoint;
use crate::ui::engine_worker::{self, Job};
use std::cell::RefCell;
use std::rc::Rc;
use yew::prelude::*;

/// The table once computed (or the simulator's error), and where: "worker" or "page".
type Rows = Option<(Result<Vec<TtlPoint>, String>, &'static str)>;

#[derive(Properties, PartialEq)]
pub struct TradeoffProps {
    /// The scenario with the learner's other knobs applied (its TTL is replaced per row).
    pub scenario: Rc<Scenario>,
    pub seed: u64,
    /// The TTL the timeline shows now.
    pub ttl_ms: f64,
    pub on_pick: Callback<f64>,
    /// The language of its caption, headings and cells.
    pub lang: Lang,
}

#[function_component(TradeoffTable)]
pub fn tradeoff_table(props: &TradeoffProps) -> Html {
    let ttls = props.scenario.sweep_ttl_ms.clone();
    // Seven runs of twenty workers: computed off the page (or after the first paint, a
    // row per task), never during a render. A new scenario or seed drops the old sweep.
    let rows = use_state(|| None as Rows);
    {
        let rows = rows.clone();
        let (scenario, seed) = (props.scenario.clone(), props.seed);
        use_effect_with((scenario, seed), move |(scenario, seed)| {
            rows.set(None);
            let sweep = Sweep::start(scenario.clone(), *seed, rows);
            move || drop(sweep)
        });
    }
    let at = ttls
        .iter()
        .position(|t| (*t - props.ttl_ms).abs() < 0.5)
        .unwrap_or_else(|| nearest(&ttls, props.ttl_ms));
    let on_slide = {
        let (ttls, on_pick) = (ttls.clone(), props.on_pick.clone());
        Callback::from(move |e: InputEvent| {
            let v = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            if let Some(t) = v.parse::<usize>().ok().and_then(|i| ttls.get(i)) {
                on_pick.emit(*t);
            }
        })
    };
    let slider_text = format!("TTL {} ms", fmt(props.ttl_ms));
    let tx = Texts::new(props.lang);
    let caption = tx.fmt(k::TT_CAPTION, &[("seed", props.seed.to_string())]);
    let ran_in = rows.as_ref().map(|(_, at)| *at);
    html! {
        <div class="tradeoff" data-ran-in={ran_in}>
            <label class="ttl-slider">{ format!("{slider_text} ") }
                <input type="range" min="0" max={ttls.len().saturating_sub(1).to_string()} step="1"
                    value={at.to_string()} aria-valuetext={slider_text.clone()} oninput={on_slide} />
            </label>
            { match rows.as_ref().map(|(r, _)| r) {
                None => html! { <p class="hint" role="status">{ tx.t(k::TT_COMPARING) }</p> },
                Some(Err(e)) => html! { <p class="hint" role="alert">{ tx.fmt(k::TT_FAILED, &[("error", crate::ui::engine_worker::in_words(tx, e))]) }</p> },
                Some(Ok(rows)) => html! {
                    // Wider than a phone: it scrolls on its own (and can be scrolled with
                    // the keyboard), so the page never scrolls sideways (WCAG 1.4.10).
                    <div class="table-scroll" role="region" tabindex="0" aria-label={caption.clone()}>
                    <table class="tradeoff-table">
                        <caption>{ caption.clone() }</caption>
                        <thead><tr>
                            <th scope="col">{ tx.t(k::KNOB_TTL) }</th>
                            <th scope="col">{ tx.t(k::TT_OVERLAPS) }</th>
                            <th scope="col">{ tx.t(k::TT_STALE_WRITES) }</th>
                            <th scope="col">{ tx.t(k::TT_JOBS) }</th>
                            <th scope="col">{ tx.t(k::TT_STUCK) }</th>
                            <th scope="col"><span class="visually-hidden">{ tx.t(k::TT_SHOW) }</span></th>
                        </tr></thead>
                        <tbody>
                            { for rows.iter().map(|r| {
                                let current = (r.ttl_ms - props.ttl_ms).abs() < 0.5;
                                let pick = { let (t, p) = (r.ttl_ms, props.on_pick.clone()); Callback::from(move |_| p.emit(t)) };
                                html! {
                                    <tr class={classes!(current.then_some("current"))} aria-current={current.then_some("true")}>
                                        <th scope="row">{ fmt(r.ttl_ms) }</th>
                                        <td class={classes!("overlaps", (r.overlaps > 0).then_some("bad"))}>{ r.overlaps }</td>
                                        <td class={classes!("stale-writes", (r.stale_writes > 0).then_some("bad"))}>{ r.stale_writes }</td>
                                        <td>{ r.jobs }</td>
                                        <td>{ stuck(r, tx) }</td>
                                        <td><button type="button" onclick={pick} disabled={current}
                                            aria-label={tx.fmt(k::TT_SHOW_TTL, &[("ttl", fmt(r.ttl_ms))])}>{ tx.t(k::TT_SHOW) }</button></td>
                                    </tr>
                                }
                            }) }
                        </tbody>
                    </table>
                    </div>
                },
            } }
        </div>
    }
}

/// One computation of the table: the rows come from the page's engine worker. Dropped (a
/// new seed, the section left), it stops: the worker's job is cancelled.
struct Sweep {
    scenario: Rc<Scenario>,
    done: RefCell<Vec<TtlPoint>>,
    rows: UseStateHandle<Rows>,
    job: RefCell<Option<Job>>,
}

impl Sweep {
    fn start(scenario: Rc<Scenario>, seed: u64, rows: UseStateHandle<Rows>) -> Rc<Sweep> {
        let sweep = Rc::new(Sweep {
            scenario,
            done: RefCell::new(Vec::new()),
            rows,
            job: RefCell::new(None),
        });
        let request = Request::Sweep {
            scenario: (*sweep.scenario).clone(),
            seed,
            ttls: sweep.scenario.sweep_ttl_ms.clone(),
        };
        let (heard, failed) = (Rc::downgrade(&sweep), Rc::downgrade(&sweep));
        let job = engine_worker::submit(
            &request,
            move |v| {
                if let Some(s) = heard.upgrade() {
                    s.heard(v);
                }
            },
            move || {
                if let Some(s) = failed.upgrade() {
                    s.worker_failed();
                }
            },
        );
        match job {
            Some(job) => *sweep.job.borrow_mut() = Some(job),
            None => sweep.finish(Err(crate::timeline::panel::NO_ENGINE.to_string())),
        }
        sweep
    }

    /// The worker's answer: a row, the end, or the simulator's error.
    fn heard(self: &Rc<Self>, m: &engine_worker::Message) {
        if m.is_done() {
            return;
        }
        match (m.answer(), m.error()) {
            (Some(Answer::Row { index, row }), _) if index as usize == self.done.borrow().len() => {
                self.add(row)
            }
            (Some(Answer::Error(why)), _) | (None, Some(why)) => {
                self.finish(Err(why));
            }
            _ => self.worker_failed(),
        }
    }

    /// The worker did not start, broke, or answered nonsense: the table says so.
    fn worker_failed(self: &Rc<Self>) {
        if self.job.borrow_mut().take().is_some() {
            self.finish(Err(crate::timeline::panel::NO_ENGINE.to_string()));
        }
    }

    fn add(self: &Rc<Self>, row: TtlPoint) {
        self.done.borrow_mut().push(row);
        if self.done.borrow().len() == self.scenario.sweep_ttl_ms.len() {
            let rows = self.done.borrow().clone();
            self.finish(Ok(rows));
        }
    }

    /// Shows the table (or the error); the worker's job, done, is forgotten.
    fn finish(&self, r: Result<Vec<TtlPoint>, String>) {
        self.job.borrow_mut().take();
        self.rows.set(Some((r, "worker")));
    }
}

fn nearest(ttls: &[f64], ttl: f64) -> usize {
    ttls.iter()
        .enumerate()
        .min_by(|a, b| (a.1 - ttl).abs().total_cmp(&(b.1 - ttl).abs()))
        .map_or(0, |(i, _)| i)
}

fn fmt(ms: f64) -> String {
    if ms.fract() == 0.0 {
        format!("{ms:.0}")
    } else {
        format!("{ms}")
    }
}

fn stuck(r: &TtlPoint, tx: Texts) -> String {
    match r.stuck_ms {
        None => tx.t(k::TT_NO_CRASH),
        Some(ms) if r.stuck_to_end => tx.fmt(k::TT_UNTIL_END, &[("ms", format!("{ms:.0}"))]),
        Some(ms) => format!("{ms:.0} ms"),
    }
}
