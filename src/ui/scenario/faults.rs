//! "Change the run here": inject a fault at the cursor. The run forks: the past stays,
//! the future is recomputed by the simulator; the panel's Undo fork goes back.

use crate::lesson::i18n::{k, Key};
use crate::sim::world::Latency;
use crate::sim::Fault;
use crate::timeline::{Lane, LaneKind};
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct FaultFormProps {
    pub lanes: Vec<Lane>,
    /// The cursor's true time: faults start here.
    pub t_us: u64,
    /// Faults to add, each at a true time.
    pub on_inject: Callback<Vec<(u64, Fault)>>,
    pub lang: crate::lesson::content::Lang,
}

#[derive(Clone, Copy, PartialEq)]
enum Kind {
    Crash,
    CrashFor,
    Restart,
    Pause,
    Partition,
    Repair,
    Jump,
    Drift,
    Latency,
}

/// (kind, value, key of its label in content/ui.toml)
const KINDS: [(Kind, &str, Key); 9] = [
    (Kind::Crash, "crash", k::FAULT_CRASH),
    (Kind::CrashFor, "crash-restart", k::FAULT_CRASH_FOR),
    (Kind::Restart, "restart", k::FAULT_RESTART),
    (Kind::Pause, "pause", k::FAULT_PAUSE),
    (Kind::Partition, "partition", k::FAULT_PARTITION),
    (Kind::Repair, "repair", k::FAULT_REPAIR),
    (Kind::Jump, "jump", k::FAULT_JUMP),
    (Kind::Drift, "drift", k::FAULT_DRIFT),
    (Kind::Latency, "latency", k::FAULT_LATENCY),
];

#[function_component(FaultForm)]
pub fn fault_form(props: &FaultFormProps) -> Html {
    let tx = crate::lesson::i18n::Texts::new(props.lang);
    let kind = use_state(|| Kind::Crash);
    let node = use_state(|| None::<u32>);
    let client = use_state(|| None::<u32>);
    let amount = use_state(|| "5000".to_string());
    let pct = use_state(|| "2".to_string());
    let error = use_state(|| None::<String>);
    let nodes: Vec<&Lane> = props.lanes.iter().filter(|l| l.kind == LaneKind::Node).collect();
    let clients: Vec<&Lane> = props
        .lanes
        .iter()
        .filter(|l| l.kind == LaneKind::Client)
        .collect();
    let node_pid = (*node).or(nodes.first().map(|l| l.pid));
    let client_pid = (*client).or(clients.first().map(|l| l.pid));
    let needs_node = *kind != Kind::Pause;
    let needs_client = matches!(
        *kind,
        Kind::Pause | Kind::Partition | Kind::Repair | Kind::Latency
    );
    let needs_amount = matches!(*kind, Kind::Pause | Kind::Jump | Kind::CrashFor | Kind::Latency);
    let needs_pct = *kind == Kind::Drift;

    let on_kind = {
        let kind = kind.clone();
        Callback::from(move |e: Event| {
            let v = e.target_unchecked_into::<web_sys::HtmlSelectElement>().value();
            if let Some((k, _, _)) = KINDS.iter().find(|(_, id, _)| *id == v) {
                kind.set(*k);
            }
        })
    };
    let pick = |state: UseStateHandle<Option<u32>>| {
        Callback::from(move |e: Event| {
            state.set(
                e.target_unchecked_into::<web_sys::HtmlSelectElement>()
                    .value()
                    .parse()
                    .ok(),
            )
        })
    };
    let typed = |state: UseStateHandle<String>| {
        Callback::from(move |e: InputEvent| {
            state.set(e.target_unchecked_into::<web_sys::HtmlInputElement>().value())
        })
    };
    let on_submit = {
        let (kind, amount, pct, error, on_inject, t) = (
            *kind,
            amount.clone(),
            pct.clone(),
            error.clone(),
            props.on_inject.clone(),
            props.t_us,
        );
        Callback::from(move |e: SubmitEvent| {
            e.prevent_default();
            let ms: Option<i64> = amount.trim().parse().ok();
            // A clock's drift in percent (2 = 2 % fast), as parts per million.
            let ppm = crate::decimal::parse_typed(&pct)
                .filter(|p| p.abs() <= 50.0)
                .map(|p| (p * 10_000.0).round() as i64);
            // Only the processes this fault names must exist: a client is paused in a
            // run without nodes too (§1's run without a lock).
            let (n, c) = (node_pid.map(|p| p as usize), client_pid.map(|p| p as usize));
            if (needs_node && n.is_none()) || (needs_client && c.is_none()) {
                error.set(Some(tx.t(k::FAULT_NO_PROCESS)));
                return;
            }
            let (n, c) = (n.unwrap_or_default(), c.unwrap_or_default());
            let faults = match (kind, ms, ppm) {
                (Kind::Crash, _, _) => vec![(t, Fault::Crash(n))],
                (Kind::CrashFor, Some(ms), _) if (1..=600_000).contains(&ms) => {
                    vec![(t, Fault::Crash(n)), (t + ms as u64 * 1000, Fault::Restart(n))]
                }
                (Kind::Drift, _, Some(rate)) => vec![(t, Fault::Drift(n, rate))],
                (Kind::Restart, _, _) => vec![(t, Fault::Restart(n))],
                (Kind::Partition, _, _) => vec![(
                    t,
                    Fault::Partition {
                        a: c,
                        b: vec![n],
                        oneway: false,
                    },
                )],
                (Kind::Repair, _, _) => vec![(t, Fault::Repair { a: c, b: vec![n] })],
                (Kind::Pause, Some(ms), _) if (1..=600_000).contains(&ms) => {
                    vec![(t, Fault::Pause(c)), (t + ms as u64 * 1000, Fault::Resume(c))]
                }
                (Kind::Latency, Some(ms), _) if (0..=60_000).contains(&ms) => vec![(
                    t,
                    Fault::Latency {
                        a: c,
                        b: vec![n],
                        latency: Latency::Fixed(ms as u64 * 1000),
                    },
                )],
                (Kind::Jump, Some(ms), _) if ms != 0 && ms.abs() <= 3_600_000 => {
                    vec![(t, Fault::ClockJump(n, ms * 1000))]
                }
                _ => {
                    error.set(Some(tx.t(k::FAULT_BAD_AMOUNT)));
                    return;
                }
            };
            error.set(None);
            on_inject.emit(faults);
        })
    };

    html! {
        <form class="fault-form" onsubmit={on_submit}>
            <h3>{ tx.t(k::FAULT_TITLE) }</h3>
            <label>{ format!("{} ", tx.t(k::FAULT_LABEL)) }
                <select onchange={on_kind} class="fault-kind">
                    { for KINDS.iter().filter(|(k, _, _)| !clients.is_empty() || !matches!(k, Kind::Pause | Kind::Partition | Kind::Repair | Kind::Latency))
                        .map(|(k, id, label)| html! { <option value={*id} selected={*k == *kind}>{ tx.t(*label) }</option> }) }
                </select>
            </label>
            if needs_node {
                <label>{ format!("{} ", tx.t(k::SC_NODE)) }
                    <select onchange={pick(node.clone())} class="fault-node">
                        { for nodes.iter().map(|l| html! { <option value={l.pid.to_string()} selected={node_pid == Some(l.pid)}>{ l.name.clone() }</option> }) }
                    </select>
                </label>
            }
            if needs_client {
                <label>{ format!("{} ", tx.t(k::FAULT_CLIENT)) }
                    <select onchange={pick(client.clone())} class="fault-client">
                        { for clients.iter().map(|l| html! { <option value={l.pid.to_string()} selected={client_pid == Some(l.pid)}>{ l.name.clone() }</option> }) }
                    </select>
                </label>
            }
            if needs_amount {
                <label>{"ms "}<input type="text" inputmode="numeric" size="7" class="fault-amount" value={(*amount).clone()} oninput={typed(amount.clone())} /></label>
            }
            if needs_pct {
                <label>{"% "}<input type="text" inputmode="decimal" size="5" class="fault-pct" value={(*pct).clone()} oninput={typed(pct.clone())} /></label>
            }
            <button type="submit" class="fault-apply">{ tx.t(k::FAULT_APPLY) }</button>
            if let Some(e) = &*error { <p class="hint" role="alert">{ e.clone() }</p> }
        </form>
    }
}
