//! Live lab runs: the lab's driver and the learner's file run against real redis-server
//! instances, with real node-redis and real time (`lockstep lab run … --redis URL,…`).
//!
//! The Node host runs the trial (`live/live.mjs`) and sends back what happened: each
//! worker's inputs and actions, in its own order and time, and every command each server
//! executed, in the server's order (its `MONITOR` stream). This module turns that into a
//! trace like the simulator's and grades it with the same [`grade`]. What the nodes
//! stored at any moment is not asked of the servers (a question takes time, and the
//! answer is stale when it comes): each server's commands are replayed, in the order it
//! ran them, on a [`Store`] of our own, which answers as redis-server does
//! (`tests/oracle/`). So a belief, a release and a write are judged against the state the
//! server really had then, as the simulator judges them against its nodes.
//!
//! Times: every event is placed in µs since the trial started. A worker's events carry
//! the host's clock; a server's commands carry the server's. The k-th command a server
//! ran from a worker's connection is the k-th that connection sent (Redis runs one
//! connection's commands in order), so it is placed within its own send and reply, even
//! when the server's clock is off this machine's.

use super::{
    action_of, first_code_error, grade, reply_value, res_reply_value, Lab, LabAction, LabAttack, TrialResult,
};
use crate::sim::lockmath::quorum;
use crate::sim::rng::sub_seed;
use crate::sim::scenario::LatencySpec;
use crate::sim::trace::{SourceLine, TraceEvent, TraceKind, TraceLevel};
use crate::sim::world::{Backing, LabWorker, Resource, World};
use crate::store::{render_line, Reply, Store};
use serde_json::{json, Value};
use std::collections::{BTreeMap, VecDeque};

/// The live host's channel (docs/labs.md, "Live mode"): the `type` of each line the
/// simulator writes to it ([`LiveTrial::message`], a resource's answer), and of each
/// line it writes back ([`LiveTrial::on_line`]). `tests/wires.rs` checks
/// `labs/node-host.mjs` against them.
pub const TO_LIVE_HOST: [&str; 2] = ["live", "res_reply"];
pub const FROM_LIVE_HOST: [&str; 2] = ["res", "live_done"];

/// Incarnations a worker can have in one trial (a trial crashes a worker at most a few
/// times); a restart beyond the seeds sent is not started.
const MAX_INCARNATIONS: usize = 8;
/// Log lines kept per run, as in the simulator.
const MAX_NOTES: usize = 200;

/// One live trial of a lab: the message that starts it, the resource's answers while it
/// runs, and its grade once the host has sent what happened.
pub struct LiveTrial {
    seed: u64,
    attacks: Vec<LabAttack>,
    workers: Vec<LabWorker>,
    names: Vec<String>,
    /// The pid of each node, in the scenario's order (= the order of the URLs).
    node_pids: Vec<usize>,
    resource_pid: usize,
    resource: Resource,
    /// What the resource did, in the order it did it: (µs, from pid, event).
    resource_log: Vec<(u64, u32, TraceKind)>,
    deadline_ms: u64,
    /// The lab's network latency, [low, high] ms: the host adds it to each command and
    /// reply, so a race the lab is about happens on loopback servers too.
    latency_ms: [f64; 2],
}

/// What a line from the host means for the trial.
pub enum LiveStep {
    /// Send this line back (the resource's answer) and go on reading.
    Reply(String),
    /// The trial is over: here is what happened.
    Done(Value),
}

impl LiveTrial {
    /// A trial of `lab` under `seed` (the workers' seeds, as the simulator draws them)
    /// with `attacks`, on `nodes` servers.
    pub fn new(lab: &Lab, seed: u64, attacks: Vec<LabAttack>, nodes: usize) -> Result<LiveTrial, String> {
        let world =
            World::build(&lab.scenario, seed, TraceLevel::Semantic).map_err(|(f, m)| format!("{f}: {m}"))?;
        let names = world.process_names();
        let node_pids: Vec<usize> = (0..names.len()).filter(|p| world.is_node(*p)).collect();
        if node_pids.len() != nodes {
            return Err(format!(
                "the {} lab runs on {} Redis node{}; --redis named {nodes}",
                lab.id,
                node_pids.len(),
                if node_pids.len() == 1 { "" } else { "s" }
            ));
        }
        let workers = world.lab_workers().ok_or_else(|| {
            format!(
                "the {} lab uses a replication group, which a live run cannot set up",
                lab.id
            )
        })?;
        let resource_pid = (0..names.len())
            .find(|p| world.role(*p) == Some(crate::sim::fact::Role::Resource))
            .unwrap_or(0);
        Ok(LiveTrial {
            seed,
            attacks,
            workers,
            names,
            node_pids,
            resource_pid,
            resource: Resource::new(&lab.scenario.resource),
            resource_log: Vec::new(),
            deadline_ms: lab.scenario.end_ms.clamp(0.0, 600_000.0) as u64,
            latency_ms: match lab.scenario.network.latency_ms {
                LatencySpec::Fixed(ms) => [ms, ms],
                LatencySpec::Range(r) => r,
            }
            .map(|ms| {
                if ms.is_finite() {
                    ms.clamp(0.0, 10_000.0)
                } else {
                    0.0
                }
            }),
        })
    }

    /// The `live` message for the host.
    pub fn message(&self, urls: &[String]) -> String {
        let workers: Vec<Value> = self
            .workers
            .iter()
            .map(|w| {
                let seeds: Vec<String> = (0..MAX_INCARNATIONS)
                    .map(|i| sub_seed(w.seed, &format!("incarnation:{i}")).to_string())
                    .collect();
                json!({
                    "pid": w.pid,
                    "worker": w.worker,
                    "name": w.name,
                    "start_ms": w.start_us as f64 / 1000.0,
                    "nodes": w.nodes,
                    "seeds": seeds,
                    "clock": {"offset_ms": w.clock_offset_us as f64 / 1000.0, "rate_ppm": w.clock_rate_ppm},
                })
            })
            .collect();
        json!({
            "type": "live",
            "urls": urls,
            "workers": workers,
            "attacks": self.attacks,
            "deadline_ms": self.deadline_ms,
            "latency_ms": self.latency_ms,
        })
        .to_string()
    }

    /// A line from the host while the trial runs.
    pub fn on_line(&mut self, line: &str) -> Result<LiveStep, String> {
        let v: Value = serde_json::from_str(line).map_err(|e| format!("the live host sent bad JSON: {e}"))?;
        match v.get("type").and_then(Value::as_str) {
            Some("live_done") => Ok(LiveStep::Done(v)),
            Some("res") => {
                let pid = v.get("pid").and_then(Value::as_u64).unwrap_or(u64::MAX);
                let id = v.get("id").and_then(Value::as_u64).unwrap_or(0);
                let t_us = us_of(v.get("t"));
                let mut action = v.get("op").cloned().unwrap_or(Value::Null);
                if let Some(o) = action.as_object_mut() {
                    o.insert("a".into(), json!("resource"));
                    o.insert("id".into(), json!(id));
                }
                let op = match action_of(&action).map_err(|e| e.message)? {
                    LabAction::Resource { op, .. } => op,
                    _ => return Err("the live host asked the resource for something else".into()),
                };
                let from = self
                    .workers
                    .iter()
                    .find(|w| w.pid as u64 == pid)
                    .map(|w| w.pid as u32)
                    .ok_or("the live host named no worker")?;
                // Whether the writer's lock had lapsed is judged later, from the servers'
                // replayed state ([`LiveTrial::finish`]).
                let (reply, event) = self.resource.apply(from, op, t_us, false);
                self.resource_log.push((t_us, from, event));
                Ok(LiveStep::Reply(
                    json!({"type": "res_reply", "pid": pid, "id": id, "reply": res_reply_value(&reply)})
                        .to_string(),
                ))
            }
            _ => Err(format!("the live host sent an unknown line: {}", clip(line))),
        }
    }

    /// Grade the trial from what the host sent at its end.
    pub fn finish(self, lab: &Lab, done: &Value) -> Result<TrialResult, String> {
        if let Some(e) = done.get("error").and_then(Value::as_str) {
            return Err(format!("the live run failed: {e}"));
        }
        let trace = Replay::new(&self).run(done)?;
        let code_error = first_code_error(&trace, &self.names);
        let (outcome, verdicts) = grade(lab, &trace, &self.names);
        Ok(TrialResult {
            seed: self.seed,
            attacks: self.attacks,
            names: self.names,
            trace,
            outcome,
            verdicts,
            code_error,
            tape: Vec::new(),
        })
    }
}

fn clip(s: &str) -> String {
    s.chars().take(200).collect()
}

/// µs from a JSON number of ms (negative and non-numbers: 0).
fn us_of(v: Option<&Value>) -> u64 {
    let ms = v.and_then(Value::as_f64).unwrap_or(0.0);
    if ms.is_finite() && ms > 0.0 {
        (ms * 1000.0).round() as u64
    } else {
        0
    }
}

// ---------------------------------------------------------------------------------
// The servers' commands.

/// One line of a `MONITOR` stream: `1733450000.123456 [0 127.0.0.1:5432] "SET" "k" "v"`.
#[derive(Debug, PartialEq)]
struct Monitored {
    /// The server's clock, µs since the epoch.
    at_us: u64,
    /// The client's address (`lua` for a command a script ran).
    addr: String,
    args: Vec<Vec<u8>>,
}

fn parse_monitor(line: &str) -> Option<Monitored> {
    let line = line.strip_prefix('+').unwrap_or(line);
    let (ts, rest) = line.split_once(' ')?;
    let (secs, frac) = ts.split_once('.').unwrap_or((ts, "0"));
    let frac: String = frac.chars().chain(std::iter::repeat('0')).take(6).collect();
    let at_us = secs
        .parse::<u64>()
        .ok()?
        .checked_mul(1_000_000)?
        .checked_add(frac.parse().ok()?)?;
    let rest = rest.strip_prefix('[')?;
    let (who, args) = rest.split_once("] ")?;
    let addr = who.split_once(' ').map_or(who, |(_, a)| a).to_string();
    Some(Monitored {
        at_us,
        addr,
        args: parse_quoted(args)?,
    })
}

/// Redis's quoted words (`sdscatrepr`): `"a\"b" "\x00\n"`.
fn parse_quoted(s: &str) -> Option<Vec<Vec<u8>>> {
    let b = s.as_bytes();
    let mut out = Vec::new();
    let mut i = 0;
    while i < b.len() {
        match b.get(i) {
            Some(b' ') => {
                i += 1;
                continue;
            }
            Some(b'"') => {}
            _ => return None,
        }
        i += 1;
        let mut word = Vec::new();
        loop {
            match b.get(i)? {
                b'"' => {
                    i += 1;
                    break;
                }
                b'\\' => {
                    let c = *b.get(i + 1)?;
                    i += 2;
                    match c {
                        b'n' => word.push(b'\n'),
                        b'r' => word.push(b'\r'),
                        b't' => word.push(b'\t'),
                        b'a' => word.push(7),
                        b'b' => word.push(8),
                        b'x' => {
                            let hex = std::str::from_utf8(b.get(i..i + 2)?).ok()?;
                            word.push(u8::from_str_radix(hex, 16).ok()?);
                            i += 2;
                        }
                        other => word.push(other),
                    }
                }
                &c => {
                    word.push(c);
                    i += 1;
                }
            }
        }
        out.push(word);
    }
    Some(out)
}

// ---------------------------------------------------------------------------------
// The replay.

/// Something that happened, placed in time: `order` breaks ties (a command runs after
/// it was sent and before its reply came).
struct Item {
    t_us: u64,
    order: u64,
    what: What,
}

/// A command a worker's connection sent: its words, when, its place among the events,
/// and when its reply (or timeout) came (`u64::MAX`: never).
struct Sent {
    args: Vec<Vec<u8>>,
    t_us: u64,
    order: u64,
    reply_t: u64,
    reply_order: u64,
    /// What the server answered, as node-redis gave it (an error as its text).
    real: Option<Value>,
}

enum What {
    /// A worker's event, as the host recorded it.
    Event(Value),
    /// Node `node` ran `args` from worker `pid`, and answered `real` (if the worker heard).
    Exec {
        node: usize,
        pid: usize,
        args: Vec<Vec<u8>>,
        real: Option<Value>,
    },
    /// The resource did this, for `from`.
    Resource { from: u32, event: TraceKind },
}

struct Replay<'a> {
    trial: &'a LiveTrial,
    lock: String,
    stores: Vec<Store>,
    down: Vec<bool>,
    /// The epoch ms at the trial's start: the servers' clock, for the stores.
    t0_ms: f64,
    /// Each worker's token (what it says it holds) and release in progress.
    token: BTreeMap<usize, String>,
    releasing: BTreeMap<usize, String>,
    owners: BTreeMap<String, usize>,
    notes: usize,
    out: Vec<TraceEvent>,
}

impl<'a> Replay<'a> {
    fn new(trial: &'a LiveTrial) -> Replay<'a> {
        let lock = trial.workers.first().map(|w| w.lock.clone()).unwrap_or_default();
        Replay {
            trial,
            lock,
            stores: (0..trial.node_pids.len())
                .map(|i| Store::new(sub_seed(trial.seed, &format!("live-node:{i}"))))
                .collect(),
            down: vec![false; trial.node_pids.len()],
            t0_ms: 0.0,
            token: BTreeMap::new(),
            releasing: BTreeMap::new(),
            owners: BTreeMap::new(),
            notes: 0,
            out: Vec::new(),
        }
    }

    fn run(mut self, done: &Value) -> Result<Vec<TraceEvent>, String> {
        self.t0_ms = done.get("t0_wall_ms").and_then(Value::as_f64).unwrap_or(0.0);
        let items = self.items(done)?;
        let mut end = 0;
        for it in items {
            end = end.max(it.t_us);
            self.set_time(it.t_us);
            match it.what {
                What::Event(e) => self.event(it.t_us, &e)?,
                What::Exec {
                    node,
                    pid,
                    args,
                    real,
                } => self.exec(it.t_us, node, pid, &args, real.as_ref()),
                What::Resource { from, mut event } => {
                    if let TraceKind::WriteAccepted { lock_lapsed, .. } = &mut event {
                        *lock_lapsed = self.lapsed(from as usize);
                    }
                    // A read is the reader's event; a write, the resource's (as the world traces them).
                    let at = if matches!(event, TraceKind::Read { .. }) {
                        from as usize
                    } else {
                        self.trial.resource_pid
                    };
                    self.emit(it.t_us, at, event);
                }
            }
        }
        self.emit(end, 0, TraceKind::End);
        Ok(self.out)
    }

    /// Every event, command run and resource answer, in the order they happened.
    fn items(&self, done: &Value) -> Result<Vec<Item>, String> {
        let events = done
            .get("events")
            .and_then(Value::as_array)
            .ok_or("the live host sent no events")?;
        let mut items = Vec::with_capacity(events.len());
        // Per (node, pid): the commands sent, in order, with their send and reply times.
        let mut sent: BTreeMap<(usize, usize), VecDeque<Sent>> = BTreeMap::new();
        let mut addrs: BTreeMap<(usize, String), usize> = BTreeMap::new();
        // (pid, incarnation, command id) -> (when, order, what the server answered).
        type Heard = (u64, u64, Option<Value>);
        let mut reply_at: BTreeMap<(usize, u64, u64), Heard> = BTreeMap::new();
        for (seq, e) in events.iter().enumerate() {
            let t_us = us_of(e.get("t"));
            let order = 2 * seq as u64 + 2;
            let pid = e.get("pid").and_then(Value::as_u64).unwrap_or(u64::MAX);
            let inc = e.get("inc").and_then(Value::as_u64).unwrap_or(0);
            let node = e.get("node").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
            let id = e.get("id").and_then(Value::as_u64).unwrap_or(0);
            match e.get("e").and_then(Value::as_str) {
                Some("client") => {
                    if let Some(a) = e.get("addr").and_then(Value::as_str) {
                        addrs.insert((node, a.to_string()), pid as usize);
                    }
                }
                Some(kind @ ("reply" | "timeout")) => {
                    let real = match (kind, e.get("error")) {
                        ("timeout", _) => None,
                        (_, Some(err)) => Some(err.clone()),
                        _ => Some(e.get("value").cloned().unwrap_or(Value::Null)),
                    };
                    reply_at.insert((pid as usize, inc, id), (t_us, order, real));
                }
                _ => {}
            }
            items.push(Item {
                t_us,
                order,
                what: What::Event(e.clone()),
            });
        }
        for (seq, e) in events.iter().enumerate() {
            if e.get("e").and_then(Value::as_str) != Some("cmd") {
                continue;
            }
            let pid = e.get("pid").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
            let inc = e.get("inc").and_then(Value::as_u64).unwrap_or(0);
            let node = e.get("node").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
            let id = e.get("id").and_then(Value::as_u64).unwrap_or(0);
            let args: Vec<Vec<u8>> = e
                .get("args")
                .and_then(Value::as_array)
                .map(|xs| {
                    xs.iter()
                        .filter_map(Value::as_str)
                        .map(|s| s.as_bytes().to_vec())
                        .collect()
                })
                .unwrap_or_default();
            let t_us = us_of(e.get("t"));
            let (reply_t, reply_order, real) =
                reply_at
                    .remove(&(pid, inc, id))
                    .unwrap_or((u64::MAX, u64::MAX, None));
            let sent_order = 2 * seq as u64 + 2;
            sent.entry((node, pid)).or_default().push_back(Sent {
                args,
                t_us,
                order: sent_order,
                reply_t,
                reply_order,
                real,
            });
        }
        let monitor = done
            .get("monitor")
            .and_then(Value::as_array)
            .ok_or("the live host sent no MONITOR streams")?;
        let t0_us = (self.t0_ms * 1000.0).round().max(0.0) as u64;
        for (node, lines) in monitor.iter().enumerate().take(self.trial.node_pids.len()) {
            for line in lines.as_array().map(Vec::as_slice).unwrap_or(&[]) {
                let Some(m) = line.as_str().and_then(parse_monitor) else {
                    continue;
                };
                let Some(&pid) = addrs.get(&(node, m.addr.clone())) else {
                    continue; // a script's own commands, the host's own connections
                };
                if m.args.first().is_some_and(|a| a.eq_ignore_ascii_case(b"CLIENT")) {
                    continue;
                }
                let server_t = m.at_us.saturating_sub(t0_us);
                let queue = sent.entry((node, pid)).or_default();
                // The next command this connection sent with these words (one the host
                // never sent, to a node that was down, is skipped).
                let mut placed = (server_t, 1);
                let mut real = None;
                while let Some(c) = queue.pop_front() {
                    if c.args == m.args {
                        real = c.real;
                        placed = if server_t <= c.t_us {
                            (c.t_us, c.order + 1)
                        } else if server_t >= c.reply_t {
                            (c.reply_t, c.reply_order.saturating_sub(1))
                        } else {
                            (server_t, 1)
                        };
                        break;
                    }
                }
                items.push(Item {
                    t_us: placed.0,
                    order: placed.1,
                    what: What::Exec {
                        node,
                        pid,
                        args: m.args,
                        real,
                    },
                });
            }
        }
        for (t_us, from, event) in &self.trial.resource_log {
            items.push(Item {
                t_us: *t_us,
                order: 0,
                what: What::Resource {
                    from: *from,
                    event: event.clone(),
                },
            });
        }
        crate::sorting::sort_by_key(&mut items, |it| (it.t_us, it.order));
        Ok(items)
    }

    fn set_time(&mut self, t_us: u64) {
        let ms = (self.t0_ms + t_us as f64 / 1000.0).max(0.0) as u64;
        for s in &mut self.stores {
            s.set_now_ms(ms);
        }
    }

    fn emit(&mut self, t_us: u64, pid: usize, kind: TraceKind) {
        self.out.push(TraceEvent {
            t_us,
            local_us: t_us as i64,
            pid: pid as u32,
            kind,
        });
    }

    /// The lock's value on node `node` now (expired keys are gone).
    fn value(&self, node: usize) -> Option<String> {
        let store = self.stores.get(node)?;
        let now = store.now_ms();
        store
            .live_keys()
            .into_iter()
            .find(|k| k.key == self.lock.as_bytes() && k.expire_at_ms.is_none_or(|e| e > now))
            .map(|k| String::from_utf8_lossy(&k.value).into_owned())
    }

    fn is_down(&self, node: usize) -> bool {
        self.down.get(node).copied().unwrap_or(true)
    }

    fn worker(&self, pid: usize) -> Option<&LabWorker> {
        self.trial.workers.iter().find(|w| w.pid == pid)
    }

    fn exec(&mut self, t_us: u64, node: usize, pid: usize, args: &[Vec<u8>], real: Option<&Value>) {
        let before = self.value(node);
        let (Some(store), Some(&node_pid)) = (self.stores.get_mut(node), self.trial.node_pids.get(node))
        else {
            return;
        };
        let reply = run_as_the_server(store, pid as u64, args, real);
        let _ = store.take_effects();
        let after = self.value(node);
        if let Some(was) = before {
            if let Some(&owner) = self.owners.get(&was) {
                if owner != pid && after.as_deref() != Some(was.as_str()) {
                    let key = self.lock.clone();
                    self.emit(
                        t_us,
                        pid,
                        TraceKind::ForeignDelete {
                            key,
                            owner: owner as u32,
                            token: was,
                        },
                    );
                }
            }
        }
        let script = args
            .first()
            .is_some_and(|a| a.eq_ignore_ascii_case(b"EVAL") || a.eq_ignore_ascii_case(b"EVALSHA"));
        self.emit(
            t_us,
            node_pid,
            TraceKind::Command {
                from: pid as u32,
                args: args
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect(),
                reply: render_line(&reply),
                script,
                line: SourceLine(None),
            },
        );
    }

    /// How `pid`'s nodes stand toward `token` now (the world's rule: `Backing`).
    fn backing(&self, pid: usize, token: &str) -> Backing {
        let nodes = self.worker(pid).map(|w| w.nodes.clone()).unwrap_or_default();
        Backing::of(nodes.iter().map(|&n| {
            let up = !self.is_down(n);
            (up, up && self.value(n).as_deref() == Some(token))
        }))
    }

    /// Has `pid`'s lock lapsed (as `World::lock_lapsed` for a lab worker)?
    fn lapsed(&self, pid: usize) -> bool {
        if !self.token.contains_key(&pid) && self.owners.is_empty() {
            return false;
        }
        let Some(token) = self.token.get(&pid) else {
            return true;
        };
        let of = self.worker(pid).map_or(0, |w| w.nodes.len());
        self.backing(pid, token).lapsed(quorum(of))
    }

    /// A worker that released moves on: its key must be gone (as `World::lab_check_release`).
    fn check_release(&mut self, t_us: u64, pid: usize) {
        let Some(token) = self.releasing.remove(&pid) else {
            return;
        };
        if self.backing(pid, &token).kept() {
            let lock = self.lock.clone();
            self.emit(t_us, pid, TraceKind::LockKept { lock, token });
        }
    }

    fn event(&mut self, t_us: u64, e: &Value) -> Result<(), String> {
        let pid = e.get("pid").and_then(Value::as_u64).map(|p| p as usize);
        let kind = e.get("e").and_then(Value::as_str).unwrap_or("");
        match (kind, pid) {
            ("node_down", _) => {
                let node = e.get("node").and_then(Value::as_u64).unwrap_or(u64::MAX) as usize;
                if let (Some(d), Some(&p)) = (self.down.get_mut(node), self.trial.node_pids.get(node)) {
                    *d = true;
                    self.emit(t_us, p, TraceKind::Crash);
                }
            }
            ("start", Some(p)) => {
                self.token.remove(&p);
                self.releasing.remove(&p);
                self.emit(t_us, p, TraceKind::Start);
            }
            ("pause", Some(p)) => self.emit(t_us, p, TraceKind::Pause),
            ("resume", Some(p)) => self.emit(t_us, p, TraceKind::Resume),
            ("crash", Some(p)) => self.emit(t_us, p, TraceKind::Crash),
            ("action", Some(p)) => {
                let a = action_of(e.get("a").unwrap_or(&Value::Null)).map_err(|e| e.message)?;
                self.action(t_us, p, a);
            }
            _ => {}
        }
        Ok(())
    }

    /// What a worker's driver said (as `World::lab_apply`).
    fn action(&mut self, t_us: u64, pid: usize, a: LabAction) {
        if matches!(
            a,
            LabAction::Held { .. } | LabAction::Failed { .. } | LabAction::Done
        ) {
            self.check_release(t_us, pid);
        }
        let lock = self.lock.clone();
        match a {
            LabAction::Held { token, until_ms } => {
                self.token.insert(pid, token.clone());
                self.owners.insert(token.clone(), pid);
                // The worker's clock: the machine's (ms since the epoch), with the
                // scenario's offset and rate.
                let (offset_us, rate) = self
                    .worker(pid)
                    .map_or((0, 0), |w| (w.clock_offset_us, w.clock_rate_ppm));
                let valid_until_us = until_ms.map(|u| {
                    let local_us = (u - self.t0_ms) * 1000.0 - offset_us as f64;
                    (local_us / (1.0 + rate as f64 / 1e6)).round().max(0.0) as u64
                });
                let backing = self.backing(pid, &token);
                self.emit(
                    t_us,
                    pid,
                    TraceKind::LockHeld {
                        lock: lock.clone(),
                        token: token.clone(),
                        fence: None,
                        valid_until_us,
                    },
                );
                if backing.unbacked() {
                    let (on, of) = (backing.on(), backing.of);
                    self.emit(t_us, pid, TraceKind::HeldUnbacked { lock, token, on, of });
                }
            }
            LabAction::Released => {
                if let Some(t) = self.token.remove(&pid) {
                    self.releasing.insert(pid, t);
                }
                self.emit(t_us, pid, TraceKind::LockReleased { lock });
            }
            LabAction::Lost { reason, coded } => {
                self.token.remove(&pid);
                self.emit(
                    t_us,
                    pid,
                    TraceKind::LockLost {
                        lock,
                        reason: LabAction::reason(reason, coded),
                    },
                );
            }
            LabAction::Failed { reason, coded } => {
                self.emit(
                    t_us,
                    pid,
                    TraceKind::AcquireFailed {
                        lock,
                        reason: LabAction::reason(reason, coded),
                    },
                );
            }
            LabAction::Log { text, coded } => {
                if self.notes < MAX_NOTES {
                    self.notes += 1;
                    self.emit(t_us, pid, TraceKind::Note { text, coded });
                }
            }
            LabAction::Done => self.emit(t_us, pid, TraceKind::WorkDone),
            LabAction::Error {
                message,
                line,
                col,
                coded,
            } => {
                self.emit(
                    t_us,
                    pid,
                    TraceKind::CodeError {
                        message,
                        line,
                        col,
                        coded,
                    },
                );
            }
            LabAction::Cmd { .. } | LabAction::Resource { .. } | LabAction::Timer { .. } => {}
        }
    }
}

/// Runs `args` on `store` as the server did. The store's clock is the server's to the
/// millisecond, but not to its rounding: a command within 2 ms of a key's expiry may
/// have seen that key live or gone. There, the command is tried at the moments around
/// (a copy of the store each) and the one whose reply is what the server answered
/// (`real`) is kept; elsewhere, and when no reply was heard, it runs once.
fn run_as_the_server(store: &mut Store, conn: u64, args: &[Vec<u8>], real: Option<&Value>) -> Reply {
    const SLACK_MS: u64 = 2;
    let now = store.now_ms();
    let near_expiry = store
        .live_keys()
        .iter()
        .any(|k| k.expire_at_ms.is_some_and(|e| e.abs_diff(now) <= SLACK_MS));
    if let (true, Some(real)) = (near_expiry, real) {
        let answered = |r: &Reply| match r {
            Reply::Error(e) => Value::String(e.clone()) == *real,
            r => reply_value(r) == *real,
        };
        for at in [
            now,
            now + 1,
            now.saturating_sub(1),
            now + 2,
            now.saturating_sub(2),
        ] {
            let mut tried = store.clone();
            tried.set_now_ms(at);
            let reply = tried.execute_conn(conn, args);
            if answered(&reply) {
                tried.set_now_ms(now);
                *store = tried;
                return reply;
            }
        }
    }
    store.execute_conn(conn, args)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_monitor_line_gives_its_time_client_and_words() {
        let m =
            parse_monitor(r#"1733450000.012345 [0 127.0.0.1:54321] "SET" "lock:a" "t\"1\x00" "PX" "300""#)
                .unwrap();
        assert_eq!(m.at_us, 1_733_450_000_012_345);
        assert_eq!(m.addr, "127.0.0.1:54321");
        assert_eq!(
            m.args,
            vec![
                b"SET".to_vec(),
                b"lock:a".to_vec(),
                b"t\"1\0".to_vec(),
                b"PX".to_vec(),
                b"300".to_vec()
            ]
        );
        let lua = parse_monitor(r#"1733450000.5 [0 lua] "get" "k""#).unwrap();
        assert_eq!((lua.addr.as_str(), lua.at_us), ("lua", 1_733_450_000_500_000));
        assert!(parse_monitor("OK").is_none());
        assert!(parse_monitor(r#"1.0 [0 a:1] "unterminated"#).is_none());
    }
}
