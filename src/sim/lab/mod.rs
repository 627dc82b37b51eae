//! Labs: the learner writes part of a lock in JavaScript; the simulator runs it as the
//! workers of a scenario, attacks it, and grades it.
//!
//! The learner's code runs in a host (Node.js for the CLI and native tests, a sandboxed
//! Web Worker in the browser) through one shared harness, `labs/harness.js`. This
//! module owns everything else: the lab's definition ([`Lab`], from `lab.toml` and a
//! scenario whose workers have `algorithm = "lab"`), the messages to and from the
//! harness (docs/labs.md), one run driven step by step ([`LabRun`]: the world stops
//! whenever a worker's code must run), the attacks a trial draws ([`LabAttack`]: a
//! pause or crash just before a worker's k-th command, so it can strike between any two
//! of the learner's awaits), and the grade ([`grade`]).
//!
//! Nothing here talks to a host: the caller moves the messages ([`run_trials`] with a
//! [`Host`] natively; the browser's panel the same way, asynchronously).

use super::checker::{check_with, Outcome, Property, Violation};
use super::client::ResOp;
use super::client::ResReply;
use super::fact::{Coded, Reason, TimerName, ViolationKind};
use super::rng::{sub_seed, SimRng};
use super::scenario::{Algorithm, Fencing, Scenario};
use super::trace::{fmt_ms, TraceEvent, TraceKind, TraceLevel};
use crate::sim::world::{Pid, World};
use crate::store::Reply;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

mod definition;
mod grade;
pub mod live;
mod run;
pub mod seq;
mod trials;
mod wire;

pub use definition::*;
pub use grade::*;
pub use run::*;
pub use trials::*;
pub use wire::*;

/// Most answers one run may take from the harness ("your code sent too many commands").
pub const MAX_ANSWERS: u32 = 20_000;
/// Most actions in one answer.
pub const MAX_ACTIONS: usize = 1_000;
/// Longest command argument the harness may send.
pub const MAX_ARG_BYTES: usize = 64 * 1024;
/// The seed of a lab's "Run" when none is given: the learner, their teacher and the
/// command line see the same run.
pub const RUN_SEED: u64 = 1;
/// Most trials "Try to break it" runs.
pub const MAX_TRIALS: u32 = 100_000;
/// Largest `lab.toml` or learner file read.
pub const MAX_SOURCE_BYTES: usize = 256 * 1024;

/// What a lab worker is told (one input, delivered by the runner to the harness).
#[derive(Clone, Debug, PartialEq)]
pub struct LabInput {
    pub pid: Pid,
    pub worker: u32,
    pub inc: u32,
    /// The worker's own clock, µs.
    pub now_local_us: i64,
    pub ev: LabEvent,
}

#[derive(Clone, Debug, PartialEq)]
pub enum LabEvent {
    Start { seed: u64 },
    Reply { id: u64, reply: Reply },
    Timeout { id: u64 },
    Timer { id: u64 },
    Resource { id: u64, reply: ResReply },
    Crash,
}

/// What a lab worker did (docs/labs.md, "Actions").
#[derive(Clone, Debug, PartialEq)]
pub enum LabAction {
    Cmd {
        id: u64,
        node: usize,
        args: Vec<String>,
        timeout_ms: Option<f64>,
        /// The line of the learner's file that sent it, when the harness says (one
        /// trial drawn alone: `{"type":"run","watch":true}`). Display data only.
        line: Option<u32>,
    },
    Resource {
        id: u64,
        op: ResOp,
    },
    Timer {
        id: u64,
        ms: f64,
    },
    Held {
        token: String,
        until_ms: Option<f64>,
    },
    Released,
    Lost {
        reason: String,
        coded: Option<Coded>,
    },
    Failed {
        reason: String,
        coded: Option<Coded>,
    },
    Log {
        text: String,
        coded: Option<Coded>,
    },
    Done,
    Error {
        message: String,
        line: Option<u32>,
        col: Option<u32>,
        coded: Option<Coded>,
    },
}

impl LabAction {
    /// A driver's reason: its code and data when it gave them, else its words.
    pub(crate) fn reason(text: String, coded: Option<Coded>) -> Reason {
        match coded {
            Some(coded) => Reason::Coded { text, coded },
            None => Reason::Said(text),
        }
    }
}

/// An attack on a lab worker, struck at its `command`-th stall point of kind `at`
/// (1-based, counted per incarnation): just before it sends a command, as a timer's
/// callback starts, or as an awaited reply resumes its code.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabAttack {
    pub worker: u32,
    pub command: u32,
    pub op: LabAttackOp,
    #[serde(default)]
    pub at: StallPoint,
}

/// Where a Node process can stall: wherever its thread runs again.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum StallPoint {
    /// Just before it sends a command.
    #[default]
    Command,
    /// As a timer's callback starts (before it reads the clock).
    Timer,
    /// As a reply (from Redis or the resource) resumes the code that awaited it.
    Reply,
}

impl StallPoint {
    fn from_name(s: &str) -> Option<StallPoint> {
        match s {
            "command" => Some(StallPoint::Command),
            "timer" => Some(StallPoint::Timer),
            "reply" => Some(StallPoint::Reply),
            _ => None,
        }
    }

    /// "before its 2nd command", "as its 2nd timer fires", "as its 2nd reply arrives".
    fn words(self, nth: &str) -> String {
        match self {
            StallPoint::Command => format!("before its {nth} command"),
            StallPoint::Timer => format!("as its {nth} timer fires"),
            StallPoint::Reply => format!("as its {nth} reply arrives"),
        }
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum LabAttackOp {
    /// The process stops (GC, VM stall) for this long, then carries on.
    Pause { for_us: u64 },
    /// The process dies; with a delay, a fresh one starts after it.
    Crash { restart_after_us: Option<u64> },
    /// Redis node `node` (0-based, in the scenario's order) goes down at a true time and
    /// stays down: not tied to a worker's commands (`worker`/`command` are unused).
    NodeDown { node: u32, at_us: u64 },
}

impl LabAttack {
    /// For people: "worker 1 pauses 800 ms before its 2nd command".
    pub fn label(&self, names: &[String]) -> String {
        let who = names
            .get(self.worker as usize)
            .cloned()
            .unwrap_or_else(|| format!("worker {}", self.worker));
        let at = self.at.words(&ordinal(self.command));
        match &self.op {
            LabAttackOp::Pause { for_us } => {
                format!("{who} pauses {} ms {at}", fmt_ms(*for_us))
            }
            LabAttackOp::Crash {
                restart_after_us: Some(d),
            } => format!("{who} crashes {at} and restarts {} ms later", fmt_ms(*d)),
            LabAttackOp::Crash {
                restart_after_us: None,
            } => {
                format!("{who} crashes {at}")
            }
            LabAttackOp::NodeDown { node, at_us } => {
                format!(
                    "Redis node {} goes down at {} ms and stays down",
                    node + 1,
                    fmt_ms(*at_us)
                )
            }
        }
    }
}

fn ordinal(n: u32) -> String {
    let suffix = match (n % 10, n % 100) {
        (1, 11) | (2, 12) | (3, 13) => "th",
        (1, _) => "st",
        (2, _) => "nd",
        (3, _) => "rd",
        _ => "th",
    };
    format!("{n}{suffix}")
}
