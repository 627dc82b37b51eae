//! How a run's trace crosses from the engine's worker to the page (`panel::RunPart`, in
//! bincode: `crate::wire`): each event as `[t_us, local_us, pid, kind]` with the kind
//! externally tagged (in JSON `{"send": {…}}`, `"start"`). The trace's own JSON (`lockstep
//! run --json`) tags each event's kind inside it (`"kind": "send"`), which serde can only
//! read by buffering each event first (more code on the page and a slower read), and which
//! bincode cannot read at all. The mirror
//! below is checked against `TraceKind` by the compiler (serde's `remote`): a variant or
//! field added there and not here fails to build.

use crate::sim::fact::{Coded, Comeback, Message, Reason, TimerName};
use crate::sim::trace::{SourceLine, TraceEvent, TraceKind};
use serde::{Deserialize, Deserializer, Serialize, Serializer};

#[derive(Serialize, Deserialize)]
#[serde(remote = "TraceKind", rename_all = "snake_case")]
pub enum KindWire {
    Start,
    Send {
        msg: u64,
        to: u32,
        what: Message,
    },
    Deliver {
        msg: u64,
        from: u32,
    },
    Drop {
        msg: u64,
        from: u32,
        to: u32,
        reason: Reason,
    },
    Command {
        from: u32,
        args: Vec<String>,
        reply: String,
        script: bool,
        line: SourceLine,
    },
    Replicate {
        from: u32,
        offset: u64,
        effects: u32,
    },
    Timer {
        name: TimerName,
        line: SourceLine,
    },
    Pause,
    Resume,
    Crash,
    Restart {
        persistence: Comeback,
        keys: u32,
    },
    ClockJump {
        delta_us: i64,
    },
    Drift {
        rate_ppm: i64,
    },
    Partition {
        to: u32,
        oneway: bool,
    },
    Repair {
        to: u32,
    },
    Latency {
        to: u32,
        latency: String,
    },
    Failover {
        group: String,
    },
    LockHeld {
        lock: String,
        token: String,
        fence: Option<i64>,
        valid_until_us: Option<u64>,
    },
    LockLost {
        lock: String,
        reason: Reason,
    },
    LockReleased {
        lock: String,
    },
    AcquireFailed {
        lock: String,
        reason: Reason,
    },
    GaveUp {
        lock: String,
    },
    Read {
        key: String,
        value: Option<String>,
        version: u64,
    },
    WorkSkipped {
        reason: Reason,
    },
    WorkDone,
    WriteAccepted {
        from: u32,
        key: String,
        value: String,
        token: Option<i64>,
        lost_update: bool,
        lock_lapsed: bool,
    },
    WriteRejected {
        from: u32,
        key: String,
        token: Option<i64>,
        highest_seen: Option<i64>,
        reason: Reason,
    },
    End,
    Stalled {
        lock: String,
        votes_for: u32,
        votes_against: u32,
    },
    Note {
        text: String,
        coded: Option<Coded>,
    },
    CodeError {
        message: String,
        line: Option<u32>,
        col: Option<u32>,
        coded: Option<Coded>,
    },
    ForeignDelete {
        key: String,
        owner: u32,
        token: String,
    },
    LockKept {
        lock: String,
        token: String,
    },
    HeldUnbacked {
        lock: String,
        token: String,
        on: u32,
        of: u32,
    },
}

/// One event on the wire.
#[derive(Serialize, Deserialize)]
struct Event(u64, i64, u32, #[serde(with = "KindWire")] TraceKind);

/// `#[serde(with = "crate::timeline::wire::trace")]` on a `Vec<TraceEvent>`.
pub mod trace {
    use super::*;

    #[derive(Serialize)]
    struct EventRef<'a>(u64, i64, u32, #[serde(serialize_with = "kind")] &'a TraceKind);

    fn kind<S: Serializer>(k: &&TraceKind, s: S) -> Result<S::Ok, S::Error> {
        KindWire::serialize(k, s)
    }

    pub fn serialize<S: Serializer>(events: &[TraceEvent], s: S) -> Result<S::Ok, S::Error> {
        s.collect_seq(
            events
                .iter()
                .map(|e| EventRef(e.t_us, e.local_us, e.pid, &e.kind)),
        )
    }

    pub fn deserialize<'de, D: Deserializer<'de>>(d: D) -> Result<Vec<TraceEvent>, D::Error> {
        let events = Vec::<Event>::deserialize(d)?;
        Ok(events
            .into_iter()
            .map(|Event(t_us, local_us, pid, kind)| TraceEvent {
                t_us,
                local_us,
                pid,
                kind,
            })
            .collect())
    }
}

#[cfg(test)]
mod tests {
    use crate::sim::scenario::builtin;
    use crate::timeline::{build, Model};

    /// A run's trace crosses in the wire form and comes back equal, every kind of event
    /// of the built-in scenarios among them; and the form is the compact one.
    #[test]
    fn the_trace_crosses_in_its_wire_form_unchanged() {
        let mut kinds = std::collections::HashSet::new();
        for name in [
            "unsafe-del",
            "ttl-workers",
            "redlock-drift-2pct",
            "fencing",
            "failover",
            "redlock-pause-acquire",
        ] {
            let m = build(&builtin(name).expect("built-in").expect("valid"), 1).expect("runs");
            let json = serde_json::to_string(&m).expect("json");
            let back: Model = serde_json::from_str(&json).expect("reads");
            assert_eq!(back.trace, m.trace, "{name}");
            let v: serde_json::Value = serde_json::from_str(&json).expect("value");
            let first = &v["trace"][0];
            assert!(
                first.is_array() && first.as_array().is_some_and(|a| a.len() == 4),
                "{first}"
            );
            for e in &m.trace {
                kinds.insert(std::mem::discriminant(&e.kind));
            }
        }
        assert!(kinds.len() >= 15, "{} kinds of event crossed", kinds.len());
    }
}
