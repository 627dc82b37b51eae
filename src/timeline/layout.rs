//! What the timeline draws, laid out from a finished run: lanes, bars (holds, pauses,
//! downtimes), message arrows, marks, and a band for each violation.

use super::model::*;
use super::words;
use crate::lesson::content::Lang;
use crate::sim::fact::{Message, Role, ViolationKind};
use crate::sim::trace::{TraceEvent, TraceKind};
use crate::sim::Outcome;
use crate::vecmap::VecMap;

#[allow(clippy::too_many_arguments)]
pub(super) fn layout(
    scenario: String,
    seed: u64,
    names: Vec<String>,
    roles: Vec<Option<Role>>,
    trace: Vec<TraceEvent>,
    outcome: Outcome,
    mut fixed: Vec<Bar>,
    end_us: u64,
    truncated: bool,
) -> Model {
    for b in &mut fixed {
        if b.to_us == OPEN {
            b.to_us = end_us;
        }
    }

    let lanes = lanes_of(&names, &roles, &trace);

    let mut bars = fixed;
    let mut arrows = Vec::new();
    let mut marks = Vec::new();
    let mut sends: VecMap<u64, (usize, u32, u32, u64, Message)> = VecMap::new();
    let mut holding: VecMap<u32, Holding> = VecMap::new();
    let mut paused: VecMap<u32, u64> = VecMap::new();
    let mut down: VecMap<u32, u64> = VecMap::new();
    let mut tokens: Vec<String> = Vec::new();
    let note_token = |t: &str, tokens: &mut Vec<String>| {
        if !tokens.iter().any(|x| x == t) {
            tokens.push(t.to_string());
        }
    };
    for b in &bars {
        if let Some(t) = &b.token {
            note_token(t, &mut tokens);
        }
    }
    let mut mark = |pid: u32, t_us: u64, kind: MarkKind, label: String, index: usize| {
        marks.push(Mark {
            pid,
            t_us,
            kind,
            label,
            index,
        });
    };
    let en_label = |e: &TraceEvent| words::mark_label(&names, e, Lang::En).unwrap_or_default();
    for (i, e) in trace.iter().enumerate() {
        match &e.kind {
            TraceKind::Send { msg, to, what } => {
                sends.insert(*msg, (i, e.pid, *to, e.t_us, what.clone()));
            }
            TraceKind::Deliver { msg, .. } | TraceKind::Drop { msg, .. } => {
                if let Some((index, from, to, sent_us, label)) = sends.remove(msg) {
                    let dropped = matches!(e.kind, TraceKind::Drop { .. });
                    arrows.push(Arrow {
                        from,
                        to,
                        sent_us,
                        at_us: e.t_us,
                        dropped,
                        label,
                        index,
                    });
                }
            }
            TraceKind::LockHeld { token, fence, .. } => {
                note_token(token, &mut tokens);
                let label = match fence {
                    Some(f) => format!("{token} (fence {f})"),
                    None => token.clone(),
                };
                let from = e.t_us;
                let token = token.clone();
                holding.insert(e.pid, Holding { from, token, label });
            }
            TraceKind::LockLost { .. } => {
                close_hold(&mut holding, &mut bars, e.pid, e.t_us);
                mark(e.pid, e.t_us, MarkKind::Lost, en_label(e), i);
            }
            TraceKind::LockReleased { .. } => {
                close_hold(&mut holding, &mut bars, e.pid, e.t_us);
                mark(e.pid, e.t_us, MarkKind::Released, en_label(e), i);
            }
            TraceKind::Pause => {
                paused.insert(e.pid, e.t_us);
            }
            TraceKind::Resume => {
                if let Some(from) = paused.remove(&e.pid) {
                    bars.push(span_bar(e.pid, BarKind::Paused, from, e.t_us));
                }
            }
            TraceKind::Crash => {
                close_hold(&mut holding, &mut bars, e.pid, e.t_us);
                down.insert(e.pid, e.t_us);
                mark(e.pid, e.t_us, MarkKind::Crash, en_label(e), i);
            }
            TraceKind::Restart { .. } => {
                if let Some(from) = down.remove(&e.pid) {
                    bars.push(span_bar(e.pid, BarKind::Down, from, e.t_us));
                }
                mark(e.pid, e.t_us, MarkKind::Restart, en_label(e), i);
            }
            TraceKind::ClockJump { .. } => mark(e.pid, e.t_us, MarkKind::ClockJump, en_label(e), i),
            TraceKind::Drift { .. } => mark(e.pid, e.t_us, MarkKind::Drift, en_label(e), i),
            TraceKind::Partition { .. } => mark(e.pid, e.t_us, MarkKind::Partition, en_label(e), i),
            TraceKind::Repair { .. } => mark(e.pid, e.t_us, MarkKind::Repair, en_label(e), i),
            TraceKind::Failover { .. } => mark(e.pid, e.t_us, MarkKind::Failover, en_label(e), i),
            TraceKind::AcquireFailed { .. } => mark(e.pid, e.t_us, MarkKind::AcquireFailed, en_label(e), i),
            TraceKind::WriteAccepted { .. } => mark(e.pid, e.t_us, MarkKind::WriteAccepted, en_label(e), i),
            TraceKind::WriteRejected { .. } => mark(e.pid, e.t_us, MarkKind::WriteRejected, en_label(e), i),
            _ => {}
        }
    }
    close_at_end(end_us, holding, paused, down, sends, &mut bars, &mut arrows);
    let bands = bands_of(&outcome, &trace, &names);
    crate::sorting::sort_by_key(&mut bars, |b| (b.from_us, b.pid));
    // In send order: the lens finds the messages up to a cursor by bisection.
    crate::sorting::sort_by_key(&mut arrows, |a| a.index);
    Model {
        scenario,
        titles: crate::vecmap::VecMap::new(),
        seed,
        names,
        lanes,
        trace,
        outcome,
        end_us,
        bars,
        arrows,
        marks,
        bands,
        stories: Vec::new(),
        lockless: Vec::new(),
        tokens,
        truncated,
        key_states: Vec::new(),
        captions: Vec::new(),
        tallies: Vec::new(),
        faults: Vec::new(),
        extensions: Vec::new(),
    }
}

/// The lanes, clients first, then nodes, the resource and the rest. The resource's lane
/// is drawn as the resource once it has answered a write: a scenario that never writes
/// keeps it a plain lane (and no resource in the panel).
pub(super) fn lanes_of(names: &[String], roles: &[Option<Role>], trace: &[TraceEvent]) -> Vec<Lane> {
    let answered_a_write = |pid: usize| {
        trace.iter().any(|e| {
            e.pid as usize == pid
                && matches!(
                    e.kind,
                    TraceKind::WriteAccepted { .. } | TraceKind::WriteRejected { .. }
                )
        })
    };
    let kind_of = |pid: usize| match roles.get(pid).copied().flatten() {
        Some(Role::Client | Role::LabWorker) => LaneKind::Client,
        Some(Role::Node) => LaneKind::Node,
        Some(Role::Resource) if answered_a_write(pid) => LaneKind::Resource,
        Some(Role::Resource) | None => LaneKind::Other,
    };
    let mut lanes: Vec<Lane> = names
        .iter()
        .enumerate()
        .map(|(pid, name)| Lane {
            pid: pid as u32,
            name: name.clone(),
            kind: kind_of(pid),
        })
        .collect();
    crate::sorting::sort_by_key(&mut lanes, |l| (l.kind, l.pid));
    lanes
}

/// What is still open when the run ends closes there: holds, pauses, downtimes, and
/// messages still in flight.
pub(super) fn close_at_end(
    end_us: u64,
    holding: VecMap<u32, Holding>,
    paused: VecMap<u32, u64>,
    down: VecMap<u32, u64>,
    sends: VecMap<u64, (usize, u32, u32, u64, Message)>,
    bars: &mut Vec<Bar>,
    arrows: &mut Vec<Arrow>,
) {
    for (pid, h) in holding {
        bars.push(h.bar(pid, end_us));
    }
    for (pid, from) in paused {
        bars.push(span_bar(pid, BarKind::Paused, from, end_us));
    }
    for (pid, from) in down {
        bars.push(span_bar(pid, BarKind::Down, from, end_us));
    }
    for (index, from, to, sent_us, label) in sends.into_values() {
        // Still in flight when the run ended.
        arrows.push(Arrow {
            from,
            to,
            sent_us,
            at_us: end_us,
            dropped: false,
            label,
            index,
        });
    }
}

/// One band per violation, over the lock its clients held.
pub(super) fn bands_of(outcome: &Outcome, trace: &[TraceEvent], names: &[String]) -> Vec<Band> {
    outcome
        .violations
        .iter()
        .map(|v| Band {
            lock: outcome
                .holds
                .iter()
                .find(|h| v.clients.contains(&h.client))
                .map(|h| h.lock.clone()),
            from_us: (v.from_ms * 1000.0).max(0.0) as u64,
            to_us: (v.to_ms * 1000.0).max(0.0) as u64,
            kind: v.kind,
            clients: v.clients.clone(),
            detail: v.detail.clone(),
            fenced_off: None,
            effect: v.effect.clone(),
        })
        .map(|mut b: Band| {
            if b.kind == ViolationKind::Overlap {
                b.fenced_off = words::fenced_off(trace, names, &b);
            }
            b
        })
        .collect()
}

/// A pause's or a downtime's bar on lane `pid`.
pub(super) fn span_bar(pid: u32, kind: BarKind, from_us: u64, to_us: u64) -> Bar {
    let label = if kind == BarKind::Paused { "paused" } else { "down" };
    Bar {
        pid,
        kind,
        from_us,
        to_us,
        token: None,
        label: label.into(),
    }
}

/// A client's hold that has not ended yet: since when, its token, its bar's label.
pub(super) struct Holding {
    pub(super) from: u64,
    pub(super) token: String,
    pub(super) label: String,
}

impl Holding {
    pub(super) fn bar(self, pid: u32, to_us: u64) -> Bar {
        Bar {
            pid,
            kind: BarKind::Holding,
            from_us: self.from,
            to_us,
            token: Some(self.token),
            label: self.label,
        }
    }
}

pub(super) fn close_hold(holding: &mut VecMap<u32, Holding>, bars: &mut Vec<Bar>, pid: u32, t: u64) {
    if let Some(h) = holding.remove(&pid) {
        bars.push(h.bar(pid, t));
    }
}
