//! Knobs and the Lua script editor for a scenario. A change reruns the scenario from the
//! start with the same seed; a script that does not compile, or fails when the nodes run
//! it, is refused with its error at its line, and the run keeps the previous script.

use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Key, Texts};
use crate::sim::scenario::{Algorithm, DelaySpec, LatencySpec, Persistence, Scenario};
use crate::timeline::variant::{self as bounds, first_work, redlock_nodes, Bounds, Knob};
use crate::timeline::{ScriptError, Variant};
use yew::prelude::*;

/// The knob inputs as typed (text until "Rerun with these" parses them).
#[derive(Clone, PartialEq)]
struct KnobText {
    ttl: String,
    drift: String,
    timeout: String,
    retry: String,
    latency: String,
    n: String,
    median: String,
    p99: String,
    /// `none`, `everysec` or `always`: every node's persistence.
    aof: String,
    retries: String,
    jitter: String,
    threshold: String,
}

impl KnobText {
    /// What the run uses now: the variant's knob, else the scenario's own value.
    fn of(base: &Scenario, v: &Variant) -> KnobText {
        let first = base.clients.first();
        let library = base.clients.iter().find(|c| c.algorithm == Algorithm::Library);
        let work = first_work(base);
        let num = |x: Option<f64>| x.map(|x| x.to_string()).unwrap_or_default();
        KnobText {
            ttl: num(v.ttl_ms.or(first.map(|c| c.ttl_ms))),
            drift: num(v.drift_factor.or(first.map(|c| c.drift_factor))),
            timeout: num(v.timeout_ms.or(first.and_then(|c| c.timeout_ms))),
            retry: num(v.retry_delay_ms.or(first.and_then(|c| match c.retry_delay_ms {
                Some(DelaySpec::Fixed(d)) => Some(d),
                _ => None,
            }))),
            latency: num(v.latency_ms.or(match base.network.latency_ms {
                LatencySpec::Fixed(l) => Some(l),
                LatencySpec::Range(_) => None,
            })),
            n: num(v
                .nodes
                .map(f64::from)
                .or(redlock_nodes(base).map(|l| l.len() as f64))),
            median: num(v.work_ms.map(|w| w.0).or(work.map(|w| w.0))),
            p99: num(v.work_ms.map(|w| w.1).or(work.map(|w| w.1))),
            retries: num(v.retries.map(f64::from).or(first.map(|c| {
                f64::from(if c.algorithm == Algorithm::Library {
                    c.retry_count
                } else {
                    c.max_attempts.saturating_sub(1)
                })
            }))),
            jitter: num(v.retry_jitter_ms.or(library.map(|c| c.retry_jitter_ms))),
            threshold: num(v
                .extension_threshold_ms
                .or(library.map(|c| c.extension_threshold_ms))),
            aof: v
                .persistence
                .or(base.nodes.first().map(|n| n.persistence))
                .unwrap_or_default()
                .code()
                .to_string(),
        }
    }
}

/// Parses the knobs; `Err` names the first one out of range.
fn parse_knobs(k: &KnobText, v: &Variant, tx: Texts) -> Result<Variant, String> {
    // A bound as the learner writes a number: Norwegian with a decimal comma (0,5).
    let shown = |x: f64| match tx.lang {
        Lang::Nb => x.to_string().replace('.', ","),
        _ => x.to_string(),
    };
    let opt = |s: &str, b: Bounds, what: Key| -> Result<Option<f64>, String> {
        if s.trim().is_empty() {
            return Ok(None);
        }
        crate::decimal::parse_typed(s)
            .filter(|x| b.contains(*x))
            .map(Some)
            .ok_or_else(|| {
                tx.fmt(
                    k::KNOB_RANGE,
                    &[("what", tx.t(what)), ("lo", shown(b.lo)), ("hi", shown(b.hi))],
                )
            })
    };
    let ttl = opt(&k.ttl, bounds::TTL_MS, Knob::Ttl.label_key())?;
    let drift = opt(&k.drift, bounds::DRIFT_FACTOR, Knob::DriftFactor.label_key())?;
    let timeout = opt(&k.timeout, bounds::TIMEOUT_MS, Knob::Timeout.label_key())?;
    let retry = opt(&k.retry, bounds::RETRY_DELAY_MS, Knob::RetryDelay.label_key())?;
    let latency = opt(&k.latency, bounds::LATENCY_MS, Knob::Latency.label_key())?;
    let n = opt(&k.n, bounds::NODES, Knob::Nodes.label_key())?.map(|n| n.round() as u32);
    let median = opt(&k.median, bounds::WORK_MS, Knob::WorkMedian.label_key())?;
    let p99 = opt(&k.p99, bounds::WORK_MS, Knob::WorkP99.label_key())?;
    let retries = opt(&k.retries, bounds::RETRIES, Knob::Retries.label_key())?.map(|r| r.round() as u32);
    let jitter = opt(&k.jitter, bounds::RETRY_JITTER_MS, Knob::RetryJitter.label_key())?;
    let threshold = opt(
        &k.threshold,
        bounds::EXTENSION_THRESHOLD_MS,
        Knob::ExtensionThreshold.label_key(),
    )?;
    let work_ms = match (median, p99) {
        (Some(m), Some(p)) if p >= m => Some((m, p)),
        (Some(_), Some(_)) => return Err(tx.t(k::KNOB_P99_MEDIAN)),
        _ => None,
    };
    Ok(Variant {
        persistence: Persistence::from_code(&k.aof),
        retries,
        retry_jitter_ms: jitter,
        extension_threshold_ms: threshold,
        ttl_ms: ttl,
        drift_factor: drift,
        timeout_ms: timeout,
        retry_delay_ms: retry,
        latency_ms: latency,
        nodes: n,
        work_ms,
        ..v.clone()
    })
}

#[derive(Properties, PartialEq)]
pub struct VariantEditorProps {
    /// The built-in scenario, before the variant.
    pub base: Scenario,
    pub seed: u64,
    pub variant: Variant,
    pub on_change: Callback<Variant>,
    /// The language of its labels and messages.
    pub lang: Lang,
}

#[derive(Clone, Copy, PartialEq)]
enum Which {
    Release,
    Extend,
}

/// A learner's script compiled, and the scenario run once with it (a script that fails on
/// the nodes is refused too), by the engine: in its worker where the page has one.
async fn checked(check: &crate::calls::ScriptCheck) -> Result<(), ScriptError> {
    match crate::ui::engine_worker::call(crate::calls::Request::ScriptCheck(check.clone())).await {
        Some(crate::calls::Answer::ScriptCheck(r)) => r,
        _ => Err(ScriptError {
            line: None,
            message: crate::timeline::panel::NO_ENGINE.into(),
        }),
    }
}

/// Rerun with the knobs: a knob left at the scenario's own value stays out of the
/// variant (and so out of the link); a mistake is shown, not run.
fn knobs_handler(
    knobs: &UseStateHandle<KnobText>,
    knob_error: &UseStateHandle<Option<String>>,
    props: &VariantEditorProps,
    tx: Texts,
) -> Callback<SubmitEvent> {
    let (knobs, knob_error) = (knobs.clone(), knob_error.clone());
    let (variant, on_change) = (props.variant.clone(), props.on_change.clone());
    let defaults = parse_knobs(
        &KnobText::of(&props.base, &Variant::default()),
        &Variant::default(),
        tx,
    )
    .ok();
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        match parse_knobs(&knobs, &variant, tx) {
            Ok(mut v) => {
                // A knob left at the scenario's own value stays out of the variant
                // (and so out of the link).
                if let Some(d) = &defaults {
                    fn same<T: PartialEq>(x: &mut Option<T>, d: &Option<T>) {
                        if x == d {
                            *x = None;
                        }
                    }
                    same(&mut v.ttl_ms, &d.ttl_ms);
                    same(&mut v.drift_factor, &d.drift_factor);
                    same(&mut v.timeout_ms, &d.timeout_ms);
                    same(&mut v.retry_delay_ms, &d.retry_delay_ms);
                    same(&mut v.latency_ms, &d.latency_ms);
                    same(&mut v.nodes, &d.nodes);
                    same(&mut v.work_ms, &d.work_ms);
                    same(&mut v.persistence, &d.persistence);
                    same(&mut v.retries, &d.retries);
                    same(&mut v.retry_jitter_ms, &d.retry_jitter_ms);
                    same(&mut v.extension_threshold_ms, &d.extension_threshold_ms);
                }
                knob_error.set(None);
                on_change.emit(v);
            }
            Err(msg) => knob_error.set(Some(msg)),
        }
    })
}

/// Apply the edited script: checked first (in the engine), then run.
fn apply_handler(
    draft: &UseStateHandle<String>,
    error: &UseStateHandle<Option<ScriptError>>,
    which: Which,
    props: &VariantEditorProps,
) -> Callback<SubmitEvent> {
    let (draft, error) = (draft.clone(), error.clone());
    let (variant, on_change, base, seed) = (
        props.variant.clone(),
        props.on_change.clone(),
        props.base.clone(),
        props.seed,
    );
    Callback::from(move |e: SubmitEvent| {
        e.prevent_default();
        let src = (*draft).clone();
        let mut next = variant.clone();
        match which {
            Which::Release => next.release_script = Some(src.clone()),
            Which::Extend => next.extend_script = Some(src.clone()),
        }
        let check = crate::calls::ScriptCheck {
            source: src,
            scenario: next.apply(&base),
            seed,
        };
        let (error, on_change) = (error.clone(), on_change.clone());
        wasm_bindgen_futures::spawn_local(async move {
            match checked(&check).await {
                Ok(()) => {
                    error.set(None);
                    on_change.emit(next);
                }
                Err(e) => error.set(Some(e)),
            }
        });
    })
}

/// Back to the scenario as it was: its scripts and knobs.
fn reset_handler(
    draft: &UseStateHandle<String>,
    error: &UseStateHandle<Option<ScriptError>>,
    knobs: &UseStateHandle<KnobText>,
    props: &VariantEditorProps,
) -> Callback<MouseEvent> {
    let (on_change, draft, error, knobs) = (
        props.on_change.clone(),
        draft.clone(),
        error.clone(),
        knobs.clone(),
    );
    let base = props.base.clone();
    Callback::from(move |_| {
        error.set(None);
        draft.set(pretty(&base.scripts.release));
        knobs.set(KnobText::of(&base, &Variant::default()));
        on_change.emit(Variant::default());
    })
}

/// An edit to a script no client runs would silently do nothing: say so, and where the
/// script is used.
fn unused_note(base: &Scenario, which: Which, tx: Texts) -> Option<String> {
    (which == Which::Release && !uses_release_script(base)).then(|| {
        match super::catalog::pair_of(&base.name).filter(|o| {
            crate::sim::scenario::builtin(o)
                .and_then(Result::ok)
                .is_some_and(|s| uses_release_script(&s))
        }) {
            Some(other) => tx.fmt(
                k::SCRIPT_UNUSED,
                &[("other", super::catalog::title_of(other, None, tx.lang))],
            ),
            None => tx.t(k::SCRIPT_UNUSED_ALONE),
        }
    })
}

#[function_component(VariantEditor)]
pub fn variant_editor(props: &VariantEditorProps) -> Html {
    let knobs = use_state(|| KnobText::of(&props.base, &props.variant));
    // A change from outside (the trade-off table's pick, a rerun) shows in the knobs;
    // the editor stays mounted, so an open panel stays open.
    {
        let (knobs, base) = (knobs.clone(), props.base.clone());
        use_effect_with(props.variant.clone(), move |v| knobs.set(KnobText::of(&base, v)));
    }
    let tx = Texts::new(props.lang);
    // Only the knobs that change this scenario's run (`Knob::applies_to`).
    let offered = bounds::knobs(&props.base);
    let which = use_state(|| Which::Release);
    let release_src = props
        .variant
        .release_script
        .clone()
        .unwrap_or_else(|| props.base.scripts.release.clone());
    let extend_src = props
        .variant
        .extend_script
        .clone()
        .unwrap_or_else(|| props.base.scripts.extend.clone());
    let draft = use_state(|| pretty(&release_src));
    let error = use_state(|| None::<ScriptError>);
    let knob_error = use_state(|| None::<String>);

    let on_knobs = knobs_handler(&knobs, &knob_error, props, tx);
    // One text input per knob, bound to its field of `knobs`.
    let knob = |label: Key,
                class: &'static str,
                mode: &'static str,
                get: fn(&KnobText) -> &String,
                set: fn(&mut KnobText, String)| {
        let k = knobs.clone();
        let oninput = Callback::from(move |e: InputEvent| {
            let mut next = (*k).clone();
            set(
                &mut next,
                e.target_unchecked_into::<web_sys::HtmlInputElement>().value(),
            );
            k.set(next);
        });
        html! {
            <label>{ format!("{} ", tx.t(label)) }<input type="text" inputmode={mode} size="7" class={class} value={get(&knobs).clone()} {oninput} /></label>
        }
    };
    let on_aof = {
        let k = knobs.clone();
        Callback::from(move |e: Event| {
            let mut next = (*k).clone();
            next.aof = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            k.set(next);
        })
    };
    let on_pick = {
        let (which, draft) = (which.clone(), draft.clone());
        let (r, x) = (release_src.clone(), extend_src.clone());
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            let w = if v == "extend" {
                Which::Extend
            } else {
                Which::Release
            };
            which.set(w);
            draft.set(pretty(if w == Which::Extend { &x } else { &r }));
        })
    };
    let on_edit = {
        let draft = draft.clone();
        Callback::from(move |e: InputEvent| {
            draft.set(e.target_unchecked_into::<web_sys::HtmlTextAreaElement>().value())
        })
    };
    let on_apply = apply_handler(&draft, &error, *which, props);
    let on_reset = reset_handler(&draft, &error, &knobs, props);
    let lines = draft.lines().count().max(1);
    let err_line = error.as_ref().and_then(|e| e.line);
    let unused = unused_note(&props.base, *which, tx);

    html! {
        <details class="variant-editor">
            <summary>{tx.t(k::KNOBS_SUMMARY)}</summary>
            <form class="knobs" onsubmit={on_knobs}>
                { for offered.iter().map(|&k| match k {
                    Knob::Ttl => knob(k.label_key(), "knob-ttl", "numeric", |k| &k.ttl, |k, v| k.ttl = v),
                    Knob::DriftFactor => knob(k.label_key(), "knob-drift", "decimal", |k| &k.drift, |k, v| k.drift = v),
                    Knob::Timeout => knob(k.label_key(), "knob-timeout", "decimal", |k| &k.timeout, |k, v| k.timeout = v),
                    Knob::RetryDelay => knob(k.label_key(), "knob-retry", "decimal", |k| &k.retry, |k, v| k.retry = v),
                    Knob::Latency => knob(k.label_key(), "knob-latency", "decimal", |k| &k.latency, |k, v| k.latency = v),
                    Knob::Nodes => knob(k.label_key(), "knob-n", "numeric", |k| &k.n, |k, v| k.n = v),
                    Knob::WorkMedian => knob(k.label_key(), "knob-median", "numeric", |k| &k.median, |k, v| k.median = v),
                    Knob::WorkP99 => knob(k.label_key(), "knob-p99", "numeric", |k| &k.p99, |k, v| k.p99 = v),
                    Knob::Retries => knob(k.label_key(), "knob-retries", "numeric", |k| &k.retries, |k, v| k.retries = v),
                    Knob::RetryJitter => knob(k.label_key(), "knob-jitter", "decimal", |k| &k.jitter, |k, v| k.jitter = v),
                    Knob::ExtensionThreshold => knob(k.label_key(), "knob-threshold", "decimal", |k| &k.threshold, |k, v| k.threshold = v),
                    Knob::Persistence => html! {
                        <label>{ format!("{} ", tx.t(k.label_key())) }
                            <select class="knob-aof" onchange={on_aof.clone()}>
                                { for Persistence::ALL.iter().map(|p| html! {
                                    <option value={p.code()} selected={knobs.aof == p.code()}>{ tx.t_named(&format!("knob_aof_{}", p.code())) }</option>
                                }) }
                            </select>
                        </label>
                    },
                }) }
                <button type="submit">{ tx.t(k::KNOB_RERUN) }</button>
                if let Some(e) = &*knob_error { <span class="hint" role="alert">{ e.clone() }</span> }
            </form>
            <form class="script-editor" onsubmit={on_apply}>
                <label>{ tx.t(k::SCRIPT_LABEL) }
                    <select onchange={on_pick}>
                        <option value="release" selected={*which == Which::Release}>{ tx.t(k::SCRIPT_RELEASE) }</option>
                        <option value="extend" selected={*which == Which::Extend}>{ tx.t(k::SCRIPT_EXTEND) }</option>
                    </select>
                </label>
                if let Some(note) = unused { <p class="hint script-unused">{ note }</p> }
                <div class="editor">
                    <ol class="gutter" aria-hidden="true">
                        { for (1..=lines).map(|n| html! { <li class={classes!((err_line == Some(n)).then_some("err"))}>{ n }</li> }) }
                    </ol>
                    <textarea class="lua" aria-label={tx.t(k::SCRIPT_ARIA)} spellcheck="false" rows={lines.max(4).to_string()}
                        value={(*draft).clone()} oninput={on_edit} />
                </div>
                <button type="submit" class="apply-script">{ tx.t(k::SCRIPT_APPLY) }</button>
                <button type="button" onclick={on_reset}>{ tx.t(k::SCRIPT_RESTORE) }</button>
                if let Some(e) = &*error {
                    <p class="script-error" role="alert">
                        { match e.line { Some(l) => tx.fmt(k::SCRIPT_LINE, &[("n", l.to_string())]), None => String::new() } }{ crate::ui::engine_worker::in_words(tx, &e.message) }
                        { tx.t(k::SCRIPT_KEEPS) }
                    </p>
                }
            </form>
        </details>
    }
}

/// Whether any client of `s` releases with the release script (the default release).
fn uses_release_script(s: &Scenario) -> bool {
    s.clients.iter().any(|c| {
        c.algorithm != Algorithm::None
            && c.release
                .is_none_or(|r| r == crate::sim::scenario::ReleaseKind::Lua)
    })
}

/// Puts each statement of a one-line script on its own line, for editing.
fn pretty(src: &str) -> String {
    if src.contains('\n') {
        return src.to_string();
    }
    src.replace(" then ", " then\n  ")
        .replace(" else ", "\nelse\n  ")
        .replace(" end", "\nend")
}
