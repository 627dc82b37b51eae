//! "Try to break it" where the harness answers in the same thread: the engine's worker
//! (`src/bin/engine.rs`), which holds this runner and the learner's harness side by
//! side, so an exchange is a function call rather than a message between threads.
//!
//! A session's trials are split into `groups` (one worker each): group `g` runs trials
//! `g, g + groups, g + 2·groups, …` in order, and stops at its first failure or at a
//! limit the page sets when another group has failed earlier. The page keeps the lowest
//! failing trial over all groups, which is the one a single sequential run finds.
//! Trial `i` is [`Draw::trial`]`(lab, seed, i)`, the seed `trial_seed(seed, i + 1)`
//! and the attacks drawn from it, as every other runner draws it.

use super::{
    grade, replay_world, CodeError, FromHarness, Lab, LabAttack, LabRun, ToHarness, TrialResult, Verdict,
};
use crate::sim::trace::TraceLevel;
use serde_json::{json, Value};

/// The first trial a group found broken, as the page needs it to show it: its index,
/// seed and tape (the harness's answers) and the code's error, if any. The attacks come
/// from the seed, and the verdicts from replaying the tape ([`FailedTrial::regrade`]), so
/// the page reads a few numbers and strings: no derived deserializer for the verdicts.
#[derive(Clone, Debug, PartialEq)]
pub struct FailedTrial {
    /// The trial's index in the session (0-based).
    pub trial: u32,
    pub seed: u64,
    pub code_error: Option<CodeError>,
    pub tape: Vec<String>,
}

/// A group's report, when it is done.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GroupReport {
    /// Trials this group finished.
    pub finished: u32,
    pub failure: Option<FailedTrial>,
}

impl GroupReport {
    /// As JSON: `{"finished":F,"failure":null | {"trial","seed" (text: a u64 does not
    /// survive a JavaScript number),"code_error","tape"}}`.
    pub fn json(&self) -> String {
        let failure = self.failure.as_ref().map(|f| {
            json!({
                "trial": f.trial,
                "seed": f.seed.to_string(),
                "code_error": f.code_error,
                "tape": f.tape,
            })
        });
        json!({ "finished": self.finished, "failure": failure }).to_string()
    }

    /// Reads [`GroupReport::json`]'s form (as the page gets it inside `done`).
    pub fn read(v: &Value) -> Result<GroupReport, String> {
        let bad = || "the engine's report cannot be read".to_string();
        let u32_at = |v: &Value, k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .and_then(|x| u32::try_from(x).ok())
                .ok_or_else(bad)
        };
        let failure = match v.get("failure") {
            None | Some(Value::Null) => None,
            Some(f) => Some(FailedTrial {
                trial: u32_at(f, "trial")?,
                seed: f
                    .get("seed")
                    .and_then(Value::as_str)
                    .and_then(|t| t.parse().ok())
                    .ok_or_else(bad)?,
                code_error: f.get("code_error").filter(|e| !e.is_null()).map(CodeError::read),
                tape: f
                    .get("tape")
                    .and_then(Value::as_array)
                    .ok_or_else(bad)?
                    .iter()
                    .map(|a| a.as_str().map(str::to_string).ok_or_else(bad))
                    .collect::<Result<_, _>>()?,
            }),
        };
        Ok(GroupReport {
            finished: u32_at(v, "finished")?,
            failure,
        })
    }
}

impl FailedTrial {
    fn of(trial: u32, t: TrialResult) -> FailedTrial {
        FailedTrial {
            trial,
            seed: t.seed,
            code_error: t.code_error,
            tape: t.tape,
        }
    }

    /// The trial's attacks (as the worker drew them: Run's fixed ones, or those drawn
    /// from the trial's seed) and its verdicts, from replaying its tape: what the worker
    /// graded.
    pub fn regrade(&self, lab: &Lab, draw: Draw) -> Result<(Vec<LabAttack>, Vec<Verdict>), String> {
        let t = self.replay(lab, draw)?;
        Ok((t.attacks, t.verdicts))
    }

    /// The whole trial again from its tape, without the harness: its trace, outcome and
    /// verdicts as the worker saw them.
    pub fn replay(&self, lab: &Lab, draw: Draw) -> Result<TrialResult, String> {
        let attacks = match draw {
            Draw::Run => lab.run_attacks.clone(),
            Draw::Trials | Draw::Replay => lab.trial_attacks(self.seed),
        };
        let mut world = replay_world(lab, self.seed, &attacks, self.tape.clone())?;
        let mut trace = Vec::new();
        while world.step(&mut trace) {}
        let names = world.process_names();
        let (outcome, verdicts) = grade(lab, &trace, &names);
        Ok(TrialResult {
            seed: self.seed,
            attacks,
            names,
            trace,
            outcome,
            verdicts,
            code_error: self.code_error.clone(),
            tape: self.tape.clone(),
        })
    }
}

pub use super::Draw;

struct Current {
    trial: u32,
    run: LabRun,
    started: bool,
    /// A failed trial run again with lines (see [`TrialSeq::next_message`]).
    again: Option<FailedTrial>,
}

/// One group's trials, run one after another.
pub struct TrialSeq {
    lab: Lab,
    seed: u64,
    draw: Draw,
    total: u32,
    groups: u32,
    /// The next trial index to start.
    next: u32,
    /// No trial at or above this index is started (another group failed below it).
    limit: u32,
    current: Option<Current>,
    finished: u32,
    failure: Option<FailedTrial>,
}

impl TrialSeq {
    /// Group `group` of `groups` of a session of `total` trials of `lab` from `seed`.
    pub fn new(lab: Lab, seed: u64, total: u32, group: u32, groups: u32) -> TrialSeq {
        let groups = groups.max(1);
        TrialSeq {
            lab,
            seed,
            draw: Draw::Trials,
            total: total.min(super::MAX_TRIALS),
            groups,
            next: group.min(groups - 1),
            limit: u32::MAX,
            current: None,
            finished: 0,
            failure: None,
        }
    }

    /// Makes `draw`'s runs: Run and a replay are one run, from the seed itself.
    pub fn drawing(mut self, draw: Draw) -> TrialSeq {
        self.draw = draw;
        if draw != Draw::Trials {
            self.total = self.total.min(1);
        }
        self
    }

    /// Trial `i`'s seed and attacks.
    fn draw(&self, i: u32) -> (u64, Vec<LabAttack>) {
        self.draw.trial(&self.lab, self.seed, i)
    }

    /// The next message for the harness (JSON text), or `None` when the group is done.
    /// A trial starts with `{"type":"run"}` (the harness forgets the last trial's
    /// processes), then takes the run's inputs. Run and a replay, one trial the page
    /// draws, start with `{"type":"run","watch":true}`: the harness then says which line
    /// of the learner's file sent each command (reading a stack each time, which
    /// "Try to break it"'s hundreds of trials do without, but for the one that broke).
    pub fn next_message(&mut self) -> Option<String> {
        loop {
            if self.current.is_none() {
                let i = self.next;
                if self.failure.is_some() || i >= self.total || i >= self.limit {
                    return None;
                }
                self.next = i.saturating_add(self.groups);
                let (seed, attacks) = self.draw(i);
                match LabRun::traced(&self.lab, seed, attacks, TraceLevel::Semantic) {
                    Ok(run) => {
                        self.current = Some(Current {
                            trial: i,
                            run,
                            started: false,
                            again: None,
                        })
                    }
                    Err(_) => return None,
                }
            }
            let cur = self.current.as_mut()?;
            if !cur.started {
                let watch = !matches!((self.draw, &cur.again), (Draw::Trials, None));
                return Some(ToHarness::Run { watch }.text());
            }
            if let Some(m) = cur.run.next_message() {
                return Some(m);
            }
            if let Some(done) = self.current.take() {
                let t = done.run.finish(&self.lab);
                if let Some(first) = done.again {
                    // The same trial, watched: its tape says which line sent each command
                    // (a run is a function of its seed, so it breaks the same way; if it
                    // did not, the first tape stands).
                    self.failure = Some(if t.passed() {
                        first
                    } else {
                        FailedTrial::of(done.trial, t)
                    });
                    continue;
                }
                self.finished += 1;
                if !t.passed() {
                    let failed = FailedTrial::of(done.trial, t);
                    match self.watched_again(&failed) {
                        Some(again) => self.current = Some(again),
                        None => self.failure = Some(failed),
                    }
                }
            }
        }
    }

    /// "Try to break it"'s trials read no stack; the one that broke is run once more with
    /// lines, so the page can mark the line that sent the command it broke on. Not a
    /// trial whose code failed: it has its own line, and a loop would cost its time again.
    fn watched_again(&self, failed: &FailedTrial) -> Option<Current> {
        if self.draw != Draw::Trials || failed.code_error.is_some() {
            return None;
        }
        let (seed, attacks) = self.draw(failed.trial);
        let run = LabRun::traced(&self.lab, seed, attacks, TraceLevel::Semantic).ok()?;
        Some(Current {
            trial: failed.trial,
            run,
            started: false,
            again: Some(failed.clone()),
        })
    }

    /// The harness's answer to the last message.
    pub fn answer(&mut self, answer: &str) {
        let Some(cur) = self.current.as_mut() else {
            return;
        };
        if cur.started {
            cur.run.answer(answer);
        } else {
            cur.started = true;
            if let Err(e) = FromHarness::read(answer).ready() {
                cur.run.host_failed(e);
            }
        }
    }

    /// The host could not answer: the trial in flight ends with this error.
    pub fn host_failed(&mut self, e: CodeError) {
        if let Some(cur) = self.current.as_mut() {
            cur.started = true;
            cur.run.host_failed(e);
        }
    }

    /// Start no trial at or above `trial` (a lower one failed in another group).
    pub fn limit(&mut self, trial: u32) {
        self.limit = self.limit.min(trial);
    }

    /// The name of process `pid` in the trial in flight (a worker's, `A`).
    pub fn process_name(&self, pid: u32) -> Option<String> {
        self.current
            .as_ref()?
            .run
            .process_name(pid as crate::sim::Pid)
            .map(str::to_string)
    }

    /// The trial in flight, if any.
    pub fn trial(&self) -> Option<u32> {
        self.current.as_ref().map(|c| c.trial)
    }

    /// Trials finished so far.
    pub fn finished(&self) -> u32 {
        self.finished
    }

    /// The group's report so far (final once [`TrialSeq::next_message`] gave `None`).
    pub fn report(&self) -> GroupReport {
        GroupReport {
            finished: self.finished,
            failure: self.failure.clone(),
        }
    }

    pub fn report_json(&self) -> String {
        self.report().json()
    }
}
