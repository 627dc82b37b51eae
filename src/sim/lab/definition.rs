//! The lab's definition: its checks, parameters, texts and attacks, read from
//! `lab.toml` and its scenario (docs/authoring.md, "Labs").

use crate::sim::checker::Property;
use crate::sim::fact::ViolationKind;
use crate::sim::rng::{sub_seed, SimRng};
use crate::sim::scenario::{Algorithm, Scenario};
use crate::sim::trace::TraceLevel;
use crate::sim::world::{LabAttack, LabAttackOp, StallPoint, World};
use serde::{Deserialize, Serialize};
use serde_json::Value;
use std::collections::BTreeMap;

/// Most trials "Try to break it" runs.
pub const MAX_TRIALS: u32 = 100_000;
/// Largest `lab.toml` or learner file read.
pub const MAX_SOURCE_BYTES: usize = 256 * 1024;

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
    /// The functions the learner writes, as the lab page shows them: one text, or one
    /// per language (`[signature] en = …, nb = …`: the comments in the reader's
    /// language, the code the same).
    signature: SignatureFile,
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

/// `signature = "…"` (every language), or a table of texts by language.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
enum SignatureFile {
    One(String),
    ByLang(Texts),
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
    /// The functions to write, by language (`en` always): see [`Lab::signature_in`].
    pub signature: Texts,
    pub functions: Vec<String>,
    pub checks: Vec<Check>,
    pub trials: u32,
    /// Parameters for the driver (JSON object); on the wire as JSON text
    /// ([`params_form`]: postcard cannot read a `Value`).
    #[serde(with = "params_form")]
    pub params: Value,
    pub scenario: Scenario,
    pub driver: String,
    /// What the editor shows first (`starter.js`), in English.
    pub starter: String,
    /// The starter in other languages, by code (`starter.nb.js`: the same code, its
    /// comments in that language): see [`Lab::starter_in`].
    pub starters: Texts,
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
}

/// A lab's parameters as they are for people (a JSON object, in JSON) and on the wire
/// (`crate::wire`): JSON text, since postcard cannot read a value of any shape (written and
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
    /// The starter in other languages: (code, text), as `starter.nb.js` gives it.
    pub starters: &'a [(&'a str, &'a str)],
    pub solution: &'a str,
}

fn ms_pair(file: &str, src: &str, field: &str, v: [f64; 2]) -> Result<(u64, u64), LabError> {
    let a = crate::sim::world::ms_to_us(v[0]);
    let b = crate::sim::world::ms_to_us(v[1]);
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
        let scenario = crate::sim::scenario::parse(&scen_file, src.scenario_toml).map_err(|e| LabError {
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
        let signature = match &f.signature {
            SignatureFile::One(text) => [("en".to_string(), text.clone())].into_iter().collect(),
            SignatureFile::ByLang(texts) => texts.clone(),
        };
        if signature.get("en").is_none_or(|s| s.trim().is_empty()) {
            return Err(bad("signature", "needs a text for `en`".into()));
        }
        if let Some(lang) = signature.keys().find(|l| !["en", "nb"].contains(&l.as_str())) {
            return Err(bad(
                "signature",
                format!("`{lang}` is not a language of the lesson (en, nb)"),
            ));
        }
        let mut starters = Texts::new();
        for (lang, text) in src.starters {
            if !text.trim().is_empty() {
                starters.insert(lang.to_string(), text.to_string());
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
        let run_attacks = read_run_attacks(&f.run, workers, nodes, &file, text)?;
        let params = Value::Object(f.params.into_iter().collect());
        Ok(Lab {
            id: f.id,
            section: f.section,
            title: f.title,
            goal: f.goal,
            signature,
            functions: f.functions,
            checks,
            trials: f.trials,
            params,
            scenario,
            driver: src.driver.to_string(),
            starter: src.starter.to_string(),
            starters,
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
        })
    }

    /// The functions to write as the page shows them, in the language with this code
    /// (else in English).
    pub fn signature_in(&self, code: &str) -> &str {
        self.signature
            .get(code)
            .or_else(|| self.signature.get("en"))
            .map_or("", String::as_str)
    }

    /// The starter in the language with this code (else the English one).
    pub fn starter_in(&self, code: &str) -> &str {
        self.starters.get(code).unwrap_or(&self.starter)
    }

    /// The lab as the engine needs it to run trials and replay them ([`Lab::for_engine`]):
    /// without its JavaScript (the harness has the driver already), so the engine reads
    /// it from the wire and needs no TOML reader.
    pub fn for_engine(&self) -> Lab {
        Lab {
            driver: String::new(),
            starter: String::new(),
            starters: Texts::default(),
            solution: String::new(),
            ..self.clone()
        }
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

/// The lab's fixed Run attacks (`[[run.attacks]]`), each checked against the scenario.
fn read_run_attacks(
    run: &RunFile,
    workers: u32,
    nodes: u32,
    file: &str,
    text: &str,
) -> Result<Vec<LabAttack>, LabError> {
    let bad = |field: &str, m: String| located(file, text, field, m);
    let point = |name: &str, field: &str| {
        StallPoint::from_name(name).ok_or_else(|| {
            bad(
                field,
                format!("`{name}` is not a stall point (command, timer, reply)"),
            )
        })
    };
    let mut run_attacks = Vec::new();
    for r in &run.attacks {
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
        let us = crate::sim::world::ms_to_us(r.ms).map_err(|m| bad("run.attacks.ms", m))?;
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
    Ok(run_attacks)
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
