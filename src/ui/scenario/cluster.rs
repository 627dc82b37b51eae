//! The cluster right after the event at the cursor: each client's status, each node's
//! keys and clock, and the resource's writes.

use super::model::Handle;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::timeline::{snapshot, words};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct ClusterProps {
    pub panel: Handle,
    /// The panel's id in the page (the heading's id must be unique).
    pub panel_id: u32,
    pub lang: Lang,
}

pub fn cluster(props: &ClusterProps) -> Html {
    let (s, tx) = (&props.panel.state, Texts::new(props.lang));
    let Some(m) = s.model() else {
        return Html::default();
    };
    let snap = snapshot(m, s.cur());
    // The fault states on a process at the cursor ("cut off from A, B, C"), by name.
    let states = |name: &str| -> String {
        let Some(pid) = m.names.iter().position(|n| n == name) else {
            return String::new();
        };
        crate::timeline::states::at(&m.faults, pid as u32, snap.t_us)
            .map(|f| format!(" · {}", words::fault_state(m, &f.state, props.lang)))
            .collect()
    };
    let cluster_id = format!("cluster-{}-{}", s.name, props.panel_id);
    html! {
        // A `<div>` may not carry a name (aria-label); the group takes its heading's.
        <div class="cluster" role="group" aria-labelledby={cluster_id.clone()}>
            <h3 id={cluster_id}>{ tx.t(k::SC_AT_CURSOR) }</h3>
            <ul class="cluster-clients">
                { for snap.clients.iter().map(|c| html! {
                    <li data-status={c.status}>
                        <strong>{ c.name.clone() }</strong>{": "}{ tx.t_named(&format!("sc_status_{}", c.status)) }
                        <span class="fault-state">{ states(&c.name) }</span>
                        if let Some(t) = &c.token { { format!(", token {t}") } }
                        if let Some(v) = c.validity_left_ms { { tx.fmt(k::SC_VALIDITY, &[("v", v.to_string())]) } }
                        if let Some(t) = m.tally_at(&c.name, s.cur()) {
                            <span class="tally-text">{ tx.fmt(k::SC_LAST_ATTEMPT, &[("tally", crate::timeline::words::tally(t, props.lang).0)]) }</span>
                        }
                    </li>
                }) }
            </ul>
            <ul class="cluster-nodes">
                { for snap.nodes.iter().map(|n| html! {
                    <li>
                        <strong>{ n.name.clone() }</strong>{": "}{ tx.t(if n.up { k::SC_UP } else { k::SC_DOWN }) }
                        if n.clock_offset_ms != 0 { { tx.fmt(k::SC_CLOCK, &[("offset", format!("{:+}", n.clock_offset_ms))]) } }
                        <span class="fault-state">{ states(&n.name) }</span>
                        if n.keys.is_empty() { { tx.t(k::SC_NO_KEYS) } }
                        { for n.keys.iter().map(|(k, v, left)| html! {
                            <span class="key">{ format!(" · {k} = {v}{}", left.map(|l| format!(" (PTTL ≈ {l})")).unwrap_or_default()) }</span>
                        }) }
                    </li>
                }) }
            </ul>
            if let Some(r) = &snap.resource {
                <p class="cluster-resource"><strong>{ r.name.clone() }</strong>
                    { tx.fmt(k::SC_HIGHEST_TOKEN, &[("h", r.highest_token.map_or_else(|| tx.t(k::SC_NONE), |h| h.to_string()))]) }
                    { for r.last_writes.iter().map(|w| html! { <span>{ match &w.rejected {
                        None => format!(" · ✓ {}: {}", w.client, w.text),
                        Some(why) => format!(" · ✗ {}: {}: {}", w.client, w.text, words::reason(why, props.lang)),
                    } }</span> }) }
                </p>
            }
        </div>
    }
}
