//! Typed facts: why something failed, was lost, dropped or refused; how a hold ended;
//! what kind of violation the checker (or a lab) found. The simulator records these
//! where it knows them and carries them in the trace and the outcome, so nothing
//! downstream reads a sentence back.
//!
//! Words for people are made at the edge: `timeline::words` says each fact in the
//! reader's language. The [`std::fmt::Display`] impls here are the words of the
//! `lockstep run` text and of `lockstep run --json` only (other tools read them, so they
//! keep their exact form); serde writes each fact as that string in JSON, and as tagged
//! data on the wire to the page.

use super::persistence::Persistence;
use serde::{Deserialize, Deserializer, Serialize, Serializer};
use std::fmt;
use std::hash::{Hash, Hasher};

/// Why a message was dropped, a lock was lost, an acquisition failed, a write was
/// refused or work was skipped.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub enum Reason {
    // A message dropped.
    /// The link was cut.
    Partitioned,
    /// A lossy link lost it.
    Lost,
    /// The receiver was down.
    ReceiverDown,
    // A lock lost.
    /// The holder crashed.
    Crashed,
    /// The client's own validity bound ran out.
    ValidityEnded,
    /// A watchdog renewal found the key gone (or someone else's).
    RenewalReturned0,
    /// The library's extension failed; it signals abort.
    ExtensionFailed,
    // An acquisition failed.
    /// SET NX found the key set, or no reply came.
    LockTaken,
    /// The validity was over before the client could hold the lock.
    ValidityAlreadyOver,
    /// The library saw no quorum for or against in its retries.
    NoQuorumInRetryWindow,
    /// WAIT answered `acked` replicas, fewer than `want`.
    WaitAcked { acked: i64, want: u32 },
    /// WAIT answered something other than a count (its redis-cli text).
    WaitReply { reply: String },
    /// Redlock had a quorum but no validity left.
    NoValidity { validity_ms: i64, elapsed_ms: i64 },
    /// Fewer than a quorum of nodes said yes.
    Nodes { ok: usize, all: usize },
    // A write refused by the resource.
    /// The fencing token was not above the highest seen (`equal_allowed`: only below
    /// it is refused, the `≤`/`<` of the words).
    StaleToken {
        token: i64,
        highest: i64,
        equal_allowed: bool,
    },
    /// A fenced resource got a write without a token.
    NoFencingToken,
    /// The idempotency key was used already.
    IdempotencyUsed { key: String },
    /// Another client claimed the idempotency key, until `until_ms` (true time).
    IdempotencyInProgress { key: String, until_ms: u64 },
    /// A request reached a process that is not the resource.
    NotAResource,
    // Work skipped.
    /// The work step `expect key value` found `seen` instead.
    Expected {
        key: String,
        seen: Option<String>,
        want: String,
    },
    /// Words someone else wrote: a lab driver's reason, or a reason read back from JSON.
    Said(String),
    /// A lab driver's reason as a code and its data, with its English `text` (what the
    /// command line prints; the page says the code in the reader's language).
    Coded { text: String, coded: Coded },
}

/// Words a lab's harness, driver or host sends as a code and its data (`{"code":
/// "lock_taken", "data": {…}}`) beside their English text: the page says them in the
/// reader's language (`lab_msg_<code>` in content/ui.toml, the data its placeholders;
/// `timeline::words::coded`), the command line prints the text. A data value named
/// `reason` is a [`Reason`] in its JSON words (a resource's refusal passed on).
#[derive(Clone, Debug, Default, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct Coded {
    pub code: String,
    pub data: crate::vecmap::VecMap<String, String>,
}

impl Coded {
    pub fn new(code: &str, data: &[(&str, String)]) -> Coded {
        Coded {
            code: code.to_string(),
            data: data.iter().map(|(k, v)| (k.to_string(), v.clone())).collect(),
        }
    }
}

/// A fact hashed as its words (its `Display`), so a trace hashes as it did when the facts
/// were strings and the recorded determinism hashes hold. For people's formats (the JSON
/// of `lockstep run --json`, which other tools read) serde writes it as those words and
/// reads them back by `$read` (`None`: not one of its words, an error naming `$what`).
/// Between the engine and the page (the wire: postcard, not human-readable) it travels
/// as tagged data, its variant and fields (the derive's `remote = "Self"` form): no
/// sentence is parsed back there, and a Redis reply that reads like another fact stays
/// what it was.
macro_rules! as_words {
    ($t:ty, $what:literal, $read:expr) => {
        impl Hash for $t {
            fn hash<H: Hasher>(&self, state: &mut H) {
                self.to_string().hash(state);
            }
        }

        impl Serialize for $t {
            fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match s.is_human_readable() {
                    true => s.collect_str(self),
                    false => <$t>::serialize(self, s),
                }
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                if !d.is_human_readable() {
                    return <$t>::deserialize(d);
                }
                let s = String::deserialize(d)?;
                let read: fn(&str) -> Option<$t> = $read;
                read(&s).ok_or_else(|| serde::de::Error::custom(format!("unknown {} `{s}`", $what)))
            }
        }
    };
}

as_words!(Reason, "reason", |s| Some(Reason::from_json_text(s)));
as_words!(Message, "message", |s| Some(Message::from_json_text(s)));
as_words!(TimerName, "timer", |s| TimerName::ALL
    .into_iter()
    .find(|t| t.as_str() == s));
as_words!(Comeback, "restart", |s| Comeback::ALL
    .into_iter()
    .find(|c| c.as_str() == s));

impl fmt::Display for Reason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Reason::Partitioned => f.write_str("partitioned"),
            Reason::Lost => f.write_str("lost"),
            Reason::ReceiverDown => f.write_str("receiver down"),
            Reason::Crashed => f.write_str("crashed"),
            Reason::ValidityEnded => f.write_str("validity ended"),
            Reason::RenewalReturned0 => f.write_str("renewal returned 0"),
            Reason::ExtensionFailed => f.write_str("abort signal: extension failed"),
            Reason::LockTaken => f.write_str("lock taken (or no reply)"),
            Reason::ValidityAlreadyOver => f.write_str("validity already over"),
            Reason::NoQuorumInRetryWindow => f.write_str("no quorum during the retry window"),
            Reason::WaitAcked { acked, want } => write!(f, "WAIT: {acked} of {want} replicas acknowledged"),
            Reason::WaitReply { reply } => write!(f, "WAIT: {reply}"),
            Reason::NoValidity {
                validity_ms,
                elapsed_ms,
            } => write!(f, "validity {validity_ms} ms ≤ 0 (elapsed {elapsed_ms} ms)"),
            Reason::Nodes { ok, all } => write!(f, "{ok} of {all} nodes"),
            Reason::StaleToken {
                token,
                highest,
                equal_allowed,
            } => {
                let op = if *equal_allowed { "<" } else { "≤" };
                write!(f, "token {token} {op} highest seen {highest}")
            }
            Reason::NoFencingToken => f.write_str("no fencing token"),
            Reason::IdempotencyUsed { key } => write!(f, "idempotency key {key} already used"),
            Reason::IdempotencyInProgress { key, until_ms } => {
                write!(f, "idempotency key {key} in progress until {until_ms} ms")
            }
            Reason::NotAResource => f.write_str("not a resource"),
            Reason::Expected { key, seen, want } => write!(
                f,
                "{key} is {}, expected {want}",
                seen.as_deref().unwrap_or("(nil)")
            ),
            Reason::Said(s) => f.write_str(s),
            Reason::Coded { text, .. } => f.write_str(text),
        }
    }
}

impl Reason {
    /// The reasons without data, for [`Reason::from_json_text`].
    const FIXED: [Reason; 12] = [
        Reason::Partitioned,
        Reason::Lost,
        Reason::ReceiverDown,
        Reason::Crashed,
        Reason::ValidityEnded,
        Reason::RenewalReturned0,
        Reason::ExtensionFailed,
        Reason::LockTaken,
        Reason::ValidityAlreadyOver,
        Reason::NoQuorumInRetryWindow,
        Reason::NoFencingToken,
        Reason::NotAResource,
    ];

    /// Reads back what [`Display`](fmt::Display) wrote, for a trace read from the JSON
    /// of `lockstep run --json` (its one reader; the simulator and the timeline never
    /// read words). Text of no known shape is [`Reason::Said`].
    pub fn from_json_text(s: &str) -> Reason {
        if let Some(r) = Reason::FIXED.iter().find(|r| r.to_string() == s) {
            return r.clone();
        }
        let num = |x: &str| x.parse::<i64>().ok();
        if let Some(rest) = s.strip_prefix("WAIT: ") {
            let acked = rest
                .strip_suffix(" replicas acknowledged")
                .and_then(|r| r.split_once(" of "))
                .and_then(|(k, w)| Some((num(k)?, w.parse::<u32>().ok()?)));
            return match acked {
                Some((acked, want)) => Reason::WaitAcked { acked, want },
                None => Reason::WaitReply {
                    reply: rest.to_string(),
                },
            };
        }
        if let Some((v, e)) = s
            .strip_prefix("validity ")
            .and_then(|r| r.strip_suffix(" ms)"))
            .and_then(|r| r.split_once(" ms ≤ 0 (elapsed "))
            .and_then(|(v, e)| Some((num(v)?, num(e)?)))
        {
            return Reason::NoValidity {
                validity_ms: v,
                elapsed_ms: e,
            };
        }
        if let Some((ok, all)) = s
            .strip_suffix(" nodes")
            .and_then(|r| r.split_once(" of "))
            .and_then(|(o, a)| Some((o.parse().ok()?, a.parse().ok()?)))
        {
            return Reason::Nodes { ok, all };
        }
        if let Some(rest) = s.strip_prefix("token ") {
            for (op, equal_allowed) in [(" ≤ ", false), (" < ", true)] {
                if let Some((t, h)) = rest
                    .split_once(&format!("{op}highest seen "))
                    .and_then(|(t, h)| Some((num(t)?, num(h)?)))
                {
                    return Reason::StaleToken {
                        token: t,
                        highest: h,
                        equal_allowed,
                    };
                }
            }
        }
        if let Some(rest) = s.strip_prefix("idempotency key ") {
            if let Some(key) = rest.strip_suffix(" already used") {
                return Reason::IdempotencyUsed { key: key.to_string() };
            }
            if let Some((key, until_ms)) = rest
                .strip_suffix(" ms")
                .and_then(|r| r.rsplit_once(" in progress until "))
                .and_then(|(k, u)| Some((k, u.parse().ok()?)))
            {
                return Reason::IdempotencyInProgress {
                    key: key.to_string(),
                    until_ms,
                };
            }
        }
        if let Some(((key, seen), want)) = s
            .rsplit_once(", expected ")
            .and_then(|(a, want)| Some((a.split_once(" is ")?, want)))
        {
            return Reason::Expected {
                key: key.to_string(),
                seen: (seen != "(nil)").then(|| seen.to_string()),
                want: want.to_string(),
            };
        }
        Reason::Said(s.to_string())
    }
}

/// What a message carries, as the trace records it (a `Send`'s `what`): Redis's own
/// words (commands, replies) as they are, the rest as facts.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub enum Message {
    /// Redis's own words: a command (long arguments shortened) or a reply in
    /// redis-cli's form. (Also what JSON gives back for text of no other shape.)
    Redis(String),
    /// A replication batch of `writes` effects.
    Replicate {
        offset: u64,
        writes: usize,
    },
    /// A replica's acknowledgement.
    Ack {
        offset: u64,
    },
    /// A read request to the resource.
    Read {
        key: String,
    },
    /// A write request to the resource.
    Write {
        key: String,
        value: String,
        token: Option<i64>,
    },
    /// A claim of an idempotency key as in progress, for `ttl_ms`.
    Claim {
        key: String,
        ttl_ms: u64,
    },
    /// The resource's answer to a read.
    ReadReply {
        value: Option<String>,
        version: u64,
    },
    Accepted,
    Rejected(Reason),
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Message::Redis(s) => f.write_str(s),
            Message::Replicate { offset, writes } => write!(f, "replicate #{offset} ({writes} writes)"),
            Message::Ack { offset } => write!(f, "ack #{offset}"),
            Message::Read { key } => write!(f, "read {key}"),
            Message::Write { .. } | Message::Claim { .. } => {
                write!(f, "write {}", self.write_data().unwrap_or_default())
            }
            Message::ReadReply { value, version } => {
                write!(f, "{} (v{version})", value.as_deref().unwrap_or("(nil)"))
            }
            Message::Accepted => f.write_str("accepted"),
            Message::Rejected(r) => write!(f, "rejected: {r}"),
        }
    }
}

impl Message {
    /// Reads back what [`Display`](fmt::Display) wrote, for a trace read from JSON
    /// (see [`Reason::from_json_text`]). Text of no other shape is Redis's.
    pub fn from_json_text(s: &str) -> Message {
        let num = |x: &str| x.parse::<u64>().ok();
        if s == "accepted" {
            return Message::Accepted;
        }
        if let Some(r) = s.strip_prefix("rejected: ") {
            return Message::Rejected(Reason::from_json_text(r));
        }
        if let Some((offset, writes)) = s
            .strip_prefix("replicate #")
            .and_then(|r| r.strip_suffix(" writes)"))
            .and_then(|r| r.split_once(" ("))
            .and_then(|(o, n)| Some((num(o)?, n.parse().ok()?)))
        {
            return Message::Replicate { offset, writes };
        }
        if let Some(offset) = s.strip_prefix("ack #").and_then(num) {
            return Message::Ack { offset };
        }
        if let Some(key) = s.strip_prefix("read ") {
            return Message::Read { key: key.to_string() };
        }
        if let Some((key, ttl_ms)) = s
            .strip_prefix("write idem:")
            .and_then(|r| r.split_once("=in-progress PX "))
            .and_then(|(k, t)| Some((k, num(t)?)))
        {
            return Message::Claim {
                key: key.to_string(),
                ttl_ms,
            };
        }
        if let Some((key, rest)) = s.strip_prefix("write ").and_then(|r| r.split_once('=')) {
            let (value, token) = match rest
                .rsplit_once(" token ")
                .and_then(|(v, t)| Some((v, t.parse::<i64>().ok()?)))
            {
                Some((v, t)) => (v, Some(t)),
                None => (rest, None),
            };
            return Message::Write {
                key: key.to_string(),
                value: value.to_string(),
                token,
            };
        }
        if let Some((value, version)) = s
            .strip_suffix(')')
            .and_then(|r| r.rsplit_once(" (v"))
            .and_then(|(v, n)| Some((v, num(n)?)))
        {
            return Message::ReadReply {
                value: (value != "(nil)").then(|| value.to_string()),
                version,
            };
        }
        Message::Redis(s.to_string())
    }

    /// What a write or claim writes, as data (`key=value token 7`,
    /// `idem:k=in-progress PX 200`): the same in every language.
    pub fn write_data(&self) -> Option<String> {
        match self {
            Message::Write { key, value, token } => Some(match token {
                Some(t) => format!("{key}={value} token {t}"),
                None => format!("{key}={value}"),
            }),
            Message::Claim { key, ttl_ms } => Some(format!("idem:{key}=in-progress PX {ttl_ms}")),
            _ => None,
        }
    }
}

/// Which client timer fired (a trace's `Timer`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub enum TimerName {
    Start,
    Retry,
    RequestTimeout,
    ValidityEnds,
    Renew,
    WorkStepDone,
    LibraryRetry,
    LibraryExtension,
}

impl TimerName {
    pub const ALL: [TimerName; 8] = [
        TimerName::Start,
        TimerName::Retry,
        TimerName::RequestTimeout,
        TimerName::ValidityEnds,
        TimerName::Renew,
        TimerName::WorkStepDone,
        TimerName::LibraryRetry,
        TimerName::LibraryExtension,
    ];

    /// Its name in the CLI and the JSON.
    pub fn as_str(self) -> &'static str {
        match self {
            TimerName::Start => "start",
            TimerName::Retry => "retry",
            TimerName::RequestTimeout => "request timeout",
            TimerName::ValidityEnds => "validity ends",
            TimerName::Renew => "renew",
            TimerName::WorkStepDone => "work step done",
            TimerName::LibraryRetry => "library retry",
            TimerName::LibraryExtension => "library extension",
        }
    }
}

impl fmt::Display for TimerName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a restarted process came back with (a trace's `Restart`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub enum Comeback {
    /// A node: what its persistence kept.
    Disk(Persistence),
    /// A node: a resync from the new master (it was demoted while down).
    Resync,
    /// A client or lab worker: its program from the start.
    FreshProgram,
    /// The resource: as it was.
    AsItWas,
}

impl Comeback {
    pub(crate) const ALL: [Comeback; 6] = [
        Comeback::Disk(Persistence::None),
        Comeback::Disk(Persistence::Everysec),
        Comeback::Disk(Persistence::Always),
        Comeback::Resync,
        Comeback::FreshProgram,
        Comeback::AsItWas,
    ];

    /// Its words in the CLI and the JSON (`aof-everysec`, `fresh program`, …).
    pub fn as_str(self) -> &'static str {
        match self {
            Comeback::Disk(p) => p.label(),
            Comeback::Resync => "resync from new master",
            Comeback::FreshProgram => "fresh program",
            Comeback::AsItWas => "",
        }
    }
}

impl fmt::Display for Comeback {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

/// What a process is: the world knows, so nobody guesses it from what it did.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// A Redis node.
    Node,
    /// A client running one of the built-in algorithms.
    Client,
    /// A lab worker: a client running the learner's code.
    LabWorker,
    /// The protected resource (storage service).
    Resource,
}

/// How a span of holding the lock ended (the checker's [`super::checker::Hold`]).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(remote = "Self")]
pub enum HoldEnd {
    Released,
    /// The client stopped believing it held the lock, and why.
    Lost(Reason),
    Crashed,
    /// The holder's own lease ran out before it released (labs).
    LeaseEnded,
    EndOfRun,
}

impl fmt::Display for HoldEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            HoldEnd::Released => f.write_str("released"),
            HoldEnd::Lost(r) => write!(f, "lost: {r}"),
            HoldEnd::Crashed => f.write_str("crashed"),
            HoldEnd::LeaseEnded => f.write_str("lease ended"),
            HoldEnd::EndOfRun => f.write_str("end of run"),
        }
    }
}

// In JSON its words (a loss keeps its reason's words); on the wire to the page its
// variant and reason as data, so a lab driver's coded reason arrives coded.
as_words!(HoldEnd, "hold end", |s| Some(HoldEnd::from_json_text(s)));

impl HoldEnd {
    /// Reads back what [`Display`](fmt::Display) wrote (see [`Reason::from_json_text`]).
    pub fn from_json_text(s: &str) -> HoldEnd {
        match s {
            "released" => HoldEnd::Released,
            "crashed" => HoldEnd::Crashed,
            "lease ended" => HoldEnd::LeaseEnded,
            "end of run" => HoldEnd::EndOfRun,
            other => HoldEnd::Lost(Reason::from_json_text(
                other.strip_prefix("lost: ").unwrap_or(other),
            )),
        }
    }
}

/// What kind of violation: the checker's five (one per [`super::Property`]) and the
/// labs' own. Serialized as the snake_case name other tools read (`overlap`, …).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum ViolationKind {
    /// Two clients believed they held the lock at once.
    Overlap,
    StaleWrite,
    LostUpdate,
    DuplicateToken,
    DoubleEffect,
    // The labs' checks (`sim::lab::Check`).
    DuplicateLockToken,
    NotDone,
    LockStuck,
    ForeignDelete,
    LockKept,
    EffectMissing,
}

impl ViolationKind {
    pub const ALL: [ViolationKind; 11] = [
        ViolationKind::Overlap,
        ViolationKind::StaleWrite,
        ViolationKind::LostUpdate,
        ViolationKind::DuplicateToken,
        ViolationKind::DoubleEffect,
        ViolationKind::DuplicateLockToken,
        ViolationKind::NotDone,
        ViolationKind::LockStuck,
        ViolationKind::ForeignDelete,
        ViolationKind::LockKept,
        ViolationKind::EffectMissing,
    ];

    /// The name in the JSON and the CLI (`overlap`, `stale_write`, …); violations of
    /// one moment are ordered by it.
    pub fn as_str(self) -> &'static str {
        match self {
            ViolationKind::Overlap => "overlap",
            ViolationKind::StaleWrite => "stale_write",
            ViolationKind::LostUpdate => "lost_update",
            ViolationKind::DuplicateToken => "duplicate_token",
            ViolationKind::DoubleEffect => "double_effect",
            ViolationKind::DuplicateLockToken => "duplicate_lock_token",
            ViolationKind::NotDone => "not_done",
            ViolationKind::LockStuck => "lock_stuck",
            ViolationKind::ForeignDelete => "foreign_delete",
            ViolationKind::LockKept => "lock_kept",
            ViolationKind::EffectMissing => "effect_missing",
        }
    }
}

impl fmt::Display for ViolationKind {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        // `pad`, so `{:<16}` in the CLI's table aligns as it did for the string.
        f.pad(self.as_str())
    }
}

/// One of each [`Reason`]; `which` numbers the variants without a wildcard, so a new
/// variant does not compile until it has an example here (the tests of this module and
/// of `timeline::words` go through them all).
#[cfg(test)]
pub(crate) fn every_reason() -> Vec<Reason> {
    fn which(r: &Reason) -> usize {
        match r {
            Reason::Partitioned => 0,
            Reason::Lost => 1,
            Reason::ReceiverDown => 2,
            Reason::Crashed => 3,
            Reason::ValidityEnded => 4,
            Reason::RenewalReturned0 => 5,
            Reason::ExtensionFailed => 6,
            Reason::LockTaken => 7,
            Reason::ValidityAlreadyOver => 8,
            Reason::NoQuorumInRetryWindow => 9,
            Reason::WaitAcked { .. } => 10,
            Reason::WaitReply { .. } => 11,
            Reason::NoValidity { .. } => 12,
            Reason::Nodes { .. } => 13,
            Reason::StaleToken { .. } => 14,
            Reason::NoFencingToken => 15,
            Reason::IdempotencyUsed { .. } => 16,
            Reason::IdempotencyInProgress { .. } => 17,
            Reason::NotAResource => 18,
            Reason::Expected { .. } => 19,
            Reason::Said(_) => 20,
            Reason::Coded { .. } => 21,
        }
    }
    let all = vec![
        Reason::Partitioned,
        Reason::Lost,
        Reason::ReceiverDown,
        Reason::Crashed,
        Reason::ValidityEnded,
        Reason::RenewalReturned0,
        Reason::ExtensionFailed,
        Reason::LockTaken,
        Reason::ValidityAlreadyOver,
        Reason::NoQuorumInRetryWindow,
        Reason::WaitAcked { acked: 0, want: 1 },
        Reason::WaitReply {
            reply: "(error) ERR timeout".into(),
        },
        Reason::NoValidity {
            validity_ms: -3,
            elapsed_ms: 12,
        },
        Reason::Nodes { ok: 2, all: 5 },
        Reason::StaleToken {
            token: 34,
            highest: 34,
            equal_allowed: true,
        },
        Reason::NoFencingToken,
        Reason::IdempotencyUsed { key: "k-1".into() },
        Reason::IdempotencyInProgress {
            key: "k-1".into(),
            until_ms: 201,
        },
        Reason::NotAResource,
        Reason::Expected {
            key: "balance".into(),
            seen: Some("90".into()),
            want: "100".into(),
        },
        Reason::Said("the lock was taken".into()),
        Reason::Coded {
            text: "the lock was taken".into(),
            coded: Coded::new("lock_taken", &[]),
        },
    ];
    let seen: std::collections::BTreeSet<usize> = all.iter().map(which).collect();
    assert_eq!(seen.len(), 22, "one of each variant");
    all
}

/// One of each [`Message`] (`which` as in [`every_reason`]).
#[cfg(test)]
pub(crate) fn every_message() -> Vec<Message> {
    fn which(m: &Message) -> usize {
        match m {
            Message::Redis(_) => 0,
            Message::Replicate { .. } => 1,
            Message::Ack { .. } => 2,
            Message::Read { .. } => 3,
            Message::Write { .. } => 4,
            Message::Claim { .. } => 5,
            Message::ReadReply { .. } => 6,
            Message::Accepted => 7,
            Message::Rejected(_) => 8,
        }
    }
    let all = vec![
        Message::Redis("SET lock:x c1-1 NX PX 10000".into()),
        Message::Replicate { offset: 3, writes: 2 },
        Message::Ack { offset: 3 },
        Message::Read {
            key: "balance".into(),
        },
        Message::Write {
            key: "balance".into(),
            value: "90".into(),
            token: Some(34),
        },
        Message::Claim {
            key: "k-1".into(),
            ttl_ms: 300,
        },
        Message::ReadReply {
            value: None,
            version: 0,
        },
        Message::Accepted,
        Message::Rejected(Reason::NoFencingToken),
    ];
    let seen: std::collections::BTreeSet<usize> = all.iter().map(which).collect();
    assert_eq!(seen.len(), 9, "one of each variant");
    all
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn violation_kinds_serialize_as_their_names() {
        for k in ViolationKind::ALL {
            let json = serde_json::to_string(&k).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", k.as_str()));
            assert_eq!(serde_json::from_str::<ViolationKind>(&json).ok(), Some(k));
        }
        assert_eq!(format!("{:<8}|", ViolationKind::Overlap), "overlap |");
    }

    #[test]
    fn every_fact_reads_back_from_its_json() {
        let mut reasons = every_reason();
        reasons.push(Reason::Expected {
            key: "balance".into(),
            seen: None,
            want: "100".into(),
        });
        reasons.push(Reason::StaleToken {
            token: 33,
            highest: 34,
            equal_allowed: false,
        });
        for r in reasons {
            // A driver's coded reason is its English words in JSON: they read back as words.
            let back = match &r {
                Reason::Coded { text, .. } => Reason::Said(text.clone()),
                r => r.clone(),
            };
            let json = serde_json::to_string(&r).unwrap_or_default();
            assert_eq!(
                serde_json::from_str::<Reason>(&json).ok(),
                Some(back.clone()),
                "{json}"
            );
            let end = HoldEnd::Lost(r);
            let json = serde_json::to_string(&end).unwrap_or_default();
            assert_eq!(
                serde_json::from_str::<HoldEnd>(&json).ok(),
                Some(HoldEnd::Lost(back)),
                "{json}"
            );
            // On the wire to the page it stays what it was, code and all.
            let text = crate::wire::to_text(&end).unwrap_or_default();
            assert_eq!(crate::wire::from_text::<HoldEnd>(&text).ok(), Some(end));
        }
        let mut messages = every_message();
        messages.push(Message::Write {
            key: "k".into(),
            value: "v".into(),
            token: None,
        });
        messages.push(Message::Redis("OK".into()));
        // A resource's refusal is never a driver's coded reason.
        let refusals = every_reason()
            .into_iter()
            .filter(|r| !matches!(r, Reason::Coded { .. }));
        messages.extend(refusals.map(Message::Rejected));
        for m in messages {
            let json = serde_json::to_string(&m).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Message>(&json).ok(), Some(m), "{json}");
        }
    }

    #[test]
    fn timers_and_comebacks_read_back_from_their_json() {
        for t in TimerName::ALL {
            let json = serde_json::to_string(&t).unwrap_or_default();
            assert_eq!(json, format!("\"{}\"", t.as_str()));
            assert_eq!(serde_json::from_str::<TimerName>(&json).ok(), Some(t));
        }
        for c in Comeback::ALL {
            let json = serde_json::to_string(&c).unwrap_or_default();
            assert_eq!(serde_json::from_str::<Comeback>(&json).ok(), Some(c), "{json}");
        }
        assert_eq!(Comeback::Disk(Persistence::Everysec).to_string(), "aof-everysec");
    }

    #[test]
    fn reasons_and_hold_ends_serialize_as_their_words() {
        let r = Reason::StaleToken {
            token: 33,
            highest: 34,
            equal_allowed: false,
        };
        assert_eq!(
            serde_json::to_string(&r).unwrap_or_default(),
            "\"token 33 ≤ highest seen 34\""
        );
        // Hashed as its words: the same feed as the string it replaced.
        let h = |x: &dyn Fn(&mut std::collections::hash_map::DefaultHasher)| {
            let mut s = std::collections::hash_map::DefaultHasher::new();
            x(&mut s);
            s.finish()
        };
        assert_eq!(
            h(&|s| r.hash(s)),
            h(&|s| "token 33 ≤ highest seen 34".to_string().hash(s))
        );
        for end in [
            HoldEnd::Released,
            HoldEnd::Crashed,
            HoldEnd::LeaseEnded,
            HoldEnd::EndOfRun,
            HoldEnd::Lost(Reason::Said("x".into())),
        ] {
            let json = serde_json::to_string(&end).unwrap_or_default();
            assert_eq!(serde_json::from_str::<HoldEnd>(&json).ok(), Some(end));
        }
        assert_eq!(
            HoldEnd::Lost(Reason::ValidityEnded).to_string(),
            "lost: validity ended"
        );
    }

    /// On the wire to the page a fact is tagged data: a Redis reply whose words read like
    /// another fact (`read x`, `ack #3`, `rejected: lost`) comes back as the reply it
    /// was, where its JSON words are read back as that other fact.
    #[test]
    fn facts_cross_the_wire_as_data_not_as_words() {
        let lookalikes = [
            Message::Redis("read x".into()),
            Message::Redis("ack #3".into()),
            Message::Redis("rejected: lost".into()),
            Message::Rejected(Reason::Said("partitioned".into())),
            Message::Write {
                key: "k".into(),
                value: "v w".into(),
                token: Some(-1),
            },
        ];
        for m in lookalikes {
            let text = crate::wire::to_text(&m).unwrap_or_default();
            assert_eq!(crate::wire::from_text::<Message>(&text), Ok(m.clone()), "{m}");
        }
        let read_back =
            |m: &Message| serde_json::from_str::<Message>(&serde_json::to_string(m).unwrap_or_default()).ok();
        assert_eq!(
            read_back(&Message::Redis("read x".into())),
            Some(Message::Read { key: "x".into() }),
            "JSON keeps the words, and reads them as the fact they spell"
        );
        for t in [TimerName::Start, TimerName::WorkStepDone] {
            assert_eq!(
                crate::wire::from_text(&crate::wire::to_text(&t).unwrap_or_default()),
                Ok(t)
            );
        }
        let c = Comeback::Resync;
        assert_eq!(
            crate::wire::from_text(&crate::wire::to_text(&c).unwrap_or_default()),
            Ok(c)
        );
    }
}
