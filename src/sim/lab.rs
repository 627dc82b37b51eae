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
use super::fact::ViolationKind;
use super::rng::{sub_seed, SimRng};
use super::scenario::{Algorithm, Fencing, Scenario};
use super::trace::{fmt_ms, TraceEvent, TraceKind, TraceLevel};
use super::world::{Pid, World};
use crate::store::Reply;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};
use std::collections::{BTreeMap, BTreeSet};

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
    },
    Failed {
        reason: String,
    },
    Log {
        text: String,
    },
    Done,
    Error {
        message: String,
        line: Option<u32>,
        col: Option<u32>,
    },
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

// ---------------------------------------------------------------------------------
// The lab's definition.

/// A check a lab grades, by its name in `lab.toml` and in the verdict.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Check {
    /// No two workers believe they hold the lock at once (a belief ends when the
    /// worker's own lease, start + TTL by its clock, ends).
    MutualExclusion,
    /// No two workers ever got the same token.
    UniqueTokens,
    /// Every worker that did not die for good finished its jobs.
    AllDone,
    /// After a holder crashed, another worker got the lock before the run ended.
    FreedAfterCrash,
    /// No release deleted or overwrote another worker's key.
    NoForeignDelete,
    /// A release frees the worker's own lock (its key is gone when release returns).
    ReleaseFrees,
    /// The resource accepted no write from a worker whose lock had lapsed.
    NoStaleWrite,
    /// No effect (a charge) was accepted twice.
    NoDoubleEffect,
    /// Every effect the resource counts (a charge) was accepted at least once: the
    /// job's work happened, even after a crash.
    EffectDone,
}

impl Check {
    pub const ALL: [Check; 9] = [
        Check::MutualExclusion,
        Check::UniqueTokens,
        Check::AllDone,
        Check::FreedAfterCrash,
        Check::NoForeignDelete,
        Check::ReleaseFrees,
        Check::NoStaleWrite,
        Check::NoDoubleEffect,
        Check::EffectDone,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Check::MutualExclusion => "mutual_exclusion",
            Check::UniqueTokens => "unique_tokens",
            Check::AllDone => "all_done",
            Check::FreedAfterCrash => "freed_after_crash",
            Check::NoForeignDelete => "no_foreign_delete",
            Check::ReleaseFrees => "release_frees",
            Check::NoStaleWrite => "no_stale_write",
            Check::NoDoubleEffect => "no_double_effect",
            Check::EffectDone => "effect_done",
        }
    }

    pub fn from_name(s: &str) -> Option<Check> {
        Check::ALL.into_iter().find(|c| c.name() == s)
    }

    /// The violation kind this check writes.
    pub fn violation_kind(self) -> ViolationKind {
        match self {
            Check::MutualExclusion => Property::MutualExclusion.kind(),
            Check::UniqueTokens => ViolationKind::DuplicateLockToken,
            Check::AllDone => ViolationKind::NotDone,
            Check::FreedAfterCrash => ViolationKind::LockStuck,
            Check::NoForeignDelete => ViolationKind::ForeignDelete,
            Check::ReleaseFrees => ViolationKind::LockKept,
            Check::NoStaleWrite => Property::StaleWrite.kind(),
            Check::NoDoubleEffect => Property::DoubleEffect.kind(),
            Check::EffectDone => ViolationKind::EffectMissing,
        }
    }
}

/// Text in each language, by code (`en`, `nb`).
pub type Texts = crate::vecmap::VecMap<String, String>;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct LabFile {
    id: String,
    section: u32,
    title: Texts,
    goal: Texts,
    /// The functions the learner writes, as the lab page shows them.
    signature: String,
    functions: Vec<String>,
    checks: Vec<String>,
    #[serde(default = "default_trials")]
    trials: u32,
    #[serde(default)]
    params: BTreeMap<String, Value>,
    attacks: AttackFile,
    #[serde(default)]
    run: RunFile,
}

fn default_trials() -> u32 {
    200
}

fn default_points() -> Vec<String> {
    vec!["command".to_string()]
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct AttackFile {
    /// `pause`, `crash`.
    ops: Vec<String>,
    /// Attacks strike at one of a worker's first `max_command` stall points of a kind.
    max_command: u32,
    /// The kinds of stall points attacks strike at: `command` (the default), `timer`,
    /// `reply`.
    #[serde(default = "default_points")]
    points: Vec<String>,
    pause_ms: [f64; 2],
    restart_ms: [f64; 2],
    /// How many attacks a trial draws: `[lo, hi]`.
    per_trial: [u32; 2],
    /// With `node_down` in `ops`: when the node goes down, `[lo, hi]` ms.
    #[serde(default)]
    node_down_at_ms: Option<[f64; 2]>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunFile {
    #[serde(default)]
    attacks: Vec<RunAttack>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct RunAttack {
    worker: u32,
    command: u32,
    op: String,
    ms: f64,
    #[serde(default)]
    at: Option<String>,
}

/// A lab, ready to run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Lab {
    pub id: String,
    pub section: u32,
    pub title: Texts,
    pub goal: Texts,
    pub signature: String,
    pub functions: Vec<String>,
    pub checks: Vec<Check>,
    pub trials: u32,
    /// Parameters for the driver (JSON object); on the wire as JSON text
    /// ([`params_form`]: bincode cannot read a `Value`).
    #[serde(with = "params_form")]
    pub params: Value,
    pub scenario: Scenario,
    pub driver: String,
    pub starter: String,
    pub solution: String,
    /// Attacks of the fixed run ("Run").
    pub run_attacks: Vec<LabAttack>,
    attack_ops: Vec<String>,
    attack_points: Vec<StallPoint>,
    max_command: u32,
    pause_us: (u64, u64),
    restart_us: (u64, u64),
    per_trial: (u32, u32),
    node_down_us: (u64, u64),
    workers: u32,
    nodes: u32,
    /// The files it was read from: the engine's worker reads the lab again from them
    /// (`sim::lab_seq`), so the page sends text, not a parsed lab.
    pub texts: LabTexts,
}

/// A lab's parameters as they are for people (a JSON object, in JSON) and on the wire
/// (`crate::wire`): JSON text, since bincode cannot read a value of any shape (written and
/// read by `crate::json`: in the browser, its own JSON).
mod params_form {
    use serde::{Deserialize, Deserializer, Serialize, Serializer};
    use serde_json::Value;

    pub fn serialize<S: Serializer>(v: &Value, s: S) -> Result<S::Ok, S::Error> {
        if s.is_human_readable() {
            v.serialize(s)
        } else {
            crate::json::to_string(v)
                .map_err(serde::ser::Error::custom)?
                .serialize(s)
        }
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Value, D::Error> {
        if d.is_human_readable() {
            Value::deserialize(d)
        } else {
            let text = String::deserialize(d)?;
            crate::json::from_str(&text).map_err(serde::de::Error::custom)
        }
    }
}

impl LabTexts {
    /// The lab read again from these files, as the engine does (without the driver,
    /// starter and solution: JavaScript it never needs).
    pub fn lab(&self) -> Result<Lab, String> {
        Lab::parse(&LabSources {
            dir: &self.dir,
            lab_toml: &self.lab_toml,
            scenario_toml: &self.scenario_toml,
            driver: "",
            starter: "",
            solution: "",
        })
        .map_err(|e| e.to_string())
    }
}

/// A lab's own files (the driver, starter and solution are JavaScript the engine never
/// needs).
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct LabTexts {
    pub dir: String,
    pub lab_toml: String,
    pub scenario_toml: String,
}

/// A lab file with a mistake: the file, line and field, and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct LabError {
    pub file: String,
    pub line: Option<usize>,
    pub field: String,
    pub message: String,
}

impl std::fmt::Display for LabError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(l) = self.line {
            write!(f, ":{l}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

/// The sources of one lab, as files.
#[derive(Clone, Debug)]
pub struct LabSources<'a> {
    /// The lab's folder, to name files in errors (`labs/set-nx`).
    pub dir: &'a str,
    pub lab_toml: &'a str,
    pub scenario_toml: &'a str,
    pub driver: &'a str,
    pub starter: &'a str,
    pub solution: &'a str,
}

fn ms_pair(file: &str, src: &str, field: &str, v: [f64; 2]) -> Result<(u64, u64), LabError> {
    let a = super::world::ms_to_us(v[0]);
    let b = super::world::ms_to_us(v[1]);
    match (a, b) {
        (Ok(a), Ok(b)) if a <= b => Ok((a, b)),
        (Err(m), _) | (_, Err(m)) => Err(located(file, src, field, m)),
        _ => Err(located(file, src, field, "[lo, hi] needs lo ≤ hi".into())),
    }
}

fn located(file: &str, src: &str, field: &str, message: String) -> LabError {
    let key = field.rsplit('.').next().unwrap_or(field);
    let line = crate::toml_error::key_line(src, 1, key);
    LabError {
        file: file.to_string(),
        line,
        field: field.to_string(),
        message,
    }
}

impl Lab {
    /// Read a lab from its files. Errors name the file, line and field.
    pub fn parse(src: &LabSources) -> Result<Lab, LabError> {
        let file = format!("{}/lab.toml", src.dir);
        let text = src.lab_toml;
        if text.len() > MAX_SOURCE_BYTES {
            return Err(located(
                &file,
                "",
                "file",
                format!("more than {MAX_SOURCE_BYTES} bytes"),
            ));
        }
        let f: LabFile = toml::from_str(text).map_err(|e| {
            let p = crate::toml_error::explain(text, &e);
            LabError {
                file: file.clone(),
                line: p.line,
                field: p.field,
                message: p.message,
            }
        })?;
        let scen_file = format!("{}/scenario.toml", src.dir);
        let scenario = super::scenario::parse(&scen_file, src.scenario_toml).map_err(|e| LabError {
            file: e.file,
            line: e.line,
            field: e.field,
            message: e.message,
        })?;
        if lab_workers(&scenario) == 0 {
            return Err(LabError {
                file: scen_file,
                line: None,
                field: "clients".into(),
                message: "a lab needs at least one client with algorithm = \"lab\"".into(),
            });
        }
        World::build(&scenario, 1, TraceLevel::Semantic).map_err(|(field, message)| LabError {
            line: None,
            file: scen_file.clone(),
            field,
            message,
        })?;
        Lab::assemble(src, f, scenario)
    }

    /// The lab of `f` and its `scenario` (valid as a scenario, with a lab client),
    /// checked as far as the lab file goes.
    fn assemble(src: &LabSources, mut f: LabFile, scenario: Scenario) -> Result<Lab, LabError> {
        let file = format!("{}/lab.toml", src.dir);
        let text = src.lab_toml;
        let bad = |field: &str, m: String| located(&file, text, field, m);
        let workers = lab_workers(&scenario);
        for v in f.params.values_mut() {
            dates_as_text(v);
        }
        let mut checks = Vec::new();
        for c in &f.checks {
            let ch = Check::from_name(c).ok_or_else(|| {
                let names: Vec<&str> = Check::ALL.iter().map(|c| c.name()).collect();
                bad(
                    "checks",
                    format!("`{c}` is not a check (one of {})", names.join(", ")),
                )
            })?;
            checks.push(ch);
        }
        if checks.is_empty() {
            return Err(bad("checks", "a lab grades at least one check".into()));
        }
        if f.functions.is_empty() || f.functions.iter().any(|n| !is_js_name(n)) {
            return Err(bad(
                "functions",
                "names of JavaScript functions, at least one".into(),
            ));
        }
        for lang in ["en", "nb"] {
            for (field, t) in [("title", &f.title), ("goal", &f.goal)] {
                if t.get(lang).is_none_or(|s| s.trim().is_empty()) {
                    return Err(bad(field, format!("needs a text for `{lang}`")));
                }
            }
        }
        if f.trials == 0 || f.trials > MAX_TRIALS {
            return Err(bad("trials", format!("between 1 and {MAX_TRIALS}")));
        }
        let a = &f.attacks;
        for op in &a.ops {
            if op != "pause" && op != "crash" && op != "node_down" {
                return Err(bad(
                    "attacks.ops",
                    format!("`{op}` is not an attack (pause, crash, node_down)"),
                ));
            }
        }
        if a.max_command == 0 || a.per_trial[0] > a.per_trial[1] || a.per_trial[1] > 8 {
            return Err(bad(
                "attacks.per_trial",
                "max_command ≥ 1 and per_trial [lo, hi] with lo ≤ hi ≤ 8".into(),
            ));
        }
        let point = |name: &str, field: &str| {
            StallPoint::from_name(name).ok_or_else(|| {
                bad(
                    field,
                    format!("`{name}` is not a stall point (command, timer, reply)"),
                )
            })
        };
        let attack_points = a
            .points
            .iter()
            .map(|p| point(p, "attacks.points"))
            .collect::<Result<Vec<_>, _>>()?;
        if attack_points.is_empty() {
            return Err(bad("attacks.points", "needs at least one stall point".into()));
        }
        let pause_us = ms_pair(&file, text, "attacks.pause_ms", a.pause_ms)?;
        let restart_us = ms_pair(&file, text, "attacks.restart_ms", a.restart_ms)?;
        let node_down_us = match a.node_down_at_ms {
            Some(v) => ms_pair(&file, text, "attacks.node_down_at_ms", v)?,
            None if a.ops.iter().any(|o| o == "node_down") => {
                return Err(bad(
                    "attacks.node_down_at_ms",
                    "node_down needs node_down_at_ms = [lo, hi]".into(),
                ))
            }
            None => (0, 0),
        };
        let nodes = scenario.nodes.len() as u32;
        let mut run_attacks = Vec::new();
        for r in &f.run.attacks {
            let node_down = r.op == "node_down";
            let exists = if node_down {
                r.worker < nodes
            } else {
                r.worker < workers && r.command > 0
            };
            if !exists {
                return Err(bad(
                    "run.attacks.worker",
                    format!("worker {} / command {} does not exist", r.worker, r.command),
                ));
            }
            let us = super::world::ms_to_us(r.ms).map_err(|m| bad("run.attacks.ms", m))?;
            let op = match r.op.as_str() {
                "node_down" if r.worker < nodes => LabAttackOp::NodeDown {
                    node: r.worker,
                    at_us: us,
                },
                "pause" => LabAttackOp::Pause { for_us: us },
                "crash" => LabAttackOp::Crash {
                    restart_after_us: Some(us),
                },
                o => {
                    return Err(bad(
                        "run.attacks.op",
                        format!("`{o}` is not an attack (pause, crash)"),
                    ))
                }
            };
            let at = match &r.at {
                Some(name) => point(name, "run.attacks.at")?,
                None => StallPoint::Command,
            };
            run_attacks.push(LabAttack {
                worker: r.worker,
                command: r.command,
                op,
                at,
            });
        }
        let params = Value::Object(f.params.into_iter().collect());
        Ok(Lab {
            id: f.id,
            section: f.section,
            title: f.title,
            goal: f.goal,
            signature: f.signature,
            functions: f.functions,
            checks,
            trials: f.trials,
            params,
            scenario,
            driver: src.driver.to_string(),
            starter: src.starter.to_string(),
            solution: src.solution.to_string(),
            run_attacks,
            attack_ops: a.ops.clone(),
            attack_points,
            max_command: a.max_command,
            pause_us,
            restart_us,
            per_trial: (a.per_trial[0], a.per_trial[1]),
            node_down_us,
            workers,
            nodes,
            texts: LabTexts {
                dir: src.dir.to_string(),
                lab_toml: text.to_string(),
                scenario_toml: src.scenario_toml.to_string(),
            },
        })
    }

    /// The `init` message for the harness, with the learner's source.
    pub fn init_message(&self, learner: &str) -> String {
        json!({
            "type": "init",
            "lab": self.id,
            "functions": self.functions,
            "params": self.params,
            "driver": self.driver,
            "learner": learner,
        })
        .to_string()
    }

    /// The attacks of trial `seed` ("Try to break it"): drawn from the seed alone, so a
    /// trial is reproduced by its seed.
    pub fn trial_attacks(&self, seed: u64) -> Vec<LabAttack> {
        let mut rng = SimRng::new(sub_seed(seed, "lab-attacks"));
        if self.attack_ops.is_empty() {
            return Vec::new();
        }
        let n = rng.range_u64(u64::from(self.per_trial.0), u64::from(self.per_trial.1) + 1);
        let mut out: Vec<LabAttack> = Vec::new();
        for _ in 0..n {
            let worker = rng.range_u64(0, u64::from(self.workers)) as u32;
            let command = rng.range_u64(1, u64::from(self.max_command) + 1) as u32;
            // Drawn only where a lab has several kinds: one kind draws what it always did.
            let at = match self.attack_points.as_slice() {
                [one] => *one,
                kinds => {
                    let k = rng.range_u64(0, kinds.len() as u64) as usize;
                    kinds.get(k).copied().unwrap_or_default()
                }
            };
            if out
                .iter()
                .any(|a| a.worker == worker && a.command == command && a.at == at)
            {
                continue;
            }
            let i = rng.range_u64(0, self.attack_ops.len() as u64) as usize;
            let op = match self.attack_ops.get(i).map(String::as_str) {
                Some("node_down") => LabAttackOp::NodeDown {
                    node: rng.range_u64(0, u64::from(self.nodes.max(1))) as u32,
                    at_us: rng.range_u64(self.node_down_us.0, self.node_down_us.1 + 1),
                },
                Some("crash") => LabAttackOp::Crash {
                    restart_after_us: Some(rng.range_u64(self.restart_us.0, self.restart_us.1 + 1)),
                },
                _ => LabAttackOp::Pause {
                    for_us: rng.range_u64(self.pause_us.0, self.pause_us.1 + 1),
                },
            };
            out.push(LabAttack {
                worker,
                command,
                op,
                at,
            });
        }
        out
    }
}

/// Lab workers (clients with `algorithm = "lab"`) in `scenario`.
fn lab_workers(scenario: &Scenario) -> u32 {
    scenario
        .clients
        .iter()
        .filter(|c| c.algorithm == Algorithm::Lab)
        .count() as u32
}

/// A TOML date in a parameter becomes its text, as the driver gets it (the TOML reader
/// hands a date to a JSON value as a one-key table).
fn dates_as_text(v: &mut Value) {
    match v {
        Value::Object(m) => {
            if m.len() == 1 {
                if let Some(Value::String(d)) = m.get("$__toml_private_datetime") {
                    *v = Value::String(d.clone());
                    return;
                }
            }
            m.values_mut().for_each(dates_as_text);
        }
        Value::Array(xs) => xs.iter_mut().for_each(dates_as_text),
        _ => {}
    }
}

fn is_js_name(s: &str) -> bool {
    let mut cs = s.chars();
    cs.next()
        .is_some_and(|c| c.is_ascii_alphabetic() || c == '_' || c == '$')
        && cs.all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '$')
}

// ---------------------------------------------------------------------------------
// Messages.

/// The JSON value a reply becomes for the learner (node-redis v4's shapes).
pub(crate) fn reply_value(r: &Reply) -> Value {
    match r {
        Reply::Status(s) => Value::String(s.clone()),
        Reply::Error(e) => Value::String(e.clone()),
        Reply::Int(i) => json!(i),
        Reply::Bulk(b) => Value::String(String::from_utf8_lossy(b).into_owned()),
        Reply::Nil | Reply::NilArray => Value::Null,
        Reply::Array(xs) => Value::Array(xs.iter().map(reply_value).collect()),
    }
}

/// What the resource's answer is to the harness: `{"accepted": true}`, `{"rejected":
/// reason}` or `{"value": …, "version": n}`.
pub(crate) fn res_reply_value(reply: &ResReply) -> Value {
    match reply {
        ResReply::Accepted => json!({"accepted": true}),
        ResReply::Rejected { reason } => json!({"rejected": reason}),
        ResReply::Read { value, version } => json!({"value": value, "version": version}),
    }
}

impl LabInput {
    /// The `input` message for the harness.
    pub fn message(&self) -> String {
        let ev = match &self.ev {
            LabEvent::Start { seed } => json!({"kind": "start", "seed": seed.to_string()}),
            LabEvent::Reply {
                id,
                reply: Reply::Error(e),
            } => json!({"kind": "reply", "id": id, "error": e}),
            LabEvent::Reply { id, reply } => json!({"kind": "reply", "id": id, "value": reply_value(reply)}),
            LabEvent::Timeout { id } => json!({"kind": "timeout", "id": id}),
            LabEvent::Timer { id } => json!({"kind": "timer", "id": id}),
            LabEvent::Resource { id, reply } => {
                json!({"kind": "resource", "id": id, "reply": res_reply_value(reply)})
            }
            LabEvent::Crash => json!({"kind": "crash"}),
        };
        json!({
            "type": "input",
            "pid": self.pid,
            "worker": self.worker,
            "inc": self.inc,
            "now_ms": self.now_local_us as f64 / 1000.0,
            "ev": ev,
        })
        .to_string()
    }
}

/// The learner's code failed (not a property: the code could not be graded).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodeError {
    pub message: String,
    pub line: Option<u32>,
    pub col: Option<u32>,
    /// The worker whose code failed, if it failed while running.
    #[serde(default)]
    pub worker: Option<String>,
}

impl CodeError {
    /// Read by hand from `{"message","line","col","worker"}` (an `error` answer, or the
    /// engine's report): a derived deserializer costs the page far more code.
    pub fn read(v: &Value) -> CodeError {
        let o = v.as_object().map(Obj);
        let o = o.as_ref();
        CodeError {
            message: o.and_then(|o| o.str("message")).unwrap_or("error").to_string(),
            line: o.and_then(|o| o.u32("line")),
            col: o.and_then(|o| o.u32("col")),
            worker: o.and_then(|o| o.str("worker")).map(str::to_string),
        }
    }

    pub fn new(message: impl Into<String>) -> CodeError {
        CodeError {
            message: message.into(),
            line: None,
            col: None,
            worker: None,
        }
    }
}

impl std::fmt::Display for CodeError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        if let Some(w) = &self.worker {
            write!(f, "{w}: ")?;
        }
        write!(f, "{}", self.message)?;
        match (self.line, self.col) {
            (Some(l), Some(c)) => write!(f, " (line {l}, column {c})"),
            (Some(l), None) => write!(f, " (line {l})"),
            _ => Ok(()),
        }
    }
}

/// The fields of an answer, read from JSON by hand: a derived tagged enum costs the page
/// tens of kilobytes of generic code, these few accessors almost nothing.
struct Obj<'a>(&'a serde_json::Map<String, Value>);

impl<'a> Obj<'a> {
    fn str(&self, k: &str) -> Option<&'a str> {
        self.0.get(k).and_then(Value::as_str)
    }
    fn string(&self, k: &str) -> Result<String, CodeError> {
        self.str(k)
            .map(str::to_string)
            .ok_or_else(|| CodeError::new(format!("the harness's answer lacks the text `{k}`")))
    }
    fn u64(&self, k: &str) -> Result<u64, CodeError> {
        self.0
            .get(k)
            .and_then(Value::as_u64)
            .ok_or_else(|| CodeError::new(format!("the harness's answer lacks the number `{k}`")))
    }
    fn f64(&self, k: &str) -> Option<f64> {
        self.0.get(k).and_then(Value::as_f64).filter(|x| x.is_finite())
    }
    fn u32(&self, k: &str) -> Option<u32> {
        self.0
            .get(k)
            .and_then(Value::as_u64)
            .and_then(|x| u32::try_from(x).ok())
    }
}

fn answer_of(answer: &str) -> Result<(String, Value), CodeError> {
    let v: Value = serde_json::from_str(answer)
        .map_err(|e| CodeError::new(format!("the harness's answer is not valid: {e}")))?;
    let ty = v.get("type").and_then(Value::as_str).unwrap_or("").to_string();
    if ty == "error" {
        return Err(CodeError::read(&v));
    }
    Ok((ty, v))
}

/// Read the harness's answer to `init` or `run`.
pub fn parse_ready(answer: &str) -> Result<(), CodeError> {
    match answer_of(answer)? {
        (t, _) if t == "ready" => Ok(()),
        _ => Err(CodeError::new("the harness answered out of turn")),
    }
}

/// Read the harness's answer to an `input`.
pub fn parse_actions(answer: &str) -> Result<Vec<LabAction>, CodeError> {
    let (ty, v) = answer_of(answer)?;
    if ty != "actions" {
        return Err(CodeError::new("the harness answered out of turn"));
    }
    let wire = v
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| CodeError::new("the harness's answer has no actions"))?;
    if wire.len() > MAX_ACTIONS {
        return Err(CodeError::new(format!(
            "your code did more than {MAX_ACTIONS} things without waiting for anything"
        )));
    }
    wire.iter().map(action_of).collect()
}

pub(crate) fn action_of(w: &Value) -> Result<LabAction, CodeError> {
    let o = Obj(w
        .as_object()
        .ok_or_else(|| CodeError::new("an action that is not an object"))?);
    let a = o.str("a").unwrap_or("");
    Ok(match a {
        "cmd" => {
            let args: Vec<String> =
                o.0.get("args")
                    .and_then(Value::as_array)
                    .map(|xs| xs.iter().filter_map(|x| x.as_str().map(str::to_string)).collect())
                    .unwrap_or_default();
            if args.is_empty() {
                return Err(CodeError::new("a command with no arguments"));
            }
            if args.iter().any(|a| a.len() > MAX_ARG_BYTES) {
                return Err(CodeError::new(format!(
                    "a command argument longer than {MAX_ARG_BYTES} bytes"
                )));
            }
            LabAction::Cmd {
                id: o.u64("id")?,
                node: usize::try_from(o.u64("node")?).unwrap_or(usize::MAX),
                args,
                timeout_ms: o.f64("timeout_ms"),
            }
        }
        "resource" => {
            let key = o.string("key")?;
            let op = match o.str("op").unwrap_or("") {
                "read" => ResOp::Read { key },
                "write" => ResOp::Write {
                    key,
                    value: o.str("value").unwrap_or("").to_string(),
                    token: o.0.get("token").and_then(Value::as_i64),
                    idempotency_key: o
                        .0
                        .get("idempotency_key")
                        .and_then(Value::as_str)
                        .map(|k| k.chars().take(MAX_ARG_BYTES).collect()),
                    base_version: None,
                },
                other => return Err(CodeError::new(format!("`{other}` is not a resource operation"))),
            };
            LabAction::Resource { id: o.u64("id")?, op }
        }
        "timer" => LabAction::Timer {
            id: o.u64("id")?,
            ms: o.f64("ms").unwrap_or(0.0).max(0.0),
        },
        "held" => LabAction::Held {
            token: o.string("token")?,
            until_ms: o.f64("until_ms"),
        },
        "released" => LabAction::Released,
        "lost" => LabAction::Lost {
            reason: o.string("reason")?,
        },
        "failed" => LabAction::Failed {
            reason: o.string("reason")?,
        },
        "log" => LabAction::Log {
            text: o.str("text").unwrap_or("").chars().take(500).collect(),
        },
        "done" => LabAction::Done,
        "error" => LabAction::Error {
            message: o.string("message")?,
            line: o.u32("line"),
            col: o.u32("col"),
        },
        "stuck" => LabAction::Error {
            message: match o.str("waiting") {
                Some(w) if !w.is_empty() => {
                    format!("this worker waits for something that can never happen: {w}")
                }
                _ => "this worker waits on a promise that never settles".to_string(),
            },
            line: None,
            col: None,
        },
        other => return Err(CodeError::new(format!("`{other}` is not an action"))),
    })
}

// ---------------------------------------------------------------------------------
// One run.

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
                return Some(input.message());
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
            self.failed = Some(CodeError::new(format!(
                "your code sent too many commands ({MAX_ANSWERS} answers in one run)"
            )));
            return;
        }
        match parse_actions(answer) {
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
                    world.inject_at(*at_us, super::world::Fault::Crash(pid));
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
    world.set_lab_tape(std::sync::Arc::new(tape));
    Ok(world)
}

pub(crate) fn first_code_error(trace: &[TraceEvent], names: &[String]) -> Option<CodeError> {
    trace.iter().find_map(|e| match &e.kind {
        TraceKind::CodeError { message, line, col } => Some(CodeError {
            message: message.clone(),
            line: *line,
            col: *col,
            worker: names.get(e.pid as usize).cloned(),
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

/// Every violation of these verdicts, in time order.
pub fn violations_of(verdicts: &[Verdict]) -> Vec<Violation> {
    let mut all: Vec<Violation> = verdicts.iter().flat_map(|v| v.violations.clone()).collect();
    all.sort_by(|a, b| {
        a.from_ms
            .total_cmp(&b.from_ms)
            .then(a.kind.as_str().cmp(b.kind.as_str()))
    });
    all
}

/// One check's result in one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub check: Check,
    pub violations: Vec<Violation>,
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

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn violation(check: Check, clients: Vec<String>, from_us: u64, to_us: u64, detail: String) -> Violation {
    Violation {
        kind: check.violation_kind(),
        clients,
        from_ms: ms(from_us),
        to_ms: ms(to_us),
        detail,
        effect: None,
    }
}

/// Grade a lab run: the checker's outcome (holds end with the worker's own lease), and
/// one verdict per check the lab grades.
pub fn grade(lab: &Lab, trace: &[TraceEvent], names: &[String]) -> (Outcome, Vec<Verdict>) {
    let mut rules = lab.scenario.resource.rules();
    rules.lease_ends_hold = true;
    let outcome = check_with(trace, names, &rules);
    let name = |pid: u32| {
        names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    };
    let end_us = trace.last().map(|e| e.t_us).unwrap_or(0);
    let mut verdicts = Vec::new();
    for &check in &lab.checks {
        let mut v = Vec::new();
        match check {
            Check::NoStaleWrite if lab.scenario.resource.fencing != Fencing::Off => {
                v.extend(overtaking_writes(trace, &name));
            }
            Check::MutualExclusion | Check::NoStaleWrite | Check::NoDoubleEffect => {
                let kind = check.violation_kind();
                v.extend(outcome.violations.iter().filter(|x| x.kind == kind).cloned());
                if check == Check::MutualExclusion {
                    v.extend(unbacked_holds(trace, &name));
                }
            }
            Check::UniqueTokens => {
                let mut first: BTreeMap<&str, (u32, u64)> = BTreeMap::new();
                for e in trace {
                    if let TraceKind::LockHeld { token, .. } = &e.kind {
                        match first.get(token.as_str()) {
                            Some((p, at)) if *p != e.pid => v.push(violation(
                                check,
                                vec![name(*p), name(e.pid)],
                                *at,
                                e.t_us,
                                format!("{} and {} both got the token {token}", name(*p), name(e.pid)),
                            )),
                            Some(_) => {}
                            None => {
                                first.insert(token, (e.pid, e.t_us));
                            }
                        }
                    }
                }
            }
            Check::NoForeignDelete => {
                for e in trace {
                    if let TraceKind::ForeignDelete { key, owner, token } = &e.kind {
                        v.push(violation(
                            check,
                            vec![name(e.pid), name(*owner)],
                            e.t_us,
                            e.t_us,
                            format!(
                                "{} deleted {key} while it held {}'s token {token}",
                                name(e.pid),
                                name(*owner)
                            ),
                        ));
                    }
                }
            }
            Check::ReleaseFrees => {
                for e in trace {
                    if let TraceKind::LockKept { lock, token } = &e.kind {
                        v.push(violation(
                            check,
                            vec![name(e.pid)],
                            e.t_us,
                            e.t_us,
                            format!(
                                "{}'s release returned but {lock} still held its token {token}",
                                name(e.pid)
                            ),
                        ));
                    }
                }
            }
            Check::FreedAfterCrash => v.extend(stuck_after_crash(trace, &name, end_us)),
            Check::AllDone => v.extend(not_done(trace, names, end_us)),
            Check::EffectDone => v.extend(missing_effects(trace, &rules.effects, end_us)),
        }
        verdicts.push(Verdict { check, violations: v });
    }
    (outcome, verdicts)
}

/// Beliefs no majority of the worker's nodes stored: the worker said it held the lock
/// (its driver reported what its code answered) with a token its nodes did not have.
/// A lock made of anything but Redis (a table in a global, a token made up) ends here.
fn unbacked_holds(trace: &[TraceEvent], name: &dyn Fn(u32) -> String) -> Vec<Violation> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HeldUnbacked { lock, token, on, of } => Some(violation(
                Check::MutualExclusion,
                vec![name(e.pid)],
                e.t_us,
                e.t_us,
                format!(
                    "{} believed it held {lock} with the token {token}, but only {on} of its {of} Redis nodes stored that token",
                    name(e.pid)
                ),
            )),
            _ => None,
        })
        .collect()
}

/// Stale writes behind a fencing resource: an accepted write from a worker whose lock
/// had lapsed, after another worker's write under a lock taken since this worker's (a
/// write by a worker that still held the lock, made after this worker last said it held
/// it). That is the write fencing must refuse: it overwrites newer data. A lapsed write
/// that nothing newer came before is harmless there (its token is still the highest
/// granted with any write), so, unlike the checker's rule, it is not reported.
fn overtaking_writes(trace: &[TraceEvent], name: &dyn Fn(u32) -> String) -> Vec<Violation> {
    let mut held_at: BTreeMap<u32, u64> = BTreeMap::new();
    // The last write accepted from a worker whose lock was live: (writer, at).
    let mut live: Option<(u32, u64)> = None;
    let mut out = Vec::new();
    for e in trace {
        match &e.kind {
            TraceKind::LockHeld { .. } => {
                held_at.insert(e.pid, e.t_us);
            }
            TraceKind::WriteAccepted {
                from,
                key,
                value,
                lock_lapsed,
                token,
                ..
            } => {
                if !*lock_lapsed {
                    live = Some((*from, e.t_us));
                    continue;
                }
                let Some(&since) = held_at.get(from) else { continue };
                if let Some((other, at)) = live.filter(|(o, at)| o != from && *at >= since) {
                    let fence = token.map_or_else(|| "no token".to_string(), |t| format!("token {t}"));
                    out.push(violation(
                        Check::NoStaleWrite,
                        vec![name(*from), name(other)],
                        at,
                        e.t_us,
                        format!(
                            "{} wrote {key}={value} ({fence}) after its lock had lapsed, over {}'s write at {} ms under a newer lock",
                            name(*from),
                            name(other),
                            fmt_ms(at)
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// The effects (keys the resource counts, such as `charge`) that the resource never
/// accepted a write to: the work never happened.
fn missing_effects(trace: &[TraceEvent], effects: &[String], end_us: u64) -> Vec<Violation> {
    effects
        .iter()
        .filter(|key| {
            !trace
                .iter()
                .any(|e| matches!(&e.kind, TraceKind::WriteAccepted { key: k, .. } if k == *key))
        })
        .map(|key| {
            violation(
                Check::EffectDone,
                Vec::new(),
                end_us,
                end_us,
                format!("the run ended and the resource never accepted a {key}: the work was never done"),
            )
        })
        .collect()
}

/// Crashes after which no other worker ever got the lock although one still needed it:
/// the crashed worker left a key behind that never expires (judged on what happened,
/// so it also catches a crash between `SETNX` and `PEXPIRE`, before the worker knew it
/// held anything).
fn stuck_after_crash(trace: &[TraceEvent], name: &dyn Fn(u32) -> String, end_us: u64) -> Vec<Violation> {
    let mut out = Vec::new();
    for (i, e) in trace.iter().enumerate() {
        if !matches!(e.kind, TraceKind::Crash) {
            continue;
        }
        let later = trace.get(i + 1..).unwrap_or(&[]);
        let someone_held = later
            .iter()
            .any(|x| x.pid != e.pid && matches!(x.kind, TraceKind::LockHeld { .. }));
        // Workers other than the crashed one that still wanted the lock afterwards.
        let wanted = later
            .iter()
            .any(|x| x.pid != e.pid && matches!(x.kind, TraceKind::AcquireFailed { .. }));
        if !someone_held && wanted {
            out.push(violation(
                Check::FreedAfterCrash,
                vec![name(e.pid)],
                e.t_us,
                end_us,
                format!(
                    "{} crashed at {} ms and nobody got the lock again before the run ended at {} ms",
                    name(e.pid),
                    fmt_ms(e.t_us),
                    fmt_ms(end_us)
                ),
            ));
        }
    }
    out
}

/// Workers whose last life neither finished nor died for good.
fn not_done(trace: &[TraceEvent], names: &[String], end_us: u64) -> Vec<Violation> {
    // Per worker: (started at, finished, crashed since the last start, waiting since).
    let mut state: BTreeMap<u32, (u64, bool, bool, Option<u64>)> = BTreeMap::new();
    for e in trace {
        match &e.kind {
            TraceKind::Start => {
                state.insert(e.pid, (e.t_us, false, false, None));
            }
            TraceKind::WorkDone | TraceKind::CodeError { .. } => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.1 = true;
                }
            }
            TraceKind::Crash => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.2 = true;
                }
            }
            TraceKind::AcquireFailed { .. } => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.3.get_or_insert(e.t_us);
                }
            }
            TraceKind::LockHeld { .. } => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.3 = None;
                }
            }
            _ => {}
        }
    }
    let name = |pid: u32| {
        names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    };
    state
        .into_iter()
        .filter(|(_, (_, done, crashed, _))| !done && !crashed)
        .map(|(pid, (start, _, _, waiting))| {
            let detail = match waiting {
                Some(w) => format!(
                    "{} never finished: it was still waiting for the lock, refused since {} ms",
                    name(pid),
                    fmt_ms(w)
                ),
                None => format!("{} never finished its jobs before the run ended", name(pid)),
            };
            violation(
                Check::AllDone,
                vec![name(pid)],
                waiting.unwrap_or(start),
                end_us,
                detail,
            )
        })
        .collect()
}

// ---------------------------------------------------------------------------------
// Many runs, with a host.

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
