//! Clients: each runs one lock algorithm and then a piece of work against the resource.
//!
//! A client is a deterministic state machine. The world feeds it [`Input`]s (start,
//! replies, timer firings) at its local time and applies the [`Action`]s it returns
//! (send a command, send a resource request, set a timer, record a trace event). It
//! never sees true time except through `ClientCtx` to label trace events.

use super::clock::Clock;
use super::fact::{Reason, TimerName};
use super::rng::SimRng;
use super::scenario::{Algorithm, ReleaseKind};
use super::scripts::Scripts;
use super::trace::TraceKind;
use crate::store::Reply;
use std::collections::BTreeMap;
use std::sync::Arc;

/// Where a command goes: one node, or whichever node is a group's master at send time.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dest {
    Node(usize),
    Group(usize),
}

/// One step of a client's work.
#[derive(Clone, Debug, PartialEq)]
pub enum Step {
    /// Local work taking `[lo, hi)` µs (uniform; `lo == hi` for a fixed time).
    Sleep {
        lo_us: u64,
        hi_us: u64,
    },
    /// Local work whose duration is log-normal with this median and 99th percentile
    /// (µs), capped at 20 × p99: a few jobs run long, as real ones do.
    SleepLogNormal {
        median_us: u64,
        p99_us: u64,
    },
    /// The client's process dies here, in the middle of its work (holding the lock).
    Crash,
    Read(String),
    /// Stop the work unless the last read of `key` returned `value`.
    Expect(String, String),
    Write(String, String),
    /// Claim the client's idempotency key at the resource as "in progress" for this
    /// long (µs); refused while someone else's claim is live or once the key is done.
    /// The claim's expiry is the recovery path: a crash after it does not block a
    /// retry for ever. A write carrying the key then marks it done.
    Claim {
        ttl_us: u64,
    },
}

/// Library (`using()`) settings, named as node-redlock names them.
#[derive(Clone, Debug, PartialEq)]
pub struct LibCfg {
    pub retry_count: u32,
    pub retry_delay_ms: u64,
    pub retry_jitter_ms: u64,
    pub threshold_ms: u64,
}

/// A client's resolved configuration (names already turned into destinations).
#[derive(Clone, Debug)]
pub struct ClientCfg {
    pub algorithm: Algorithm,
    pub dests: Vec<Dest>,
    pub lock: String,
    pub start_us: u64,
    pub ttl_ms: u64,
    pub timeout_us: Option<u64>,
    pub drift_factor: f64,
    pub retry_lo_us: u64,
    pub retry_hi_us: u64,
    pub max_attempts: u32,
    pub release: ReleaseKind,
    pub check_validity: bool,
    pub watchdog: bool,
    pub wait: Option<(u32, u64)>,
    pub fencing: bool,
    pub fence_key: String,
    pub idempotency_key: Option<String>,
    pub lib: LibCfg,
    pub work: Vec<Step>,
    pub scripts: Arc<Scripts>,
    /// Cycles of acquire → work → release.
    pub repeat: u32,
}

impl ClientCfg {
    pub fn quorum(&self) -> usize {
        super::quorum(self.dests.len())
    }

    /// Validity left `elapsed_ms` after an attempt began: `TTL − elapsed − D` ms.
    pub fn validity_ms(&self, elapsed_ms: u64) -> i64 {
        super::validity_ms(self.ttl_ms, elapsed_ms, self.drift_factor)
    }
}

/// A request to the protected resource (storage service).
#[derive(Clone, Debug, PartialEq)]
pub enum ResOp {
    Read {
        key: String,
    },
    Write {
        key: String,
        value: String,
        token: Option<i64>,
        idempotency_key: Option<String>,
        /// Version of `key` this write is based on (from the client's last read).
        base_version: Option<u64>,
    },
    /// Claim idempotency key `key` as in progress for `ttl_us`.
    Claim {
        key: String,
        ttl_us: u64,
    },
}

#[derive(Clone, Debug, PartialEq)]
pub enum ResReply {
    Read { value: Option<String>, version: u64 },
    Accepted,
    Rejected { reason: Reason },
}

#[derive(Clone, Debug, PartialEq)]
pub enum Timer {
    Start,
    Retry(u64),
    ReqTimeout(u64),
    Validity(u64),
    Renew(u64),
    Step(u64),
    LibRetry(u64),
    LibExtend(u64),
}

impl Timer {
    pub fn name(&self) -> TimerName {
        match self {
            Timer::Start => TimerName::Start,
            Timer::Retry(_) => TimerName::Retry,
            Timer::ReqTimeout(_) => TimerName::RequestTimeout,
            Timer::Validity(_) => TimerName::ValidityEnds,
            Timer::Renew(_) => TimerName::Renew,
            Timer::Step(_) => TimerName::WorkStepDone,
            Timer::LibRetry(_) => TimerName::LibraryRetry,
            Timer::LibExtend(_) => TimerName::LibraryExtension,
        }
    }
}

#[derive(Clone, Debug)]
pub enum Input {
    Timer(Timer),
    Reply { req: u64, reply: Reply },
    Res { req: u64, reply: ResReply },
}

#[derive(Clone, Debug)]
pub enum Action {
    Cmd {
        dest: Dest,
        req: u64,
        args: Vec<Vec<u8>>,
    },
    Res {
        req: u64,
        op: ResOp,
    },
    Timer {
        after_local_us: u64,
        timer: Timer,
    },
    Trace(TraceKind),
    /// The client's process crashes now (a `crash` step).
    CrashSelf,
}

/// What the world tells a client about "now".
pub struct ClientCtx<'a> {
    pub now_true_us: u64,
    pub now_local_us: i64,
    pub clock: &'a Clock,
}

impl ClientCtx<'_> {
    /// True time at which this client's clock will read `local_us`.
    fn true_at(&self, local_us: i64) -> u64 {
        let ahead = local_us.saturating_sub(self.now_local_us);
        if ahead <= 0 {
            self.now_true_us.saturating_sub(ahead.unsigned_abs())
        } else {
            self.now_true_us
                .saturating_add(self.clock.true_duration_us(ahead as u64))
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Phase {
    Idle,
    Acquiring,
    Working,
    Releasing,
    Done,
    Crashed,
}

#[derive(Clone, Debug)]
enum Purpose {
    Acquire { att: u64 },
    Wait { att: u64 },
    Renew { hold: u64 },
    Release,
    GetForRelease { dest: Dest },
    Abandon,
    Lib { exec: u64 },
    Read,
    Write,
}

#[derive(Clone, Debug)]
struct Attempt {
    id: u64,
    start_local: i64,
    token: String,
    outstanding: usize,
    ok: usize,
    fence: Option<i64>,
}

/// The client's belief: it holds the lock with this token.
#[derive(Clone, Debug)]
pub struct Hold {
    pub id: u64,
    pub token: String,
    pub fence: Option<i64>,
    pub valid_until_local: Option<i64>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum LibOp {
    Acquire,
    Extend,
    Release,
}

#[derive(Clone, Debug)]
struct Exec {
    id: u64,
    op: LibOp,
    attempts: u32,
    votes_for: usize,
    votes_against: usize,
    resolved: bool,
    start_local: i64,
}

#[derive(Clone, Debug, Default)]
struct LibState {
    exec: Option<Exec>,
    token: String,
    acquire_start_local: i64,
    expiration_local: i64,
    aborted: bool,
    ext_gen: u64,
    ext_in_flight: bool,
    release_after_ext: bool,
}

#[derive(Clone, Debug)]
pub struct Client {
    pub cfg: Arc<ClientCfg>,
    seed: u64,
    rng: SimRng,
    phase: Phase,
    next_id: u64,
    attempts: u32,
    att: Option<Attempt>,
    hold: Option<Hold>,
    pc: usize,
    step_gen: u64,
    reads: BTreeMap<String, (Option<String>, u64)>,
    pending: BTreeMap<u64, Purpose>,
    release_outstanding: usize,
    release_token: String,
    lib: LibState,
    cycles: u32,
}

fn b(s: &str) -> Vec<u8> {
    s.as_bytes().to_vec()
}

fn is_ok(r: &Reply) -> bool {
    matches!(r, Reply::Status(s) if s == "OK")
}

impl Client {
    pub fn new(cfg: Arc<ClientCfg>, seed: u64) -> Client {
        Client {
            cfg,
            seed,
            rng: SimRng::new(seed),
            phase: Phase::Idle,
            next_id: 0,
            attempts: 0,
            att: None,
            hold: None,
            pc: 0,
            step_gen: 0,
            reads: BTreeMap::new(),
            pending: BTreeMap::new(),
            release_outstanding: 0,
            release_token: String::new(),
            lib: LibState::default(),
            cycles: 0,
        }
    }

    /// A fresh program (after a restart): same configuration, next random stream.
    pub fn restarted(&self, incarnation: u32) -> Client {
        let seed = super::rng::mix64(self.seed ^ u64::from(incarnation));
        Client::new(self.cfg.clone(), seed)
    }

    pub fn phase(&self) -> Phase {
        self.phase
    }

    pub fn hold(&self) -> Option<&Hold> {
        self.hold.as_ref()
    }

    fn id(&mut self) -> u64 {
        self.next_id += 1;
        self.next_id
    }

    fn lock_lost(&mut self, reason: Reason, out: &mut Vec<Action>) {
        if self.hold.take().is_some() {
            out.push(Action::Trace(TraceKind::LockLost {
                lock: self.cfg.lock.clone(),
                reason,
            }));
        }
    }

    /// The process died: it believes nothing any more.
    pub fn crash(&mut self, out: &mut Vec<Action>) {
        self.lock_lost(Reason::Crashed, out);
        self.phase = Phase::Crashed;
    }

    /// One cycle is over: start the next, or stop.
    fn done(&mut self, out: &mut Vec<Action>) {
        self.cycles += 1;
        if self.cycles < self.cfg.repeat {
            self.phase = Phase::Idle;
            self.attempts = 0;
            self.att = None;
            self.hold = None;
            self.pc = 0;
            self.reads.clear();
            self.release_outstanding = 0;
            // Generations stay monotonic so stale timers never match the new cycle.
            let ext_gen = self.lib.ext_gen;
            self.lib = LibState {
                ext_gen,
                ..LibState::default()
            };
            out.push(Action::Timer {
                after_local_us: 0,
                timer: Timer::Start,
            });
        } else {
            self.phase = Phase::Done;
        }
    }

    fn send(&mut self, dest: Dest, args: Vec<Vec<u8>>, purpose: Purpose, out: &mut Vec<Action>) {
        let req = self.id();
        self.pending.insert(req, purpose);
        out.push(Action::Cmd { dest, req, args });
        if let Some(t) = self.cfg.timeout_us {
            out.push(Action::Timer {
                after_local_us: t,
                timer: Timer::ReqTimeout(req),
            });
        }
    }

    fn eval(script: &str, keys: &[&str], args: &[String]) -> Vec<Vec<u8>> {
        let mut v = vec![b("EVAL"), b(script), b(&keys.len().to_string())];
        v.extend(keys.iter().map(|k| b(k)));
        v.extend(args.iter().map(|a| b(a)));
        v
    }

    /// Whether a timer still matters (stale ones, e.g. the timeout of an answered
    /// request, are skipped without a trace entry).
    pub fn is_live(&self, t: &Timer) -> bool {
        match t {
            Timer::Start => self.phase == Phase::Idle,
            Timer::Retry(id) => {
                self.phase == Phase::Acquiring && self.att.as_ref().map(|a| a.id) == Some(*id)
            }
            Timer::ReqTimeout(req) => self.pending.contains_key(req),
            Timer::Validity(h) | Timer::Renew(h) => self.hold.as_ref().map(|x| x.id) == Some(*h),
            Timer::Step(g) => *g == self.step_gen && self.phase == Phase::Working,
            Timer::LibRetry(e) => self.lib.exec.as_ref().map(|x| x.id) == Some(*e),
            Timer::LibExtend(g) => *g == self.lib.ext_gen && self.phase == Phase::Working,
        }
    }

    pub fn handle(&mut self, ctx: &ClientCtx, input: Input, out: &mut Vec<Action>) {
        match input {
            Input::Timer(t) => self.on_timer(ctx, t, out),
            Input::Reply { req, reply } => {
                if let Some(p) = self.pending.remove(&req) {
                    self.on_result(ctx, p, reply, out);
                }
            }
            Input::Res { req, reply } => {
                if let Some(p) = self.pending.remove(&req) {
                    self.on_res(ctx, p, reply, out);
                }
            }
        }
    }

    fn on_timer(&mut self, ctx: &ClientCtx, t: Timer, out: &mut Vec<Action>) {
        match t {
            Timer::Start => {
                if self.phase != Phase::Idle {
                    return;
                }
                out.push(Action::Trace(TraceKind::Start));
                match self.cfg.algorithm {
                    Algorithm::None => self.begin_work(ctx, out),
                    Algorithm::Library => {
                        self.phase = Phase::Acquiring;
                        self.lib.token = self.rng.token();
                        self.lib.acquire_start_local = ctx.now_local_us;
                        self.lib_exec(ctx, LibOp::Acquire, out);
                    }
                    _ => {
                        self.phase = Phase::Acquiring;
                        self.begin_attempt(ctx, out);
                    }
                }
            }
            Timer::Retry(id) => {
                if self.phase == Phase::Acquiring && self.att.as_ref().map(|a| a.id) == Some(id) {
                    self.begin_attempt(ctx, out);
                }
            }
            Timer::ReqTimeout(req) => {
                if let Some(p) = self.pending.remove(&req) {
                    self.on_result(ctx, p, Reply::Error("timeout".to_string()), out);
                }
            }
            Timer::Validity(hold) => {
                if self.hold.as_ref().map(|h| h.id) == Some(hold) {
                    self.lock_lost(Reason::ValidityEnded, out);
                    self.done(out);
                }
            }
            Timer::Renew(hold) => {
                if let Some(h) = &self.hold {
                    if h.id == hold && self.phase == Phase::Working {
                        let args = Self::eval(
                            &self.cfg.scripts.extend,
                            &[&self.cfg.lock],
                            &[h.token.clone(), self.cfg.ttl_ms.to_string()],
                        );
                        if let Some(&dest) = self.cfg.dests.first() {
                            self.send(dest, args, Purpose::Renew { hold }, out);
                        }
                        // Fixed rate: every ttl/3, whether or not the last one answered.
                        out.push(Action::Timer {
                            after_local_us: self.cfg.ttl_ms * 1000 / 3,
                            timer: Timer::Renew(hold),
                        });
                    }
                }
            }
            Timer::Step(gen) => {
                if gen == self.step_gen && self.phase == Phase::Working {
                    self.pc += 1;
                    self.next_step(ctx, out);
                }
            }
            Timer::LibRetry(exec) => {
                if self.lib.exec.as_ref().map(|e| e.id) == Some(exec) {
                    self.lib_attempt(out);
                }
            }
            Timer::LibExtend(gen) => {
                if gen == self.lib.ext_gen && self.phase == Phase::Working && !self.lib.aborted {
                    if self.lib.expiration_local < ctx.now_local_us {
                        // "Cannot extend an already-expired lock."
                        self.lib_abort(out);
                    } else {
                        self.lib.ext_in_flight = true;
                        self.lib_exec(ctx, LibOp::Extend, out);
                    }
                }
            }
        }
    }

    // ---- set-nx and Redlock -------------------------------------------------------

    fn begin_attempt(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.attempts += 1;
        let id = self.id();
        let token = self.rng.token();
        let cfg = self.cfg.clone();
        let ttl = cfg.ttl_ms.to_string();
        let args = if cfg.fencing {
            Self::eval(
                &cfg.scripts.acquire_fenced,
                &[&cfg.lock, &cfg.fence_key],
                &[token.clone(), ttl],
            )
        } else {
            vec![b("SET"), b(&cfg.lock), b(&token), b("NX"), b("PX"), b(&ttl)]
        };
        let targets: Vec<Dest> = match cfg.algorithm {
            Algorithm::SetNx => cfg.dests.iter().take(1).copied().collect(),
            _ => cfg.dests.clone(),
        };
        self.att = Some(Attempt {
            id,
            start_local: ctx.now_local_us,
            token,
            outstanding: targets.len(),
            ok: 0,
            fence: None,
        });
        for d in targets {
            self.send(d, args.clone(), Purpose::Acquire { att: id }, out);
        }
    }

    fn on_result(&mut self, ctx: &ClientCtx, p: Purpose, reply: Reply, out: &mut Vec<Action>) {
        match p {
            Purpose::Acquire { att } => {
                let fencing = self.cfg.fencing;
                let Some(a) = self.att.as_mut().filter(|a| a.id == att) else {
                    return;
                };
                a.outstanding = a.outstanding.saturating_sub(1);
                match &reply {
                    r if !fencing && is_ok(r) => a.ok += 1,
                    Reply::Int(n) if fencing && *n > 0 => {
                        a.ok += 1;
                        a.fence = Some(*n);
                    }
                    _ => {}
                }
                if a.outstanding == 0 && self.phase == Phase::Acquiring {
                    self.decide(ctx, out);
                }
            }
            Purpose::Wait { att } => {
                if self.phase != Phase::Acquiring || self.att.as_ref().map(|a| a.id) != Some(att) {
                    return;
                }
                let want = self.cfg.wait.map(|w| w.0).unwrap_or(0);
                match reply {
                    Reply::Int(k) if k >= i64::from(want) => self.held(ctx, out),
                    other => {
                        self.abandon(out);
                        let why = match other {
                            Reply::Int(acked) => Reason::WaitAcked { acked, want },
                            other => Reason::WaitReply {
                                reply: crate::store::render_line(&other),
                            },
                        };
                        self.attempt_failed(why, out);
                    }
                }
            }
            Purpose::Renew { hold } => {
                if self.hold.as_ref().map(|h| h.id) != Some(hold) {
                    return;
                }
                // Renewed, or the request failed: the next renewal is already
                // scheduled (a failed one is only logged, as Redisson does).
                if reply == Reply::Int(0) {
                    self.lock_lost(Reason::RenewalReturned0, out);
                    self.done(out);
                }
            }
            Purpose::GetForRelease { dest } => {
                if matches!(&reply, Reply::Bulk(v) if *v == self.release_token.as_bytes()) {
                    // Not atomic: between this GET and the DEL anything can happen.
                    let args = vec![b("DEL"), b(&self.cfg.lock)];
                    self.send(dest, args, Purpose::Release, out);
                } else {
                    self.release_done(out);
                }
            }
            Purpose::Release => self.release_done(out),
            Purpose::Abandon => {}
            Purpose::Lib { exec } => self.lib_vote(ctx, exec, &reply, out),
            Purpose::Read | Purpose::Write => {}
        }
    }

    fn decide(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        let Some(a) = self.att.clone() else { return };
        let cfg = self.cfg.clone();
        match cfg.algorithm {
            Algorithm::SetNx => {
                if a.ok == 0 {
                    self.attempt_failed(Reason::LockTaken, out);
                } else if let (Some((want, timeout_ms)), Some(&dest)) = (cfg.wait, cfg.dests.first()) {
                    let args = vec![b("WAIT"), b(&want.to_string()), b(&timeout_ms.to_string())];
                    // WAIT blocks for its own timeout; do not let the request timeout
                    // cut it short.
                    let req = self.id();
                    self.pending.insert(req, Purpose::Wait { att: a.id });
                    out.push(Action::Cmd { dest, req, args });
                } else {
                    self.held(ctx, out);
                }
            }
            _ => {
                let elapsed_ms = (ctx.now_local_us - a.start_local).max(0) / 1000;
                let validity_ms = super::validity_ms(cfg.ttl_ms, elapsed_ms as u64, cfg.drift_factor);
                let quorum = a.ok >= cfg.quorum();
                let checked = cfg.algorithm == Algorithm::Redlock;
                if quorum && (!checked || validity_ms > 0) {
                    self.held(ctx, out);
                } else {
                    self.abandon(out);
                    let why = if quorum {
                        Reason::NoValidity {
                            validity_ms,
                            elapsed_ms,
                        }
                    } else {
                        Reason::Nodes {
                            ok: a.ok,
                            all: cfg.dests.len(),
                        }
                    };
                    self.attempt_failed(why, out);
                }
            }
        }
    }

    /// Release a failed attempt's keys on every node (even those that seemed to fail).
    fn abandon(&mut self, out: &mut Vec<Action>) {
        let Some(a) = self.att.clone() else { return };
        let args = Self::eval(&self.cfg.scripts.release, &[&self.cfg.lock], &[a.token]);
        let targets: Vec<Dest> = match self.cfg.algorithm {
            Algorithm::SetNx => self.cfg.dests.iter().take(1).copied().collect(),
            _ => self.cfg.dests.clone(),
        };
        for d in targets {
            let req = self.id();
            self.pending.insert(req, Purpose::Abandon);
            out.push(Action::Cmd {
                dest: d,
                req,
                args: args.clone(),
            });
        }
    }

    fn attempt_failed(&mut self, why: Reason, out: &mut Vec<Action>) {
        out.push(Action::Trace(TraceKind::AcquireFailed {
            lock: self.cfg.lock.clone(),
            reason: why,
        }));
        if self.attempts >= self.cfg.max_attempts {
            out.push(Action::Trace(TraceKind::GaveUp {
                lock: self.cfg.lock.clone(),
            }));
            self.done(out);
            return;
        }
        let delay = self.rng.range_u64(self.cfg.retry_lo_us, self.cfg.retry_hi_us);
        let id = self.att.as_ref().map(|a| a.id).unwrap_or(0);
        out.push(Action::Timer {
            after_local_us: delay,
            timer: Timer::Retry(id),
        });
    }

    fn held(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        let Some(a) = self.att.clone() else { return };
        let cfg = self.cfg.clone();
        let valid_until_local = if cfg.check_validity {
            let end = a.start_local + cfg.validity_ms(0) * 1000;
            if end <= ctx.now_local_us {
                self.abandon(out);
                self.attempt_failed(Reason::ValidityAlreadyOver, out);
                return;
            }
            Some(end)
        } else {
            None
        };
        let id = self.id();
        self.hold = Some(Hold {
            id,
            token: a.token.clone(),
            fence: a.fence,
            valid_until_local,
        });
        out.push(Action::Trace(TraceKind::LockHeld {
            lock: cfg.lock.clone(),
            token: a.token,
            fence: a.fence,
            valid_until_us: valid_until_local.map(|l| ctx.true_at(l)),
        }));
        if let Some(end) = valid_until_local {
            out.push(Action::Timer {
                after_local_us: (end - ctx.now_local_us).max(0) as u64,
                timer: Timer::Validity(id),
            });
        }
        if cfg.watchdog {
            // Renewals every ttl/3 counted from when the acquisition started.
            let first = a.start_local + (cfg.ttl_ms * 1000 / 3) as i64;
            out.push(Action::Timer {
                after_local_us: (first - ctx.now_local_us).max(0) as u64,
                timer: Timer::Renew(id),
            });
        }
        self.begin_work(ctx, out);
    }

    // ---- work -----------------------------------------------------------------------

    fn begin_work(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.phase = Phase::Working;
        self.pc = 0;
        self.next_step(ctx, out);
    }

    fn next_step(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        loop {
            if self.phase != Phase::Working {
                return;
            }
            if self.cfg.algorithm == Algorithm::Library && self.lib.aborted {
                // The routine checks the signal between steps and stops.
                self.end_work(ctx, out);
                return;
            }
            let Some(step) = self.cfg.work.get(self.pc).cloned() else {
                out.push(Action::Trace(TraceKind::WorkDone));
                self.end_work(ctx, out);
                return;
            };
            match step {
                Step::Sleep { lo_us, hi_us } => {
                    self.step_gen += 1;
                    let d = self.rng.range_u64(lo_us, hi_us.max(lo_us));
                    out.push(Action::Timer {
                        after_local_us: d,
                        timer: Timer::Step(self.step_gen),
                    });
                    return;
                }
                Step::SleepLogNormal { median_us, p99_us } => {
                    self.step_gen += 1;
                    let d = log_normal_us(&mut self.rng, median_us, p99_us);
                    out.push(Action::Timer {
                        after_local_us: d,
                        timer: Timer::Step(self.step_gen),
                    });
                    return;
                }
                Step::Crash => {
                    out.push(Action::CrashSelf);
                    return;
                }
                Step::Read(key) => {
                    let req = self.id();
                    self.pending.insert(req, Purpose::Read);
                    out.push(Action::Res {
                        req,
                        op: ResOp::Read { key },
                    });
                    return;
                }
                Step::Expect(key, value) => {
                    let seen = self.reads.get(&key).and_then(|r| r.0.clone());
                    if seen.as_deref() != Some(value.as_str()) {
                        out.push(Action::Trace(TraceKind::WorkSkipped {
                            reason: Reason::Expected {
                                key,
                                seen,
                                want: value,
                            },
                        }));
                        self.end_work(ctx, out);
                        return;
                    }
                    self.pc += 1;
                }
                Step::Claim { ttl_us } => {
                    let Some(key) = self.cfg.idempotency_key.clone() else {
                        // Nothing to claim (the loader refuses this; skip the step).
                        self.pc += 1;
                        continue;
                    };
                    let req = self.id();
                    self.pending.insert(req, Purpose::Write);
                    out.push(Action::Res {
                        req,
                        op: ResOp::Claim { key, ttl_us },
                    });
                    return;
                }
                Step::Write(key, value) => {
                    let req = self.id();
                    self.pending.insert(req, Purpose::Write);
                    let base_version = self.reads.get(&key).map(|r| r.1);
                    out.push(Action::Res {
                        req,
                        op: ResOp::Write {
                            key,
                            value,
                            token: self.hold.as_ref().and_then(|h| h.fence),
                            idempotency_key: self.cfg.idempotency_key.clone(),
                            base_version,
                        },
                    });
                    return;
                }
            }
        }
    }

    fn on_res(&mut self, ctx: &ClientCtx, p: Purpose, reply: ResReply, out: &mut Vec<Action>) {
        if self.phase != Phase::Working {
            return;
        }
        match (p, reply) {
            (Purpose::Read, ResReply::Read { value, version }) => {
                if let Some(Step::Read(key)) = self.cfg.work.get(self.pc).cloned() {
                    self.reads.insert(key, (value, version));
                }
                self.pc += 1;
                self.next_step(ctx, out);
            }
            (Purpose::Write, ResReply::Accepted) => {
                self.pc += 1;
                self.next_step(ctx, out);
            }
            (Purpose::Write, ResReply::Rejected { .. }) => {
                // The resource refused: stop the work.
                self.end_work(ctx, out);
            }
            _ => {}
        }
    }

    fn end_work(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        match self.cfg.algorithm {
            Algorithm::None => self.done(out),
            Algorithm::Library => {
                // `finally`: stop the extension timer, wait for one in flight, release.
                self.lib.ext_gen += 1;
                self.phase = Phase::Releasing;
                if self.lib.ext_in_flight {
                    self.lib.release_after_ext = true;
                } else {
                    self.lib_release(ctx, out);
                }
            }
            _ => self.release(out),
        }
    }

    fn release(&mut self, out: &mut Vec<Action>) {
        let Some(h) = self.hold.take() else {
            self.done(out);
            return;
        };
        out.push(Action::Trace(TraceKind::LockReleased {
            lock: self.cfg.lock.clone(),
        }));
        self.phase = Phase::Releasing;
        self.release_token = h.token.clone();
        let cfg = self.cfg.clone();
        let targets: Vec<Dest> = match cfg.algorithm {
            Algorithm::SetNx => cfg.dests.iter().take(1).copied().collect(),
            _ => cfg.dests.clone(),
        };
        self.release_outstanding = 0;
        for d in targets {
            let (args, purpose) = match cfg.release {
                ReleaseKind::None => continue,
                ReleaseKind::Del => (vec![b("DEL"), b(&cfg.lock)], Purpose::Release),
                ReleaseKind::Lua => (
                    Self::eval(&cfg.scripts.release, &[&cfg.lock], std::slice::from_ref(&h.token)),
                    Purpose::Release,
                ),
                ReleaseKind::GetThenDel => (vec![b("GET"), b(&cfg.lock)], Purpose::GetForRelease { dest: d }),
            };
            self.release_outstanding += 1;
            self.send(d, args, purpose, out);
        }
        if self.release_outstanding == 0 {
            self.done(out);
        }
    }

    fn release_done(&mut self, out: &mut Vec<Action>) {
        self.release_outstanding = self.release_outstanding.saturating_sub(1);
        if self.release_outstanding == 0 && self.phase == Phase::Releasing {
            self.done(out);
        }
    }

    // ---- library: using() -----------------------------------------------------------

    fn lib_script(&self, op: LibOp) -> &str {
        match op {
            LibOp::Acquire => &self.cfg.scripts.lib_acquire,
            LibOp::Extend => &self.cfg.scripts.lib_extend,
            LibOp::Release => &self.cfg.scripts.lib_release,
        }
    }

    fn lib_exec(&mut self, ctx: &ClientCtx, op: LibOp, out: &mut Vec<Action>) {
        let id = self.id();
        self.lib.exec = Some(Exec {
            id,
            op,
            attempts: 0,
            votes_for: 0,
            votes_against: 0,
            resolved: false,
            start_local: ctx.now_local_us,
        });
        self.lib_attempt(out);
    }

    /// One attempt: the script on every node; votes are counted as they come in.
    fn lib_attempt(&mut self, out: &mut Vec<Action>) {
        let Some(e) = self.lib.exec.as_mut() else { return };
        e.attempts += 1;
        e.votes_for = 0;
        e.votes_against = 0;
        e.resolved = false;
        let op = e.op;
        let id = self.id();
        if let Some(e) = self.lib.exec.as_mut() {
            // Votes carry the attempt id: late votes of an earlier attempt are ignored.
            e.id = id;
        }
        let args = match op {
            LibOp::Release => vec![self.lib.token.clone()],
            _ => vec![self.lib.token.clone(), self.cfg.ttl_ms.to_string()],
        };
        let eval = Self::eval(self.lib_script(op), &[&self.cfg.lock], &args);
        for d in self.cfg.dests.clone() {
            self.send(d, eval.clone(), Purpose::Lib { exec: id }, out);
        }
    }

    fn lib_vote(&mut self, ctx: &ClientCtx, exec: u64, reply: &Reply, out: &mut Vec<Action>) {
        let quorum = self.cfg.quorum();
        let Some(e) = self.lib.exec.as_mut().filter(|e| e.id == exec && !e.resolved) else {
            return;
        };
        // "for" only when the script touched every requested key (here: one).
        if matches!(reply, Reply::Int(1)) {
            e.votes_for += 1;
        } else {
            e.votes_against += 1;
        }
        if e.votes_for == quorum {
            e.resolved = true;
            let e = e.clone();
            self.lib_success(ctx, &e, out);
        } else if e.votes_against == quorum {
            e.resolved = true;
            let e = e.clone();
            if e.attempts < self.cfg.lib.retry_count.saturating_add(1) {
                let l = &self.cfg.lib;
                let jitter = ((self.rng.unit() * 2.0 - 1.0) * l.retry_jitter_ms as f64).floor() as i64;
                let delay_ms = (l.retry_delay_ms as i64 + jitter).max(0) as u64;
                out.push(Action::Timer {
                    after_local_us: delay_ms * 1000,
                    timer: Timer::LibRetry(e.id),
                });
            } else {
                self.lib_failed(ctx, &e, out);
            }
        } else if e.votes_for + e.votes_against == self.cfg.dests.len() {
            // An even split: every vote is in and neither side has a quorum. node-redlock
            // settles an attempt only on a quorum for or against, so it never settles:
            // no retry, no release of the partial keys, the caller waits forever.
            out.push(Action::Trace(TraceKind::Stalled {
                lock: self.cfg.lock.clone(),
                votes_for: e.votes_for as u32,
                votes_against: e.votes_against as u32,
            }));
        }
    }

    fn lib_success(&mut self, ctx: &ClientCtx, e: &Exec, out: &mut Vec<Action>) {
        // node-redlock's expiration: the start of the attempt + TTL − drift.
        let validity_us = self.cfg.validity_ms(0) * 1000;
        self.lib.exec = None;
        match e.op {
            LibOp::Acquire => {
                self.lib.expiration_local = self.lib.acquire_start_local + validity_us;
                let id = self.id();
                self.hold = Some(Hold {
                    id,
                    token: self.lib.token.clone(),
                    fence: None,
                    valid_until_local: Some(self.lib.expiration_local),
                });
                out.push(Action::Trace(TraceKind::LockHeld {
                    lock: self.cfg.lock.clone(),
                    token: self.lib.token.clone(),
                    fence: None,
                    valid_until_us: Some(ctx.true_at(self.lib.expiration_local)),
                }));
                self.lib_queue_extension(ctx, out);
                self.begin_work(ctx, out);
            }
            LibOp::Extend => {
                self.lib.ext_in_flight = false;
                self.lib.expiration_local = e.start_local + validity_us;
                if let Some(h) = self.hold.as_mut() {
                    h.valid_until_local = Some(self.lib.expiration_local);
                }
                if self.lib.release_after_ext {
                    self.lib_release(ctx, out);
                } else {
                    self.lib_queue_extension(ctx, out);
                }
            }
            LibOp::Release => self.done(out),
        }
    }

    fn lib_failed(&mut self, ctx: &ClientCtx, e: &Exec, out: &mut Vec<Action>) {
        self.lib.exec = None;
        match e.op {
            LibOp::Acquire => {
                // Release any partial state on a minority, then give up.
                let args = Self::eval(
                    &self.cfg.scripts.lib_release,
                    &[&self.cfg.lock],
                    std::slice::from_ref(&self.lib.token),
                );
                for d in self.cfg.dests.clone() {
                    let req = self.id();
                    self.pending.insert(req, Purpose::Abandon);
                    out.push(Action::Cmd {
                        dest: d,
                        req,
                        args: args.clone(),
                    });
                }
                out.push(Action::Trace(TraceKind::AcquireFailed {
                    lock: self.cfg.lock.clone(),
                    reason: Reason::NoQuorumInRetryWindow,
                }));
                out.push(Action::Trace(TraceKind::GaveUp {
                    lock: self.cfg.lock.clone(),
                }));
                self.done(out);
            }
            LibOp::Extend => {
                self.lib.ext_in_flight = false;
                if self.lib.release_after_ext {
                    self.lib_release(ctx, out);
                } else if self.lib.expiration_local > ctx.now_local_us {
                    self.lib.ext_in_flight = true;
                    self.lib_exec(ctx, LibOp::Extend, out);
                } else {
                    self.lib_abort(out);
                }
            }
            LibOp::Release => self.done(out),
        }
    }

    fn lib_queue_extension(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.lib.ext_gen += 1;
        let at = self.lib.expiration_local - self.cfg.lib.threshold_ms as i64 * 1000;
        out.push(Action::Timer {
            after_local_us: (at - ctx.now_local_us).max(0) as u64,
            timer: Timer::LibExtend(self.lib.ext_gen),
        });
    }

    fn lib_abort(&mut self, out: &mut Vec<Action>) {
        self.lib.aborted = true;
        self.lock_lost(Reason::ExtensionFailed, out);
    }

    fn lib_release(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.lib.release_after_ext = false;
        if self.hold.take().is_some() {
            out.push(Action::Trace(TraceKind::LockReleased {
                lock: self.cfg.lock.clone(),
            }));
        }
        self.phase = Phase::Releasing;
        self.lib_exec(ctx, LibOp::Release, out);
    }
}

/// z of the standard normal distribution's 99th percentile.
const Z_P99: f64 = 2.326_347_874;

/// A log-normal draw (µs) with the given median and 99th percentile, by Box–Muller
/// from the client's own seeded RNG; capped at 20 × p99 so one draw cannot stall a run.
fn log_normal_us(rng: &mut SimRng, median_us: u64, p99_us: u64) -> u64 {
    let median = median_us.max(1) as f64;
    let p99 = (p99_us as f64).max(median);
    // libm, not the platform's maths library: the same bits natively and in wasm.
    let sigma = libm::log(p99 / median) / Z_P99;
    let u1 = 1.0 - rng.unit(); // (0, 1]: ln is finite
    let u2 = rng.unit();
    let z = (-2.0 * libm::log(u1)).sqrt() * libm::cos(std::f64::consts::TAU * u2);
    let d = median * libm::exp(sigma * z);
    d.clamp(0.0, 20.0 * p99) as u64
}
