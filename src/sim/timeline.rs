//! Stepping through a run for the timeline: forward one event, back one event, seek to
//! a time, and fork (apply a new fault at the cursor and recompute the future).
//!
//! Bound: a checkpoint (a clone of the whole [`World`], stores included) is kept every
//! [`CHECKPOINT_EVERY`] events. Stepping back or seeking backwards restores the nearest
//! checkpoint at or before the target and replays forward from it, so it costs one
//! `World` clone plus at most `CHECKPOINT_EVERY - 1` events, whatever the run's length.
//! Memory grows with one checkpoint per `CHECKPOINT_EVERY` events.

use super::checker::{check_with, Outcome, Rules};
use super::scenario::Scenario;
use super::trace::{TraceEvent, TraceLevel};
use super::world::{Fault, World};
use std::collections::BTreeMap;

pub const CHECKPOINT_EVERY: u64 = 64;

#[derive(Clone, Debug)]
struct Checkpoint {
    events: u64,
    trace_len: usize,
    world: World,
}

#[derive(Clone, Debug)]
pub struct Timeline {
    world: World,
    trace: Vec<TraceEvent>,
    names: Vec<String>,
    rules: Rules,
    checkpoints: Vec<Checkpoint>,
    /// Faults a fork injects just before the event with this index is processed.
    injections: BTreeMap<u64, Vec<Fault>>,
}

impl Timeline {
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Timeline, String> {
        let world = World::build(scenario, seed, TraceLevel::Full).map_err(|(f, m)| format!("{f}: {m}"))?;
        let names = world.process_names();
        Ok(Timeline {
            checkpoints: vec![Checkpoint {
                events: 0,
                trace_len: 0,
                world: world.clone(),
            }],
            world,
            trace: Vec::new(),
            names,
            rules: scenario.resource.rules(),
            injections: BTreeMap::new(),
        })
    }

    /// A timeline over a world built elsewhere (a lab run's replay), judged by `rules`.
    pub fn from_world(world: World, rules: Rules) -> Timeline {
        let names = world.process_names();
        Timeline {
            checkpoints: vec![Checkpoint {
                events: 0,
                trace_len: 0,
                world: world.clone(),
            }],
            world,
            trace: Vec::new(),
            names,
            rules,
            injections: BTreeMap::new(),
        }
    }

    /// Events processed so far: the cursor.
    pub fn cursor(&self) -> u64 {
        self.world.events()
    }

    pub fn now_us(&self) -> u64 {
        self.world.now_us()
    }

    pub fn trace(&self) -> &[TraceEvent] {
        &self.trace
    }

    pub fn names(&self) -> &[String] {
        &self.names
    }

    pub fn world(&self) -> &World {
        &self.world
    }

    /// The state at the cursor, for inspection (e.g. `node_keys`).
    pub fn world_mut(&mut self) -> &mut World {
        &mut self.world
    }

    pub fn is_done(&self) -> bool {
        self.world.is_done()
    }

    /// The checker's verdict on the trace so far.
    pub fn outcome(&self) -> Outcome {
        check_with(&self.trace, &self.names, &self.rules)
    }

    fn advance(&mut self) -> bool {
        if let Some(fs) = self.injections.get(&self.world.events()) {
            for f in fs {
                self.world.inject(f.clone());
            }
        }
        let more = self.world.step(&mut self.trace);
        let n = self.world.events();
        if n.is_multiple_of(CHECKPOINT_EVERY) && self.checkpoints.last().is_none_or(|c| c.events < n) {
            self.checkpoints.push(Checkpoint {
                events: n,
                trace_len: self.trace.len(),
                world: self.world.clone(),
            });
        }
        more
    }

    /// Process one event. Returns false at the end of the run.
    pub fn step_forward(&mut self) -> bool {
        self.advance()
    }

    /// Go back one event. Returns false at the start.
    pub fn step_back(&mut self) -> bool {
        let n = self.cursor();
        if n == 0 {
            return false;
        }
        self.restore(n - 1);
        true
    }

    /// Put the cursor after exactly `events` events (or at the end, if fewer).
    pub fn goto(&mut self, events: u64) {
        if events < self.cursor() {
            self.restore(events);
        }
        while self.cursor() < events && self.advance() {}
    }

    fn restore(&mut self, target: u64) {
        let cp = match self.checkpoints.iter().rev().find(|c| c.events <= target) {
            Some(c) => c.clone(),
            None => return,
        };
        self.world = cp.world;
        self.trace.truncate(cp.trace_len);
        while self.world.events() < target && self.advance() {}
    }

    /// Move to true time `t_us`: every event at or before it has been processed, none
    /// after it.
    pub fn seek(&mut self, t_us: u64) {
        if t_us < self.world.now_us() {
            let from = self
                .checkpoints
                .iter()
                .rev()
                .find(|c| c.world.now_us() <= t_us)
                .map(|c| c.events)
                .unwrap_or(0);
            self.restore(from);
            // `restore` landed on a checkpoint whose time is ≤ t_us; replay from it.
        }
        while self.world.next_event_us().is_some_and(|n| n <= t_us) {
            if !self.advance() {
                break;
            }
        }
    }

    pub fn run_to_end(&mut self) {
        while self.advance() {}
    }

    /// A new timeline that shares the past up to the cursor and injects `fault` now;
    /// its future is recomputed as it is stepped (or with `run_to_end`).
    pub fn fork(&self, fault: Fault) -> Timeline {
        let mut t = self.clone();
        let n = t.cursor();
        t.checkpoints.retain(|c| c.events <= n);
        t.injections.retain(|k, _| *k < n);
        t.injections.entry(n).or_default().push(fault);
        t
    }
}
