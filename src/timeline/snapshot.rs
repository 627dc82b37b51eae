//! The state of the cluster at a cursor, as the side panel shows it: each client's
//! belief, each node's keys by its own clock, the resource's writes.

use super::model::*;
use crate::sim::fact::Reason;
use crate::sim::trace::TraceKind;

/// The state of the cluster at a cursor, as the side panel shows it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Snapshot {
    pub t_us: u64,
    pub clients: Vec<ClientView>,
    pub nodes: Vec<NodeView>,
    pub resource: Option<ResourceView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClientView {
    pub name: String,
    /// `idle`, `acquiring`, `holding`, `working` (a client without a lock), `paused`,
    /// `crashed`, `done`.
    pub status: &'static str,
    pub token: Option<String>,
    /// ms of validity left by the client's own bound, if it keeps one.
    pub validity_left_ms: Option<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub name: String,
    pub up: bool,
    /// The node's clock minus true time, ms.
    pub clock_offset_ms: i64,
    /// (key, value, ms left before it expires: what `PTTL` on the node answers, if it has a TTL)
    pub keys: Vec<(String, String, Option<i64>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResourceView {
    pub name: String,
    pub highest_token: Option<i64>,
    /// The last writes, newest last.
    pub last_writes: Vec<WriteView>,
}

/// One write the resource received.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteView {
    pub client: String,
    /// `key = value` if accepted; the key if rejected.
    pub text: String,
    /// Why it was rejected (`words::reason` says it); `None` if accepted.
    pub rejected: Option<Reason>,
}

/// The cluster right after the event at `cursor` (an index into the trace).
pub fn snapshot(m: &Model, cursor: usize) -> Snapshot {
    let upto = m
        .trace
        .get(..=cursor.min(m.trace.len().saturating_sub(1)))
        .unwrap_or(&[]);
    let t_us = upto.last().map_or(0, |e| e.t_us);
    let mut s = Snapshot {
        t_us,
        ..Snapshot::default()
    };
    let mut status: crate::vecmap::VecMap<u32, &'static str> = crate::vecmap::VecMap::new();
    let mut token: crate::vecmap::VecMap<u32, Option<String>> = crate::vecmap::VecMap::new();
    let mut valid: crate::vecmap::VecMap<u32, Option<u64>> = crate::vecmap::VecMap::new();
    let mut up: crate::vecmap::VecMap<u32, bool> = crate::vecmap::VecMap::new();
    let mut offset: crate::vecmap::VecMap<u32, i64> = crate::vecmap::VecMap::new();
    let mut highest: Option<i64> = None;
    let mut writes: Vec<WriteView> = Vec::new();
    // A client without a lock is never "acquiring": it is working.
    let busy = |pid: u32| {
        if m.lockless.contains(&pid) {
            "working"
        } else {
            "acquiring"
        }
    };
    for e in upto {
        offset.insert(e.pid, (e.local_us - e.t_us as i64) / 1000);
        match &e.kind {
            TraceKind::Start | TraceKind::AcquireFailed { .. } => {
                status.insert(e.pid, busy(e.pid));
            }
            TraceKind::LockHeld {
                token: t,
                valid_until_us,
                ..
            } => {
                status.insert(e.pid, "holding");
                token.insert(e.pid, Some(t.clone()));
                valid.insert(e.pid, *valid_until_us);
            }
            TraceKind::LockLost { .. } | TraceKind::LockReleased { .. } | TraceKind::GaveUp { .. } => {
                status.insert(e.pid, "idle");
                token.insert(e.pid, None);
                valid.insert(e.pid, None);
            }
            TraceKind::WorkDone => {
                status.insert(e.pid, "done");
            }
            TraceKind::Pause => {
                status.insert(e.pid, "paused");
            }
            TraceKind::Resume => {
                let held = token.get(&e.pid).is_some_and(Option::is_some);
                status.insert(e.pid, if held { "holding" } else { busy(e.pid) });
            }
            TraceKind::Crash => {
                status.insert(e.pid, "crashed");
                up.insert(e.pid, false);
            }
            TraceKind::Restart { .. } => {
                status.remove(&e.pid);
                up.insert(e.pid, true);
            }
            TraceKind::WriteAccepted {
                from,
                key,
                value,
                token: t,
                ..
            } => {
                if let Some(t) = t {
                    highest = Some(highest.map_or(*t, |h| h.max(*t)));
                }
                writes.push(WriteView {
                    client: m.name(*from).to_string(),
                    text: format!("{key} = {value}"),
                    rejected: None,
                });
            }
            TraceKind::WriteRejected {
                from, key, reason, ..
            } => {
                writes.push(WriteView {
                    client: m.name(*from).to_string(),
                    text: key.clone(),
                    rejected: Some(reason.clone()),
                });
            }
            _ => {}
        }
    }
    for lane in &m.lanes {
        match lane.kind {
            LaneKind::Client => s.clients.push(ClientView {
                name: lane.name.clone(),
                status: status.get(&lane.pid).copied().unwrap_or("idle"),
                token: token.get(&lane.pid).cloned().flatten(),
                validity_left_ms: valid
                    .get(&lane.pid)
                    .copied()
                    .flatten()
                    .map(|v| (v as i64 - t_us as i64) / 1000),
            }),
            LaneKind::Node => {
                // The node's last state at or before the cursor, read at the cursor's time.
                let keys = m
                    .key_states
                    .iter()
                    .rev()
                    .find(|k| k.pid == lane.pid && k.index <= cursor)
                    .map_or_else(Vec::new, |k| k.at(t_us));
                s.nodes.push(NodeView {
                    name: lane.name.clone(),
                    up: up.get(&lane.pid).copied().unwrap_or(true),
                    clock_offset_ms: offset.get(&lane.pid).copied().unwrap_or(0),
                    keys,
                });
            }
            LaneKind::Resource => {
                s.resource = Some(ResourceView {
                    name: lane.name.clone(),
                    highest_token: highest,
                    last_writes: writes.iter().rev().take(3).rev().cloned().collect(),
                })
            }
            LaneKind::Other => {}
        }
    }
    s
}
