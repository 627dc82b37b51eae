//! A model built from a run: the world stepped to its end, each node's keys sampled as
//! they change (the key bars and their stories), then laid out (`layout.rs`).

use super::layout::*;
use super::model::*;
use super::{states, tally};
use crate::sim::fact::{Role, TimerName};
use crate::sim::scenario::Scenario;
use crate::sim::timeline::Timeline;
use crate::sim::trace::{TraceEvent, TraceKind};
use crate::sim::Outcome;
use crate::vecmap::VecMap;

/// A sampled key on a node: (key, value, expiry in true µs).
pub(super) type Sampled = VecMap<String, (String, Option<u64>)>;

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
    let mut model = build_from(Timeline::from_world(world, rules), &lab.scenario, seed)?;
    // The learner knows the run by its lab's title, not its scenario's id.
    model.titles = lab.title.clone();
    Ok(model)
}

/// A scenario's titles by language code, its default one as `en`.
fn titles_of(scenario: &Scenario) -> crate::vecmap::VecMap<String, String> {
    let mut titles = scenario.titles.clone();
    if !scenario.title.trim().is_empty() {
        titles.insert("en".to_string(), scenario.title.clone());
    }
    titles
}

pub(super) fn build_from(mut tl: Timeline, scenario: &Scenario, seed: u64) -> Result<Model, String> {
    let names = tl.names().to_vec();
    let nodes: Vec<usize> = (0..names.len()).filter(|&p| tl.world().is_node(p)).collect();
    // Every process gets its lane from what the world says it is, not from what it did:
    // a node no command ever reached (cut off from the only client) is still a node.
    let roles: Vec<Option<Role>> = (0..names.len()).map(|p| tl.world().role(p)).collect();
    let mut open: VecMap<usize, Sampled> = VecMap::new();
    let mut key_bars = KeyBars::default();
    let mut pending: Vec<PendingStory> = Vec::new();
    // (node, key, value) → the client whose command set it.
    let mut creators: VecMap<(usize, String, String), u32> = VecMap::new();
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
    model.titles = titles_of(scenario);
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
pub(super) fn touched_nodes(trace: &[TraceEvent], seen: usize, nodes: &[usize]) -> Vec<(usize, usize)> {
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
pub(super) fn client_commands(
    trace: &[TraceEvent],
    seen: usize,
    nodes: &[usize],
) -> Vec<(usize, u32, String, usize)> {
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
pub(super) fn captions_of(
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
pub(super) fn tallies_of(model: &Model, scenario: &Scenario) -> Vec<tally::Tally> {
    // Clients of a quorum lock, and how many masters each asks.
    let masters: VecMap<u32, usize> = scenario
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
    let holds: VecMap<(u32, u64), u64> = model
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
pub(super) enum PendingStory {
    /// (node, key, value, true µs it expired)
    Expired(usize, String, String, u64),
    /// (node, key, value, client whose command removed it, the command, its trace
    /// index, true µs)
    Removed(usize, String, String, u32, String, usize, u64),
}

/// Whose key a value is: the client that held it as its token, else the client whose
/// command set it.
pub(super) fn owner_of(
    creators: &VecMap<(usize, String, String), u32>,
    holders: &VecMap<&str, u32>,
    node: usize,
    key: &str,
    value: &str,
) -> Option<u32> {
    holders
        .get(value)
        .copied()
        .or_else(|| creators.get(&(node, key.to_string(), value.to_string())).copied())
}

pub(super) fn stories(
    pending: Vec<PendingStory>,
    creators: &VecMap<(usize, String, String), u32>,
    trace: &[TraceEvent],
) -> Vec<Story> {
    let holders: VecMap<&str, u32> = trace
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

pub(super) fn key_bar(pid: usize, key: &str, value: &str, from_us: u64, to_us: u64) -> Bar {
    Bar {
        pid: pid as u32,
        kind: BarKind::Key,
        from_us,
        to_us,
        token: Some(value.to_string()),
        label: format!("{key} = {value}"),
    }
}

/// The key bars, and which one is open for each (node, key): a bar is found by its key,
/// never by reading its label.
#[derive(Default)]
pub(super) struct KeyBars {
    pub(super) bars: Vec<Bar>,
    pub(super) open: VecMap<(usize, String), usize>,
}

impl KeyBars {
    pub(super) fn open(&mut self, pid: usize, key: &str, value: &str, from_us: u64) {
        self.open.insert((pid, key.to_string()), self.bars.len());
        self.bars.push(key_bar(pid, key, value, from_us, OPEN));
    }

    pub(super) fn close(&mut self, pid: usize, key: &str, end: u64) {
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
pub(super) struct Change {
    /// (key, value) that appeared.
    pub(super) added: Vec<(String, String)>,
    /// (key, value, expiry) that vanished or were overwritten.
    pub(super) gone: Vec<(String, String, Option<u64>)>,
}

/// Compares a node's keys now with the open ones: closes what vanished or changed,
/// opens what is new. Open bars are kept in `open` with their start time in the bar list.
pub(super) fn sample(
    pid: usize,
    now: u64,
    keys: Sampled,
    open: &mut VecMap<usize, Sampled>,
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

/// The extensions of a run: the commands a client sent when its renewal (or the
/// library's extension) timer fired, as the nodes ran them.
fn extensions(trace: &[TraceEvent]) -> Vec<Extension> {
    // Per client: the time its renewal timer fired and how many commands it sent then
    // that no node has run yet.
    let mut renewing: VecMap<u32, (u64, usize)> = VecMap::new();
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
