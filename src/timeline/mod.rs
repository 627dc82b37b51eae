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

pub mod fork;
pub mod lens;
pub mod link;
pub mod lod;
pub mod pace;
pub mod panel;
pub mod states;
pub mod tally;
pub mod variant;
pub mod view;
pub mod wire;
pub mod words;

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
    pub scenario: String,
    pub seed: u64,
    pub names: Vec<String>,
    pub lanes: Vec<Lane>,
    #[serde(with = "wire::trace")]
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

/// A sampled key on a node: (key, value, expiry in true µs).
type Sampled = BTreeMap<String, (String, Option<u64>)>;

/// Runs `scenario` with `seed` and lays out what the timeline draws.
pub fn build(scenario: &Scenario, seed: u64) -> Result<Model, String> {
    build_with(scenario, seed, &[])
}

/// Like [`build`], with commands or faults injected at true times (a learner's fork).
pub fn build_with(
    scenario: &Scenario,
    seed: u64,
    injections: &[(u64, crate::sim::Fault)],
) -> Result<Model, String> {
    let mut tl = Timeline::new(scenario, seed)?;
    for (at, f) in injections {
        tl.world_mut().inject_at(*at, f.clone());
    }
    build_from(tl, scenario, seed)
}

/// The picture of a lab run, replayed from the harness's recorded answers (the
/// learner's code does not run again). Holds end with each worker's own lease, as the
/// lab grades them.
pub fn build_lab(
    lab: &crate::sim::lab::Lab,
    seed: u64,
    attacks: &[crate::sim::lab::LabAttack],
    tape: Vec<String>,
) -> Result<Model, String> {
    let world = crate::sim::lab::replay_world(lab, seed, attacks, tape)?;
    let mut rules = lab.scenario.resource.rules();
    rules.lease_ends_hold = true;
    build_from(Timeline::from_world(world, rules), &lab.scenario, seed)
}

fn build_from(mut tl: Timeline, scenario: &Scenario, seed: u64) -> Result<Model, String> {
    let names = tl.names().to_vec();
    let nodes: Vec<usize> = (0..names.len()).filter(|&p| tl.world().is_node(p)).collect();
    // Every process gets its lane from what the world says it is, not from what it did:
    // a node no command ever reached (cut off from the only client) is still a node.
    let roles: Vec<Option<Role>> = (0..names.len()).map(|p| tl.world().role(p)).collect();
    let mut open: BTreeMap<usize, Sampled> = BTreeMap::new();
    let mut key_bars = KeyBars::default();
    let mut pending: Vec<PendingStory> = Vec::new();
    // (node, key, value) → the client whose command set it.
    let mut creators: BTreeMap<(usize, String, String), u32> = BTreeMap::new();
    let mut seen = 0usize;
    let mut truncated = false;
    let mut key_states: Vec<KeyState> = Vec::new();
    loop {
        let more = tl.step_forward();
        let trace_len = tl.trace().len();
        if trace_len > MAX_EVENTS {
            truncated = true;
            break;
        }
        let touched = touched_nodes(tl.trace(), seen, &nodes);
        let cmds = client_commands(tl.trace(), seen, &nodes);
        seen = trace_len;
        let now = tl.now_us();
        for (pid, index) in touched {
            let now_keys = tl.world_mut().node_keys(pid);
            if let Some(clock) = tl.world().clock(pid).cloned() {
                key_states.push(KeyState {
                    index,
                    pid: pid as u32,
                    clock,
                    keys: now_keys.clone(),
                });
            }
            let local_us = tl.world().local_us(pid);
            let keys: Sampled = now_keys
                .into_iter()
                .map(|(k, v, exp_ms)| {
                    // Expiry is judged by the node's clock; map it to true time as the
                    // clock runs now (a later jump or drift is caught by the next sample).
                    let exp_true = exp_ms.map(|ms| {
                        let until = ms as i64 * 1000 - local_us;
                        now.saturating_add_signed(until.max(0))
                    });
                    (k, (v, exp_true))
                })
                .collect();
            let by = cmds.iter().rev().find(|c| c.0 == pid);
            let change = sample(pid, now, keys, &mut open, &mut key_bars);
            for (k, v) in change.added {
                if let Some(c) = by {
                    creators.insert((pid, k, v), c.1);
                }
            }
            for (k, v, exp) in change.gone {
                // Only keys with a TTL (locks) make stories: a counter such as the
                // fencing key changes by design.
                let Some(exp) = exp else { continue };
                match ((exp <= now).then_some(exp), by) {
                    (Some(at), _) => pending.push(PendingStory::Expired(pid, k, v, at)),
                    (None, Some((_, client, cmd, index))) => pending.push(PendingStory::Removed(
                        pid,
                        k,
                        v,
                        *client,
                        cmd.to_ascii_uppercase(),
                        *index,
                        now,
                    )),
                    (None, None) => {}
                }
            }
        }
        if !more {
            break;
        }
    }
    let end_us = tl.now_us().max(tl.trace().last().map_or(0, |e| e.t_us));
    // Keys still there at the end: their bars end at their expiry, or at the end.
    for (pid, keys) in std::mem::take(&mut open) {
        for (k, (v, exp)) in keys {
            key_bars.close(pid, &k, exp.unwrap_or(end_us).min(end_us));
            if let Some(at) = exp.filter(|e| *e <= end_us) {
                pending.push(PendingStory::Expired(pid, k, v, at));
            }
        }
    }
    let trace = tl.trace().to_vec();
    let outcome = tl.outcome();
    let stories = stories(pending, &creators, &trace);
    let captions = captions_of(scenario, &trace, &names, &outcome);
    let lockless = scenario
        .clients
        .iter()
        .filter(|c| c.algorithm == crate::sim::scenario::Algorithm::None)
        .filter_map(|c| names.iter().position(|n| *n == c.name))
        .map(|p| p as u32)
        .collect();
    let mut model = layout(
        scenario.name.clone(),
        seed,
        names,
        roles,
        trace,
        outcome,
        key_bars.bars,
        end_us,
        truncated,
    );
    model.stories = stories;
    model.lockless = lockless;
    model.key_states = key_states;
    model.captions = captions;
    model.tallies = tallies_of(&model, scenario);
    model.faults = states::spans(&model.trace, model.end_us);
    model.extensions = extensions(&model.trace);
    Ok(model)
}

/// The nodes whose keys may have changed in the events from `seen` on (a command, a
/// crash or restart, a clock change, replication, a failover), each once, with the
/// index of its first such event.
fn touched_nodes(trace: &[TraceEvent], seen: usize, nodes: &[usize]) -> Vec<(usize, usize)> {
    let mut touched: Vec<(usize, usize)> = trace
        .get(seen..)
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            matches!(
                e.kind,
                TraceKind::Command { .. }
                    | TraceKind::Crash
                    | TraceKind::Restart { .. }
                    | TraceKind::ClockJump { .. }
                    | TraceKind::Drift { .. }
                    | TraceKind::Replicate { .. }
                    | TraceKind::Failover { .. }
            )
        })
        .map(|(i, e)| (e.pid as usize, seen + i))
        .filter(|(p, _)| nodes.contains(p))
        .collect();
    crate::sorting::sort(&mut touched);
    touched.dedup_by_key(|(p, _)| *p);
    touched
}

/// The clients' commands the nodes ran in the events from `seen` on: (node, client,
/// command name, trace index).
fn client_commands(trace: &[TraceEvent], seen: usize, nodes: &[usize]) -> Vec<(usize, u32, String, usize)> {
    trace
        .get(seen..)
        .unwrap_or(&[])
        .iter()
        .enumerate()
        .filter_map(|(i, e)| match &e.kind {
            TraceKind::Command { from, args, .. } if *from != e.pid && !nodes.contains(&(*from as usize)) => {
                Some((
                    e.pid as usize,
                    *from,
                    args.first().cloned().unwrap_or_default(),
                    seen + i,
                ))
            }
            _ => None,
        })
        .collect()
}

/// The scenario's captions, placed on the run.
fn captions_of(
    scenario: &Scenario,
    trace: &[TraceEvent],
    names: &[String],
    outcome: &Outcome,
) -> Vec<CaptionView> {
    crate::sim::caption::place(&scenario.captions, trace, names, &outcome.violations)
        .into_iter()
        .filter_map(|c| {
            let spec = scenario.captions.get(c.spec)?;
            Some(CaptionView {
                index: c.index,
                en: spec.en.clone(),
                nb: spec.nb.clone(),
            })
        })
        .collect()
}

/// The quorum clients' vote tallies, each with its TTL and, for a held attempt, when
/// that hold ended.
fn tallies_of(model: &Model, scenario: &Scenario) -> Vec<tally::Tally> {
    // Clients of a quorum lock, and how many masters each asks.
    let masters: BTreeMap<u32, usize> = scenario
        .clients
        .iter()
        .filter(|c| {
            use crate::sim::scenario::Algorithm as A;
            matches!(c.algorithm, A::Redlock | A::RedlockUnchecked | A::Library)
        })
        .filter_map(|c| {
            Some((
                model.names.iter().position(|n| *n == c.name)? as u32,
                c.nodes.len(),
            ))
        })
        .collect();
    let mut tallies = tally::tallies(&model.trace, &masters);
    // Each hold's end, by (client, start): a held attempt's bracket ends there.
    let holds: BTreeMap<(u32, u64), u64> = model
        .bars
        .iter()
        .filter(|b| b.kind == BarKind::Holding)
        .map(|b| ((b.pid, b.from_us), b.to_us))
        .collect();
    for t in &mut tallies {
        let name = model.names.get(t.pid as usize);
        t.ttl_ms = scenario
            .clients
            .iter()
            .find(|c| Some(&c.name) == name)
            .map(|c| c.ttl_ms);
        if t.held {
            t.held_until_us = holds
                .get(&(t.pid, t.t_us))
                .copied()
                .filter(|&end| end < model.end_us);
        }
    }
    tallies
}

/// A story found while sampling, before its owner is known (the token's holder may
/// say so later in the trace).
enum PendingStory {
    /// (node, key, value, true µs it expired)
    Expired(usize, String, String, u64),
    /// (node, key, value, client whose command removed it, the command, its trace
    /// index, true µs)
    Removed(usize, String, String, u32, String, usize, u64),
}

/// Whose key a value is: the client that held it as its token, else the client whose
/// command set it.
fn owner_of(
    creators: &BTreeMap<(usize, String, String), u32>,
    holders: &BTreeMap<&str, u32>,
    node: usize,
    key: &str,
    value: &str,
) -> Option<u32> {
    holders
        .get(value)
        .copied()
        .or_else(|| creators.get(&(node, key.to_string(), value.to_string())).copied())
}

fn stories(
    pending: Vec<PendingStory>,
    creators: &BTreeMap<(usize, String, String), u32>,
    trace: &[TraceEvent],
) -> Vec<Story> {
    let holders: BTreeMap<&str, u32> = trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::LockHeld { token, .. } => Some((token.as_str(), e.pid)),
            _ => None,
        })
        .collect();
    let mut out: Vec<Story> = pending
        .into_iter()
        .filter_map(|p| match p {
            PendingStory::Expired(node, key, value, at) => Some(Story {
                t_us: at,
                after: trace.partition_point(|e| e.t_us <= at).saturating_sub(1),
                kind: StoryKind::Expired {
                    node: node as u32,
                    owner: owner_of(creators, &holders, node, &key, &value),
                    key,
                    value,
                },
            }),
            PendingStory::Removed(node, key, value, by, cmd, index, at) => {
                let owner = owner_of(creators, &holders, node, &key, &value)?;
                (owner != by).then_some(Story {
                    t_us: at,
                    after: index,
                    kind: StoryKind::Removed {
                        node: node as u32,
                        key,
                        owner,
                        by,
                        cmd,
                    },
                })
            }
        })
        .collect();
    crate::sorting::sort_by_key(&mut out, |s| (s.after, s.t_us));
    out
}

fn key_bar(pid: usize, key: &str, value: &str, from_us: u64, to_us: u64) -> Bar {
    Bar {
        pid: pid as u32,
        kind: BarKind::Key,
        from_us,
        to_us,
        token: Some(value.to_string()),
        label: format!("{key} = {value}"),
    }
}

/// The end of a key bar that has not ended yet.
const OPEN: u64 = u64::MAX;

/// The key bars, and which one is open for each (node, key): a bar is found by its key,
/// never by reading its label.
#[derive(Default)]
struct KeyBars {
    bars: Vec<Bar>,
    open: BTreeMap<(usize, String), usize>,
}

impl KeyBars {
    fn open(&mut self, pid: usize, key: &str, value: &str, from_us: u64) {
        self.open.insert((pid, key.to_string()), self.bars.len());
        self.bars.push(key_bar(pid, key, value, from_us, OPEN));
    }

    fn close(&mut self, pid: usize, key: &str, end: u64) {
        let Some(i) = self.open.remove(&(pid, key.to_string())) else {
            return;
        };
        if let Some(bar) = self.bars.get_mut(i) {
            bar.to_us = end.max(bar.from_us);
        }
    }
}

/// What one sample found changed on a node.
#[derive(Default)]
struct Change {
    /// (key, value) that appeared.
    added: Vec<(String, String)>,
    /// (key, value, expiry) that vanished or were overwritten.
    gone: Vec<(String, String, Option<u64>)>,
}

/// Compares a node's keys now with the open ones: closes what vanished or changed,
/// opens what is new. Open bars are kept in `open` with their start time in the bar list.
fn sample(
    pid: usize,
    now: u64,
    keys: Sampled,
    open: &mut BTreeMap<usize, Sampled>,
    bars: &mut KeyBars,
) -> Change {
    let mut change = Change::default();
    let before = open.remove(&pid).unwrap_or_default();
    for (k, (v, exp)) in &before {
        let same = keys.get(k).is_some_and(|(v2, _)| v2 == v);
        if !same {
            // Gone (deleted, expired, crashed) or overwritten: the bar ends now, or at
            // its expiry if that came first.
            bars.close(pid, k, exp.map_or(now, |e| e.min(now)));
            change.gone.push((k.clone(), v.clone(), *exp));
        }
    }
    for (k, (v, _)) in &keys {
        let continuing = before.get(k).is_some_and(|(v2, _)| v2 == v);
        if !continuing {
            bars.open(pid, k, v, now);
            change.added.push((k.clone(), v.clone()));
        }
    }
    open.insert(pid, keys);
    change
}

#[allow(clippy::too_many_arguments)]
fn layout(
    scenario: String,
    seed: u64,
    names: Vec<String>,
    roles: Vec<Option<Role>>,
    trace: Vec<TraceEvent>,
    outcome: Outcome,
    mut fixed: Vec<Bar>,
    end_us: u64,
    truncated: bool,
) -> Model {
    for b in &mut fixed {
        if b.to_us == OPEN {
            b.to_us = end_us;
        }
    }

    let lanes = lanes_of(&names, &roles, &trace);

    let mut bars = fixed;
    let mut arrows = Vec::new();
    let mut marks = Vec::new();
    let mut sends: BTreeMap<u64, (usize, u32, u32, u64, Message)> = BTreeMap::new();
    let mut holding: BTreeMap<u32, Holding> = BTreeMap::new();
    let mut paused: BTreeMap<u32, u64> = BTreeMap::new();
    let mut down: BTreeMap<u32, u64> = BTreeMap::new();
    let mut tokens: Vec<String> = Vec::new();
    let note_token = |t: &str, tokens: &mut Vec<String>| {
        if !tokens.iter().any(|x| x == t) {
            tokens.push(t.to_string());
        }
    };
    for b in &bars {
        if let Some(t) = &b.token {
            note_token(t, &mut tokens);
        }
    }
    let mut mark = |pid: u32, t_us: u64, kind: MarkKind, label: String, index: usize| {
        marks.push(Mark {
            pid,
            t_us,
            kind,
            label,
            index,
        });
    };
    let en_label = |e: &TraceEvent| words::mark_label(&names, e, Lang::En).unwrap_or_default();
    for (i, e) in trace.iter().enumerate() {
        match &e.kind {
            TraceKind::Send { msg, to, what } => {
                sends.insert(*msg, (i, e.pid, *to, e.t_us, what.clone()));
            }
            TraceKind::Deliver { msg, .. } | TraceKind::Drop { msg, .. } => {
                if let Some((index, from, to, sent_us, label)) = sends.remove(msg) {
                    let dropped = matches!(e.kind, TraceKind::Drop { .. });
                    arrows.push(Arrow {
                        from,
                        to,
                        sent_us,
                        at_us: e.t_us,
                        dropped,
                        label,
                        index,
                    });
                }
            }
            TraceKind::LockHeld { token, fence, .. } => {
                note_token(token, &mut tokens);
                let label = match fence {
                    Some(f) => format!("{token} (fence {f})"),
                    None => token.clone(),
                };
                let from = e.t_us;
                let token = token.clone();
                holding.insert(e.pid, Holding { from, token, label });
            }
            TraceKind::LockLost { .. } => {
                close_hold(&mut holding, &mut bars, e.pid, e.t_us);
                mark(e.pid, e.t_us, MarkKind::Lost, en_label(e), i);
            }
            TraceKind::LockReleased { .. } => {
                close_hold(&mut holding, &mut bars, e.pid, e.t_us);
                mark(e.pid, e.t_us, MarkKind::Released, en_label(e), i);
            }
            TraceKind::Pause => {
                paused.insert(e.pid, e.t_us);
            }
            TraceKind::Resume => {
                if let Some(from) = paused.remove(&e.pid) {
                    bars.push(span_bar(e.pid, BarKind::Paused, from, e.t_us));
                }
            }
            TraceKind::Crash => {
                close_hold(&mut holding, &mut bars, e.pid, e.t_us);
                down.insert(e.pid, e.t_us);
                mark(e.pid, e.t_us, MarkKind::Crash, en_label(e), i);
            }
            TraceKind::Restart { .. } => {
                if let Some(from) = down.remove(&e.pid) {
                    bars.push(span_bar(e.pid, BarKind::Down, from, e.t_us));
                }
                mark(e.pid, e.t_us, MarkKind::Restart, en_label(e), i);
            }
            TraceKind::ClockJump { .. } => mark(e.pid, e.t_us, MarkKind::ClockJump, en_label(e), i),
            TraceKind::Drift { .. } => mark(e.pid, e.t_us, MarkKind::Drift, en_label(e), i),
            TraceKind::Partition { .. } => mark(e.pid, e.t_us, MarkKind::Partition, en_label(e), i),
            TraceKind::Repair { .. } => mark(e.pid, e.t_us, MarkKind::Repair, en_label(e), i),
            TraceKind::Failover { .. } => mark(e.pid, e.t_us, MarkKind::Failover, en_label(e), i),
            TraceKind::AcquireFailed { .. } => mark(e.pid, e.t_us, MarkKind::AcquireFailed, en_label(e), i),
            TraceKind::WriteAccepted { .. } => mark(e.pid, e.t_us, MarkKind::WriteAccepted, en_label(e), i),
            TraceKind::WriteRejected { .. } => mark(e.pid, e.t_us, MarkKind::WriteRejected, en_label(e), i),
            _ => {}
        }
    }
    close_at_end(end_us, holding, paused, down, sends, &mut bars, &mut arrows);
    let bands = bands_of(&outcome, &trace, &names);
    crate::sorting::sort_by_key(&mut bars, |b| (b.from_us, b.pid));
    // In send order: the lens finds the messages up to a cursor by bisection.
    crate::sorting::sort_by_key(&mut arrows, |a| a.index);
    Model {
        scenario,
        seed,
        names,
        lanes,
        trace,
        outcome,
        end_us,
        bars,
        arrows,
        marks,
        bands,
        stories: Vec::new(),
        lockless: Vec::new(),
        tokens,
        truncated,
        key_states: Vec::new(),
        captions: Vec::new(),
        tallies: Vec::new(),
        faults: Vec::new(),
        extensions: Vec::new(),
    }
}

/// The lanes, clients first, then nodes, the resource and the rest. The resource's lane
/// is drawn as the resource once it has answered a write: a scenario that never writes
/// keeps it a plain lane (and no resource in the panel).
fn lanes_of(names: &[String], roles: &[Option<Role>], trace: &[TraceEvent]) -> Vec<Lane> {
    let answered_a_write = |pid: usize| {
        trace.iter().any(|e| {
            e.pid as usize == pid
                && matches!(
                    e.kind,
                    TraceKind::WriteAccepted { .. } | TraceKind::WriteRejected { .. }
                )
        })
    };
    let kind_of = |pid: usize| match roles.get(pid).copied().flatten() {
        Some(Role::Client | Role::LabWorker) => LaneKind::Client,
        Some(Role::Node) => LaneKind::Node,
        Some(Role::Resource) if answered_a_write(pid) => LaneKind::Resource,
        Some(Role::Resource) | None => LaneKind::Other,
    };
    let mut lanes: Vec<Lane> = names
        .iter()
        .enumerate()
        .map(|(pid, name)| Lane {
            pid: pid as u32,
            name: name.clone(),
            kind: kind_of(pid),
        })
        .collect();
    crate::sorting::sort_by_key(&mut lanes, |l| (l.kind, l.pid));
    lanes
}

/// What is still open when the run ends closes there: holds, pauses, downtimes, and
/// messages still in flight.
fn close_at_end(
    end_us: u64,
    holding: BTreeMap<u32, Holding>,
    paused: BTreeMap<u32, u64>,
    down: BTreeMap<u32, u64>,
    sends: BTreeMap<u64, (usize, u32, u32, u64, Message)>,
    bars: &mut Vec<Bar>,
    arrows: &mut Vec<Arrow>,
) {
    for (pid, h) in holding {
        bars.push(h.bar(pid, end_us));
    }
    for (pid, from) in paused {
        bars.push(span_bar(pid, BarKind::Paused, from, end_us));
    }
    for (pid, from) in down {
        bars.push(span_bar(pid, BarKind::Down, from, end_us));
    }
    for (index, from, to, sent_us, label) in sends.into_values() {
        // Still in flight when the run ended.
        arrows.push(Arrow {
            from,
            to,
            sent_us,
            at_us: end_us,
            dropped: false,
            label,
            index,
        });
    }
}

/// One band per violation, over the lock its clients held.
fn bands_of(outcome: &Outcome, trace: &[TraceEvent], names: &[String]) -> Vec<Band> {
    outcome
        .violations
        .iter()
        .map(|v| Band {
            lock: outcome
                .holds
                .iter()
                .find(|h| v.clients.contains(&h.client))
                .map(|h| h.lock.clone()),
            from_us: (v.from_ms * 1000.0).max(0.0) as u64,
            to_us: (v.to_ms * 1000.0).max(0.0) as u64,
            kind: v.kind,
            clients: v.clients.clone(),
            detail: v.detail.clone(),
            fenced_off: None,
            effect: v.effect.clone(),
        })
        .map(|mut b: Band| {
            if b.kind == ViolationKind::Overlap {
                b.fenced_off = words::fenced_off(trace, names, &b);
            }
            b
        })
        .collect()
}

/// A pause's or a downtime's bar on lane `pid`.
fn span_bar(pid: u32, kind: BarKind, from_us: u64, to_us: u64) -> Bar {
    let label = if kind == BarKind::Paused { "paused" } else { "down" };
    Bar {
        pid,
        kind,
        from_us,
        to_us,
        token: None,
        label: label.into(),
    }
}

/// A client's hold that has not ended yet: since when, its token, its bar's label.
struct Holding {
    from: u64,
    token: String,
    label: String,
}

impl Holding {
    fn bar(self, pid: u32, to_us: u64) -> Bar {
        Bar {
            pid,
            kind: BarKind::Holding,
            from_us: self.from,
            to_us,
            token: Some(self.token),
            label: self.label,
        }
    }
}

fn close_hold(holding: &mut BTreeMap<u32, Holding>, bars: &mut Vec<Bar>, pid: u32, t: u64) {
    if let Some(h) = holding.remove(&pid) {
        bars.push(h.bar(pid, t));
    }
}

/// The state of the cluster at a cursor, as the side panel shows it.
#[derive(Clone, Debug, PartialEq, Default)]
pub struct Snapshot {
    pub t_us: u64,
    pub clients: Vec<ClientView>,
    pub nodes: Vec<NodeView>,
    pub resource: Option<ResourceView>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ClientView {
    pub name: String,
    /// `idle`, `acquiring`, `holding`, `working` (a client without a lock), `paused`,
    /// `crashed`, `done`.
    pub status: &'static str,
    pub token: Option<String>,
    /// ms of validity left by the client's own bound, if it keeps one.
    pub validity_left_ms: Option<i64>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct NodeView {
    pub name: String,
    pub up: bool,
    /// The node's clock minus true time, ms.
    pub clock_offset_ms: i64,
    /// (key, value, ms left before it expires: what `PTTL` on the node answers, if it has a TTL)
    pub keys: Vec<(String, String, Option<i64>)>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct ResourceView {
    pub name: String,
    pub highest_token: Option<i64>,
    /// The last writes, newest last.
    pub last_writes: Vec<WriteView>,
}

/// One write the resource received.
#[derive(Clone, Debug, PartialEq)]
pub struct WriteView {
    pub client: String,
    /// `key = value` if accepted; the key if rejected.
    pub text: String,
    /// Why it was rejected (`words::reason` says it); `None` if accepted.
    pub rejected: Option<Reason>,
}

/// The cluster right after the event at `cursor` (an index into the trace).
pub fn snapshot(m: &Model, cursor: usize) -> Snapshot {
    let upto = m
        .trace
        .get(..=cursor.min(m.trace.len().saturating_sub(1)))
        .unwrap_or(&[]);
    let t_us = upto.last().map_or(0, |e| e.t_us);
    let mut s = Snapshot {
        t_us,
        ..Snapshot::default()
    };
    let mut status: crate::vecmap::VecMap<u32, &'static str> = crate::vecmap::VecMap::new();
    let mut token: crate::vecmap::VecMap<u32, Option<String>> = crate::vecmap::VecMap::new();
    let mut valid: crate::vecmap::VecMap<u32, Option<u64>> = crate::vecmap::VecMap::new();
    let mut up: crate::vecmap::VecMap<u32, bool> = crate::vecmap::VecMap::new();
    let mut offset: crate::vecmap::VecMap<u32, i64> = crate::vecmap::VecMap::new();
    let mut highest: Option<i64> = None;
    let mut writes: Vec<WriteView> = Vec::new();
    // A client without a lock is never "acquiring": it is working.
    let busy = |pid: u32| {
        if m.lockless.contains(&pid) {
            "working"
        } else {
            "acquiring"
        }
    };
    for e in upto {
        offset.insert(e.pid, (e.local_us - e.t_us as i64) / 1000);
        match &e.kind {
            TraceKind::Start | TraceKind::AcquireFailed { .. } => {
                status.insert(e.pid, busy(e.pid));
            }
            TraceKind::LockHeld {
                token: t,
                valid_until_us,
                ..
            } => {
                status.insert(e.pid, "holding");
                token.insert(e.pid, Some(t.clone()));
                valid.insert(e.pid, *valid_until_us);
            }
            TraceKind::LockLost { .. } | TraceKind::LockReleased { .. } | TraceKind::GaveUp { .. } => {
                status.insert(e.pid, "idle");
                token.insert(e.pid, None);
                valid.insert(e.pid, None);
            }
            TraceKind::WorkDone => {
                status.insert(e.pid, "done");
            }
            TraceKind::Pause => {
                status.insert(e.pid, "paused");
            }
            TraceKind::Resume => {
                let held = token.get(&e.pid).is_some_and(Option::is_some);
                status.insert(e.pid, if held { "holding" } else { busy(e.pid) });
            }
            TraceKind::Crash => {
                status.insert(e.pid, "crashed");
                up.insert(e.pid, false);
            }
            TraceKind::Restart { .. } => {
                status.remove(&e.pid);
                up.insert(e.pid, true);
            }
            TraceKind::WriteAccepted {
                from,
                key,
                value,
                token: t,
                ..
            } => {
                if let Some(t) = t {
                    highest = Some(highest.map_or(*t, |h| h.max(*t)));
                }
                writes.push(WriteView {
                    client: m.name(*from).to_string(),
                    text: format!("{key} = {value}"),
                    rejected: None,
                });
            }
            TraceKind::WriteRejected {
                from, key, reason, ..
            } => {
                writes.push(WriteView {
                    client: m.name(*from).to_string(),
                    text: key.clone(),
                    rejected: Some(reason.clone()),
                });
            }
            _ => {}
        }
    }
    for lane in &m.lanes {
        match lane.kind {
            LaneKind::Client => s.clients.push(ClientView {
                name: lane.name.clone(),
                status: status.get(&lane.pid).copied().unwrap_or("idle"),
                token: token.get(&lane.pid).cloned().flatten(),
                validity_left_ms: valid
                    .get(&lane.pid)
                    .copied()
                    .flatten()
                    .map(|v| (v as i64 - t_us as i64) / 1000),
            }),
            LaneKind::Node => {
                // The node's last state at or before the cursor, read at the cursor's time.
                let keys = m
                    .key_states
                    .iter()
                    .rev()
                    .find(|k| k.pid == lane.pid && k.index <= cursor)
                    .map_or_else(Vec::new, |k| k.at(t_us));
                s.nodes.push(NodeView {
                    name: lane.name.clone(),
                    up: up.get(&lane.pid).copied().unwrap_or(true),
                    clock_offset_ms: offset.get(&lane.pid).copied().unwrap_or(0),
                    keys,
                });
            }
            LaneKind::Resource => {
                s.resource = Some(ResourceView {
                    name: lane.name.clone(),
                    highest_token: highest,
                    last_writes: writes.iter().rev().take(3).rev().cloned().collect(),
                })
            }
            LaneKind::Other => {}
        }
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;

    fn model(name: &str) -> Model {
        let s = builtin(name).expect("built-in").expect("valid");
        build(&s, 1).expect("runs")
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
