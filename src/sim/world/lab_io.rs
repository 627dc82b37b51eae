//! What passes between the world and the runner of its lab workers (docs/labs.md): the
//! inputs the world queues for the harness ([`LabInput`], [`LabEvent`]), the actions it
//! carries out ([`LabAction`]), and the attacks that strike a worker at its stall points
//! ([`LabAttack`]). `sim::lab` gives them their JSON form and drives the runs.

use super::parts::Pid;
use crate::sim::client::{ResOp, ResReply};
use crate::sim::fact::{Coded, Reason};
use crate::sim::trace::fmt_ms;
use crate::store::Reply;
use serde::{Deserialize, Serialize};

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
    pub(crate) fn from_name(s: &str) -> Option<StallPoint> {
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
