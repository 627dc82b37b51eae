//! The timeline as data: what the UI draws for a run, derived only from the simulator
//! (its trace, its checker's outcome, and the nodes' stores sampled as the run goes).
//!
//! Plain Rust (no browser), so the drawing rules are tested natively. `ui::scenario`
//! turns a [`Model`] into SVG and a [`Snapshot`] into the cluster view.
//!
//! - Lanes: clients first, then Redis nodes, then the resource (each process's kind is
//!   its [`Role`] in the world; the resource's lane is the resource's once it answered a
//!   write).
//! - Bars: a client's "believes it holds the lock" spans, a node's key spans (coloured by
//!   the token stored), pauses and crashes.
//! - Arrows: every message, from send to delivery (or to where it was dropped).
//! - Marks: single events (writes, clock jumps, partitions, failovers…).
//! - Bands: the checker's violations, in true time, with a sentence saying what broke.
//! - Stories: what the nodes' stores show and no single trace event says: a lock key
//!   expiring on a node, a client's command removing another client's key.

pub mod fold;
pub mod fork;
pub mod lab_panel;
pub mod lens;
pub mod link;
pub mod lod;
pub mod pace;
pub mod panel;
pub mod states;
pub mod tally;
pub mod variant;
pub mod view;
pub mod words;

mod build;
mod layout;
mod snapshot;

pub use build::*;
use layout::*;
pub use snapshot::*;

pub use variant::{check_script, first_script_error, ScriptError, Variant};
pub use words::{band_sentence, describe};

use crate::lesson::content::Lang;

use crate::sim::fact::{Message, Reason, Role, TimerName, ViolationKind};
use crate::sim::scenario::Scenario;
use crate::sim::timeline::Timeline;
use crate::sim::trace::{TraceEvent, TraceKind};
use crate::sim::Outcome;
use std::collections::BTreeMap;

/// How many events a model may hold; longer runs are cut (and say so).
pub const MAX_EVENTS: usize = 50_000;

#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, serde::Serialize, serde::Deserialize)]
pub enum LaneKind {
    Client,
    Node,
    Resource,
    Other,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Lane {
    pub pid: u32,
    pub name: String,
    pub kind: LaneKind,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum BarKind {
    /// A client believes it holds the lock.
    Holding,
    /// A node stores the lock key.
    Key,
    /// A client is paused (GC, VM stall).
    Paused,
    /// A process is crashed.
    Down,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Bar {
    pub pid: u32,
    pub kind: BarKind,
    pub from_us: u64,
    pub to_us: u64,
    /// The token it shows (holding or stored), which picks its colour.
    pub token: Option<String>,
    pub label: String,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Arrow {
    pub from: u32,
    pub to: u32,
    pub sent_us: u64,
    /// Delivery time, or the time the drop was noticed.
    pub at_us: u64,
    pub dropped: bool,
    /// What the message carries (`words::payload` says it).
    pub label: Message,
    /// Index of the send event in the trace.
    pub index: usize,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum MarkKind {
    WriteAccepted,
    WriteRejected,
    Crash,
    Restart,
    ClockJump,
    Drift,
    Partition,
    Repair,
    Failover,
    AcquireFailed,
    Released,
    Lost,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Mark {
    pub pid: u32,
    pub t_us: u64,
    pub kind: MarkKind,
    pub label: String,
    pub index: usize,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Band {
    /// The lock it is about, when the checker's holds name one.
    pub lock: Option<String>,
    pub from_us: u64,
    pub to_us: u64,
    pub kind: ViolationKind,
    pub clients: Vec<String>,
    pub detail: String,
    /// For an overlap: the client whose late write the resource rejected (fencing made
    /// the overlap harmless), if it did.
    pub fenced_off: Option<String>,
    /// For a double effect: the write that happened twice.
    pub effect: Option<crate::sim::checker::Effect>,
}

/// Something the nodes' stores show that no single trace event says.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum StoryKind {
    /// A key with a TTL ran out on `node` (by the node's clock). `owner`: the client
    /// whose token it held (or whose command set it), if known.
    Expired {
        node: u32,
        key: String,
        value: String,
        owner: Option<u32>,
    },
    /// Client `by`'s command `cmd` removed (or replaced) the key client `owner` had set.
    Removed {
        node: u32,
        key: String,
        owner: u32,
        by: u32,
        cmd: String,
    },
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Story {
    pub t_us: u64,
    /// The trace index it follows (it is told once the cursor reaches that event).
    pub after: usize,
    pub kind: StoryKind,
}

/// Everything the timeline draws for one run.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Model {
    /// The scenario's id (`unsafe-del`; a lab's scenario's), for links and data.
    pub scenario: String,
    /// What the reader calls it, by language code (`en` the default): the scenario's
    /// title, or a lab's. Empty: [`Model::title`] says the id.
    pub titles: crate::vecmap::VecMap<String, String>,
    pub seed: u64,
    pub names: Vec<String>,
    pub lanes: Vec<Lane>,
    pub trace: Vec<TraceEvent>,
    pub outcome: Outcome,
    pub end_us: u64,
    pub bars: Vec<Bar>,
    pub arrows: Vec<Arrow>,
    pub marks: Vec<Mark>,
    pub bands: Vec<Band>,
    /// Key expiries and removals, in trace order.
    pub stories: Vec<Story>,
    /// Clients that work without a lock (algorithm `none`).
    pub lockless: Vec<u32>,
    /// Tokens in order of first appearance; a token's colour is its index here.
    pub tokens: Vec<String>,
    /// True if the run was longer than [`MAX_EVENTS`] and was cut.
    pub truncated: bool,
    /// Each node's keys each time they may have changed, in trace order: what the
    /// cluster view shows at a cursor.
    pub key_states: Vec<KeyState>,
    /// The scenario's captions placed on this run, in trace order.
    pub captions: Vec<CaptionView>,
    /// Each quorum-lock attempt's tally, in trace order (`tally.rs`).
    pub tallies: Vec<tally::Tally>,
    /// Faults as states across time: cut-off links, slowed links, shifted clocks
    /// (`states.rs`).
    pub faults: Vec<states::FaultSpan>,
    /// Each lock extension (watchdog renewal, library extension) a node answered.
    pub extensions: Vec<Extension>,
}

/// A client's lock extension as one node ran it: the answer says whether the lock was
/// extended (`1`, `OK`) or was no longer the client's (`0`).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Extension {
    pub client: u32,
    pub node: u32,
    /// When the node ran it (true µs), and that trace event.
    pub t_us: u64,
    pub index: usize,
    pub reply: String,
    pub ok: bool,
}

/// The extensions of a run: the commands a client sent when its renewal (or the
/// library's extension) timer fired, as the nodes ran them.
fn extensions(trace: &[TraceEvent]) -> Vec<Extension> {
    // Per client: the time its renewal timer fired and how many commands it sent then
    // that no node has run yet.
    let mut renewing: BTreeMap<u32, (u64, usize)> = BTreeMap::new();
    let mut out = Vec::new();
    for (i, e) in trace.iter().enumerate() {
        match &e.kind {
            TraceKind::Timer {
                name: TimerName::Renew | TimerName::LibraryExtension,
                ..
            } => {
                renewing.insert(e.pid, (e.t_us, 0));
            }
            TraceKind::Send { .. } => {
                if let Some((t, n)) = renewing.get_mut(&e.pid) {
                    if *t == e.t_us {
                        *n += 1;
                    }
                }
            }
            TraceKind::Command { from, reply, .. } if *from != e.pid => {
                let Some((_, n)) = renewing.get_mut(from) else {
                    continue;
                };
                if *n == 0 {
                    continue;
                }
                *n -= 1;
                out.push(Extension {
                    client: *from,
                    node: e.pid,
                    t_us: e.t_us,
                    index: i,
                    reply: reply.clone(),
                    ok: reply == "OK" || reply == "(integer) 1",
                });
            }
            _ => {}
        }
    }
    out
}

/// A caption on its moment: shown from trace event `index` until the next caption.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct CaptionView {
    pub index: usize,
    pub en: String,
    pub nb: String,
}

impl CaptionView {
    pub fn text(&self, lang: Lang) -> &str {
        match lang {
            Lang::Nb if !self.nb.trim().is_empty() => &self.nb,
            _ => &self.en,
        }
    }
}

impl Model {
    /// The run's title in `lang` (else in English, else the scenario's id).
    pub fn title(&self, lang: Lang) -> &str {
        self.titles
            .get(lang.code())
            .or_else(|| self.titles.get("en"))
            .map(String::as_str)
            .filter(|t| !t.trim().is_empty())
            .unwrap_or(&self.scenario)
    }

    /// The latest attempt's tally of the client named `name` at or before event `cursor`.
    pub fn tally_at(&self, name: &str, cursor: usize) -> Option<&tally::Tally> {
        let pid = self.names.iter().position(|n| n == name)? as u32;
        self.tallies
            .iter()
            .take_while(|t| t.index <= cursor)
            .filter(|t| t.pid == pid)
            .last()
    }

    /// The caption of the latest moment at or before event `cursor`, if any.
    pub fn caption_at(&self, cursor: usize) -> Option<&CaptionView> {
        self.captions.iter().take_while(|c| c.index <= cursor).last()
    }
}

/// A node's keys from the event at `index` on (until the node's next state), with its
/// clock, which judges their expiry.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct KeyState {
    pub index: usize,
    pub pid: u32,
    pub clock: crate::sim::clock::Clock,
    /// (key, value, expiry in the node's own ms)
    pub keys: Vec<(String, String, Option<u64>)>,
}

impl KeyState {
    /// The keys at true time `t_us` (not after the node's next state) as `PTTL` on the
    /// node answers then: (key, value, ms left, if it has a TTL). An expired key is gone.
    pub fn at(&self, t_us: u64) -> Vec<(String, String, Option<i64>)> {
        let now_ms = self.clock.local_ms(t_us);
        self.keys
            .iter()
            .filter(|(_, _, exp)| exp.is_none_or(|e| e > now_ms))
            .map(|(k, v, exp)| (k.clone(), v.clone(), exp.map(|e| (e - now_ms) as i64)))
            .collect()
    }
}

impl Model {
    pub fn token_index(&self, token: &str) -> Option<usize> {
        self.tokens.iter().position(|t| t == token)
    }

    pub fn name(&self, pid: u32) -> &str {
        self.names.get(pid as usize).map(String::as_str).unwrap_or("?")
    }

    /// The index of the last event at or before `t_us` (the cursor for a time).
    pub fn index_at(&self, t_us: u64) -> usize {
        self.trace.partition_point(|e| e.t_us <= t_us).saturating_sub(1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;

    fn model(name: &str) -> Model {
        let s = builtin(name).expect("built-in").expect("valid");
        build(&s, 1).expect("runs")
    }

    /// A run's trace crosses the wire (bincode, `crate::wire`) and JSON in the trace's one
    /// serde form, unchanged, every kind of event of these scenarios among them.
    #[test]
    fn the_trace_crosses_the_wire_and_json_in_its_one_form_unchanged() {
        let mut kinds = std::collections::HashSet::new();
        for name in [
            "unsafe-del",
            "ttl-workers",
            "redlock-drift-2pct",
            "fencing",
            "failover",
            "redlock-pause-acquire",
        ] {
            let m = model(name);
            let text = crate::wire::to_text(&m.trace).expect("the wire");
            let back: Vec<TraceEvent> = crate::wire::from_text(&text).expect("reads");
            assert_eq!(back, m.trace, "{name}");
            let json = serde_json::to_string(&m.trace).expect("json");
            let back: Vec<TraceEvent> = serde_json::from_str(&json).expect("reads");
            assert_eq!(back, m.trace, "{name}");
            for e in &m.trace {
                kinds.insert(std::mem::discriminant(&e.kind));
            }
        }
        assert!(kinds.len() >= 15, "{} kinds of event crossed", kinds.len());
    }

    /// The way off the page for the scenario runs (#16): the engine's worker builds the
    /// model and the page draws it, so a model must cross as JSON unchanged, every
    /// built-in one, faults, captions, tallies and key states included.
    #[test]
    fn every_builtin_model_crosses_as_json_unchanged() {
        let mut sizes = Vec::new();
        for b in crate::sim::scenario::BUILTINS {
            let m = model(b.name);
            let json = serde_json::to_string(&m).expect("serializes");
            let back: Model = serde_json::from_str(&json).expect("deserializes");
            assert_eq!(back, m, "{}", b.name);
            sizes.push((json.len(), b.name));
        }
        // What a message would weigh: the largest model, for the record (not a limit).
        sizes.sort();
        let (largest, name) = sizes.last().copied().expect("built-ins");
        assert!(largest > 1000, "{name}: {largest} bytes");
    }

    /// Issue #19: a node that no command ever reached (C1 is cut off from A, B and C
    /// from the start, and no one else uses them) vanished from the lanes and from the
    /// cluster view. Every node of the scenario is on both, always.
    #[test]
    fn a_node_no_command_reaches_still_has_its_lane_and_its_place_at_the_cursor() {
        let mut text = String::from(
            "name = \"cut-off\"\ndescription = \"C1 is cut off from A, B and C.\"\nend_ms = 2000\n",
        );
        for n in ["A", "B", "C", "D", "E"] {
            text.push_str(&format!("[[nodes]]\nname = \"{n}\"\n"));
        }
        text.push_str("[[clients]]\nname = \"C1\"\nalgorithm = \"redlock\"\nnodes = [\"A\", \"B\", \"C\", \"D\", \"E\"]\nttl_ms = 1000\ntimeout_ms = 5\nstart_ms = 10\nwork = [\"sleep 100\"]\n");
        for peer in ["A", "B", "C"] {
            text.push_str(&format!(
                "[[faults]]\nat_ms = 0\nop = \"partition\"\ntarget = \"C1\"\npeer = \"{peer}\"\n"
            ));
        }
        let s = crate::sim::scenario::parse("cut-off.toml", &text).expect("valid");
        let m = build(&s, 1).expect("runs");
        let lanes: Vec<(&str, LaneKind)> = m.lanes.iter().map(|l| (l.name.as_str(), l.kind)).collect();
        assert_eq!(
            lanes,
            vec![
                ("C1", LaneKind::Client),
                ("A", LaneKind::Node),
                ("B", LaneKind::Node),
                ("C", LaneKind::Node),
                ("D", LaneKind::Node),
                ("E", LaneKind::Node),
                ("storage", LaneKind::Other),
            ]
        );
        // A, B and C never saw a command: the premise of the test.
        let reached: std::collections::BTreeSet<u32> = m
            .trace
            .iter()
            .filter(|e| matches!(e.kind, TraceKind::Command { .. }))
            .map(|e| e.pid)
            .collect();
        for n in ["A", "B", "C"] {
            let pid = m.lanes.iter().find(|l| l.name == n).map(|l| l.pid).expect("lane");
            assert!(!reached.contains(&pid), "{n} got a command");
        }
        let snap = snapshot(&m, m.trace.len() - 1);
        let nodes: Vec<&str> = snap.nodes.iter().map(|n| n.name.as_str()).collect();
        assert_eq!(nodes, ["A", "B", "C", "D", "E"]);
    }

    #[test]
    fn unsafe_del_draws_the_overlap_band_and_key_bars() {
        let m = model("unsafe-del");
        assert!(!m.bands.is_empty(), "the checker's violation becomes a band");
        let b = &m.bands[0];
        assert_eq!(b.kind, ViolationKind::Overlap);
        assert!(
            band_sentence(b, Lang::En).contains("both believed they held"),
            "{}",
            band_sentence(b, Lang::En)
        );
        // Lanes: clients before nodes before the resource.
        let kinds: Vec<LaneKind> = m.lanes.iter().map(|l| l.kind).collect();
        let mut sorted = kinds.clone();
        sorted.sort();
        assert_eq!(kinds, sorted);
        assert!(kinds.contains(&LaneKind::Client) && kinds.contains(&LaneKind::Node));
        // A's key on the node expires at 10 000 ms (TTL 10 000 from 0).
        let first_key = m.bars.iter().find(|b| b.kind == BarKind::Key).expect("a key bar");
        assert!(first_key.from_us < 50_000, "{first_key:?}");
        assert!(
            (first_key.to_us as i64 - 10_000_000).abs() < 50_000,
            "{first_key:?}"
        );
        // A's pause is drawn.
        assert!(m
            .bars
            .iter()
            .any(|b| b.kind == BarKind::Paused && b.from_us <= 100_000 + 1_000));
        // Every message is an arrow that does not go back in time.
        assert!(!m.arrows.is_empty());
        assert!(m.arrows.iter().all(|a| a.at_us >= a.sent_us));
    }

    #[test]
    fn fencing_marks_the_rejected_write() {
        let m = model("fencing");
        let rejected: Vec<&Mark> = m
            .marks
            .iter()
            .filter(|k| k.kind == MarkKind::WriteRejected)
            .collect();
        assert_eq!(rejected.len(), 1, "{:?}", m.marks);
        assert!(rejected[0].label.contains("33 ≤ 34"), "{}", rejected[0].label);
    }

    #[test]
    fn snapshot_follows_the_cursor() {
        let m = model("unsafe-del");
        let early = snapshot(&m, m.index_at(50_000));
        let holding: Vec<&ClientView> = early.clients.iter().filter(|c| c.status == "holding").collect();
        assert_eq!(holding.len(), 1, "{early:?}");
        let key_early = early
            .nodes
            .iter()
            .flat_map(|n| n.keys.iter())
            .next()
            .expect("A's key is on the node");
        assert!(
            key_early.2.is_some_and(|left| left > 9_000 && left <= 10_000),
            "{key_early:?}"
        );
        let later = snapshot(&m, m.index_at(11_000_000));
        assert!(later.clients.iter().any(|c| c.status == "paused"));
        assert!(later.t_us > early.t_us);
    }

    #[test]
    fn describe_every_event_in_words() {
        let m = model("redlock-clock-jump");
        for e in &m.trace {
            let s = describe(&m, e, Lang::En);
            assert!(s.contains(" ms · "), "{s}");
        }
        assert!(m.marks.iter().any(|k| k.kind == MarkKind::ClockJump));
    }

    #[test]
    fn the_story_says_whose_key_expired_and_whose_del_removed_whose_key() {
        let m = model("unsafe-del");
        let all = words::story(&m, m.trace.len() - 1, usize::MAX, Lang::En);
        let expired = all
            .iter()
            .position(|l| l.contains("A's key lock expires on redis"))
            .unwrap_or_else(|| panic!("no expiry in {all:#?}"));
        assert!(all[expired].starts_with("10001.0 ms"), "{}", all[expired]);
        let removed = all
            .iter()
            .position(|l| l.contains("A's DEL removes B's key lock on redis"))
            .unwrap_or_else(|| panic!("no removal in {all:#?}"));
        assert!(expired < removed);
        // B's own release later removes C's key too (B's lock had been deleted by A).
        assert!(
            all.iter().any(|l| l.contains("B's DEL removes C's key lock")),
            "{all:#?}"
        );
        // The mechanics (messages, commands, timers) are not in the story.
        assert!(
            all.iter().all(|l| !l.contains("sends") && !l.contains("timer")),
            "{all:#?}"
        );
        // A story line is told only once the cursor reaches it.
        let before = words::story(&m, m.index_at(10_000_000), usize::MAX, Lang::En);
        assert!(before.iter().all(|l| !l.contains("expires")), "{before:#?}");
        // At most `max` lines, the newest ones.
        let last3 = words::story(&m, m.trace.len() - 1, 3, Lang::En);
        assert_eq!(last3, all[all.len() - 3..].to_vec());
        let nb = words::story(&m, m.trace.len() - 1, usize::MAX, Lang::Nb);
        assert!(
            nb.iter()
                .any(|l| l.contains("DEL fra A fjerner nøkkelen lock til B på redis")),
            "{nb:#?}"
        );
        assert!(
            nb.iter()
                .any(|l| l.contains("nøkkelen lock til A utløper på redis")),
            "{nb:#?}"
        );
    }

    #[test]
    fn a_safe_release_removes_no_one_elses_key() {
        for name in ["safe-release", "double-charge-redis-lock", "fencing"] {
            let m = model(name);
            assert!(
                m.stories
                    .iter()
                    .all(|s| !matches!(s.kind, StoryKind::Removed { .. })),
                "{name}: {:?}",
                m.stories
            );
        }
    }

    #[test]
    fn double_charge_without_a_lock_says_two_charges_and_no_one_acquires() {
        let m = model("double-charge-no-lock");
        let b = m
            .bands
            .iter()
            .find(|b| b.kind == ViolationKind::DoubleEffect)
            .unwrap_or_else(|| panic!("no double effect in {:?}", m.bands));
        assert_eq!(
            band_sentence(b, Lang::En),
            "charge 42 happened twice: the resource accepted it from A and B (43–48 ms)."
        );
        assert_eq!(
            band_sentence(b, Lang::Nb),
            "charge 42 skjedde to ganger: Ressursen godtok det fra A og B (43–48 ms)."
        );
        // Mid-run, both clients work without a lock: neither is "acquiring".
        let mid = snapshot(&m, m.index_at(20_000));
        let status: Vec<&str> = mid.clients.iter().map(|c| c.status).collect();
        assert_eq!(status, vec!["working", "working"], "{mid:?}");
        let end = snapshot(&m, m.trace.len() - 1);
        assert!(end.clients.iter().all(|c| c.status == "done"), "{end:?}");
        // With the lock, B waits for it: that is acquiring; and one charge only.
        let m = model("double-charge-redis-lock");
        assert!(m.bands.is_empty(), "{:?}", m.bands);
        let early = snapshot(&m, m.index_at(20_000));
        assert!(
            early
                .clients
                .iter()
                .any(|c| c.name == "B" && c.status == "acquiring"),
            "{early:?}"
        );
    }

    #[test]
    fn same_seed_same_model() {
        let s = builtin("redlock-contention").expect("built-in").expect("valid");
        assert_eq!(build(&s, 9).expect("runs"), build(&s, 9).expect("runs"));
    }
}
