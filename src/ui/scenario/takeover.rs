//! "Take over a node": a Redis console on one of the run's nodes at the cursor. A
//! command that changes something forks the run.

use super::console;
use super::model::Handle;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::fork::NOT_RUN;
use crate::timeline::panel::PanelAction;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct TakeOverProps {
    pub panel: Handle,
    pub lang: Lang,
}

pub fn take_over(props: &TakeOverProps) -> Html {
    let (panel, tx) = (&props.panel, Texts::new(props.lang));
    let s = &panel.state;
    let nodes = s.nodes();
    if nodes.is_empty() {
        return Html::default();
    }
    let selected = s.console_target();
    let on_node = {
        let panel = panel.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            panel.dispatch(PanelAction::ConsoleNode(v.parse().ok()));
        })
    };
    let on_line = {
        let panel = panel.clone();
        Callback::from(move |line: String| panel.dispatch(PanelAction::Console(line)))
    };
    let on_undo = {
        let panel = panel.clone();
        Callback::from(move |_: MouseEvent| panel.dispatch(PanelAction::Undo))
    };
    // The words of the one reply the store did not give, in the reader's language.
    let history: Vec<(String, String)> = s
        .console
        .iter()
        .map(|(line, reply)| {
            let reply = if reply == NOT_RUN {
                tx.t(k::SC_NODE_NO_REPLY)
            } else {
                reply.clone()
            };
            (line.clone(), reply)
        })
        .collect();
    html! {
        <div class="scenario-console">
            <h3>{ tx.t(k::SC_TAKE_OVER) }</h3>
            if nodes.len() > 1 {
                <label>{ format!("{} ", tx.t(k::SC_NODE)) }
                    <select onchange={on_node}>
                        { for nodes.iter().map(|(pid, n)| html! { <option value={pid.to_string()} selected={selected == Some(*pid)}>{ n.clone() }</option> }) }
                    </select>
                </label>
            }
            <console::ConsoleInput {on_line} {history} lang={props.lang} />
            // Undo beside the console whose command forked the run, as well as in the
            // panel's head a screen or more above (#40 item 13).
            if !s.injections.is_empty() {
                <button type="button" class="undo-fork" onclick={on_undo}>{ super::head::undo_label(&tx, s.injections.len()) }</button>
            }
            <p class="hint">{ tx.t(k::SC_TAKE_OVER_HINT) }</p>
        </div>
    }
}
