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

pub use crate::sim::world::{LabAction, LabAttack, LabAttackOp, LabEvent, LabInput, StallPoint};

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
