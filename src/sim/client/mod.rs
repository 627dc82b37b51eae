//! Clients: each runs one lock algorithm and then a piece of work against the resource.
//!
//! A client is a deterministic state machine. The world feeds it [`Input`]s (start,
//! replies, timer firings) at its local time and applies the [`Action`]s it returns
//! (send a command, send a resource request, set a timer, record a trace event). It
//! never sees true time except through `ClientCtx` to label trace events.
//!
//! Each algorithm in a file of its own: `redlock.rs` (SET NX PX on one node, or Redlock
//! on every master), `watchdog.rs` (renewals while working), `library.rs` (a Redlock
//! library's `using()`), and `work.rs` (the work against the resource, and the release).

mod library;
mod redlock;
mod watchdog;
mod work;

use super::clock::Clock;
use super::fact::{Reason, TimerName};
use super::rng::SimRng;
use super::scenario::definition::{Algorithm, ReleaseKind};
use super::scripts::Scripts;
use super::trace::TraceKind;
use crate::store::Reply;
use crate::vecmap::VecMap;
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
    reads: VecMap<String, (Option<String>, u64)>,
    pending: VecMap<u64, Purpose>,
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
            reads: VecMap::new(),
            pending: VecMap::new(),
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
            Timer::Renew(hold) => self.renew(hold, out),
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
