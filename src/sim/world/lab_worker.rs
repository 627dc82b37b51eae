//! A lab worker as the world holds it: its set-up ([`LabWorker`]), its state ([`LabProc`]),
//! and how its lock's nodes stand toward a token ([`Backing`]).

use super::lab_io::{LabAction, LabEvent, LabInput};
use super::parts::Pid;
use crate::sim::client::Dest;
use crate::vecmap::VecMap;

/// A lab worker as the scenario sets it up
/// ([`World::lab_workers`](super::World::lab_workers)).
#[derive(Clone, Debug, PartialEq)]
pub struct LabWorker {
    pub pid: Pid,
    pub worker: u32,
    pub name: String,
    pub start_us: u64,
    /// Its clients' nodes: indexes into the scenario's nodes.
    pub nodes: Vec<usize>,
    pub lock: String,
    /// Its own seed; incarnation `i` starts with `sub_seed(seed, "incarnation:{i}")`.
    pub seed: u64,
    /// Its clock: ahead of true time by this much at the start, running fast by this
    /// rate (a machine of its own, as the scenario says).
    pub clock_offset_us: i64,
    pub clock_rate_ppm: i64,
}

/// A lab worker: its program runs outside the world (the learner's JavaScript, through
/// the harness). The world turns what reaches it into [`LabInput`]s, queued for the
/// runner ([`World::next_lab_input`](super::World::next_lab_input)), and carries out
/// the [`LabAction`]s the runner hands back
/// ([`World::lab_actions`](super::World::lab_actions)).
#[derive(Clone, Debug)]
pub(super) struct LabProc {
    pub(super) worker: u32,
    pub(super) seed: u64,
    pub(super) start_us: u64,
    pub(super) dests: Vec<Dest>,
    pub(super) lock: String,
    /// The token the driver says this worker holds.
    pub(super) token: Option<String>,
    /// Commands sent and not yet answered or timed out, with the learner's line that
    /// sent each (if the harness said).
    pub(super) waiting: VecMap<u64, Option<u32>>,
    /// Commands this incarnation has sent (attacks strike before the k-th).
    pub(super) sent: u32,
    /// Timer callbacks and awaited replies that reached it (attacks strike as the k-th
    /// of either arrives).
    pub(super) timers_fired: u32,
    pub(super) replies_seen: u32,
    /// The inputs a stall struck at: delivered when the worker resumes, at that time.
    pub(super) stalled: Vec<LabEvent>,
    /// Actions held back by a pause that struck between two commands.
    pub(super) deferred: Vec<LabAction>,
    /// Inputs that reached the runner's queue for this worker after it was paused.
    pub(super) held: Vec<LabInput>,
    /// Done, failed or stuck: nothing more is delivered.
    pub(super) over: bool,
    /// The token of a release in progress: checked once the worker moves on.
    pub(super) releasing: Option<String>,
}

impl LabProc {
    pub(super) fn reset(&mut self) {
        self.token = None;
        self.waiting.clear();
        self.sent = 0;
        self.timers_fired = 0;
        self.replies_seen = 0;
        self.stalled.clear();
        self.deferred.clear();
        self.held.clear();
        self.over = false;
        self.releasing = None;
    }
}

/// How a lock's nodes stand toward one token: how many are up and store it, how many
/// are down, of how many. The one rule the world and a live run (`sim::lab::live`) judge
/// a lab worker's belief, release and write by.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Backing {
    pub storing: u32,
    pub down: u32,
    pub of: u32,
}

impl Backing {
    /// From each node's (up, stores the token).
    pub fn of(nodes: impl IntoIterator<Item = (bool, bool)>) -> Backing {
        let mut b = Backing::default();
        for (up, stores) in nodes {
            b.of += 1;
            if !up {
                b.down += 1;
            } else if stores {
                b.storing += 1;
            }
        }
        b
    }

    /// Nodes that back a belief in the token: those storing it, and those down (a node
    /// that is down grants the lock to nobody, so it does not contradict the belief).
    pub fn on(self) -> u32 {
        self.storing + self.down
    }

    /// No majority backs the belief: a `HeldUnbacked` worker.
    pub fn unbacked(self) -> bool {
        self.on().saturating_mul(2) <= self.of
    }

    /// A release returned but a node that is up still stores the token.
    pub fn kept(self) -> bool {
        self.storing > 0
    }

    /// The lock has lapsed: fewer than `needed` nodes that are up store the token.
    pub fn lapsed(self, needed: usize) -> bool {
        (self.storing as usize) < needed
    }
}
