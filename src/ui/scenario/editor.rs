//! Knobs and the Lua script editor for a scenario. A change reruns the scenario from the
//! start with the same seed; a script that does not compile, or fails when the nodes run
//! it, is refused with its error at its line, and the run keeps the previous script.

use crate::sim::scenario::Scenario;
use crate::timeline::{build, check_script, first_script_error, ScriptError, Variant};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct VariantEditorProps {
    /// The built-in scenario, before the variant.
    pub base: Scenario,
    pub seed: u64,
    pub variant: Variant,
    pub on_change: Callback<Variant>,
}

#[derive(Clone, Copy, PartialEq)]
enum Which {
    Release,
    Extend,
}

#[function_component(VariantEditor)]
pub fn variant_editor(props: &VariantEditorProps) -> Html {
    let first = props.base.clients.first();
    let ttl_default = first.map_or(10_000.0, |c| c.ttl_ms);
    let drift_default = first.map_or(0.01, |c| c.drift_factor);
    let ttl = use_state(|| props.variant.ttl_ms.unwrap_or(ttl_default).to_string());
    let drift = use_state(|| props.variant.drift_factor.unwrap_or(drift_default).to_string());
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

    let on_knobs = {
        let (ttl, drift, knob_error) = (ttl.clone(), drift.clone(), knob_error.clone());
        let (variant, on_change) = (props.variant.clone(), props.on_change.clone());
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let t: Option<f64> = ttl
                .trim()
                .parse()
                .ok()
                .filter(|t: &f64| (1.0..=3_600_000.0).contains(t));
            let d: Option<f64> = drift
                .trim()
                .replace(',', ".")
                .parse()
                .ok()
                .filter(|d: &f64| (0.0..=0.5).contains(d));
            match (t, d) {
                (Some(t), Some(d)) => {
                    knob_error.set(None);
                    on_change.emit(Variant {
                        ttl_ms: Some(t),
                        drift_factor: Some(d),
                        ..variant.clone()
                    });
                }
                _ => knob_error.set(Some(
                    "TTL must be 1 to 3 600 000 ms and the drift factor 0 to 0.5.".into(),
                )),
            }
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
    let on_apply = {
        let (draft, error, which) = (draft.clone(), error.clone(), *which);
        let (variant, on_change, base, seed) = (
            props.variant.clone(),
            props.on_change.clone(),
            props.base.clone(),
            props.seed,
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let src = (*draft).clone();
            if let Err(err) = check_script(&src) {
                error.set(Some(err));
                return;
            }
            let mut next = variant.clone();
            match which {
                Which::Release => next.release_script = Some(src),
                Which::Extend => next.extend_script = Some(src),
            }
            // Run it once: a script that fails on the nodes is refused too.
            match build(&next.apply(&base), seed) {
                Ok(m) => {
                    if let Some(err) = first_script_error(&m.trace) {
                        error.set(Some(err));
                        return;
                    }
                }
                Err(msg) => {
                    error.set(Some(ScriptError {
                        line: None,
                        message: msg,
                    }));
                    return;
                }
            }
            error.set(None);
            on_change.emit(next);
        })
    };
    let on_reset = {
        let (on_change, draft, error, ttl, drift) = (
            props.on_change.clone(),
            draft.clone(),
            error.clone(),
            ttl.clone(),
            drift.clone(),
        );
        let base = props.base.clone();
        Callback::from(move |_| {
            error.set(None);
            draft.set(pretty(&base.scripts.release));
            ttl.set(ttl_default.to_string());
            drift.set(drift_default.to_string());
            on_change.emit(Variant::default());
        })
    };
    let lines = draft.lines().count().max(1);
    let err_line = error.as_ref().and_then(|e| e.line);

    html! {
        <details class="variant-editor">
            <summary>{"Change the knobs or the Lua scripts"}</summary>
            <form class="knobs" onsubmit={on_knobs}>
                <label>{"TTL (ms) "}<input type="text" inputmode="numeric" size="8" class="knob-ttl" value={(*ttl).clone()}
                    oninput={{ let t = ttl.clone(); Callback::from(move |e: InputEvent| t.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())) }} /></label>
                <label>{"Drift factor "}<input type="text" inputmode="decimal" size="6" class="knob-drift" value={(*drift).clone()}
                    oninput={{ let d = drift.clone(); Callback::from(move |e: InputEvent| d.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())) }} /></label>
                <button type="submit">{"Rerun with these"}</button>
                if let Some(e) = &*knob_error { <span class="hint" role="alert">{ e.clone() }</span> }
            </form>
            <form class="script-editor" onsubmit={on_apply}>
                <label>{"Script "}
                    <select onchange={on_pick}>
                        <option value="release" selected={*which == Which::Release}>{"release (check and delete)"}</option>
                        <option value="extend" selected={*which == Which::Extend}>{"extend (watchdog renewal)"}</option>
                    </select>
                </label>
                <div class="editor">
                    <ol class="gutter" aria-hidden="true">
                        { for (1..=lines).map(|n| html! { <li class={classes!((err_line == Some(n)).then_some("err"))}>{ n }</li> }) }
                    </ol>
                    <textarea class="lua" aria-label="Lua script" spellcheck="false" rows={lines.max(4).to_string()}
                        value={(*draft).clone()} oninput={on_edit} />
                </div>
                <button type="submit" class="apply-script">{"Apply and rerun"}</button>
                <button type="button" onclick={on_reset}>{"Restore the originals"}</button>
                if let Some(e) = &*error {
                    <p class="script-error" role="alert">
                        { match e.line { Some(l) => format!("Line {l}: "), None => String::new() } }{ e.message.clone() }
                        {" The run keeps the previous script."}
                    </p>
                }
            </form>
        </details>
    }
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
