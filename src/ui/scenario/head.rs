//! The panel's head: which scenario, its seed (a new one, or one typed), and Undo for a fork.

use super::catalog::{find, title_of, PackScenarios};
use super::model::Handle;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::panel::PanelAction;
use crate::ui::browser;
use yew::prelude::*;

/// What the head is drawn from. (A function of the panel's, not a component: a component
/// of its own costs the page's module more code than the head's drawing is.)
pub struct HeadProps {
    pub panel: Handle,
    /// The loaded pack's scenarios, looked up before the built-ins.
    pub pack: Option<PackScenarios>,
    /// The scenarios the panel offers.
    pub names: Vec<String>,
    /// Whether the seed controls show (an embedding page may hide them).
    pub seeds: bool,
    pub lang: Lang,
}

pub fn head(props: &HeadProps) -> Html {
    let pack = props.pack.clone();
    let (panel, tx) = (&props.panel, Texts::new(props.lang));
    let s = &panel.state;
    let on_scenario = {
        let (panel, pack) = (panel.clone(), pack.clone());
        Callback::from(move |e: Event| {
            let name = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            let base = find(&name, &pack).unwrap_or_else(|| Err(format!("unknown scenario `{name}`")));
            panel.dispatch(PanelAction::PickScenario {
                name,
                base: std::rc::Rc::new(base),
            });
        })
    };
    let on_new_seed = {
        let panel = panel.clone();
        Callback::from(move |_| panel.dispatch(PanelAction::NewSeed(browser::random_u64() % 1_000_000_000)))
    };
    let on_seed_input = {
        let panel = panel.clone();
        Callback::from(move |e: InputEvent| {
            let text = e.target_unchecked_into::<web_sys::HtmlInputElement>().value();
            panel.dispatch(PanelAction::SeedInput(text));
        })
    };
    let on_seed_submit = {
        let panel = panel.clone();
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            panel.dispatch(PanelAction::SubmitSeed);
        })
    };
    let on_undo = {
        let panel = panel.clone();
        Callback::from(move |_| panel.dispatch(PanelAction::Undo))
    };
    html! {
        <div class="scenario-head">
            if props.names.len() > 1 {
                <label>{ format!("{} ", tx.t(k::SC_SCENARIO)) }
                    <select onchange={on_scenario} aria-label={tx.t(k::SC_SCENARIO)}>
                        { for props.names.iter().map(|n| html! { <option value={n.clone()} selected={*n == s.name}>{ title_of(n, pack.as_ref(), props.lang) }</option> }) }
                    </select>
                </label>
            } else {
                <strong class="scenario-name">{ title_of(&s.name, pack.as_ref(), props.lang) }</strong>
            }
            <span class="seed">{ tx.fmt(k::SC_SEED, &[("seed", s.seed.to_string())]) }</span>
            if props.seeds {
                <button type="button" onclick={on_new_seed}>{ tx.t(k::SC_NEW_SEED) }</button>
                <form class="seed-form" onsubmit={on_seed_submit}>
                    <label>{ format!("{} ", tx.t(k::SC_SEED_LABEL)) }<input type="text" inputmode="numeric" size="10" aria-label={tx.t(k::SC_TYPE_SEED)} value={s.seed_input.clone()} oninput={on_seed_input} /></label>
                    <button type="submit">{ tx.t(k::SC_USE_SEED) }</button>
                </form>
                if let Some(bad) = &s.seed_error { <span class="hint seed-error" role="alert">{ tx.fmt(k::SC_BAD_SEED, &[("seed", bad.clone())]) }</span> }
            }
            if !s.injections.is_empty() {
                <button type="button" class="undo-fork" onclick={on_undo}>{ undo_label(&tx, s.injections.len()) }</button>
            }
        </div>
    }
}

/// "Undo fork (1 change)", "Undo fork (3 changes)".
pub(super) fn undo_label(tx: &Texts, changes: usize) -> String {
    if changes == 1 {
        tx.t(k::SC_UNDO_FORK_ONE)
    } else {
        tx.fmt(k::SC_UNDO_FORK, &[("n", changes.to_string())])
    }
}
