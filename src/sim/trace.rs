//! The trace: every event of a run, in order, with true and local time.
//!
//! The timeline draws it, the checker reads it, determinism tests hash it. It is plain
//! serde data, in one form for every format: each event's kind externally tagged
//! (`"kind": {"send": {…}}`, `"kind": "start"` in JSON) and no field skipped, so the
//! compact formats (postcard, the wire between the engine and the page) read it as JSON
//! does. Processes are numbered (`pid`); [`crate::sim::World::process_names`] gives their
//! names.

use super::fact::{Coded, Comeback, Message, Reason, TimerName};
use serde::{Deserialize, Serialize};
use std::hash::{Hash, Hasher};

/// One recorded event.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
pub struct TraceEvent {
    /// True time, µs since the scenario started.
    pub t_us: u64,
    /// The process's own clock at that moment, µs (may differ from `t_us`).
    pub local_us: i64,
    /// The process the event happened at.
    pub pid: u32,
    pub kind: TraceKind,
}

/// The line of the learner's file a lab worker's command was sent from, if known: what
/// the page points at in a broken run. Display data, not part of the run: the grade
/// never reads it, a harness that lies about it can only point at another line, and the
/// trace hash leaves it out, so a run hashes the same with or without lines (a "Try to
/// break it" trial records none, the same trial drawn alone does).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
#[serde(transparent)]
pub struct SourceLine(pub Option<u32>);

impl Hash for SourceLine {
    fn hash<H: Hasher>(&self, _: &mut H) {}
}

/// What happened.
#[derive(Clone, Debug, PartialEq, Eq, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum TraceKind {
    /// A client started its program.
    Start,
    /// A message left `pid` for `to`; it will arrive (or be dropped) later.
    Send {
        msg: u64,
        to: u32,
        what: Message,
    },
    /// A message from `from` arrived at `pid`.
    Deliver {
        msg: u64,
        from: u32,
    },
    /// A message was lost: the link was partitioned, lossy, or the receiver was down.
    Drop {
        msg: u64,
        from: u32,
        to: u32,
        reason: Reason,
    },
    /// A node ran a command from `from` (a client, or `pid` itself for an operator
    /// command). EVAL/EVALSHA are script runs (`script` true). `line`: the line of the
    /// learner's file a lab worker sent it from, when its harness said (one trial the
    /// page draws: Run, a replay).
    Command {
        from: u32,
        args: Vec<String>,
        reply: String,
        script: bool,
        line: SourceLine,
    },
    /// A replica applied a replication batch.
    Replicate {
        from: u32,
        offset: u64,
        effects: u32,
    },
    /// A client timer fired (retry, renewal, validity end, work step). `line`: for a lab
    /// worker's request timeout, the learner's line that sent the command, as on
    /// [`TraceKind::Command`].
    Timer {
        name: TimerName,
        line: SourceLine,
    },
    Pause,
    Resume,
    Crash,
    /// The process came back; `keys` survived (from the AOF, or a resync).
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
    /// Messages from `pid` to `to` are now dropped (both ways unless `oneway`).
    Partition {
        to: u32,
        oneway: bool,
    },
    Repair {
        to: u32,
    },
    /// A link's latency changed.
    Latency {
        to: u32,
        latency: String,
    },
    /// Failover finished: `pid` is the new master of `group`.
    Failover {
        group: String,
    },
    /// The client now believes it holds `lock`.
    LockHeld {
        lock: String,
        token: String,
        fence: Option<i64>,
        /// True time at which the client's own validity bound ends, if it keeps one.
        valid_until_us: Option<u64>,
    },
    /// The client stopped believing it holds `lock` without releasing it.
    LockLost {
        lock: String,
        reason: Reason,
    },
    /// The client released `lock` (or started to); it no longer believes it holds it.
    LockReleased {
        lock: String,
    },
    /// One acquisition attempt failed.
    AcquireFailed {
        lock: String,
        reason: Reason,
    },
    /// The client gave up on acquiring.
    GaveUp {
        lock: String,
    },
    /// The client read `key` from the resource.
    Read {
        key: String,
        value: Option<String>,
        version: u64,
    },
    /// The work step `expect` did not hold: the client stops its work (nothing to do).
    WorkSkipped {
        reason: Reason,
    },
    /// The client finished its work.
    WorkDone,
    /// The resource accepted a write from `from`.
    WriteAccepted {
        from: u32,
        key: String,
        value: String,
        token: Option<i64>,
        /// The write was based on a read of `key` that had since been overwritten.
        lost_update: bool,
        /// The writer's lock had lapsed when the write was accepted (judged by the
        /// simulator from the nodes' actual state), if the writer uses a lock.
        lock_lapsed: bool,
    },
    /// The resource refused a write from `from`.
    WriteRejected {
        from: u32,
        key: String,
        token: Option<i64>,
        highest_seen: Option<i64>,
        reason: Reason,
    },
    /// The run stopped (end time reached, or nothing left to happen).
    End,
    /// Every node voted and neither side reached a quorum (an even split): a library
    /// attempt that settles only on a quorum for or against now waits forever. (Last,
    /// so the other kinds keep the discriminants the trace hashes were blessed with.)
    Stalled {
        lock: String,
        votes_for: u32,
        votes_against: u32,
    },
    /// A lab worker wrote to the console (`console.log`), or its driver noted a step
    /// (`coded`: as a code and its data, for the reader's language).
    Note {
        text: String,
        coded: Option<Coded>,
    },
    /// A lab worker's code failed: it threw, or waits on a promise that never settles.
    /// `line`/`col` point into the learner's file when known; `coded`: what the harness
    /// or the driver said as a code and its data (not the JavaScript engine's text).
    CodeError {
        message: String,
        line: Option<u32>,
        col: Option<u32>,
        coded: Option<Coded>,
    },
    /// A command from `pid` deleted or overwrote `key` while it held `owner`'s token:
    /// a release that freed someone else's lock.
    ForeignDelete {
        key: String,
        owner: u32,
        token: String,
    },
    /// A lab worker's release returned, but `lock` still held its token: the release
    /// did not free the lock (it stays taken until its TTL runs out).
    LockKept {
        lock: String,
        token: String,
    },
    /// A lab worker said it holds `lock` with `token`, but only `on` of its `of` nodes
    /// stored that token as the lock's value then (or were down): a belief the nodes do
    /// not back.
    HeldUnbacked {
        lock: String,
        token: String,
        on: u32,
        of: u32,
    },
}

/// What an event is to a reader: the one list of the events that matter (#37). The
/// timeline's "What happened" tells [`Weight::Story`] and [`Weight::Turn`] events; playback
/// stops on [`Weight::Turn`] and [`Weight::Attempt`] events.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Weight {
    /// The mechanics under the story: messages, commands, timers, replication.
    Mechanics,
    /// A failed try: worth a stop as it happens, too many to tell in a list.
    Attempt,
    /// Part of the story, told, without a stop: a read, a note, skipped work, drift, a repair.
    Story,
    /// A turn of the story: told, and playback stops on it.
    Turn,
}

impl TraceKind {
    /// What this event is to a reader.
    pub fn weight(&self) -> Weight {
        use TraceKind as K;
        match self {
            K::LockHeld { .. }
            | K::LockLost { .. }
            | K::LockReleased { .. }
            | K::GaveUp { .. }
            | K::Stalled { .. }
            | K::CodeError { .. }
            | K::LockKept { .. }
            | K::HeldUnbacked { .. }
            | K::ForeignDelete { .. }
            | K::WriteAccepted { .. }
            | K::WriteRejected { .. }
            | K::Crash
            | K::Restart { .. }
            | K::Pause
            | K::Resume
            | K::ClockJump { .. }
            | K::Failover { .. }
            | K::Partition { .. } => Weight::Turn,
            K::Note { .. } | K::Read { .. } | K::WorkSkipped { .. } | K::Drift { .. } | K::Repair { .. } => {
                Weight::Story
            }
            K::AcquireFailed { .. } => Weight::Attempt,
            K::Start
            | K::Send { .. }
            | K::Deliver { .. }
            | K::Drop { .. }
            | K::Command { .. }
            | K::Replicate { .. }
            | K::Timer { .. }
            | K::Latency { .. }
            | K::WorkDone
            | K::End => Weight::Mechanics,
        }
    }

    /// Events the checker and the lesson summaries need; everything else is detail (what
    /// a run keeps when it records little): every turn and attempt, and the starts, ends
    /// and clock and link changes the checker reads.
    pub fn is_semantic(&self) -> bool {
        matches!(self.weight(), Weight::Turn | Weight::Attempt)
            || matches!(
                self,
                TraceKind::Start
                    | TraceKind::WorkDone
                    | TraceKind::End
                    | TraceKind::Drift { .. }
                    | TraceKind::Repair { .. }
            )
    }
}

/// How much to record: everything (timeline, CLI), or only what the checker needs
/// (the explorer's many trials).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum TraceLevel {
    Full,
    Semantic,
}

/// A stable 64-bit hash of a trace (FNV-1a over the derived `Hash` feed), for
/// determinism checks: equal traces ⇒ equal hashes on every platform.
pub fn trace_hash(events: &[TraceEvent]) -> u64 {
    let mut h = Fnv(0xcbf2_9ce4_8422_2325);
    events.hash(&mut h);
    h.finish()
}

struct Fnv(u64);

impl Hasher for Fnv {
    fn finish(&self) -> u64 {
        self.0
    }
    fn write(&mut self, bytes: &[u8]) {
        for b in bytes {
            self.0 ^= u64::from(*b);
            self.0 = self.0.wrapping_mul(0x0100_0000_01b3);
        }
    }
    // Integers are fed little-endian whatever the platform, so the hash is the same
    // on wasm32 and x86_64 (usize lengths are widened to u64).
    fn write_u8(&mut self, i: u8) {
        self.write(&[i]);
    }
    fn write_u32(&mut self, i: u32) {
        self.write(&i.to_le_bytes());
    }
    fn write_u64(&mut self, i: u64) {
        self.write(&i.to_le_bytes());
    }
    fn write_i64(&mut self, i: i64) {
        self.write(&i.to_le_bytes());
    }
    fn write_usize(&mut self, i: usize) {
        self.write(&(i as u64).to_le_bytes());
    }
    fn write_isize(&mut self, i: isize) {
        self.write(&(i as i64).to_le_bytes());
    }
}

/// Milliseconds with three decimals, for people: `12 300.000`.
pub fn fmt_ms(us: u64) -> String {
    format!("{}.{:03}", us / 1000, us % 1000)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The one list: a lock's turns stop playback and are told; a failed try stops it
    /// and is not told; a read is told without a stop; the mechanics are neither.
    #[test]
    fn each_kind_of_event_has_one_weight_for_every_reader() {
        let lock = || "lock".to_string();
        assert_eq!(
            TraceKind::LockHeld {
                lock: lock(),
                token: "t".into(),
                fence: None,
                valid_until_us: None
            }
            .weight(),
            Weight::Turn
        );
        assert_eq!(
            TraceKind::ForeignDelete {
                key: lock(),
                owner: 2,
                token: "t".into()
            }
            .weight(),
            Weight::Turn
        );
        assert_eq!(
            TraceKind::AcquireFailed {
                lock: lock(),
                reason: Reason::Crashed
            }
            .weight(),
            Weight::Attempt
        );
        assert_eq!(
            TraceKind::Read {
                key: "k".into(),
                value: None,
                version: 1
            }
            .weight(),
            Weight::Story
        );
        assert_eq!(
            TraceKind::Command {
                from: 1,
                args: vec!["GET".into()],
                reply: "nil".into(),
                script: false,
                line: SourceLine(None)
            }
            .weight(),
            Weight::Mechanics
        );
        assert_eq!(TraceKind::End.weight(), Weight::Mechanics);
    }

    fn ev(t: u64, kind: TraceKind) -> TraceEvent {
        TraceEvent {
            t_us: t,
            local_us: t as i64,
            pid: 1,
            kind,
        }
    }

    #[test]
    fn hash_changes_with_content_and_serde_round_trips() {
        let a = vec![ev(1, TraceKind::Pause), ev(2, TraceKind::Resume)];
        let mut b = a.clone();
        assert_eq!(trace_hash(&a), trace_hash(&b));
        b[1].t_us = 3;
        assert_ne!(trace_hash(&a), trace_hash(&b));
        let json = serde_json::to_string(&a).unwrap_or_default();
        assert!(json.contains("\"kind\":\"pause\""), "{json}");
        let back: Vec<TraceEvent> = serde_json::from_str(&json).unwrap_or_default();
        assert_eq!(back, a);
    }

    #[test]
    fn ms_formatting() {
        assert_eq!(fmt_ms(12_300_000), "12300.000");
        assert_eq!(fmt_ms(1_500), "1.500");
    }
}
