//! The world: simulated time, the event queue, processes, the network and faults.
//!
//! True time is a `u64` of µs that only the world advances, jumping straight to the
//! next event. Events are ordered by `(time, sequence number)`, so ties resolve in
//! the order they were scheduled and a run is a pure function of (scenario, seed).
//! Everything is `Clone` (a `Store` included), which is what checkpoints and `fork`
//! rely on.
//!
//! Indexing: `procs`, `groups` and the network's link tables are indexed directly
//! (`clippy::indexing_slicing` is allowed in this module and its `world/` files but
//! `plan.rs`). Every index is a `Pid` or
//! group number this world handed out itself in [`World::build`], which validates every
//! name in the scenario, or one checked at the boundary by [`World::inject_at`]; the
//! tables never shrink. The scenario fuzz target runs this code with debug assertions.
#![allow(clippy::indexing_slicing)]

mod plan;
mod resource;
pub use resource::Resource;

pub(crate) use plan::validate;

use super::client::{Action, Client, ClientCtx, Dest, Input, ResOp, ResReply, Timer};
use super::clock::Clock;
use super::fact::{Comeback, Message, Reason, Role};
use super::lab::{LabAction, LabAttack, LabAttackOp, LabEvent, LabInput, StallPoint};
use super::rng::{sub_seed, SimRng};
use super::scenario::{Algorithm, Persistence, Scenario, MAX_TIME_MS};
use super::trace::{TraceEvent, TraceKind, TraceLevel};
use crate::store::{Effect, Reply, Store};
use std::cmp::Ordering;
use std::collections::{BTreeMap, BTreeSet, BinaryHeap, VecDeque};
use std::sync::Arc;

pub type Pid = usize;

/// Hard limits (TIGER_STYLE: put a limit on everything).
pub const MAX_PROCESSES: usize = 64;
pub const MAX_CLIENTS_NODES: usize = 32;
pub const MAX_WORK_STEPS: usize = 256;
pub const MAX_FAULTS: usize = 1_000;
/// A run processes at most this many events; a scenario that would need more (a
/// retry storm with a tiny delay) is cut off with an `End` event.
pub const MAX_EVENTS: u64 = 5_000_000;
/// Past this many trace entries only the checker's (semantic) events are recorded, so a
/// long run keeps its verdict without holding gigabytes of message detail.
pub const MAX_TRACE_DETAIL: usize = 1_000_000;

/// A network latency in µs: fixed, or uniform in `[lo, hi)` per message.
#[derive(Clone, Copy, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum Latency {
    Fixed(u64),
    Uniform(u64, u64),
}

impl Latency {
    fn label(&self) -> String {
        match self {
            Latency::Fixed(us) => format!("{} ms", super::trace::fmt_ms(*us)),
            Latency::Uniform(a, b) => {
                format!("{}..{} ms", super::trace::fmt_ms(*a), super::trace::fmt_ms(*b))
            }
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq)]
struct Link {
    latency: Latency,
    loss: f64,
}

/// A fault, with processes resolved to pids: what the schedule, the explorer and
/// `fork` inject. Serialized only to cross from the engine's worker to the page (a
/// counterexample of "Can this break?").
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Fault {
    Pause(Pid),
    Resume(Pid),
    Crash(Pid),
    Restart(Pid),
    ClockJump(Pid, i64),
    Drift(Pid, i64),
    Partition { a: Pid, b: Vec<Pid>, oneway: bool },
    Repair { a: Pid, b: Vec<Pid> },
    Latency { a: Pid, b: Vec<Pid>, latency: Latency },
    Command { node: Pid, args: Vec<Vec<u8>> },
}

#[derive(Clone, Debug)]
enum Payload {
    Cmd { req: u64, args: Vec<Vec<u8>> },
    Reply { req: u64, reply: Reply },
    Repl { offset: u64, effects: Vec<Effect> },
    ReplAck { offset: u64 },
    Res { req: u64, op: ResOp },
    ResReply { req: u64, reply: ResReply },
}

#[derive(Clone, Debug)]
enum Ev {
    Deliver {
        msg: u64,
        from: Pid,
        to: Pid,
        payload: Payload,
    },
    Timer {
        pid: Pid,
        inc: u32,
        timer: Timer,
    },
    Fault(Fault),
    ReplFlush {
        node: Pid,
        inc: u32,
        offset: u64,
        effects: Vec<Effect>,
    },
    Fsync {
        node: Pid,
    },
    WaitDeadline {
        node: Pid,
        inc: u32,
        wait: u64,
    },
    FailoverDetect {
        group: usize,
        master: Pid,
        inc: u32,
    },
    Promote {
        group: usize,
        master: Pid,
        inc: u32,
    },
    End,
}

/// A queue entry: small, so the heap moves 24 bytes; the event itself waits in a slab.
#[derive(Clone, Copy, Debug)]
struct Queued {
    at: u64,
    seq: u64,
    slot: u32,
}

impl PartialEq for Queued {
    fn eq(&self, o: &Self) -> bool {
        self.at == o.at && self.seq == o.seq
    }
}
impl Eq for Queued {}
impl PartialOrd for Queued {
    fn partial_cmp(&self, o: &Self) -> Option<Ordering> {
        Some(self.cmp(o))
    }
}
impl Ord for Queued {
    // BinaryHeap is a max-heap: reverse so the earliest (time, seq) pops first.
    fn cmp(&self, o: &Self) -> Ordering {
        (o.at, o.seq).cmp(&(self.at, self.seq))
    }
}

/// Something that arrived while a process was paused; handled in order on resume.
#[derive(Clone, Debug)]
enum Pending {
    Msg { from: Pid, payload: Payload },
    Timer(Timer),
}

#[derive(Clone, Debug)]
struct WaitReq {
    id: u64,
    client: Pid,
    req: u64,
    want: i64,
    offset: u64,
    args: Vec<String>,
}

#[derive(Clone, Debug)]
struct Node {
    store: Store,
    /// What a restart finds on disk (the AOF): each key's last written state.
    disk: BTreeMap<Vec<u8>, (Vec<u8>, Option<u64>)>,
    aof_pending: Vec<Effect>,
    persistence: Persistence,
    service_us: u64,
    seed: u64,
    group: Option<usize>,
    replicas: Vec<Pid>,
    replica_of: Option<Pid>,
    lag_us: u64,
    offset: u64,
    acked: BTreeMap<Pid, u64>,
    waits: Vec<WaitReq>,
    next_wait: u64,
}

#[derive(Clone, Debug)]
enum Kind {
    Node(Box<Node>),
    Client(Box<Client>),
    Resource(Box<Resource>),
    Lab(Box<LabProc>),
}

/// A lab worker as the scenario sets it up ([`World::lab_workers`]).
#[derive(Clone, Debug, PartialEq)]
pub struct LabWorker {
    pub pid: Pid,
    pub worker: u32,
    pub name: String,
    pub start_us: u64,
    /// Its clients' nodes: indexes into the scenario's nodes.
    pub nodes: Vec<usize>,
    pub lock: String,
    /// Its own seed; incarnation `i` starts with `sub_seed(seed, "incarnation:{i}")`.
    pub seed: u64,
    /// Its clock: ahead of true time by this much at the start, running fast by this
    /// rate (a machine of its own, as the scenario says).
    pub clock_offset_us: i64,
    pub clock_rate_ppm: i64,
}

/// A lab worker: its program runs outside the world (the learner's JavaScript, through
/// the harness). The world turns what reaches it into [`LabInput`]s, queued for the
/// runner ([`World::next_lab_input`]), and carries out the [`LabAction`]s the runner
/// hands back ([`World::lab_actions`]).
#[derive(Clone, Debug)]
struct LabProc {
    worker: u32,
    seed: u64,
    start_us: u64,
    dests: Vec<Dest>,
    lock: String,
    /// The token the driver says this worker holds.
    token: Option<String>,
    /// Commands sent and not yet answered or timed out.
    waiting: BTreeSet<u64>,
    /// Commands this incarnation has sent (attacks strike before the k-th).
    sent: u32,
    /// Timer callbacks and awaited replies that reached it (attacks strike as the k-th
    /// of either arrives).
    timers_fired: u32,
    replies_seen: u32,
    /// The inputs a stall struck at: delivered when the worker resumes, at that time.
    stalled: Vec<LabEvent>,
    /// Actions held back by a pause that struck between two commands.
    deferred: Vec<LabAction>,
    /// Inputs that reached the runner's queue for this worker after it was paused.
    held: Vec<LabInput>,
    /// Done, failed or stuck: nothing more is delivered.
    over: bool,
    /// The token of a release in progress: checked once the worker moves on.
    releasing: Option<String>,
}

impl LabProc {
    fn reset(&mut self) {
        self.token = None;
        self.waiting.clear();
        self.sent = 0;
        self.timers_fired = 0;
        self.replies_seen = 0;
        self.stalled.clear();
        self.deferred.clear();
        self.held.clear();
        self.over = false;
        self.releasing = None;
    }
}

#[derive(Clone, Debug)]
struct Proc {
    name: String,
    clock: Clock,
    alive: bool,
    paused: bool,
    inc: u32,
    inbox: Vec<Pending>,
    kind: Kind,
}

#[derive(Clone, Debug)]
struct Group {
    name: String,
    master: Pid,
    members: Vec<Pid>,
    failover: Option<(u64, u64)>,
}

#[derive(Clone, Debug)]
struct Net {
    n: usize,
    links: Vec<Link>,
    blocked: Vec<bool>,
    last_at: Vec<u64>,
    rng: SimRng,
}

impl Net {
    fn ix(&self, a: Pid, b: Pid) -> usize {
        a * self.n + b
    }
}

/// Convert scenario milliseconds to µs, rejecting what is not a sane time.
pub(crate) fn ms_to_us(ms: f64) -> Result<u64, String> {
    if !ms.is_finite() || ms < 0.0 {
        return Err(format!("{ms} is not a time (must be a finite number ≥ 0)"));
    }
    if ms > MAX_TIME_MS {
        return Err(format!(
            "{ms} ms is more than the limit of {MAX_TIME_MS} ms (one day)"
        ));
    }
    Ok((ms * 1000.0).round() as u64)
}

type FieldErr = (String, String);

/// The simulated world. See the module docs.
#[derive(Clone, Debug)]
pub struct World {
    now_us: u64,
    seq: u64,
    queue: BinaryHeap<Queued>,
    /// Events by slot; `free` lists the empty slots for reuse.
    slots: Vec<Option<Ev>>,
    free: Vec<u32>,
    procs: Vec<Proc>,
    groups: Vec<Group>,
    net: Net,
    end_us: u64,
    next_msg: u64,
    level: TraceLevel,
    events: u64,
    ended: bool,
    seed: u64,
    actions: Vec<Action>,
    /// Faults injected from outside (a learner's fork, the explorer), keyed by (time,
    /// order of injection). Each runs after every queued event at or before its time,
    /// so it sees the state after the last event of its moment, and before the end,
    /// so one injected at the end still runs.
    late: BTreeMap<(u64, u64), Fault>,
    /// Inputs for lab workers, waiting for the runner to take them to the harness.
    lab_queue: VecDeque<LabInput>,
    /// Attacks that strike a lab worker just before it sends its k-th command.
    lab_attacks: Vec<LabAttack>,
    /// Which lab worker each held token belongs to (for foreign deletes).
    lab_owners: BTreeMap<String, Pid>,
    /// `console.log` lines recorded so far (capped at [`MAX_LAB_NOTES`]).
    lab_notes: u32,
    /// A replay: the harness's answers of an earlier run, in order, and how many are
    /// used. With a tape the world answers its lab workers itself, so the timeline can
    /// rebuild (and step back through) a run of the learner's code without the harness.
    lab_tape: Option<(Arc<Vec<String>>, usize)>,
}

/// Console lines a run records from lab workers; the rest are counted, not kept.
pub const MAX_LAB_NOTES: u32 = 200;

impl World {
    /// Build the world for `scenario` under `seed`. Errors name the field.
    ///
    /// Two phases: [`plan::plan`] checks the scenario and resolves it (the first
    /// mistake is the error), then [`World::construct`] starts the world from the plan.
    pub fn build(s: &Scenario, seed: u64, level: TraceLevel) -> Result<World, FieldErr> {
        Ok(World::construct(plan::plan(s, seed)?, seed, level))
    }

    /// The world a plan describes, at time 0: its processes (nodes, the resource, then
    /// the clients), the network, and the queue holding the scenario's faults, each
    /// client's start, the AOF fsyncs and the end.
    fn construct(p: plan::Plan, seed: u64, level: TraceLevel) -> World {
        let proc_ = |name: String, clock: Clock, kind: Kind| Proc {
            name,
            clock,
            alive: true,
            paused: false,
            inc: 0,
            inbox: Vec::new(),
            kind,
        };
        let mut procs = Vec::with_capacity(p.nodes.len() + 1 + p.clients.len());
        for n in p.nodes {
            procs.push(proc_(n.name, n.clock, Kind::Node(Box::new(n.node))));
        }
        let (name, resource) = p.resource;
        procs.push(proc_(name, Clock::new(0, 0), Kind::Resource(Box::new(resource))));
        let mut labs: u32 = 0;
        for c in p.clients {
            let client_seed = sub_seed(seed, &format!("client:{}", c.name));
            let kind = if c.cfg.algorithm == Algorithm::Lab {
                let worker = labs;
                labs += 1;
                Kind::Lab(Box::new(LabProc {
                    worker,
                    seed: client_seed,
                    start_us: c.cfg.start_us,
                    dests: c.cfg.dests,
                    lock: c.cfg.lock,
                    token: None,
                    waiting: BTreeSet::new(),
                    sent: 0,
                    timers_fired: 0,
                    replies_seen: 0,
                    stalled: Vec::new(),
                    deferred: Vec::new(),
                    held: Vec::new(),
                    over: false,
                    releasing: None,
                }))
            } else {
                Kind::Client(Box::new(Client::new(Arc::new(c.cfg), client_seed)))
            };
            procs.push(proc_(c.name, c.clock, kind));
        }
        let n = procs.len();
        let net = Net {
            n,
            links: p.links,
            blocked: vec![false; n * n],
            last_at: vec![0; n * n],
            rng: SimRng::for_subsystem(seed, "network"),
        };
        let mut w = World {
            now_us: 0,
            seq: 0,
            queue: BinaryHeap::new(),
            slots: Vec::new(),
            free: Vec::new(),
            procs,
            groups: p.groups,
            net,
            end_us: p.end_us,
            next_msg: 0,
            level,
            events: 0,
            ended: false,
            seed,
            late: BTreeMap::new(),
            actions: Vec::new(),
            lab_queue: VecDeque::new(),
            lab_attacks: Vec::new(),
            lab_owners: BTreeMap::new(),
            lab_notes: 0,
            lab_tape: None,
        };
        for f in p.faults {
            w.schedule(f.at_us, Ev::Fault(f.fault));
            if let Some((until, undo)) = f.then {
                w.schedule(until, Ev::Fault(undo));
            }
        }
        w.schedule_starts();
        w.schedule(p.end_us, Ev::End);
        w
    }

    /// Queue each client's and lab worker's start and each everysec node's first fsync.
    fn schedule_starts(&mut self) {
        for pid in 0..self.procs.len() {
            let at = match &self.procs[pid].kind {
                Kind::Lab(l) => l.start_us,
                Kind::Client(c) => c.cfg.start_us,
                Kind::Node(nd) if nd.persistence == Persistence::Everysec => {
                    self.schedule(1_000_000, Ev::Fsync { node: pid });
                    continue;
                }
                _ => continue,
            };
            self.schedule(
                at,
                Ev::Timer {
                    pid,
                    inc: 0,
                    timer: Timer::Start,
                },
            );
        }
    }

    fn schedule(&mut self, at: u64, ev: Ev) {
        self.seq += 1;
        let slot = match self.free.pop() {
            Some(i) => {
                if let Some(s) = self.slots.get_mut(i as usize) {
                    *s = Some(ev);
                }
                i
            }
            None => {
                self.slots.push(Some(ev));
                (self.slots.len() - 1) as u32
            }
        };
        self.queue.push(Queued {
            at,
            seq: self.seq,
            slot,
        });
    }

    pub fn now_us(&self) -> u64 {
        self.now_us
    }

    pub fn seed(&self) -> u64 {
        self.seed
    }

    /// Queue events processed so far.
    pub fn events(&self) -> u64 {
        self.events
    }

    pub fn is_done(&self) -> bool {
        self.ended
    }

    /// True time of the next event, if any.
    pub fn next_event_us(&self) -> Option<u64> {
        if self.ended {
            None
        } else {
            let injected = self
                .late
                .first_key_value()
                .map(|((at, _), _)| *at)
                .filter(|at| *at <= self.end_us);
            let queued = self.queue.peek().map(|q| q.at);
            match (injected, queued) {
                (Some(a), Some(b)) => Some(a.min(b)),
                (a, b) => a.or(b),
            }
        }
    }

    pub fn process_names(&self) -> Vec<String> {
        self.procs.iter().map(|p| p.name.clone()).collect()
    }

    pub fn pid(&self, name: &str) -> Option<Pid> {
        self.procs.iter().position(|p| p.name == name)
    }

    pub fn is_client(&self, pid: Pid) -> bool {
        matches!(
            self.procs.get(pid).map(|p| &p.kind),
            Some(Kind::Client(_) | Kind::Lab(_))
        )
    }

    /// The lab workers, in the scenario's order: what a live run (`sim::live`) needs to
    /// start each one as the world would. `None` if a worker's lock is on a replication
    /// group (a live run takes one server per node).
    pub fn lab_workers(&self) -> Option<Vec<LabWorker>> {
        let nodes: Vec<Pid> = (0..self.procs.len()).filter(|p| self.is_node(*p)).collect();
        let mut out = Vec::new();
        for (pid, p) in self.procs.iter().enumerate() {
            let Kind::Lab(l) = &p.kind else { continue };
            let mut dests = Vec::new();
            for d in &l.dests {
                match d {
                    Dest::Node(n) => dests.push(nodes.iter().position(|x| x == n)?),
                    Dest::Group(_) => return None,
                }
            }
            out.push(LabWorker {
                pid,
                worker: l.worker,
                name: p.name.clone(),
                start_us: l.start_us,
                nodes: dests,
                lock: l.lock.clone(),
                seed: l.seed,
                clock_offset_us: p.clock.local_us(0),
                clock_rate_ppm: p.clock.rate_ppm(),
            });
        }
        Some(out)
    }

    pub fn is_node(&self, pid: Pid) -> bool {
        matches!(self.procs.get(pid).map(|p| &p.kind), Some(Kind::Node(_)))
    }

    /// What process `pid` is; `None` for no such process.
    pub fn role(&self, pid: Pid) -> Option<Role> {
        self.procs.get(pid).map(|p| match p.kind {
            Kind::Node(_) => Role::Node,
            Kind::Client(_) => Role::Client,
            Kind::Lab(_) => Role::LabWorker,
            Kind::Resource(_) => Role::Resource,
        })
    }

    /// Local time of process `pid` now (µs).
    pub fn local_us(&self, pid: Pid) -> i64 {
        self.procs
            .get(pid)
            .map(|p| p.clock.local_us(self.now_us))
            .unwrap_or(0)
    }

    /// The clock of process `pid` as it runs now.
    pub fn clock(&self, pid: Pid) -> Option<&Clock> {
        self.procs.get(pid).map(|p| &p.clock)
    }

    /// Keys a node holds now, judged by its own clock: `(key, value, expire_at_ms)`.
    pub fn node_keys(&mut self, pid: Pid) -> Vec<(String, String, Option<u64>)> {
        let now = self.now_us;
        let Some(p) = self.procs.get_mut(pid) else {
            return Vec::new();
        };
        let local = p.clock.local_ms(now);
        match &mut p.kind {
            Kind::Node(n) => {
                n.store.set_now_ms(local);
                n.store
                    .live_keys()
                    .into_iter()
                    .filter(|k| k.expire_at_ms.is_none_or(|e| e > local))
                    .map(|k| {
                        (
                            String::from_utf8_lossy(&k.key).into_owned(),
                            String::from_utf8_lossy(&k.value).into_owned(),
                            k.expire_at_ms,
                        )
                    })
                    .collect()
            }
            _ => Vec::new(),
        }
    }

    /// Inject a fault now (fork, explorer). A fault naming a process this world does
    /// not have is refused (returns false) rather than scheduled.
    pub fn inject(&mut self, fault: Fault) -> bool {
        let now = self.now_us;
        self.inject_at(now, fault)
    }

    /// Inject a fault at a later true time; false (and nothing scheduled) if the fault
    /// names a process this world does not have.
    pub fn inject_at(&mut self, at_us: u64, fault: Fault) -> bool {
        if !self.fault_in_range(&fault) {
            return false;
        }
        let at = at_us.max(self.now_us);
        self.seq += 1;
        self.late.insert((at, self.seq), fault);
        true
    }

    /// The next injected fault, if it is due: nothing else is queued at or before its
    /// time, except the end at that very time.
    fn due_injection(&mut self) -> Option<(u64, Fault)> {
        let (&(at, _), _) = self.late.first_key_value()?;
        let due = at <= self.end_us
            && self.queue.peek().is_none_or(|q| {
                q.at > at || (q.at == at && matches!(self.slots.get(q.slot as usize), Some(Some(Ev::End))))
            });
        if !due {
            return None;
        }
        self.late.pop_first().map(|((at, _), f)| (at, f))
    }

    /// Every pid a fault names is one of ours: the boundary that lets the handlers
    /// index `procs` and the link tables (see the note at the top of this file).
    fn fault_in_range(&self, fault: &Fault) -> bool {
        let ok = |p: &Pid| *p < self.procs.len();
        match fault {
            Fault::Pause(p)
            | Fault::Resume(p)
            | Fault::Crash(p)
            | Fault::Restart(p)
            | Fault::ClockJump(p, _)
            | Fault::Drift(p, _) => ok(p),
            Fault::Partition { a, b, .. } | Fault::Repair { a, b } | Fault::Latency { a, b, .. } => {
                ok(a) && b.iter().all(ok)
            }
            Fault::Command { node, .. } => ok(node),
        }
    }

    fn emit(&self, out: &mut Vec<TraceEvent>, pid: Pid, kind: TraceKind) {
        if (self.level == TraceLevel::Semantic || out.len() >= MAX_TRACE_DETAIL) && !kind.is_semantic() {
            return;
        }
        let local_us = self
            .procs
            .get(pid)
            .map(|p| p.clock.local_us(self.now_us))
            .unwrap_or(0);
        out.push(TraceEvent {
            t_us: self.now_us,
            local_us,
            pid: pid as u32,
            kind,
        });
    }

    fn full(&self) -> bool {
        self.level == TraceLevel::Full
    }

    /// Run until the end; returns false if the event limit cut the run short.
    pub fn run(&mut self, out: &mut Vec<TraceEvent>) -> bool {
        while self.step(out) {}
        self.events < MAX_EVENTS
    }

    /// Process one event. Returns false when the run is over.
    pub fn step(&mut self, out: &mut Vec<TraceEvent>) -> bool {
        if self.ended {
            return false;
        }
        self.replay_lab_answers(out);
        if let Some((at, f)) = self.due_injection() {
            self.now_us = self.now_us.max(at);
            self.events += 1;
            if self.events >= MAX_EVENTS {
                self.ended = true;
                self.emit(out, 0, TraceKind::End);
                return false;
            }
            self.fault(f, out);
            return true;
        }
        let Some(q) = self.queue.pop() else {
            self.ended = true;
            self.emit(out, self.procs.len().saturating_sub(1), TraceKind::End);
            return false;
        };
        let Some(ev) = self.slots.get_mut(q.slot as usize).and_then(Option::take) else {
            return true;
        };
        self.free.push(q.slot);
        self.now_us = q.at;
        self.events += 1;
        if self.events >= MAX_EVENTS {
            self.ended = true;
            self.emit(out, 0, TraceKind::End);
            return false;
        }
        match ev {
            Ev::End => {
                self.ended = true;
                let resource = self
                    .procs
                    .iter()
                    .position(|p| matches!(p.kind, Kind::Resource(_)))
                    .unwrap_or(0);
                self.emit(out, resource, TraceKind::End);
                return false;
            }
            Ev::Deliver {
                msg,
                from,
                to,
                payload,
            } => self.deliver(msg, from, to, payload, out),
            Ev::Timer { pid, inc, timer } => {
                let Some(p) = self.procs.get_mut(pid) else {
                    return true;
                };
                if p.inc != inc || !p.alive {
                    return true;
                }
                if p.paused {
                    p.inbox.push(Pending::Timer(timer));
                } else {
                    self.fire_timer(pid, timer, out);
                }
            }
            Ev::Fault(f) => self.fault(f, out),
            Ev::ReplFlush {
                node,
                inc,
                offset,
                effects,
            } => {
                if self.procs[node].inc == inc && self.procs[node].alive {
                    let replicas = match &self.procs[node].kind {
                        Kind::Node(n) => n.replicas.clone(),
                        _ => Vec::new(),
                    };
                    for r in replicas {
                        self.send(
                            node,
                            r,
                            Payload::Repl {
                                offset,
                                effects: effects.clone(),
                            },
                            0,
                            out,
                        );
                    }
                }
            }
            Ev::Fsync { node } => {
                let alive = self.procs[node].alive;
                if let Kind::Node(n) = &mut self.procs[node].kind {
                    if alive {
                        for e in n.aof_pending.drain(..) {
                            disk_apply(&mut n.disk, &e);
                        }
                    }
                }
                let next = self.now_us + 1_000_000;
                if next <= self.end_us {
                    self.schedule(next, Ev::Fsync { node });
                }
            }
            Ev::WaitDeadline { node, inc, wait } => {
                if self.procs[node].inc == inc && self.procs[node].alive {
                    self.finish_wait(node, wait, out);
                }
            }
            Ev::FailoverDetect { group, master, inc } => {
                let g = &self.groups[group];
                if g.master == master && self.procs[master].inc == inc && !self.procs[master].alive {
                    if let Some((_, promote)) = g.failover {
                        let at = self.now_us + promote;
                        self.schedule(at, Ev::Promote { group, master, inc });
                    }
                }
            }
            Ev::Promote { group, master, inc } => {
                if self.groups[group].master == master
                    && self.procs[master].inc == inc
                    && !self.procs[master].alive
                {
                    self.promote(group, master, out);
                }
            }
        }
        true
    }

    /// The next input for a lab worker, if one is waiting: the runner gives it to the
    /// harness and hands the answer to [`World::lab_actions`] before the next
    /// [`World::step`]. Inputs for a worker paused since they were queued wait for its
    /// resume; inputs from an earlier incarnation are dropped.
    pub fn next_lab_input(&mut self) -> Option<LabInput> {
        while let Some(input) = self.lab_queue.pop_front() {
            let Some(p) = self.procs.get_mut(input.pid) else {
                continue;
            };
            if matches!(input.ev, LabEvent::Crash) {
                return Some(input);
            }
            if p.inc != input.inc || !p.alive {
                continue;
            }
            let Kind::Lab(l) = &mut p.kind else { continue };
            if l.over {
                continue;
            }
            if p.paused {
                l.held.push(input);
                continue;
            }
            return Some(input);
        }
        None
    }

    /// Replay the harness's recorded answers (see `lab_tape`).
    pub fn set_lab_tape(&mut self, tape: Arc<Vec<String>>) {
        self.lab_tape = Some((tape, 0));
    }

    fn replay_lab_answers(&mut self, out: &mut Vec<TraceEvent>) {
        if self.lab_tape.is_none() {
            return;
        }
        while let Some(input) = self.next_lab_input() {
            let Some((tape, pos)) = self.lab_tape.as_mut() else {
                return;
            };
            let Some(answer) = tape.get(*pos).cloned() else {
                // The recorded run stopped here (the code failed): nothing more happens.
                self.lab_queue.clear();
                return;
            };
            *pos += 1;
            match super::lab::parse_actions(&answer) {
                Ok(actions) => self.lab_actions(input.pid, input.inc, actions, out),
                Err(_) => {
                    self.lab_tape = None;
                    self.lab_queue.clear();
                    return;
                }
            }
        }
    }

    /// An attack to carry out when a lab worker is about to send its k-th command.
    pub fn add_lab_attack(&mut self, attack: LabAttack) {
        self.lab_attacks.push(attack);
    }

    /// The index of lab worker `pid` (0-based), if it is one.
    pub fn lab_worker(&self, pid: Pid) -> Option<u32> {
        match self.procs.get(pid).map(|p| &p.kind) {
            Some(Kind::Lab(l)) => Some(l.worker),
            _ => None,
        }
    }

    fn lab_queue_input(&mut self, pid: Pid, ev: LabEvent) {
        if let Some(input) = self.lab_input_now(pid, ev) {
            self.lab_queue.push_back(input);
        }
    }

    /// `ev` for lab worker `pid`, stamped with its clock now (None once it is over).
    fn lab_input_now(&self, pid: Pid, ev: LabEvent) -> Option<LabInput> {
        let p = &self.procs[pid];
        let Kind::Lab(l) = &p.kind else { return None };
        if l.over {
            return None;
        }
        Some(LabInput {
            pid,
            worker: l.worker,
            inc: p.inc,
            now_local_us: p.clock.local_us(self.now_us),
            ev,
        })
    }

    /// An input for lab worker `pid`, unless an attack strikes as it arrives: a timer's
    /// callback about to start, or a reply about to resume the code that awaited it.
    /// A pause keeps the input for the worker's resume (it then runs, late, by a clock
    /// that moved on); a crash loses it with the process.
    fn lab_input(&mut self, pid: Pid, ev: LabEvent, out: &mut Vec<TraceEvent>) {
        let at = match ev {
            LabEvent::Timer { .. } => StallPoint::Timer,
            LabEvent::Reply { .. } | LabEvent::Resource { .. } | LabEvent::Timeout { .. } => {
                StallPoint::Reply
            }
            _ => return self.lab_queue_input(pid, ev),
        };
        let Kind::Lab(l) = &mut self.procs[pid].kind else {
            return;
        };
        if l.over {
            return;
        }
        let k = if at == StallPoint::Timer {
            l.timers_fired = l.timers_fired.saturating_add(1);
            l.timers_fired
        } else {
            l.replies_seen = l.replies_seen.saturating_add(1);
            l.replies_seen
        };
        let worker = l.worker;
        let Some(op) = self.take_attack(worker, k, at) else {
            return self.lab_queue_input(pid, ev);
        };
        if self.strike(pid, op, out) {
            if let Kind::Lab(l) = &mut self.procs[pid].kind {
                l.stalled.push(ev);
            }
        }
    }

    /// The attack on lab worker `worker` at its `k`-th stall point of kind `at`, taken off
    /// the list (a node going down strikes at a time instead, never here).
    fn take_attack(&mut self, worker: u32, k: u32, at: StallPoint) -> Option<LabAttackOp> {
        let i = self.lab_attacks.iter().position(|x| {
            x.worker == worker
                && x.command == k
                && x.at == at
                && !matches!(x.op, LabAttackOp::NodeDown { .. })
        })?;
        Some(self.lab_attacks.remove(i).op)
    }

    /// Strikes `op` at lab worker `pid` now: a crash (and its restart, if any), or a pause
    /// (and its resume). True for a pause: what the worker was about to do waits for it.
    fn strike(&mut self, pid: Pid, op: LabAttackOp, out: &mut Vec<TraceEvent>) -> bool {
        let now = self.now_us;
        match op {
            LabAttackOp::Crash { restart_after_us } => {
                self.fault(Fault::Crash(pid), out);
                if let Some(d) = restart_after_us {
                    self.schedule(now + d, Ev::Fault(Fault::Restart(pid)));
                }
                false
            }
            LabAttackOp::Pause { for_us } => {
                self.fault(Fault::Pause(pid), out);
                self.schedule(now + for_us, Ev::Fault(Fault::Resume(pid)));
                true
            }
            LabAttackOp::NodeDown { .. } => false,
        }
    }

    /// Was command `req` of lab worker `pid` still waiting (then it is not any more)?
    fn lab_answered(&mut self, pid: Pid, req: u64) -> bool {
        match &mut self.procs[pid].kind {
            Kind::Lab(l) => l.waiting.remove(&req),
            _ => false,
        }
    }

    fn lab_timer(&mut self, pid: Pid, timer: Timer, out: &mut Vec<TraceEvent>) {
        let ev = match timer {
            Timer::Start => {
                let (seed, inc) = match &self.procs[pid].kind {
                    Kind::Lab(l) => (l.seed, self.procs[pid].inc),
                    _ => return,
                };
                self.emit(out, pid, TraceKind::Start);
                LabEvent::Start {
                    seed: sub_seed(seed, &format!("incarnation:{inc}")),
                }
            }
            Timer::Step(id) => LabEvent::Timer { id },
            Timer::ReqTimeout(id) => {
                if !self.lab_answered(pid, id) {
                    return;
                }
                self.emit_timer(out, pid, &timer);
                LabEvent::Timeout { id }
            }
            _ => return,
        };
        self.lab_input(pid, ev, out);
    }

    /// Carry out what lab worker `pid` (incarnation `inc`) did with its last input.
    pub fn lab_actions(&mut self, pid: Pid, inc: u32, actions: Vec<LabAction>, out: &mut Vec<TraceEvent>) {
        let Some(p) = self.procs.get(pid) else { return };
        if p.inc != inc || !p.alive || !matches!(p.kind, Kind::Lab(_)) {
            return;
        }
        let mut rest = actions.into_iter();
        while let Some(a) = rest.next() {
            let p = &mut self.procs[pid];
            if !p.alive || p.inc != inc {
                return;
            }
            let paused = p.paused;
            let Kind::Lab(l) = &mut p.kind else { return };
            if l.over {
                return;
            }
            if paused {
                l.deferred.push(a);
                l.deferred.extend(rest);
                return;
            }
            if let LabAction::Cmd { .. } = a {
                let (worker, k) = (l.worker, l.sent + 1);
                if let Some(op) = self.take_attack(worker, k, StallPoint::Command) {
                    if self.strike(pid, op, out) {
                        if let Kind::Lab(l) = &mut self.procs[pid].kind {
                            l.deferred.push(a);
                            l.deferred.extend(rest);
                        }
                    }
                    return;
                }
            }
            self.lab_apply(pid, a, out);
        }
    }

    fn lab_apply(&mut self, pid: Pid, a: LabAction, out: &mut Vec<TraceEvent>) {
        if matches!(
            a,
            LabAction::Held { .. } | LabAction::Failed { .. } | LabAction::Done
        ) {
            self.lab_check_release(pid, out);
        }
        let now = self.now_us;
        let p = &mut self.procs[pid];
        let local = p.clock.local_us(now);
        let clock = p.clock.clone();
        let Kind::Lab(l) = &mut p.kind else { return };
        match a {
            LabAction::Cmd {
                id,
                node,
                args,
                timeout_ms,
            } => {
                let Some(dest) = l.dests.get(node).copied() else {
                    l.over = true;
                    let message = format!(
                        "there is no Redis client {node}: this worker has {}",
                        l.dests.len()
                    );
                    self.emit(
                        out,
                        pid,
                        TraceKind::CodeError {
                            message,
                            line: None,
                            col: None,
                        },
                    );
                    return;
                };
                l.sent = l.sent.saturating_add(1);
                l.waiting.insert(id);
                let args = args.into_iter().map(String::into_bytes).collect();
                self.apply(pid, Action::Cmd { dest, req: id, args }, out);
                if let Some(ms) = timeout_ms {
                    let after_local_us = ms_to_us(ms.clamp(0.0, MAX_TIME_MS)).unwrap_or(0);
                    let timer = Timer::ReqTimeout(id);
                    self.apply(
                        pid,
                        Action::Timer {
                            after_local_us,
                            timer,
                        },
                        out,
                    );
                }
            }
            LabAction::Resource { id, op } => self.apply(pid, Action::Res { req: id, op }, out),
            LabAction::Timer { id, ms } => {
                let after_local_us = ms_to_us(ms.clamp(0.0, MAX_TIME_MS)).unwrap_or(0);
                self.apply(
                    pid,
                    Action::Timer {
                        after_local_us,
                        timer: Timer::Step(id),
                    },
                    out,
                );
            }
            LabAction::Held { token, until_ms } => {
                l.token = Some(token.clone());
                let lock = l.lock.clone();
                let valid_until_us = until_ms.map(|u| {
                    let ahead = (u * 1000.0).round() as i64 - local;
                    if ahead <= 0 {
                        now.saturating_sub(ahead.unsigned_abs())
                    } else {
                        now.saturating_add(clock.true_duration_us(ahead as u64))
                    }
                });
                let dests = l.dests.clone();
                self.lab_owners.insert(token.clone(), pid);
                let on = self.nodes_holding(&dests, &lock, &token);
                let of = u32::try_from(dests.len()).unwrap_or(u32::MAX);
                self.emit(
                    out,
                    pid,
                    TraceKind::LockHeld {
                        lock: lock.clone(),
                        token: token.clone(),
                        fence: None,
                        valid_until_us,
                    },
                );
                // A belief is accepted only where the nodes back it: the worker's token
                // is the lock's value on a majority of its nodes now (a node that is
                // down counts for it). Whatever the code says, a lock no node stores is
                // no lock.
                if on.saturating_mul(2) <= of {
                    self.emit(out, pid, TraceKind::HeldUnbacked { lock, token, on, of });
                }
            }
            LabAction::Released => {
                l.releasing = l.token.take();
                let lock = l.lock.clone();
                self.emit(out, pid, TraceKind::LockReleased { lock });
            }
            LabAction::Lost { reason } => {
                l.token = None;
                let lock = l.lock.clone();
                let reason = Reason::Said(reason);
                self.emit(out, pid, TraceKind::LockLost { lock, reason });
            }
            LabAction::Failed { reason } => {
                let lock = l.lock.clone();
                let reason = Reason::Said(reason);
                self.emit(out, pid, TraceKind::AcquireFailed { lock, reason });
            }
            LabAction::Log { text } => {
                if self.lab_notes < MAX_LAB_NOTES {
                    self.lab_notes += 1;
                    self.emit(out, pid, TraceKind::Note { text });
                }
            }
            LabAction::Done => {
                l.over = true;
                self.emit(out, pid, TraceKind::WorkDone);
            }
            LabAction::Error { message, line, col } => {
                l.over = true;
                self.emit(out, pid, TraceKind::CodeError { message, line, col });
            }
        }
    }

    /// How many of `dests` back `token` as `lock`'s value now: store it (by the node's own
    /// clock), or are down. A node that is down grants the lock to nobody, so it does not
    /// contradict the belief; one that is up and stores something else does.
    fn nodes_holding(&mut self, dests: &[Dest], lock: &str, token: &str) -> u32 {
        let mut on = 0;
        for d in dests {
            let node = match d {
                Dest::Node(p) => *p,
                Dest::Group(g) => self.groups[*g].master,
            };
            let down = !self.procs[node].alive;
            if down
                || self
                    .node_keys(node)
                    .iter()
                    .any(|(k, v, _)| k == lock && v == token)
            {
                on += 1;
            }
        }
        on
    }

    /// A worker that released moves on (acquires again, or is done): its release has
    /// returned, so its own key must be gone from the nodes it holds it on.
    fn lab_check_release(&mut self, pid: Pid, out: &mut Vec<TraceEvent>) {
        let (token, lock, dests) = match &mut self.procs[pid].kind {
            Kind::Lab(l) => match l.releasing.take() {
                Some(t) => (t, l.lock.clone(), l.dests.clone()),
                None => return,
            },
            _ => return,
        };
        let kept = dests.iter().any(|d| {
            let node = match d {
                Dest::Node(p) => *p,
                Dest::Group(g) => self.groups[*g].master,
            };
            self.procs[node].alive
                && self
                    .node_keys(node)
                    .iter()
                    .any(|(k, v, _)| *k == lock && *v == token)
        });
        if kept {
            self.emit(out, pid, TraceKind::LockKept { lock, token });
        }
    }

    /// Process `p` resumes: what reached it while paused is handled in order.
    fn resume(&mut self, p: Pid, out: &mut Vec<TraceEvent>) {
        if !self.procs[p].paused {
            return;
        }
        self.procs[p].paused = false;
        self.emit(out, p, TraceKind::Resume);
        self.lab_resume(p, out);
        let mut inbox = std::mem::take(&mut self.procs[p].inbox).into_iter();
        while let Some(item) = inbox.next() {
            if !self.procs[p].alive {
                break;
            }
            if self.procs[p].paused {
                // Paused again while catching up (a lab attack struck before a deferred
                // command): what is left waits for the next resume, ahead of anything
                // that arrives meanwhile.
                let rest: Vec<Pending> = std::iter::once(item).chain(inbox).collect();
                let newer = std::mem::replace(&mut self.procs[p].inbox, rest);
                self.procs[p].inbox.extend(newer);
                break;
            }
            match item {
                Pending::Msg { from, payload } => self.handle_msg(p, from, payload, out),
                Pending::Timer(t) => self.fire_timer(p, t, out),
            }
        }
    }

    /// A paused lab worker resumes: what it was about to do when the pause struck goes
    /// first, then what reached the runner's queue for it meanwhile.
    fn lab_resume(&mut self, pid: Pid, out: &mut Vec<TraceEvent>) {
        let inc = self.procs[pid].inc;
        let (deferred, held, stalled) = match &mut self.procs[pid].kind {
            Kind::Lab(l) => (
                std::mem::take(&mut l.deferred),
                std::mem::take(&mut l.held),
                std::mem::take(&mut l.stalled),
            ),
            _ => return,
        };
        if !deferred.is_empty() {
            self.lab_actions(pid, inc, deferred, out);
        }
        for input in held.into_iter().rev() {
            self.lab_queue.push_front(input);
        }
        // What the stall struck at runs first, by the clock as it reads now.
        for ev in stalled.into_iter().rev() {
            if let Some(input) = self.lab_input_now(pid, ev) {
                self.lab_queue.push_front(input);
            }
        }
    }

    fn promote(&mut self, group: usize, old: Pid, out: &mut Vec<TraceEvent>) {
        let candidates: Vec<Pid> = self.groups[group]
            .members
            .iter()
            .copied()
            .filter(|&p| p != old && self.procs[p].alive)
            .collect();
        let Some(&new) = candidates.first() else { return };
        let others: Vec<Pid> = candidates[1..].to_vec();
        if let Kind::Node(n) = &mut self.procs[new].kind {
            n.replica_of = None;
            n.replicas = others.clone();
            n.acked.clear();
        }
        for &o in &others {
            if let Kind::Node(n) = &mut self.procs[o].kind {
                n.replica_of = Some(new);
            }
        }
        self.groups[group].master = new;
        let name = self.groups[group].name.clone();
        self.emit(out, new, TraceKind::Failover { group: name });
    }

    fn fire_timer(&mut self, pid: Pid, timer: Timer, out: &mut Vec<TraceEvent>) {
        if matches!(self.procs[pid].kind, Kind::Lab(_)) {
            self.lab_timer(pid, timer, out);
            return;
        }
        let live = match &self.procs[pid].kind {
            Kind::Client(c) => c.is_live(&timer),
            _ => false,
        };
        if !live {
            return;
        }
        self.emit_timer(out, pid, &timer);
        self.client_input(pid, Input::Timer(timer), out);
    }

    /// A timer fired at `pid` (recorded in full traces only).
    fn emit_timer(&self, out: &mut Vec<TraceEvent>, pid: Pid, timer: &Timer) {
        if self.full() {
            let name = timer.name();
            self.emit(out, pid, TraceKind::Timer { name });
        }
    }

    fn client_input(&mut self, pid: Pid, input: Input, out: &mut Vec<TraceEvent>) {
        if matches!(self.procs[pid].kind, Kind::Lab(_)) {
            let ev = match input {
                Input::Reply { req, reply } => {
                    if !self.lab_answered(pid, req) {
                        return;
                    }
                    LabEvent::Reply { id: req, reply }
                }
                Input::Res { req, reply } => LabEvent::Resource { id: req, reply },
                Input::Timer(t) => return self.lab_timer(pid, t, out),
            };
            self.lab_input(pid, ev, out);
            return;
        }
        let now = self.now_us;
        let mut actions = std::mem::take(&mut self.actions);
        {
            let p = &mut self.procs[pid];
            let ctx = ClientCtx {
                now_true_us: now,
                now_local_us: p.clock.local_us(now),
                clock: &p.clock,
            };
            if let Kind::Client(c) = &mut p.kind {
                c.handle(&ctx, input, &mut actions);
            }
        }
        for a in actions.drain(..) {
            self.apply(pid, a, out);
        }
        self.actions = actions;
    }

    fn apply(&mut self, pid: Pid, a: Action, out: &mut Vec<TraceEvent>) {
        match a {
            Action::Cmd { dest, req, args } => {
                let to = match dest {
                    Dest::Node(p) => p,
                    Dest::Group(g) => self.groups[g].master,
                };
                self.send(pid, to, Payload::Cmd { req, args }, 0, out);
            }
            Action::Res { req, op } => {
                let to = self
                    .procs
                    .iter()
                    .position(|p| matches!(p.kind, Kind::Resource(_)))
                    .unwrap_or(0);
                self.send(pid, to, Payload::Res { req, op }, 0, out);
            }
            Action::Timer {
                after_local_us,
                timer,
            } => {
                let p = &self.procs[pid];
                let at = self.now_us + p.clock.true_duration_us(after_local_us);
                let inc = p.inc;
                self.schedule(at, Ev::Timer { pid, inc, timer });
            }
            Action::Trace(kind) => self.emit(out, pid, kind),
            Action::CrashSelf => {
                let now = self.now_us;
                self.schedule(now, Ev::Fault(Fault::Crash(pid)));
            }
        }
    }

    fn describe(payload: &Payload) -> Message {
        let arg = |a: &[u8]| {
            let s = String::from_utf8_lossy(a);
            if s.len() > 24 {
                format!("{}…", s.chars().take(20).collect::<String>())
            } else {
                s.into_owned()
            }
        };
        match payload {
            Payload::Cmd { args, .. } => {
                Message::Redis(args.iter().map(|a| arg(a)).collect::<Vec<_>>().join(" "))
            }
            Payload::Reply { reply, .. } => Message::Redis(crate::store::render_line(reply)),
            Payload::Repl { offset, effects } => Message::Replicate {
                offset: *offset,
                writes: effects.len(),
            },
            Payload::ReplAck { offset } => Message::Ack { offset: *offset },
            Payload::Res { op, .. } => match op {
                ResOp::Read { key } => Message::Read { key: key.clone() },
                ResOp::Claim { key, ttl_us } => Message::Claim {
                    key: key.clone(),
                    ttl_ms: ttl_us / 1000,
                },
                ResOp::Write {
                    key, value, token, ..
                } => Message::Write {
                    key: key.clone(),
                    value: value.clone(),
                    token: *token,
                },
            },
            Payload::ResReply { reply, .. } => match reply {
                ResReply::Read { value, version } => Message::ReadReply {
                    value: value.clone(),
                    version: *version,
                },
                ResReply::Accepted => Message::Accepted,
                ResReply::Rejected { reason } => Message::Rejected(reason.clone()),
            },
        }
    }

    fn send(&mut self, from: Pid, to: Pid, payload: Payload, extra_us: u64, out: &mut Vec<TraceEvent>) {
        self.next_msg += 1;
        let msg = self.next_msg;
        if self.full() {
            let what = Self::describe(&payload);
            self.emit(
                out,
                from,
                TraceKind::Send {
                    msg,
                    to: to as u32,
                    what,
                },
            );
        }
        let ix = self.net.ix(from, to);
        if self.net.blocked[ix] {
            self.emit(
                out,
                from,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::Partitioned,
                },
            );
            return;
        }
        let link = self.net.links[ix];
        if link.loss > 0.0 && self.net.rng.chance(link.loss) {
            self.emit(
                out,
                from,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::Lost,
                },
            );
            return;
        }
        let lat = match link.latency {
            Latency::Fixed(l) => l,
            Latency::Uniform(a, b) => self.net.rng.range_u64(a, b),
        };
        // Links are FIFO (TCP): a message never overtakes an earlier one.
        let at = (self.now_us + extra_us + lat).max(self.net.last_at[ix]);
        self.net.last_at[ix] = at;
        self.schedule(
            at,
            Ev::Deliver {
                msg,
                from,
                to,
                payload,
            },
        );
    }

    fn deliver(&mut self, msg: u64, from: Pid, to: Pid, payload: Payload, out: &mut Vec<TraceEvent>) {
        if !self.procs[to].alive {
            self.emit(
                out,
                to,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::ReceiverDown,
                },
            );
            return;
        }
        if self.net.blocked[self.net.ix(from, to)] {
            self.emit(
                out,
                to,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::Partitioned,
                },
            );
            return;
        }
        if self.full() {
            self.emit(
                out,
                to,
                TraceKind::Deliver {
                    msg,
                    from: from as u32,
                },
            );
        }
        if self.procs[to].paused {
            self.procs[to].inbox.push(Pending::Msg { from, payload });
            return;
        }
        self.handle_msg(to, from, payload, out);
    }

    fn handle_msg(&mut self, to: Pid, from: Pid, payload: Payload, out: &mut Vec<TraceEvent>) {
        match payload {
            Payload::Cmd { req, args } => self.node_command(to, from, req, args, out),
            Payload::Reply { req, reply } => self.client_input(to, Input::Reply { req, reply }, out),
            Payload::ResReply { req, reply } => self.client_input(to, Input::Res { req, reply }, out),
            Payload::Res { req, op } => self.resource(to, from, req, op, out),
            Payload::Repl { offset, effects } => self.replica_apply(to, from, offset, effects, out),
            Payload::ReplAck { offset } => {
                if let Kind::Node(n) = &mut self.procs[to].kind {
                    let e = n.acked.entry(from).or_insert(0);
                    *e = (*e).max(offset);
                    let ready: Vec<u64> = n
                        .waits
                        .iter()
                        .filter(|w| n.acked.values().filter(|a| **a >= w.offset).count() as i64 >= w.want)
                        .map(|w| w.id)
                        .collect();
                    for id in ready {
                        self.finish_wait(to, id, out);
                    }
                }
            }
        }
    }

    fn node_command(
        &mut self,
        node: Pid,
        from: Pid,
        req: u64,
        args: Vec<Vec<u8>>,
        out: &mut Vec<TraceEvent>,
    ) {
        let now = self.now_us;
        let full = self.full();
        let p = &mut self.procs[node];
        let local_ms = p.clock.local_ms(now);
        let inc = p.inc;
        let Kind::Node(n) = &mut p.kind else { return };
        n.store.set_now_ms(local_ms);
        let is_wait = args.first().is_some_and(|a| a.eq_ignore_ascii_case(b"WAIT"));
        if is_wait {
            // WAIT needs replication state the store does not have: the node answers it.
            let parse = |i: usize| {
                args.get(i)
                    .and_then(|a| std::str::from_utf8(a).ok())
                    .and_then(|s| s.parse::<i64>().ok())
            };
            let (Some(want), Some(timeout_ms), 3) = (parse(1), parse(2), args.len()) else {
                let reply = Reply::Error("ERR syntax error in WAIT".into());
                let service = n.service_us;
                self.reply_cmd(node, from, req, &args, reply, service, out);
                return;
            };
            let acked = n.acked.values().filter(|a| **a >= n.offset).count() as i64;
            if acked >= want || timeout_ms < 0 {
                let service = n.service_us;
                self.reply_cmd(node, from, req, &args, Reply::Int(acked), service, out);
                return;
            }
            n.next_wait += 1;
            let id = n.next_wait;
            n.waits.push(WaitReq {
                id,
                client: from,
                req,
                want,
                offset: n.offset,
                args: args
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect(),
            });
            if timeout_ms > 0 {
                let t = self.procs[node]
                    .clock
                    .true_duration_us(timeout_ms.min(86_400_000) as u64 * 1000);
                self.schedule(now + t, Ev::WaitDeadline { node, inc, wait: id });
            }
            return;
        }
        let lab_key = match &self.procs[from].kind {
            Kind::Lab(l) => Some(l.lock.clone()),
            _ => None,
        };
        let Kind::Node(n) = &mut self.procs[node].kind else {
            return;
        };
        let before = lab_key.as_deref().and_then(|k| live_value(&n.store, k, local_ms));
        let reply = n.store.execute_conn(from as u64, &args);
        let effects = n.store.take_effects();
        let service = n.service_us;
        let _ = full;
        if let (Some(key), Some(was)) = (lab_key, before) {
            let now_value = live_value(&n.store, &key, local_ms);
            let owner = self.lab_owners.get(&was).copied();
            if let Some(owner) = owner.filter(|o| *o != from && now_value.as_deref() != Some(was.as_str())) {
                self.emit(
                    out,
                    from,
                    TraceKind::ForeignDelete {
                        key,
                        owner: owner as u32,
                        token: was,
                    },
                );
            }
        }
        self.after_write(node, effects);
        self.reply_cmd(node, from, req, &args, reply, service, out);
    }

    #[allow(clippy::too_many_arguments)]
    fn reply_cmd(
        &mut self,
        node: Pid,
        from: Pid,
        req: u64,
        args: &[Vec<u8>],
        reply: Reply,
        service_us: u64,
        out: &mut Vec<TraceEvent>,
    ) {
        if self.full() {
            let script = args
                .first()
                .is_some_and(|a| a.eq_ignore_ascii_case(b"EVAL") || a.eq_ignore_ascii_case(b"EVALSHA"));
            self.emit(
                out,
                node,
                TraceKind::Command {
                    from: from as u32,
                    args: args
                        .iter()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect(),
                    reply: crate::store::render_line(&reply),
                    script,
                },
            );
        }
        if from != node {
            self.send(node, from, Payload::Reply { req, reply }, service_us, out);
        }
    }

    fn finish_wait(&mut self, node: Pid, id: u64, out: &mut Vec<TraceEvent>) {
        let Kind::Node(n) = &mut self.procs[node].kind else {
            return;
        };
        let Some(pos) = n.waits.iter().position(|w| w.id == id) else {
            return;
        };
        let w = n.waits.remove(pos);
        let acked = n.acked.values().filter(|a| **a >= w.offset).count() as i64;
        let args: Vec<Vec<u8>> = w.args.iter().map(|a| a.as_bytes().to_vec()).collect();
        self.reply_cmd(node, w.client, w.req, &args, Reply::Int(acked), 0, out);
    }

    /// Persistence and replication of a node's writes.
    fn after_write(&mut self, node: Pid, effects: Vec<Effect>) {
        if effects.is_empty() {
            return;
        }
        let now = self.now_us;
        let inc = self.procs[node].inc;
        let Kind::Node(n) = &mut self.procs[node].kind else {
            return;
        };
        match n.persistence {
            Persistence::None => {}
            Persistence::Always => {
                for e in &effects {
                    disk_apply(&mut n.disk, e);
                }
            }
            Persistence::Everysec => n.aof_pending.extend(effects.iter().cloned()),
        }
        if !n.replicas.is_empty() {
            n.offset += 1;
            let offset = n.offset;
            let at = now + n.lag_us;
            self.schedule(
                at,
                Ev::ReplFlush {
                    node,
                    inc,
                    offset,
                    effects,
                },
            );
        }
    }

    fn replica_apply(
        &mut self,
        node: Pid,
        from: Pid,
        offset: u64,
        effects: Vec<Effect>,
        out: &mut Vec<TraceEvent>,
    ) {
        let now = self.now_us;
        let p = &mut self.procs[node];
        let local_ms = p.clock.local_ms(now);
        let Kind::Node(n) = &mut p.kind else { return };
        if n.replica_of != Some(from) {
            return; // a stale stream from a former master
        }
        n.store.set_now_ms(local_ms);
        for e in &effects {
            n.store.apply_effect(e);
        }
        let own = n.store.take_effects();
        let count = effects.len() as u32;
        self.after_write(node, own);
        if self.full() {
            self.emit(
                out,
                node,
                TraceKind::Replicate {
                    from: from as u32,
                    offset,
                    effects: count,
                },
            );
        }
        self.send(node, from, Payload::ReplAck { offset }, 0, out);
    }

    fn resource(&mut self, res: Pid, from: Pid, req: u64, op: ResOp, out: &mut Vec<TraceEvent>) {
        // Whether the writer's lock had lapsed is the world's to judge (the nodes' state);
        // what the resource answers is the resource's own ([`Resource::apply`]).
        let lapsed = !matches!(op, ResOp::Read { .. }) && self.lock_lapsed(from);
        let now = self.now_us;
        let Kind::Resource(r) = &mut self.procs[res].kind else {
            return;
        };
        let (reply, event) = r.apply(from as u32, op, now, lapsed);
        // A read is the reader's event (traced in full only); a write, the resource's.
        match event {
            TraceKind::Read { .. } if self.full() => self.emit(out, from, event),
            TraceKind::Read { .. } => {}
            _ => self.emit(out, res, event),
        }
        self.send(res, from, Payload::ResReply { req, reply }, 0, out);
    }

    /// Does client `pid` still hold its lock, judged from the nodes' actual state (each
    /// node by its own clock)? Clients without a lock never "lapse".
    fn lock_lapsed(&mut self, pid: Pid) -> bool {
        let (dests, lock, token, needed) = match &self.procs[pid].kind {
            Kind::Client(c) => match c.cfg.algorithm {
                Algorithm::None => return false,
                a => (
                    c.cfg.dests.clone(),
                    c.cfg.lock.clone(),
                    c.hold().map(|h| h.token.clone()),
                    if a == Algorithm::SetNx { 1 } else { c.cfg.quorum() },
                ),
            },
            // A lab whose driver never takes a lock (no worker has ever said it holds
            // one, as in the idempotency lab) has no lock to lapse.
            Kind::Lab(l) if l.token.is_none() && self.lab_owners.is_empty() => return false,
            Kind::Lab(l) => (
                l.dests.clone(),
                l.lock.clone(),
                l.token.clone(),
                super::quorum(l.dests.len()),
            ),
            _ => return false,
        };
        let Some(token) = token else { return true };
        let mut holding = 0;
        for d in &dests {
            let node = match d {
                Dest::Node(p) => *p,
                Dest::Group(g) => self.groups[*g].master,
            };
            if !self.procs[node].alive {
                continue;
            }
            if self
                .node_keys(node)
                .iter()
                .any(|(k, v, _)| *k == lock && *v == token)
            {
                holding += 1;
            }
        }
        holding < needed
    }

    fn fault(&mut self, f: Fault, out: &mut Vec<TraceEvent>) {
        let now = self.now_us;
        // Faults injected through the API (fork, explorer) may name any pid: ignore
        // those that do not exist rather than panic, and a command with no words.
        if !self.fault_in_range(&f) || matches!(&f, Fault::Command { args, .. } if args.is_empty()) {
            return;
        }
        match f {
            Fault::Pause(p) => {
                if self.procs[p].alive && !self.procs[p].paused {
                    self.procs[p].paused = true;
                    self.emit(out, p, TraceKind::Pause);
                }
            }
            Fault::Resume(p) => self.resume(p, out),
            Fault::Crash(p) => {
                if !self.procs[p].alive {
                    return;
                }
                let proc_ = &mut self.procs[p];
                proc_.alive = false;
                proc_.paused = false;
                proc_.inbox.clear();
                proc_.inc += 1;
                let inc = proc_.inc;
                self.emit(out, p, TraceKind::Crash);
                match &mut self.procs[p].kind {
                    Kind::Node(n) => {
                        // The process is gone; a restart replays what the AOF kept.
                        let mut store = Store::new(sub_seed(n.seed, &format!("restart:{inc}")));
                        if n.persistence == Persistence::None {
                            n.disk.clear();
                        }
                        for (key, (value, expire_at_ms)) in &n.disk {
                            store.apply_effect(&Effect::Set {
                                key: key.clone(),
                                value: value.clone(),
                                expire_at_ms: *expire_at_ms,
                            });
                        }
                        let _ = store.take_effects();
                        n.store = store;
                        n.aof_pending.clear();
                        n.waits.clear();
                        n.acked.clear();
                        if let Some(g) = n.group {
                            if self.groups[g].master == p {
                                if let Some((detect, _)) = self.groups[g].failover {
                                    self.schedule(
                                        now + detect,
                                        Ev::FailoverDetect {
                                            group: g,
                                            master: p,
                                            inc,
                                        },
                                    );
                                }
                            }
                        }
                    }
                    Kind::Client(c) => {
                        let mut actions = Vec::new();
                        c.crash(&mut actions);
                        for a in actions {
                            self.apply(p, a, out);
                        }
                    }
                    Kind::Lab(l) => {
                        // The token outlives the crash until the restart: a write the
                        // worker sent just before it died still lands, and is judged by
                        // whether the key holds that token then, not by the crash.
                        let token = l.token.take();
                        l.reset();
                        l.token = token;
                        let worker = l.worker;
                        let now_local_us = self.procs[p].clock.local_us(now);
                        self.lab_queue.retain(|i| i.pid != p);
                        self.lab_queue.push_back(LabInput {
                            pid: p,
                            worker,
                            inc,
                            now_local_us,
                            ev: LabEvent::Crash,
                        });
                    }
                    Kind::Resource(_) => {}
                }
            }
            Fault::Restart(p) => {
                if self.procs[p].alive {
                    return;
                }
                self.procs[p].alive = true;
                let inc = self.procs[p].inc;
                // A node whose group failed over comes back as a replica of the new
                // master and resynchronises from it (a full sync).
                let new_master = match &self.procs[p].kind {
                    Kind::Node(n) => n.group.map(|g| self.groups[g].master).filter(|m| *m != p),
                    _ => None,
                };
                let master_store = new_master.and_then(|m| match &self.procs[m].kind {
                    Kind::Node(mn) => Some(mn.store.clone()),
                    _ => None,
                });
                if let Some(m) = new_master {
                    if let Kind::Node(mn) = &mut self.procs[m].kind {
                        if !mn.replicas.contains(&p) {
                            mn.replicas.push(p);
                        }
                    }
                }
                let local_ms = self.procs[p].clock.local_ms(now);
                let (label, keys) = match &mut self.procs[p].kind {
                    Kind::Node(n) => {
                        if let (Some(m), Some(s)) = (new_master, master_store) {
                            n.store = s;
                            n.replica_of = Some(m);
                            n.replicas.clear();
                        }
                        n.store.set_now_ms(local_ms);
                        let keys = n
                            .store
                            .live_keys()
                            .iter()
                            .filter(|k| k.expire_at_ms.is_none_or(|e| e > local_ms))
                            .count() as u32;
                        let label = if new_master.is_some() {
                            Comeback::Resync
                        } else {
                            Comeback::Disk(n.persistence)
                        };
                        (label, keys)
                    }
                    Kind::Client(c) => {
                        let fresh = c.restarted(inc);
                        **c = fresh;
                        (Comeback::FreshProgram, 0)
                    }
                    Kind::Lab(l) => {
                        l.reset();
                        (Comeback::FreshProgram, 0)
                    }
                    Kind::Resource(_) => (Comeback::AsItWas, 0),
                };
                self.emit(
                    out,
                    p,
                    TraceKind::Restart {
                        persistence: label,
                        keys,
                    },
                );
                if self.is_client(p) {
                    self.schedule(
                        now,
                        Ev::Timer {
                            pid: p,
                            inc,
                            timer: Timer::Start,
                        },
                    );
                }
            }
            Fault::ClockJump(p, d) => {
                self.procs[p].clock.jump(now, d);
                self.emit(out, p, TraceKind::ClockJump { delta_us: d });
            }
            Fault::Drift(p, ppm) => {
                self.procs[p].clock.set_rate(now, ppm);
                self.emit(out, p, TraceKind::Drift { rate_ppm: ppm });
            }
            Fault::Partition { a, b, oneway } => {
                for &x in &b {
                    let ix = self.net.ix(a, x);
                    self.net.blocked[ix] = true;
                    if !oneway {
                        let ix = self.net.ix(x, a);
                        self.net.blocked[ix] = true;
                    }
                    self.emit(out, a, TraceKind::Partition { to: x as u32, oneway });
                }
            }
            Fault::Repair { a, b } => {
                for &x in &b {
                    let ix = self.net.ix(a, x);
                    self.net.blocked[ix] = false;
                    let ix = self.net.ix(x, a);
                    self.net.blocked[ix] = false;
                    self.emit(out, a, TraceKind::Repair { to: x as u32 });
                }
            }
            Fault::Latency { a, b, latency } => {
                for &x in &b {
                    for ix in [self.net.ix(a, x), self.net.ix(x, a)] {
                        self.net.links[ix].latency = latency;
                    }
                    if self.full() {
                        self.emit(
                            out,
                            a,
                            TraceKind::Latency {
                                to: x as u32,
                                latency: latency.label(),
                            },
                        );
                    }
                }
            }
            Fault::Command { node, args } => {
                if !self.procs[node].alive {
                    return;
                }
                let local_ms = self.procs[node].clock.local_ms(now);
                let Kind::Node(n) = &mut self.procs[node].kind else {
                    return;
                };
                n.store.set_now_ms(local_ms);
                let reply = n.store.execute(&args);
                let effects = n.store.take_effects();
                self.after_write(node, effects);
                self.reply_cmd(node, node, 0, &args, reply, 0, out);
            }
        }
    }
}

/// Apply one write to the on-disk image.
/// The value `key` holds in `store` at `local_ms`, if it has one that has not expired.
fn live_value(store: &Store, key: &str, local_ms: u64) -> Option<String> {
    store
        .live_keys()
        .into_iter()
        .find(|k| k.key == key.as_bytes() && k.expire_at_ms.is_none_or(|e| e > local_ms))
        .map(|k| String::from_utf8_lossy(&k.value).into_owned())
}

fn disk_apply(disk: &mut BTreeMap<Vec<u8>, (Vec<u8>, Option<u64>)>, e: &Effect) {
    match e {
        Effect::Set {
            key,
            value,
            expire_at_ms,
        } => {
            disk.insert(key.clone(), (value.clone(), *expire_at_ms));
        }
        Effect::Del { key } => {
            disk.remove(key);
        }
        Effect::FlushAll => disk.clear(),
    }
}

fn resolve_peers(names: &BTreeMap<String, Pid>, peer: &str, me: Pid, n: usize) -> Result<Vec<Pid>, String> {
    if peer == "*" {
        return Ok((0..n).filter(|p| *p != me).collect());
    }
    match names.get(peer) {
        Some(p) if *p != me => Ok(vec![*p]),
        Some(_) => Err("a process cannot be cut off from itself".to_string()),
        None => Err(format!("`{peer}` is not a process")),
    }
}
