//! The timeline's model: the lanes, bars, arrows, marks, bands and stories a run is
//! drawn from, and the lookups the views make on it (a name, a caption, an index at a
//! time). `build` makes one from a run; `layout`, `snapshot` and `words` read it.

use crate::lesson::content::Lang;
use crate::sim::fact::{Message, ViolationKind};
use crate::sim::trace::TraceEvent;
use crate::sim::Outcome;

use super::{states, tally};

/// The end of a key bar that has not ended yet.
pub(super) const OPEN: u64 = u64::MAX;

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
