//! One run of a lab, driven step by step: the world stops whenever a worker's code must
//! run. Its result, and the world of a recorded run, for the timeline.

use super::definition::Lab;
use super::grade::{grade, violations_of, Verdict};
use super::wire::{CodeError, FromHarness, ToHarness};
use crate::sim::checker::{Outcome, Violation};
use crate::sim::fact::{TimerName, ViolationKind};
use crate::sim::trace::{TraceEvent, TraceKind, TraceLevel};
use crate::sim::world::{LabAttack, LabAttackOp, Pid, World};

/// Most answers one run may take from the harness ("your code sent too many commands").
pub const MAX_ANSWERS: u32 = 20_000;

/// One run of a lab: a world whose lab workers are driven by the harness. Call
/// [`LabRun::next_message`] and hand each answer to [`LabRun::answer`] until it gives
/// `None`; then [`LabRun::finish`].
pub struct LabRun {
    world: World,
    trace: Vec<TraceEvent>,
    pending: Option<(Pid, u32)>,
    answers: u32,
    pub seed: u64,
    pub attacks: Vec<LabAttack>,
    failed: Option<CodeError>,
    /// Every answer, in order: replaying them rebuilds the run ([`World::set_lab_tape`]).
    tape: Vec<String>,
}

impl LabRun {
    /// The name of process `pid` in this run (a worker's, `A`).
    pub fn process_name(&self, pid: Pid) -> Option<&str> {
        self.world.process_name(pid)
    }

    /// A run of `lab` under `seed` with these attacks, traced in full.
    pub fn new(lab: &Lab, seed: u64, attacks: Vec<LabAttack>) -> Result<LabRun, String> {
        LabRun::traced(lab, seed, attacks, TraceLevel::Full)
    }

    /// A run traced at `level`. The grade reads only what [`TraceLevel::Semantic`] keeps
    /// (holds, writes, crashes, deletes, code errors and the end), so a trial that is
    /// only graded can skip the messages and commands; the timeline replays a run's tape
    /// in full when it is shown.
    pub fn traced(
        lab: &Lab,
        seed: u64,
        attacks: Vec<LabAttack>,
        level: TraceLevel,
    ) -> Result<LabRun, String> {
        let mut world = World::build(&lab.scenario, seed, level).map_err(|(f, m)| format!("{f}: {m}"))?;
        apply_attacks(&mut world, &attacks);
        Ok(LabRun {
            world,
            trace: Vec::new(),
            pending: None,
            answers: 0,
            seed,
            attacks,
            failed: None,
            tape: Vec::new(),
        })
    }

    /// The next message for the harness, or `None` when the run is over.
    pub fn next_message(&mut self) -> Option<String> {
        if self.failed.is_some() {
            return None;
        }
        loop {
            if let Some(input) = self.world.next_lab_input() {
                self.pending = Some((input.pid, input.inc));
                return Some(ToHarness::Input(&input).text());
            }
            if !self.world.step(&mut self.trace) {
                return None;
            }
        }
    }

    /// The harness's answer to the last message.
    pub fn answer(&mut self, answer: &str) {
        let Some((pid, inc)) = self.pending.take() else {
            return;
        };
        self.answers += 1;
        if self.answers > MAX_ANSWERS {
            self.failed = Some(CodeError::coded(
                format!("your code sent too many commands ({MAX_ANSWERS} answers in one run)"),
                "too_many_answers",
                &[("max", MAX_ANSWERS.to_string())],
            ));
            return;
        }
        match FromHarness::read(answer).actions() {
            Ok(actions) => {
                self.tape.push(answer.to_string());
                self.world.lab_actions(pid, inc, actions, &mut self.trace)
            }
            Err(mut e) => {
                e.worker = self.world.process_names().get(pid).cloned();
                self.failed = Some(e);
            }
        }
    }

    /// The host failed (an infinite loop stopped by the host's watchdog, a crash of
    /// the host): the run ends with this error.
    pub fn host_failed(&mut self, e: CodeError) {
        self.failed = Some(e);
    }

    /// Grade the run.
    pub fn finish(mut self, lab: &Lab) -> TrialResult {
        if self.failed.is_none() {
            while self.world.step(&mut self.trace) {}
        }
        let names = self.world.process_names();
        let code_error = self
            .failed
            .clone()
            .or_else(|| first_code_error(&self.trace, &names));
        let (outcome, verdicts) = grade(lab, &self.trace, &names);
        TrialResult {
            seed: self.seed,
            attacks: self.attacks,
            names,
            trace: self.trace,
            outcome,
            verdicts,
            code_error,
            tape: self.tape,
        }
    }

    /// The world, for a look at the cluster at the end.
    pub fn world(&self) -> &World {
        &self.world
    }
}

/// Arm a run's attacks: node outages are faults at their time; the others wait in the
/// world for the worker's k-th command.
fn apply_attacks(world: &mut World, attacks: &[LabAttack]) {
    let names = world.process_names().len();
    let nodes: Vec<Pid> = (0..names).filter(|p| world.is_node(*p)).collect();
    for a in attacks {
        match &a.op {
            LabAttackOp::NodeDown { node, at_us } => {
                if let Some(&pid) = nodes.get(*node as usize) {
                    world.inject_at(*at_us, crate::sim::world::Fault::Crash(pid));
                }
            }
            _ => world.add_lab_attack(a.clone()),
        }
    }
}

/// The world of a recorded run, ready to replay it without the harness: the timeline
/// builds its picture (and steps back and forth) from this.
pub fn replay_world(lab: &Lab, seed: u64, attacks: &[LabAttack], tape: Vec<String>) -> Result<World, String> {
    let mut world =
        World::build(&lab.scenario, seed, TraceLevel::Full).map_err(|(f, m)| format!("{f}: {m}"))?;
    apply_attacks(&mut world, attacks);
    // Read here, at the edge: the world replays actions, not the harness's JSON.
    let tape = tape.iter().map(|a| FromHarness::read(a).actions().ok()).collect();
    world.set_lab_tape(std::sync::Arc::new(tape));
    Ok(world)
}

pub(crate) fn first_code_error(trace: &[TraceEvent], names: &[String]) -> Option<CodeError> {
    trace.iter().find_map(|e| match &e.kind {
        TraceKind::CodeError {
            message,
            line,
            col,
            coded,
        } => Some(CodeError {
            message: message.clone(),
            line: *line,
            col: *col,
            worker: names.get(e.pid as usize).cloned(),
            within: None,
            coded: coded.clone().map(Box::new),
        }),
        _ => None,
    })
}

/// The event of `trace` where violation `v` happened: the delete, the kept lock, the
/// unbacked or second hold, the stale write or second charge, or a code error, at the
/// moment it broke ([`Violation::broke_at_ms`]); else the last event before that moment.
pub fn breaking_event(trace: &[TraceEvent], v: &Violation) -> usize {
    let at_us = (v.broke_at_ms() * 1000.0).round() as u64;
    let wanted = |k: &TraceKind| match v.kind {
        ViolationKind::StaleWrite
        | ViolationKind::LostUpdate
        | ViolationKind::DoubleEffect
        | ViolationKind::DuplicateToken => {
            matches!(k, TraceKind::WriteAccepted { .. })
        }
        _ => matches!(
            k,
            TraceKind::ForeignDelete { .. }
                | TraceKind::LockKept { .. }
                | TraceKind::HeldUnbacked { .. }
                | TraceKind::LockHeld { .. }
                | TraceKind::CodeError { .. }
        ),
    };
    trace
        .iter()
        .position(|e| e.t_us + 1 >= at_us && e.t_us <= at_us + 1 && wanted(&e.kind))
        .unwrap_or_else(|| trace.iter().rposition(|e| e.t_us <= at_us).unwrap_or(0))
}

/// The line of the learner's file that sent the command behind event `at`, when the
/// trace knows it (a trial drawn alone, whose commands carry their lines). A node's
/// command is its own; a foreign delete is the command the node runs right after it
/// (the delete); anything else a worker did (took a lock someone holds, believed in one
/// its nodes do not back, gave up, failed, crashed) came in its answer to a command's
/// reply or timeout at that moment: that command's. No line for the rest: a kept lock
/// is seen only once the worker has moved on (its next acquire's replies came since,
/// and its release may have sent nothing), a stale write or a second charge went to the
/// resource, and what the worker's own timers started answers no command.
pub fn sent_from_line(trace: &[TraceEvent], at: usize) -> Option<u32> {
    let e = trace.get(at)?;
    match &e.kind {
        TraceKind::Command { line, .. } => line.0,
        TraceKind::ForeignDelete { .. } => {
            let mut next = trace.get(at + 1..)?.iter().take_while(|c| c.t_us == e.t_us);
            next.find_map(|c| match &c.kind {
                TraceKind::Command { from, line, .. } if *from == e.pid => Some(line.0),
                _ => None,
            })?
        }
        TraceKind::LockKept { .. } | TraceKind::WriteAccepted { .. } | TraceKind::WriteRejected { .. } => {
            None
        }
        _ => answered(trace, at),
    }
}

/// The line of the command whose reply or timeout worker event `at` answers: the last
/// one the worker got at that moment. A reply is traced as it is delivered; its command
/// is the one the node ran just before sending it (`reply_cmd` records the two together).
fn answered(trace: &[TraceEvent], at: usize) -> Option<u32> {
    let e = trace.get(at)?;
    let mut now = trace.get(..=at)?.iter().rev().take_while(|d| d.t_us == e.t_us);
    let trigger = now.find(|d| {
        d.pid == e.pid
            && matches!(
                d.kind,
                TraceKind::Deliver { .. }
                    | TraceKind::Timer {
                        name: TimerName::RequestTimeout,
                        ..
                    }
            )
    })?;
    let (msg, node) = match trigger.kind {
        TraceKind::Deliver { msg, from } => (msg, from),
        TraceKind::Timer { line, .. } => return line.0,
        _ => return None,
    };
    let sent = trace
        .get(..at)?
        .iter()
        .rposition(|s| s.pid == node && matches!(s.kind, TraceKind::Send { msg: m, .. } if m == msg))?;
    let ran = trace.get(sent.checked_sub(1)?)?;
    match &ran.kind {
        TraceKind::Command { from, line, .. } if ran.pid == node && *from == e.pid => line.0,
        _ => None,
    }
}

/// What one run showed.
#[derive(Clone, Debug)]
pub struct TrialResult {
    pub seed: u64,
    pub attacks: Vec<LabAttack>,
    pub names: Vec<String>,
    pub trace: Vec<TraceEvent>,
    pub outcome: Outcome,
    pub verdicts: Vec<Verdict>,
    pub code_error: Option<CodeError>,
    /// The harness's answers, for a replay.
    pub tape: Vec<String>,
}

impl TrialResult {
    pub fn passed(&self) -> bool {
        self.code_error.is_none() && self.verdicts.iter().all(|v| v.violations.is_empty())
    }

    /// Every violation of every check, in time order.
    pub fn violations(&self) -> Vec<Violation> {
        violations_of(&self.verdicts)
    }
}
