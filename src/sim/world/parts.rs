//! The world's parts, as a plan resolves a scenario into them and the world runs them:
//! pids and the hard limits, latencies and links, faults, nodes (with their `WAIT`s) and
//! replication groups, and the ms → µs conversion every time in a scenario goes through.

use crate::sim::persistence::Persistence;
use crate::sim::scenario::definition::MAX_TIME_MS;
use crate::sim::trace::fmt_ms;
use crate::store::{Effect, Store};
use std::collections::BTreeMap;

/// A process's number: its index in the world's process table.
pub type Pid = usize;

/// Hard limits (TIGER_STYLE: put a limit on everything).
pub const MAX_PROCESSES: usize = 64;
pub const MAX_CLIENTS_NODES: usize = 32;
pub const MAX_WORK_STEPS: usize = 256;
pub const MAX_FAULTS: usize = 1_000;
/// A run processes at most this many events; a scenario that would need more (a
/// retry storm with a tiny delay) is cut off with an `End` event.
pub const MAX_EVENTS: u64 = 5_000_000;
/// Past this many trace entries only the checker's (semantic) events are recorded, so a
/// long run keeps its verdict without holding gigabytes of message detail.
pub const MAX_TRACE_DETAIL: usize = 1_000_000;

/// A network latency in µs: fixed, or uniform in `[lo, hi)` per message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Latency {
    Fixed(u64),
    Uniform(u64, u64),
}

impl Latency {
    pub(super) fn label(&self) -> String {
        match self {
            Latency::Fixed(us) => format!("{} ms", fmt_ms(*us)),
            Latency::Uniform(a, b) => {
                format!("{}..{} ms", fmt_ms(*a), fmt_ms(*b))
            }
        }
    }
}

/// One direction of the link between two processes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(super) struct Link {
    pub(super) latency: Latency,
    pub(super) loss: f64,
}

/// A fault, with processes resolved to pids: what the schedule, the explorer and
/// `fork` inject. Serialized only to cross from the engine's worker to the page (a
/// counterexample of "Can this break?").
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Fault {
    Pause(Pid),
    Resume(Pid),
    Crash(Pid),
    Restart(Pid),
    ClockJump(Pid, i64),
    Drift(Pid, i64),
    Partition { a: Pid, b: Vec<Pid>, oneway: bool },
    Repair { a: Pid, b: Vec<Pid> },
    Latency { a: Pid, b: Vec<Pid>, latency: Latency },
    Command { node: Pid, args: Vec<Vec<u8>> },
}

/// A `WAIT` a master holds until enough replicas acknowledge `offset` (or it times out).
#[derive(Clone, Debug)]
pub(super) struct WaitReq {
    pub(super) id: u64,
    pub(super) client: Pid,
    pub(super) req: u64,
    pub(super) want: i64,
    pub(super) offset: u64,
    pub(super) args: Vec<String>,
    pub(super) line: Option<u32>,
}

/// A Redis node: its store, its disk (the AOF), its replication and the `WAIT`s it holds.
#[derive(Clone, Debug)]
pub(super) struct Node {
    pub(super) store: Store,
    /// What a restart finds on disk (the AOF): each key's last written state.
    pub(super) disk: BTreeMap<Vec<u8>, (Vec<u8>, Option<u64>)>,
    pub(super) aof_pending: Vec<Effect>,
    pub(super) persistence: Persistence,
    pub(super) service_us: u64,
    pub(super) seed: u64,
    pub(super) group: Option<usize>,
    pub(super) replicas: Vec<Pid>,
    pub(super) replica_of: Option<Pid>,
    pub(super) lag_us: u64,
    pub(super) offset: u64,
    pub(super) acked: crate::vecmap::VecMap<Pid, u64>,
    pub(super) waits: Vec<WaitReq>,
    pub(super) next_wait: u64,
}

/// A master and its replicas; `failover`: (detection, promotion) µs, if it fails over.
#[derive(Clone, Debug)]
pub(super) struct Group {
    pub(super) name: String,
    pub(super) master: Pid,
    pub(super) members: Vec<Pid>,
    pub(super) failover: Option<(u64, u64)>,
}

/// Convert scenario milliseconds to µs, rejecting what is not a sane time.
pub(crate) fn ms_to_us(ms: f64) -> Result<u64, String> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(format!("{ms} is not a time (must be a finite number ≥ 0)"));
    }
    if ms > MAX_TIME_MS {
        return Err(format!(
            "{ms} ms is more than the limit of {MAX_TIME_MS} ms (one day)"
        ));
    }
    Ok((ms * 1000.0).round() as u64)
}

/// A scenario mistake: (field path, message).
pub(crate) type FieldErr = (String, String);
