//! A run as the timeline reads it: the world, its trace so far and the checker's rules,
//! stepped forward one event at a time. The picture keeps every moment of the run (see
//! `crate::timeline::Model`), so stepping back and seeking are over the model, and a
//! learner's fork is a new run with the fault injected at its time
//! (`World::inject_at`); nothing here keeps copies of the world.

use super::checker::{check_with, Outcome, Rules};
use super::scenario::Scenario;
use super::trace::{TraceEvent, TraceLevel};
use super::world::World;

#[derive(Clone, Debug)]
pub struct Timeline {
    world: World,
    trace: Vec<TraceEvent>,
    names: Vec<String>,
    rules: Rules,
}

impl Timeline {
    pub fn new(scenario: &Scenario, seed: u64) -> Result<Timeline, String> {
        let world = World::build(scenario, seed, TraceLevel::Full).map_err(|(f, m)| format!("{f}: {m}"))?;
        Ok(Timeline::from_world(world, scenario.resource.rules()))
    }

    /// A timeline over a world built elsewhere (a lab run's replay), judged by `rules`.
    pub fn from_world(world: World, rules: Rules) -> Timeline {
        let names = world.process_names();
        Timeline {
            world,
            trace: Vec::new(),
            names,
            rules,
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

    /// Process one event. Returns false at the end of the run.
    pub fn step_forward(&mut self) -> bool {
        self.world.step(&mut self.trace)
    }

    pub fn run_to_end(&mut self) {
        while self.step_forward() {}
    }
}
