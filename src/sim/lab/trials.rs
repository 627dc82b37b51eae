//! Many runs with a host: the trials a session draws ([`Draw`]), run one after another
//! ([`run_trials`]), and the report. The browser's engine runs the same trials in
//! groups beside the harness (`seq`).

use super::definition::{Check, Lab, MAX_SOURCE_BYTES, MAX_TRIALS};
use super::run::{LabRun, TrialResult};
use super::wire::{CodeError, FromHarness, ToHarness};
use crate::sim::rng::sub_seed;
use crate::sim::trace::TraceKind;
use crate::sim::world::LabAttack;
use crate::vecmap::{VecMap, VecSet};
use serde::{Deserialize, Serialize};
use serde_json::json;

/// The seed of a lab's "Run" when none is given: the learner, their teacher and the
/// command line see the same run.
pub const RUN_SEED: u64 = 1;

/// Something that runs the harness: sends one message, returns the answer. A host that
/// cannot answer (its watchdog stopped an infinite loop) returns the error to report.
pub trait Host {
    fn exchange(&mut self, message: &str) -> Result<String, CodeError>;
}

/// One run of `learner`'s code in `lab` on `host`.
pub fn run_once(
    lab: &Lab,
    host: &mut dyn Host,
    seed: u64,
    attacks: Vec<LabAttack>,
) -> Result<TrialResult, String> {
    let mut run = LabRun::new(lab, seed, attacks)?;
    let run_message = ToHarness::Run { watch: false }.text();
    match host
        .exchange(&run_message)
        .and_then(|a| FromHarness::read(&a).ready())
    {
        Ok(()) => {
            while let Some(msg) = run.next_message() {
                match host.exchange(&msg) {
                    Ok(answer) => run.answer(&answer),
                    Err(e) => run.host_failed(e),
                }
            }
        }
        Err(e) => run.host_failed(e),
    }
    Ok(run.finish(lab))
}

/// Which runs a session makes: "Try to break it"'s trials, or one run as Run makes it
/// (the seed with the lab's fixed attacks) or as a shared trial's replay does (the
/// trial's own seed, with the attacks drawn from it). Every runner draws its trials
/// here ([`Draw::trial`]): the CLI, `check-pack`, `lab grade`, the Node tests and the
/// engine's groups in the browser, so one seed names the same trials everywhere
/// (`tests/fixtures/first-failing-trials.txt`, checked by both the CLI's and the
/// browser's tests).
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Draw {
    Trials,
    Run,
    Replay,
}

impl Draw {
    /// `trials`, `run` or `replay`, as the page's message to the sandbox names it.
    pub fn from_name(name: &str) -> Option<Draw> {
        match name {
            "trials" => Some(Draw::Trials),
            "run" => Some(Draw::Run),
            "replay" => Some(Draw::Replay),
            _ => None,
        }
    }

    /// Trial `i` (0-based) of a session from `seed`: its seed and its attacks. Trials
    /// are `trial_seed(seed, 1..)`, each with the attacks drawn from its own seed.
    pub fn trial(self, lab: &Lab, seed: u64, i: u32) -> (u64, Vec<LabAttack>) {
        let s = self.seed(seed, i);
        let attacks = match self {
            Draw::Run => lab.run_attacks.clone(),
            Draw::Trials | Draw::Replay => lab.trial_attacks(s),
        };
        (s, attacks)
    }

    /// Trial `i`'s seed alone.
    pub fn seed(self, seed: u64, i: u32) -> u64 {
        match self {
            Draw::Trials => trial_seed(seed, i.saturating_add(1)),
            Draw::Run | Draw::Replay => seed,
        }
    }

    pub fn name(self) -> &'static str {
        match self {
            Draw::Trials => "trials",
            Draw::Run => "run",
            Draw::Replay => "replay",
        }
    }
}

/// The seed of trial `i` of a session started from `seed` (trial 0 is the seed itself).
pub fn trial_seed(seed: u64, i: u32) -> u64 {
    if i == 0 {
        seed
    } else {
        sub_seed(seed, &format!("lab-trial:{i}"))
    }
}

/// Per check: in how many trials it broke.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CheckSummary {
    pub name: String,
    pub passed: bool,
    pub failed_trials: u32,
}

/// A session's verdict ("Run" is one trial with the lab's fixed attacks; "Try to break
/// it" is many, each with attacks drawn from its own seed, stopping at the first that
/// breaks).
#[derive(Clone, Debug)]
pub struct LabReport {
    pub lab: String,
    pub seed: u64,
    pub trials: u32,
    pub checks: Vec<CheckSummary>,
    /// The first trial that broke a check or whose code failed.
    pub counterexample: Option<TrialResult>,
    pub code_error: Option<CodeError>,
}

impl LabReport {
    pub fn passed(&self) -> bool {
        self.code_error.is_none() && self.checks.iter().all(|c| c.passed)
    }

    /// 0: every check held; 1: a check broke; 2: the learner's code failed.
    pub fn exit_code(&self) -> u8 {
        if self.code_error.is_some() {
            2
        } else if self.passed() {
            0
        } else {
            1
        }
    }

    pub fn json(&self) -> String {
        let ce = self.counterexample.as_ref().map(|t| {
            json!({
                "seed": t.seed,
                "attacks": t.attacks.iter().map(|a| a.label(&lab_names(t))).collect::<Vec<_>>(),
                "violations": t.violations(),
            })
        });
        let v = json!({
            "lab": self.lab,
            "seed": self.seed,
            "trials": self.trials,
            "passed": self.passed(),
            "checks": self.checks,
            "counterexample": ce,
            "code_error": self.code_error,
        });
        serde_json::to_string_pretty(&v).unwrap_or_default()
    }
}

/// The names of a run's lab workers, by worker index.
pub fn lab_names(t: &TrialResult) -> Vec<String> {
    let pids: VecSet<u32> = t
        .trace
        .iter()
        .filter(|e| matches!(e.kind, TraceKind::Start))
        .map(|e| e.pid)
        .collect();
    pids.into_iter()
        .filter_map(|p| t.names.get(p as usize).cloned())
        .collect()
}

/// Run `trials` trials from `seed` (1: the lab's fixed run), stopping at the first
/// that breaks. `init` must already have been answered by the host.
pub fn run_trials(
    lab: &Lab,
    host: &mut dyn Host,
    seed: u64,
    trials: u32,
    progress: impl FnMut(u32),
) -> Result<LabReport, String> {
    run_trials_with(lab, seed, trials, progress, |s, attacks| {
        run_once(lab, host, s, attacks)
    })
}

/// [`run_trials`] with each trial run by `one(seed, attacks)`: in the simulator, or live
/// against real servers (`labs::live`).
pub fn run_trials_with(
    lab: &Lab,
    seed: u64,
    trials: u32,
    mut progress: impl FnMut(u32),
    mut one: impl FnMut(u64, Vec<LabAttack>) -> Result<TrialResult, String>,
) -> Result<LabReport, String> {
    let trials = trials.clamp(1, MAX_TRIALS);
    let mut failed: VecMap<Check, u32> = VecMap::new();
    let mut counterexample = None;
    let mut code_error = None;
    let mut ran = 0;
    for i in 0..trials {
        // One trial is the lab's Run: the seed itself, with the lab's fixed attack.
        let draw = if trials == 1 { Draw::Run } else { Draw::Trials };
        let (s, attacks) = draw.trial(lab, seed, i);
        let t = one(s, attacks)?;
        ran += 1;
        progress(ran);
        for v in &t.verdicts {
            if !v.violations.is_empty() {
                *failed.entry(v.check).or_insert(0) += 1;
            }
        }
        if !t.passed() {
            code_error = t.code_error.clone();
            counterexample = Some(t);
            break;
        }
    }
    let checks = lab
        .checks
        .iter()
        .map(|c| {
            let n = failed.get(c).copied().unwrap_or(0);
            CheckSummary {
                name: c.name().to_string(),
                passed: n == 0,
                failed_trials: n,
            }
        })
        .collect();
    Ok(LabReport {
        lab: lab.id.clone(),
        seed,
        trials: ran,
        checks,
        counterexample,
        code_error,
    })
}

/// Compile the learner's code in the host: `Ok` when the harness is ready.
pub fn init(lab: &Lab, host: &mut dyn Host, learner: &str) -> Result<(), CodeError> {
    if learner.len() > MAX_SOURCE_BYTES {
        return Err(CodeError::coded(
            format!(
                "the file is {} bytes; a lab takes at most {MAX_SOURCE_BYTES}",
                learner.len()
            ),
            "file_too_big",
            &[
                ("bytes", learner.len().to_string()),
                ("max", MAX_SOURCE_BYTES.to_string()),
            ],
        ));
    }
    let answer = host.exchange(&ToHarness::Init { lab, learner }.text())?;
    FromHarness::read(&answer).ready()
}

/// The report of one run (a replayed trial).
pub fn report_of_one(lab: &Lab, t: TrialResult) -> LabReport {
    let checks = t
        .verdicts
        .iter()
        .map(|v| CheckSummary {
            name: v.check.name().to_string(),
            passed: v.violations.is_empty(),
            failed_trials: u32::from(!v.violations.is_empty()),
        })
        .collect();
    let passed = t.passed();
    LabReport {
        lab: lab.id.clone(),
        seed: t.seed,
        trials: 1,
        checks,
        code_error: t.code_error.clone(),
        counterexample: if passed { None } else { Some(t) },
    }
}
