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
//!
//! This file only declares and re-exports. Bottom up: `definition.rs` (the lab, and the
//! limits on what it reads), `wire.rs` (the channel to the harness: `ToHarness`,
//! `FromHarness`, `Watch`), `grade.rs`, `run.rs`, `trials.rs`, `seq.rs` (one group of
//! trials beside the harness), `frame.rs` (the channel between the page and a sandbox:
//! `ToSandbox`, `FromSandbox`); the actions and events themselves are the world's
//! (`world/lab_io.rs`), since the world carries them out.

mod definition;
pub mod frame;
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

/// The messages between the world and a worker's runner, defined where the world uses them.
pub use crate::sim::world::{LabAction, LabAttack, LabAttackOp, LabEvent, LabInput, StallPoint};
