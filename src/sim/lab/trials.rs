//! Many runs with a host: the trials a session draws ([`Draw`]), run one after another
//! ([`run_trials`]) or in lanes ([`TrialPool`]), and the report.

use super::*;

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
    match host.exchange(r#"{"type":"run"}"#).and_then(|a| parse_ready(&a)) {
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
/// here ([`Draw::trial`]): the CLI, `check-pack`, `lab grade`, the Node tests, the
/// page's pool and the engine's groups, so one seed names the same trials everywhere.
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

/// Several trials in flight at once, for a host where a round trip, not the work, is
/// the cost (the browser's sandboxed worker: one message per input would spend most of
/// a trial in messaging). Each lane is a harness of its own; one batch message carries
/// one input per lane (docs/labs.md, `batch`). The lanes are split into groups, one
/// host each, so that while one host runs its batch the page prepares another's.
/// Trials are handed out in order and none is started past a failure, so the failure
/// reported is the lowest failing trial: the one a sequential run finds, whatever the
/// number of lanes and groups.
pub struct TrialPool<'a> {
    lab: &'a Lab,
    total: u32,
    /// Trial index → (seed, attacks).
    draw: Box<dyn Fn(u32) -> (u64, Vec<LabAttack>) + 'a>,
    lanes: Vec<Option<Lane>>,
    /// Lanes per group: group `g` has lanes `g * per_group ..`, numbered from 0 in its host.
    per_group: usize,
    next: u32,
    finished: u32,
    /// Per group, the lanes that got an item in its batch in flight, in item order.
    sent: Vec<Vec<usize>>,
    first_failure: Option<(u32, TrialResult)>,
    /// With a single trial, its result, failing or not.
    only: Option<TrialResult>,
}

struct Lane {
    trial: u32,
    run: LabRun,
    started: bool,
}

/// The most lanes a host runs (the sandbox accepts lanes 0–63), and the most groups.
pub const MAX_LANES: usize = 64;

impl<'a> TrialPool<'a> {
    /// `total` trials of `lab` in `groups` groups (hosts) of `per_group` lanes each;
    /// `draw` gives trial `i`'s seed and attacks.
    pub fn new(
        lab: &'a Lab,
        total: u32,
        groups: usize,
        per_group: usize,
        draw: impl Fn(u32) -> (u64, Vec<LabAttack>) + 'a,
    ) -> TrialPool<'a> {
        let per_group = per_group.clamp(1, MAX_LANES);
        let groups = groups.clamp(1, MAX_LANES);
        TrialPool {
            lab,
            total,
            draw: Box::new(draw),
            lanes: (0..groups * per_group).map(|_| None).collect(),
            per_group,
            next: 0,
            finished: 0,
            sent: vec![Vec::new(); groups],
            first_failure: None,
            only: None,
        }
    }

    /// A single trial (Run) is traced in full, so its result carries the whole run;
    /// many trials are only graded, on the lighter trace.
    fn level(&self) -> TraceLevel {
        if self.total == 1 {
            TraceLevel::Full
        } else {
            TraceLevel::Semantic
        }
    }

    fn failed_before(&self, i: u32) -> bool {
        self.first_failure.as_ref().is_some_and(|(f, _)| *f < i)
    }

    fn record(&mut self, trial: u32, t: TrialResult) {
        self.finished += 1;
        if self.total == 1 {
            self.only = Some(t.clone());
        }
        if !t.passed() && !self.failed_before(trial) {
            self.first_failure = Some((trial, t));
        }
    }

    /// The next batch message (JSON text) for group `group`'s host, or `None` when the
    /// group has nothing left to run.
    pub fn next_batch(&mut self, group: usize) -> Result<Option<String>, String> {
        let mut items: Vec<String> = Vec::new();
        let mut sent = Vec::new();
        let first = group.saturating_mul(self.per_group);
        let end = first.saturating_add(self.per_group).min(self.lanes.len());
        let level = self.level();
        for k in first..end {
            while let Some(slot) = self.lanes.get_mut(k) {
                if slot.is_none() {
                    let i = self.next;
                    if i >= self.total || self.first_failure.as_ref().is_some_and(|(f, _)| *f < i) {
                        break;
                    }
                    self.next += 1;
                    let (seed, attacks) = (self.draw)(i);
                    *slot = Some(Lane {
                        trial: i,
                        run: LabRun::traced(self.lab, seed, attacks, level)?,
                        started: false,
                    });
                }
                let Some(lane) = slot.as_mut() else { break };
                let msg = if lane.started {
                    lane.run.next_message()
                } else {
                    Some(r#"{"type":"run"}"#.to_string())
                };
                match msg {
                    Some(m) => {
                        let text = serde_json::to_string(&m).map_err(|e| e.to_string())?;
                        items.push(format!(r#"{{"lane":{},"msg":{text}}}"#, k - first));
                        sent.push(k);
                        break;
                    }
                    None => {
                        if let Some(done) = slot.take() {
                            let t = done.run.finish(self.lab);
                            self.record(done.trial, t);
                        }
                    }
                }
            }
        }
        if let Some(s) = self.sent.get_mut(group) {
            *s = sent;
        }
        if items.is_empty() {
            return Ok(None);
        }
        Ok(Some(format!(
            r#"{{"type":"batch","items":[{}]}}"#,
            items.join(",")
        )))
    }

    /// Group `group`'s host's answer to its last batch, or why it gave none (an
    /// infinite loop stopped by the host's watchdog): then every trial in flight there
    /// ends with that error.
    pub fn answer_batch(&mut self, group: usize, answer: Result<String, CodeError>) {
        let sent = self.sent.get_mut(group).map(std::mem::take).unwrap_or_default();
        let answers: Result<Vec<String>, CodeError> = answer.and_then(|a| {
            let v: Value =
                serde_json::from_str(&a).map_err(|_| CodeError::new("the sandbox's answer is not JSON"))?;
            let list = v.get("answers").and_then(Value::as_array).ok_or_else(|| {
                match v.as_object().and_then(|o| Obj(o).str("message")) {
                    Some(m) => CodeError::new(m),
                    None => CodeError::new("the sandbox did not answer the batch"),
                }
            })?;
            Ok(list
                .iter()
                .map(|x| x.as_str().unwrap_or("").to_string())
                .collect())
        });
        for (n, k) in sent.into_iter().enumerate() {
            let Some(Some(lane)) = self.lanes.get_mut(k) else {
                continue;
            };
            let a = match &answers {
                Ok(list) => match list.get(n) {
                    Some(a) => Ok(a.as_str()),
                    None => Err(CodeError::new("the sandbox answered too few inputs")),
                },
                Err(e) => Err(e.clone()),
            };
            match (a, lane.started) {
                (Ok(a), true) => lane.run.answer(a),
                (Ok(a), false) => {
                    lane.started = true;
                    if let Err(e) = parse_ready(a) {
                        lane.run.host_failed(e);
                    }
                }
                (Err(e), _) => {
                    lane.started = true;
                    lane.run.host_failed(e);
                }
            }
        }
    }

    /// Trials finished so far.
    pub fn finished(&self) -> u32 {
        self.finished
    }

    /// The lowest failing trial (its index and result), once every group is done.
    pub fn into_failure(self) -> Option<(u32, TrialResult)> {
        self.first_failure
    }

    /// The single trial's result (a pool of one trial), once it finished.
    pub fn into_only(self) -> Option<TrialResult> {
        self.only
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
    let pids: BTreeSet<u32> = t
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
    let mut failed: BTreeMap<Check, u32> = BTreeMap::new();
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
        return Err(CodeError::new(format!(
            "the file is {} bytes; a lab takes at most {MAX_SOURCE_BYTES}",
            learner.len()
        )));
    }
    let answer = host.exchange(&lab.init_message(learner))?;
    parse_ready(&answer)
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
