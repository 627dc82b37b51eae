//! The channel between the page and a lab's sandbox (`labs/sandbox.html`) and the worker
//! inside it: [`ToSandbox`] out, [`FromSandbox`] in. Declared once, here, with the names
//! of its messages; `tests/wires.rs` checks the JavaScript side against these names.
//!
//! The frame and the worker relay text and dispatch on a message's name only: the
//! worker's "Try to break it" is [`SandboxTrials`] (in the engine's module,
//! `src/bin/engine.rs`), which reads the page's [`TrialsRequest`] and writes the
//! worker's `at`, `in`, `doing` and `done` itself.

use super::seq::{Draw, GroupReport, TrialSeq};
use super::wire::{running_of, short_text, CodeError, Obj, ToHarness, Watch};
use super::Lab;
use serde::Serialize;
use serde_json::{json, Value};

/// A message from the page to the sandbox.
pub enum ToSandbox<'a> {
    /// The harness's source (posted as an object, before the worker exists).
    Harness,
    /// The engine's wasm-bindgen glue and wasm (an object, with the wasm's bytes).
    Engine,
    /// Run one group of trials in the worker.
    Trials(&'a TrialsRequest),
    /// Start no trial at or above this one (another group broke it).
    Limit { trial: u32 },
    /// A message for the harness, relayed under its own name: on `init` the frame starts
    /// a worker with it. (The page sends `run` and `input` itself only in
    /// `labs/browsertest.mjs`, which drives the harness step by step.)
    Relay(ToHarness<'a>),
}

impl ToSandbox<'_> {
    /// The `type` of each message the sandbox itself reads, in the order of the
    /// variants; [`ToSandbox::Relay`]'s are [`ToHarness::NAMES`].
    pub const NAMES: [&'static str; 4] = ["harness", "engine", "trials", "limit"];

    pub fn name(&self) -> &'static str {
        match self {
            ToSandbox::Harness => "harness",
            ToSandbox::Engine => "engine",
            ToSandbox::Trials(_) => "trials",
            ToSandbox::Limit { .. } => "limit",
            ToSandbox::Relay(m) => m.name(),
        }
    }

    /// The message as JSON text; `None` for the two the page posts as objects.
    pub fn text(&self) -> Option<String> {
        match self {
            ToSandbox::Harness | ToSandbox::Engine => None,
            ToSandbox::Trials(request) => Some(request.text()),
            ToSandbox::Limit { trial } => Some(limit_text(*trial)),
            ToSandbox::Relay(m) => Some(m.text()),
        }
    }
}

/// [`ToSandbox::Limit`]'s text (the page writes it, with no JSON writer of its own).
pub fn limit_text(trial: u32) -> String {
    format!(r#"{{"type":"limit","trial":{trial}}}"#)
}

/// One group of a session's trials, as the page asks a sandbox's worker for it: the lab
/// (on the wire as [`Lab::for_engine`] makes it) and the session's numbers.
#[derive(Clone, Debug, PartialEq)]
pub struct TrialsRequest {
    pub lab: Lab,
    pub seed: u64,
    pub draw: Draw,
    pub total: u32,
    pub group: u32,
    pub groups: u32,
}

impl TrialsRequest {
    /// As JSON text: the lab in the wire's form (`crate::wire`), the seed as decimal text
    /// (a u64 does not survive a JavaScript number).
    pub fn text(&self) -> String {
        #[derive(Serialize)]
        struct Trials<'a> {
            #[serde(rename = "type")]
            kind: &'static str,
            lab: String,
            seed: String,
            draw: &'a str,
            total: u32,
            group: u32,
            groups: u32,
        }
        // A lab always writes; were it not to, the worker says the lab does not read. The
        // rest are texts and small numbers, which any JSON writer holds.
        let lab = crate::wire::to_text(&self.lab.for_engine()).unwrap_or_default();
        crate::json::to_string(&Trials {
            kind: "trials",
            lab,
            seed: self.seed.to_string(),
            draw: self.draw.name(),
            total: self.total,
            group: self.group,
            groups: self.groups,
        })
        .unwrap_or_default()
    }

    /// Reads [`TrialsRequest::text`]'s form.
    pub fn read(text: &str) -> Result<TrialsRequest, String> {
        let v: Value =
            serde_json::from_str(text).map_err(|e| format!("the trials request is not JSON: {e}"))?;
        let o = v
            .as_object()
            .map(Obj)
            .ok_or("the trials request is not an object")?;
        if o.str("type") != Some("trials") {
            return Err("not a trials request".into());
        }
        let text = |k: &str| {
            o.str(k)
                .map(str::to_string)
                .ok_or_else(|| format!("the trials request lacks the text `{k}`"))
        };
        let number = |k: &str| {
            o.u32(k)
                .ok_or_else(|| format!("the trials request lacks the number `{k}`"))
        };
        Ok(TrialsRequest {
            lab: crate::wire::from_text(&text("lab")?)
                .map_err(|e| format!("the trials request's lab does not read: {e}"))?,
            seed: text("seed")?.parse().map_err(|_| "the seed is not a number")?,
            draw: Draw::from_name(&text("draw")?).ok_or("draw: trials, run or replay")?,
            total: number("total")?,
            group: number("group")?,
            groups: number("groups")?,
        })
    }
}

/// A message from the sandbox (its frame or its worker) to the page.
#[derive(Debug, PartialEq)]
pub enum FromSandbox {
    /// The worker's end of a direct line (an object, with the port).
    Port,
    /// The learner's code compiled (the harness's answer to `init`).
    Ready,
    /// The code, the sandbox or the engine failed.
    Error(CodeError),
    /// Trial `trial` starts; the group has finished `finished` trials.
    At { trial: u32, finished: u32 },
    /// A learner's function was called, in this worker (one watched trial).
    In {
        worker: Option<String>,
        within: Option<String>,
    },
    /// An event is about to run in this worker, inside these functions of the learner's.
    Doing {
        worker: Option<String>,
        running: Vec<String>,
    },
    /// The group is done.
    Done(GroupReport),
}

impl FromSandbox {
    /// Every message's `type`, in the order of the variants.
    pub const NAMES: [&'static str; 7] = ["port", "ready", "error", "at", "in", "doing", "done"];

    pub fn name(&self) -> &'static str {
        match self {
            FromSandbox::Port => "port",
            FromSandbox::Ready => "ready",
            FromSandbox::Error(_) => "error",
            FromSandbox::At { .. } => "at",
            FromSandbox::In { .. } => "in",
            FromSandbox::Doing { .. } => "doing",
            FromSandbox::Done(_) => "done",
        }
    }

    /// Reads a message (JSON text). An unknown one is an error, in the page's words.
    pub fn read(text: &str) -> Result<FromSandbox, String> {
        // The browser's own parser on the page (`crate::json`): its module has none.
        let v: Value =
            crate::json::from_str(text).map_err(|_| "the sandbox's answer is not JSON".to_string())?;
        let number = |k: &str| {
            v.get(k)
                .and_then(Value::as_u64)
                .and_then(|x| u32::try_from(x).ok())
        };
        Ok(match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "port" => FromSandbox::Port,
            "ready" => FromSandbox::Ready,
            "error" => FromSandbox::Error(CodeError::read(&v)),
            "at" => FromSandbox::At {
                trial: number("trial").ok_or("the sandbox named no trial")?,
                finished: number("finished").unwrap_or(0),
            },
            "in" => FromSandbox::In {
                worker: short_text(v.get("worker")),
                within: short_text(v.get("fn")),
            },
            "doing" => FromSandbox::Doing {
                worker: short_text(v.get("worker")),
                running: running_of(&v),
            },
            "done" => FromSandbox::Done(GroupReport::read(v.get("report").unwrap_or(&Value::Null))?),
            other => return Err(format!("the sandbox sent an unknown message `{}`", clip(other))),
        })
    }

    /// The message as JSON text (the worker's engine writes `at`, `in`, `doing`, `done`).
    pub fn text(&self) -> String {
        let v = match self {
            FromSandbox::Port | FromSandbox::Ready => json!({ "type": self.name() }),
            FromSandbox::Error(e) => {
                let mut v = json!({ "type": "error", "message": e.message, "line": e.line, "col": e.col });
                if let (Some(o), Some(c)) = (v.as_object_mut(), &e.coded) {
                    o.insert("coded".into(), json!({ "code": c.code, "data": c.data }));
                }
                v
            }
            FromSandbox::At { trial, finished } => {
                json!({ "type": "at", "trial": trial, "finished": finished })
            }
            FromSandbox::In { worker, within } => json!({ "type": "in", "worker": worker, "fn": within }),
            FromSandbox::Doing { worker, running } => {
                json!({ "type": "doing", "worker": worker, "running": running })
            }
            FromSandbox::Done(report) => {
                return format!(r#"{{"type":"done","report":{}}}"#, report.json());
            }
        };
        v.to_string()
    }
}

fn clip(s: &str) -> String {
    s.chars().take(40).collect()
}

/// A sandbox worker's "Try to break it": one group of trials ([`TrialSeq`]) and what the
/// worker tells the page about it. The worker's loop is
/// `while (m = next()) { post(news()); answer(harness(m)) } post(done())` (`next` is
/// [`SandboxTrials::next_message`]).
pub struct SandboxTrials {
    seq: TrialSeq,
    /// The trial last announced with `at`.
    announced: Option<u32>,
    watching: bool,
}

impl SandboxTrials {
    /// The group the page asked for ([`TrialsRequest::text`]).
    pub fn new(request: &str) -> Result<SandboxTrials, String> {
        let r = TrialsRequest::read(request)?;
        let seq = TrialSeq::new(r.lab, r.seed, r.total, r.group, r.groups).drawing(r.draw);
        Ok(SandboxTrials {
            seq,
            announced: None,
            watching: r.draw != Draw::Trials,
        })
    }

    /// The next message for the harness, or `None` when the group is done.
    pub fn next_message(&mut self) -> Option<String> {
        self.seq.next_message()
    }

    /// `at` (JSON text) when a trial has started since the last call.
    pub fn news(&mut self) -> Option<String> {
        let trial = self.seq.trial()?;
        if self.announced == Some(trial) {
            return None;
        }
        self.announced = Some(trial);
        Some(
            FromSandbox::At {
                trial,
                finished: self.seq.finished(),
            }
            .text(),
        )
    }

    /// The harness's answer (JSON text) to the last message.
    pub fn answer(&mut self, answer: &str) {
        self.seq.answer(answer)
    }

    pub fn limit(&mut self, trial: u32) {
        self.seq.limit(trial)
    }

    /// Whether one trial is watched (Run, a replay), so [`SandboxTrials::watched`] speaks.
    pub fn watching(&self) -> bool {
        self.watching
    }

    /// The harness's [`Watch`] (JSON text), as the page reads it (`in` or `doing`, with
    /// the worker's name): only while one trial is watched (Run, a replay), never in
    /// "Try to break it", where it would be thousands of messages.
    pub fn watched(&self, watch: &str) -> Option<String> {
        if !self.watching {
            return None;
        }
        let named = |pid: u32| self.seq.process_name(pid);
        Some(
            match Watch::read(watch)? {
                Watch::In { pid, within } => FromSandbox::In {
                    worker: named(pid),
                    within: Some(within),
                },
                Watch::Doing { pid, running } => FromSandbox::Doing {
                    worker: named(pid),
                    running,
                },
            }
            .text(),
        )
    }

    /// `done` (JSON text): the group's report; final once [`SandboxTrials::next`] gave `None`.
    pub fn done(&self) -> String {
        FromSandbox::Done(self.seq.report()).text()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::lab::seq::FailedTrial;

    fn safe_release() -> Lab {
        crate::labs::shown_checked("safe-release")
            .expect("a built-in lab")
            .expect("it reads")
    }

    fn request(draw: Draw, total: u32) -> TrialsRequest {
        TrialsRequest {
            lab: safe_release().for_engine(),
            seed: u64::MAX - 7,
            draw,
            total,
            group: 0,
            groups: 1,
        }
    }

    #[test]
    fn each_message_is_named_as_its_channel_declares() {
        let r = request(Draw::Trials, 1);
        let to = [
            ToSandbox::Harness,
            ToSandbox::Engine,
            ToSandbox::Trials(&r),
            ToSandbox::Limit { trial: 3 },
        ];
        let names: Vec<&str> = to.iter().map(ToSandbox::name).collect();
        assert_eq!(names, ToSandbox::NAMES);
        let relayed = ToSandbox::Relay(ToHarness::Run { watch: true });
        assert_eq!(relayed.name(), "run");
        for m in to.iter().chain([&relayed]) {
            if let Some(text) = m.text() {
                let v: Value = serde_json::from_str(&text).expect("JSON");
                assert_eq!(v["type"].as_str(), Some(m.name()), "{text}");
            }
        }
        let from = samples();
        let names: Vec<&str> = from.iter().map(FromSandbox::name).collect();
        assert_eq!(names, FromSandbox::NAMES);
    }

    fn samples() -> Vec<FromSandbox> {
        let mut coded = CodeError::coded("your code did not return", "endless_loop", &[("s", "5".into())]);
        coded.line = Some(4);
        vec![
            FromSandbox::Port,
            FromSandbox::Ready,
            FromSandbox::Error(coded.clone()),
            FromSandbox::At {
                trial: 17,
                finished: 8,
            },
            FromSandbox::In {
                worker: Some("A".into()),
                within: Some("acquire".into()),
            },
            FromSandbox::Doing {
                worker: None,
                running: vec!["acquire".into(), "release".into()],
            },
            FromSandbox::Done(GroupReport {
                finished: 9,
                failure: Some(FailedTrial {
                    trial: 12,
                    seed: u64::MAX,
                    code_error: Some(coded),
                    tape: vec![r#"{"type":"actions","actions":[]}"#.into()],
                }),
            }),
        ]
    }

    #[test]
    fn what_the_sandbox_says_reads_back_as_it_was_written() {
        for m in samples() {
            assert_eq!(FromSandbox::read(&m.text()), Ok(m));
        }
        let unknown = FromSandbox::read(r#"{"type":"at_last"}"#).unwrap_err();
        assert!(unknown.contains("at_last"), "{unknown}");
        assert!(FromSandbox::read("not json").is_err());
        assert!(
            FromSandbox::read(r#"{"type":"at"}"#).is_err(),
            "an `at` names its trial"
        );
    }

    #[test]
    fn a_trials_request_reads_back_and_a_bad_one_says_what_is_wrong() {
        let r = request(Draw::Replay, 200);
        assert_eq!(TrialsRequest::read(&r.text()), Ok(r.clone()));
        let mut v: Value = serde_json::from_str(&r.text()).expect("JSON");
        v["seed"] = Value::from(12);
        assert!(TrialsRequest::read(&v.to_string()).unwrap_err().contains("seed"));
        v["seed"] = Value::from("12");
        v.as_object_mut().expect("an object").remove("groups");
        assert!(TrialsRequest::read(&v.to_string())
            .unwrap_err()
            .contains("groups"));
        v["groups"] = Value::from(2);
        v["draw"] = Value::from("twice");
        assert!(TrialsRequest::read(&v.to_string()).unwrap_err().contains("draw"));
    }

    /// The worker's loop, with a harness that fails at once: the text it relays says a
    /// trial started, once, and the group's report names the trial and the code's error.
    #[test]
    fn a_workers_group_says_when_each_trial_starts_and_reports_the_failure() {
        let mut t = SandboxTrials::new(&request(Draw::Trials, 5).text()).expect("the request reads");
        assert!(!t.watching());
        let mut said = Vec::new();
        let mut sent = Vec::new();
        while let Some(m) = t.next_message() {
            said.extend(t.news());
            sent.push(m);
            t.answer(r#"{"type":"error","message":"boom","line":3,"col":null}"#);
            assert!(sent.len() < 50, "the group ends");
        }
        assert_eq!(sent.first().map(String::as_str), Some(r#"{"type":"run"}"#));
        assert_eq!(
            said,
            vec![FromSandbox::At {
                trial: 0,
                finished: 0
            }
            .text()]
        );
        match FromSandbox::read(&t.done()) {
            Ok(FromSandbox::Done(report)) => {
                let failure = report.failure.expect("the first trial failed");
                assert_eq!(failure.trial, 0);
                let e = failure.code_error.expect("with the code's error");
                assert_eq!((e.message.as_str(), e.line), ("boom", Some(3)));
            }
            other => panic!("not a report: {other:?}"),
        }
        assert_eq!(
            t.watched(r#"{"type":"in","fn":"acquire","pid":1}"#),
            None,
            "trials are not watched"
        );
    }

    #[test]
    fn a_watched_run_names_the_worker_a_function_runs_in() {
        let mut t = SandboxTrials::new(&request(Draw::Run, 1).text()).expect("the request reads");
        assert!(t.watching());
        let first = t.next_message().expect("the run starts");
        assert_eq!(first, r#"{"type":"run","watch":true}"#);
        let named: Vec<FromSandbox> = (0..16)
            .filter_map(|pid| t.watched(&format!(r#"{{"type":"in","fn":"acquire","pid":{pid}}}"#)))
            .map(|text| FromSandbox::read(&text).expect("it reads"))
            .collect();
        assert_eq!(named.len(), 16, "every watch is passed on");
        assert!(named.iter().any(|m| matches!(m,
            FromSandbox::In { worker: Some(w), within: Some(f) } if !w.is_empty() && f == "acquire")));
        let doing = t
            .watched(r#"{"type":"doing","pid":1,"running":["release"]}"#)
            .map(|text| FromSandbox::read(&text));
        assert!(matches!(doing, Some(Ok(FromSandbox::Doing { running, .. })) if running == ["release"]));
        assert_eq!(t.watched(r#"{"type":"elsewhere","pid":1}"#), None);
    }
}
