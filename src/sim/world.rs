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

mod client;
mod crash;
mod lab;
mod lab_io;
mod lab_worker;
mod net;
mod node;
mod parts;
mod plan;
mod resource;
pub use lab_io::{LabAction, LabAttack, LabAttackOp, LabEvent, LabInput, StallPoint};
use lab_worker::LabProc;
pub use lab_worker::{Backing, LabWorker};
pub(crate) use parts::{ms_to_us, FieldErr};
pub use parts::{
    Fault, Latency, Pid, MAX_CLIENTS_NODES, MAX_EVENTS, MAX_FAULTS, MAX_PROCESSES, MAX_TRACE_DETAIL,
    MAX_WORK_STEPS,
};
use parts::{Group, Link, Node, WaitReq};
pub use resource::Resource;

pub(crate) use plan::validate;

use super::client::{Action, Client, ClientCtx, Dest, Input, ResOp, ResReply, Timer};
use super::clock::Clock;
use super::fact::{Comeback, Message, Reason, Role};
use super::rng::{sub_seed, SimRng};
use super::scenario::definition::{Algorithm, Persistence, Scenario, MAX_TIME_MS};
use super::trace::{SourceLine, TraceEvent, TraceKind, TraceLevel};
use crate::store::{Effect, Reply, Store};
use crate::vecmap::VecMap;
use std::cmp::Ordering;
use std::collections::{BTreeMap, BinaryHeap, VecDeque};
use std::sync::Arc;

#[derive(Clone, Debug)]
enum Payload {
    /// `line`: where in the learner's file a lab worker sent it from, if known.
    Cmd {
        req: u64,
        args: Vec<Vec<u8>>,
        line: Option<u32>,
    },
    Reply {
        req: u64,
        reply: Reply,
    },
    Repl {
        offset: u64,
        effects: Vec<Effect>,
    },
    ReplAck {
        offset: u64,
    },
    Res {
        req: u64,
        op: ResOp,
    },
    ResReply {
        req: u64,
        reply: ResReply,
    },
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
enum Kind {
    Node(Box<Node>),
    Client(Box<Client>),
    Resource(Box<Resource>),
    Lab(Box<LabProc>),
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
    late: VecMap<(u64, u64), Fault>,
    /// Inputs for lab workers, waiting for the runner to take them to the harness.
    lab_queue: VecDeque<LabInput>,
    /// Attacks that strike a lab worker just before it sends its k-th command.
    lab_attacks: Vec<LabAttack>,
    /// Which lab worker each held token belongs to (for foreign deletes).
    lab_owners: VecMap<String, Pid>,
    /// `console.log` lines recorded so far (capped at [`MAX_LAB_NOTES`]).
    lab_notes: u32,
    /// A replay: the harness's answers of an earlier run, in order, and how many are
    /// used. With a tape the world answers its lab workers itself, so the timeline can
    /// rebuild (and step back through) a run of the learner's code without the harness.
    lab_tape: Option<(Arc<LabTape>, usize)>,
}

/// A recorded run's answers, each as the actions it held (`None`: it did not read, and
/// the run ended there).
pub type LabTape = Vec<Option<Vec<LabAction>>>;

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
                    waiting: crate::vecmap::VecMap::new(),
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
            late: VecMap::new(),
            actions: Vec::new(),
            lab_queue: VecDeque::new(),
            lab_attacks: Vec::new(),
            lab_owners: VecMap::new(),
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

    /// The name of process `pid`, if there is one.
    pub fn process_name(&self, pid: Pid) -> Option<&str> {
        self.procs.get(pid).map(|p| p.name.as_str())
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
        self.backing(&dests, &lock, &token).lapsed(needed)
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
            Fault::Crash(p) => self.crash(p, out),
            Fault::Restart(p) => self.restart(p, out),
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
                self.reply_cmd(node, node, 0, &args, reply, 0, None, out);
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
