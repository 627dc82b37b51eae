//! The channel between the simulator and the harness (`labs/harness.js`, docs/labs.md):
//! [`ToHarness`] out, [`FromHarness`] in, and [`Watch`], what the harness tells its host
//! while one watched trial runs. Each is declared here once, with the names of its
//! messages; `tests/wires.rs` checks the JavaScript side against these names.

use super::definition::Lab;
use crate::sim::client::{ResOp, ResReply};
use crate::sim::fact::Coded;
use crate::sim::world::{LabAction, LabEvent, LabInput};
use crate::store::Reply;
use serde::{Deserialize, Serialize};
use serde_json::{json, Value};

/// Most actions in one answer.
pub const MAX_ACTIONS: usize = 1_000;
/// Longest command argument the harness may send.
pub const MAX_ARG_BYTES: usize = 64 * 1024;

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

/// A message from the simulator to the harness.
pub enum ToHarness<'a> {
    /// Compile the lab's driver and the learner's file; answered `ready` or `error`.
    Init { lab: &'a Lab, learner: &'a str },
    /// A new run (trial) starts; `watch`: its commands say the line that sent them.
    Run { watch: bool },
    /// One event for one process; answered `actions`.
    Input(&'a LabInput),
}

impl ToHarness<'_> {
    /// Every message's `type`, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["init", "run", "input"];

    pub fn name(&self) -> &'static str {
        match self {
            ToHarness::Init { .. } => "init",
            ToHarness::Run { .. } => "run",
            ToHarness::Input(_) => "input",
        }
    }

    /// The message as the harness reads it (JSON text).
    pub fn text(&self) -> String {
        match self {
            // serde_json writes any `Value`, so natively this cannot fail.
            ToHarness::Init { lab, learner } => init_text(lab, learner).unwrap_or_default(),
            ToHarness::Run { watch: false } => r#"{"type":"run"}"#.to_string(),
            ToHarness::Run { watch: true } => r#"{"type":"run","watch":true}"#.to_string(),
            ToHarness::Input(input) => input_text(input),
        }
    }
}

/// `init`'s text, written by `crate::json`: on the page by the browser's `JSON.stringify`,
/// so that the page's module, which sends only this message to a harness, carries no JSON
/// writer. It fails only there, on a parameter JavaScript cannot hold (an integer past
/// 2^53).
pub fn init_text(lab: &Lab, learner: &str) -> Result<String, String> {
    #[derive(Serialize)]
    struct Init<'a> {
        #[serde(rename = "type")]
        kind: &'static str,
        lab: &'a str,
        functions: &'a [String],
        params: &'a Value,
        driver: &'a str,
        learner: &'a str,
    }
    crate::json::to_string(&Init {
        kind: "init",
        lab: &lab.id,
        functions: &lab.functions,
        params: &lab.params,
        driver: &lab.driver,
        learner,
    })
}

/// The harness's answer to a [`ToHarness`] message.
#[derive(Debug, PartialEq)]
pub enum FromHarness {
    /// To `init` or `run`.
    Ready,
    /// To `input`: what the process did until it went quiet.
    Actions(Vec<LabAction>),
    /// The code failed (or the answer could not be read).
    Error(CodeError),
}

impl FromHarness {
    /// Every answer's `type`, in the order of the variants.
    pub const NAMES: [&'static str; 3] = ["ready", "actions", "error"];

    /// Reads an answer; one that cannot be read is an [`FromHarness::Error`].
    pub fn read(answer: &str) -> FromHarness {
        let v: Value = match serde_json::from_str(answer) {
            Ok(v) => v,
            Err(e) => {
                return FromHarness::Error(CodeError::new(format!("the harness's answer is not valid: {e}")))
            }
        };
        match v.get("type").and_then(Value::as_str).unwrap_or("") {
            "ready" => FromHarness::Ready,
            "actions" => match actions_of(&v) {
                Ok(actions) => FromHarness::Actions(actions),
                Err(e) => FromHarness::Error(e),
            },
            "error" => FromHarness::Error(CodeError::read(&v)),
            _ => FromHarness::Error(CodeError::new("the harness answered out of turn")),
        }
    }

    /// `Ok` for `ready`; anything else is the code's error.
    pub fn ready(self) -> Result<(), CodeError> {
        match self {
            FromHarness::Ready => Ok(()),
            FromHarness::Error(e) => Err(e),
            FromHarness::Actions(_) => Err(CodeError::new("the harness answered out of turn")),
        }
    }

    /// The actions of an `actions` answer; anything else is the code's error.
    pub fn actions(self) -> Result<Vec<LabAction>, CodeError> {
        match self {
            FromHarness::Actions(a) => Ok(a),
            FromHarness::Error(e) => Err(e),
            FromHarness::Ready => Err(CodeError::new("the harness answered out of turn")),
        }
    }
}

/// What the harness tells its host while a watched trial runs (`run` with `watch`), so
/// the page can name the function an infinite loop never left.
#[derive(Debug, PartialEq)]
pub enum Watch {
    /// A learner's function `within` is called in process `pid`.
    In { pid: u32, within: String },
    /// An event is about to run in process `pid`, inside these learner's functions.
    Doing { pid: u32, running: Vec<String> },
}

impl Watch {
    /// Every message's `type`, in the order of the variants.
    pub const NAMES: [&'static str; 2] = ["in", "doing"];

    /// Reads one (JSON text); `None` if it is neither.
    pub fn read(text: &str) -> Option<Watch> {
        let v: Value = serde_json::from_str(text).ok()?;
        let pid = v
            .get("pid")
            .and_then(Value::as_u64)
            .and_then(|p| u32::try_from(p).ok())?;
        match v.get("type").and_then(Value::as_str)? {
            "in" => Some(Watch::In {
                pid,
                within: short_text(v.get("fn"))?,
            }),
            "doing" => Some(Watch::Doing {
                pid,
                running: running_of(&v),
            }),
            _ => None,
        }
    }
}

/// A name a host reports (a function's, a worker's): text of 1 to 64 bytes.
pub(crate) fn short_text(v: Option<&Value>) -> Option<String> {
    v.and_then(Value::as_str)
        .filter(|s| !s.is_empty() && s.len() <= 64)
        .map(str::to_string)
}

/// The learner's functions a `doing` message says are running (`"running"`): at most
/// 64 names, each as [`short_text`] reads it.
pub(crate) fn running_of(v: &Value) -> Vec<String> {
    v.get("running")
        .and_then(Value::as_array)
        .map(|a| a.iter().take(64).filter_map(|f| short_text(Some(f))).collect())
        .unwrap_or_default()
}

/// The `input` message for the harness.
fn input_text(input: &LabInput) -> String {
    let ev = match &input.ev {
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
        "pid": input.pid,
        "worker": input.worker,
        "inc": input.inc,
        "now_ms": input.now_local_us as f64 / 1000.0,
        "ev": ev,
    })
    .to_string()
}

/// The learner's code failed (not a property: the code could not be graded).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CodeError {
    /// In English: the JavaScript engine's text, or ours (what the command line prints).
    pub message: String,
    pub line: Option<u32>,
    pub col: Option<u32>,
    /// The worker whose code failed, if it failed while running.
    #[serde(default)]
    pub worker: Option<String>,
    /// The learner's function that never returned (an infinite loop), when known.
    #[serde(default)]
    pub within: Option<String>,
    /// When the harness, the driver or the simulator (not the JavaScript engine) said
    /// what went wrong: its code and data, which the page says in the reader's language.
    /// (Never skipped when empty: the page's wire has no field names.)
    /// Boxed: an error is returned by value on many paths, and is kept small.
    #[serde(default)]
    pub coded: Option<Box<Coded>>,
}

impl CodeError {
    /// Read by hand from `{"message","line","col","worker","coded"}` (an `error` answer,
    /// or the engine's report): a derived deserializer costs the page far more code.
    pub fn read(v: &Value) -> CodeError {
        let o = v.as_object().map(Obj);
        let o = o.as_ref();
        CodeError {
            message: o.and_then(|o| o.str("message")).unwrap_or("error").to_string(),
            line: o.and_then(|o| o.u32("line")),
            col: o.and_then(|o| o.u32("col")),
            worker: o.and_then(|o| o.str("worker")).map(str::to_string),
            within: o.and_then(|o| o.str("within")).map(str::to_string),
            coded: o.and_then(Obj::coded).map(Box::new),
        }
    }

    pub fn new(message: impl Into<String>) -> CodeError {
        CodeError {
            message: message.into(),
            line: None,
            col: None,
            worker: None,
            within: None,
            coded: None,
        }
    }

    /// An error we say ourselves: its English `message`, and its code and data for the
    /// page (`lab_msg_<code>` in content/ui.toml).
    pub fn coded(message: impl Into<String>, code: &str, data: &[(&str, String)]) -> CodeError {
        CodeError {
            coded: Some(Box::new(Coded::new(code, data))),
            ..CodeError::new(message)
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
pub(super) struct Obj<'a>(pub(super) &'a serde_json::Map<String, Value>);

impl<'a> Obj<'a> {
    pub(super) fn str(&self, k: &str) -> Option<&'a str> {
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
    pub(super) fn u32(&self, k: &str) -> Option<u32> {
        self.0
            .get(k)
            .and_then(Value::as_u64)
            .and_then(|x| u32::try_from(x).ok())
    }
    /// `"coded": {"code": "missing_function", "data": {"name": "release"}}`: a code of
    /// lowercase letters and `_`, its data's values as text (numbers written out), each
    /// cut to [`MAX_CODED_CHARS`]. Anything else is no code (the words stay the text).
    fn coded(&self) -> Option<Coded> {
        let c = self.0.get("coded")?.as_object()?;
        let code = c.get("code")?.as_str()?;
        if code.is_empty() || code.len() > 40 || !code.bytes().all(|b| b.is_ascii_lowercase() || b == b'_') {
            return None;
        }
        let data = match c.get("data") {
            Some(Value::Object(m)) => m
                .iter()
                .take(8)
                .filter_map(|(k, v)| {
                    let text = match v {
                        Value::String(s) => s.clone(),
                        Value::Number(n) => n.to_string(),
                        Value::Bool(b) => b.to_string(),
                        _ => return None,
                    };
                    Some((
                        k.chars().take(40).collect(),
                        text.chars().take(MAX_CODED_CHARS).collect(),
                    ))
                })
                .collect(),
            _ => Default::default(),
        };
        Some(Coded {
            code: code.to_string(),
            data,
        })
    }
}

/// Longest value of a code's data kept (a driver's reason text is cut at 500 as well).
pub const MAX_CODED_CHARS: usize = 500;

/// The actions of an `actions` answer.
fn actions_of(v: &Value) -> Result<Vec<LabAction>, CodeError> {
    let wire = v
        .get("actions")
        .and_then(Value::as_array)
        .ok_or_else(|| CodeError::new("the harness's answer has no actions"))?;
    if wire.len() > MAX_ACTIONS {
        return Err(CodeError::coded(
            format!("your code did more than {MAX_ACTIONS} things without waiting for anything"),
            "too_many_actions",
            &[("max", MAX_ACTIONS.to_string())],
        ));
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
                return Err(CodeError::coded(
                    format!("a command argument longer than {MAX_ARG_BYTES} bytes"),
                    "command_argument_too_long",
                    &[("max", MAX_ARG_BYTES.to_string())],
                ));
            }
            LabAction::Cmd {
                id: o.u64("id")?,
                node: usize::try_from(o.u64("node")?).unwrap_or(usize::MAX),
                args,
                timeout_ms: o.f64("timeout_ms"),
                line: o.u32("line"),
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
            coded: o.coded(),
        },
        "failed" => LabAction::Failed {
            reason: o.string("reason")?,
            coded: o.coded(),
        },
        "log" => LabAction::Log {
            text: o.str("text").unwrap_or("").chars().take(500).collect(),
            coded: o.coded(),
        },
        "done" => LabAction::Done,
        "error" => LabAction::Error {
            message: o.string("message")?,
            line: o.u32("line"),
            col: o.u32("col"),
            coded: o.coded(),
        },
        "stuck" => {
            let (message, coded) = match o.str("waiting") {
                // No function of the learner's runs: the driver waits on something of
                // theirs (a promise one of their objects gave).
                Some("worker") => (
                    "this worker waits for something that can never happen: worker".to_string(),
                    Coded::new("stuck_worker", &[]),
                ),
                Some(w) if !w.is_empty() => (
                    format!("this worker waits for something that can never happen: {w}"),
                    Coded::new("stuck", &[("waiting", w.chars().take(MAX_CODED_CHARS).collect())]),
                ),
                _ => (
                    "this worker waits on a promise that never settles".to_string(),
                    Coded::new("stuck_promise", &[]),
                ),
            };
            LabAction::Error {
                message,
                line: None,
                col: None,
                coded: Some(coded),
            }
        }
        other => return Err(CodeError::new(format!("`{other}` is not an action"))),
    })
}
