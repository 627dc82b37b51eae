//! The scenario format: the types a TOML file reads into ([`Scenario`] and its parts), with
//! their defaults and the limits a file is checked against. The module docs of
//! `sim::scenario` show a whole file.

use crate::sim::caption::CaptionSpec;
use crate::sim::checker::Rules;
pub use crate::sim::persistence::Persistence;
use crate::sim::scripts::Scripts;
use crate::vecmap::VecMap;
use serde::{Deserialize, Serialize};

/// Upper bound on any time in a scenario: one simulated day. Keeps µs arithmetic far
/// from overflow and runs finite.
pub const MAX_TIME_MS: f64 = 86_400_000.0;

/// The largest scenario file: the biggest built-in is about 5 KB.
pub const MAX_SOURCE_BYTES: usize = 64 * 1024;
/// The most TTLs a trade-off table compares (the UI reruns the scenario once per TTL).
pub const MAX_SWEEP_TTLS: usize = 16;
/// The largest script a scenario may give in `[scripts]`.
pub const MAX_SCRIPT_BYTES: usize = 16 * 1024;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Scenario {
    /// Its id: in links (`?scenario=unsafe-del`), pack files and the command line.
    pub name: String,
    /// What a learner reads for it (the panel's picker and head): "unconditional DEL".
    /// Empty: the name is shown.
    #[serde(default)]
    pub title: String,
    /// The title in other languages, by language code (`[titles] nb = "…"`).
    #[serde(default)]
    pub titles: VecMap<String, String>,
    #[serde(default)]
    pub description: String,
    /// The description in other languages, by language code (`[descriptions] nb = "…"`).
    #[serde(default)]
    pub descriptions: VecMap<String, String>,
    /// Syllabus section this scenario belongs to (for the lesson UI).
    #[serde(default)]
    pub section: u32,
    /// The run stops at this true time.
    #[serde(default = "default_end_ms")]
    pub end_ms: f64,
    #[serde(default)]
    pub network: NetworkSpec,
    #[serde(default)]
    pub links: Vec<LinkSpec>,
    #[serde(default)]
    pub nodes: Vec<NodeSpec>,
    #[serde(default)]
    pub groups: Vec<GroupSpec>,
    #[serde(default)]
    pub resource: ResourceSpec,
    #[serde(default)]
    pub clients: Vec<ClientSpec>,
    #[serde(default)]
    pub faults: Vec<FaultSpec>,
    #[serde(default)]
    pub scripts: Scripts,
    /// What the run is expected to show; checked by the scenario tests, shown by the UI.
    #[serde(default)]
    pub expect: Option<Expect>,
    /// TTLs (ms) to compare in a trade-off table: the UI reruns the scenario once per
    /// value and shows overlaps and stale writes against the time the lock stayed stuck
    /// after a crash.
    #[serde(default)]
    pub sweep_ttl_ms: Vec<f64>,
    /// Sentences for the run's key moments, shown under the picture (`sim/caption.rs`).
    #[serde(default)]
    pub captions: Vec<CaptionSpec>,
}

impl Scenario {
    /// The title in the language with this code, else the default one, else the name.
    pub fn title_in(&self, code: &str) -> &str {
        self.titles
            .get(code)
            .filter(|t| !t.trim().is_empty())
            .or(Some(&self.title).filter(|t| !t.trim().is_empty()))
            .unwrap_or(&self.name)
    }

    /// The description in the language with this code, or the default one.
    pub fn description_in(&self, code: &str) -> &str {
        self.descriptions
            .get(code)
            .filter(|d| !d.trim().is_empty())
            .unwrap_or(&self.description)
    }
}

/// Serde for a number that is a fixed value or a `[lo, hi]` range. People write either
/// bare (`latency_ms = 5` or `latency_ms = [2, 9]`: untagged, in TOML and JSON); on the
/// wire (`crate::wire`, postcard, which cannot guess a variant) the variant is written out.
/// The untagged reader keeps the type's own name, so its error names the type.
macro_rules! fixed_or_range {
    ($t:ident, $forms:ident) => {
        mod $forms {
            use serde::{Deserialize, Serialize};
            #[derive(Serialize, Deserialize)]
            #[serde(untagged)]
            pub enum $t {
                Fixed(f64),
                Range([f64; 2]),
            }
            #[derive(Serialize, Deserialize)]
            pub enum Tagged {
                Fixed(f64),
                Range([f64; 2]),
            }
        }

        impl Serialize for $t {
            fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
                match (self, s.is_human_readable()) {
                    ($t::Fixed(x), true) => $forms::$t::Fixed(*x).serialize(s),
                    ($t::Range(r), true) => $forms::$t::Range(*r).serialize(s),
                    ($t::Fixed(x), false) => $forms::Tagged::Fixed(*x).serialize(s),
                    ($t::Range(r), false) => $forms::Tagged::Range(*r).serialize(s),
                }
            }
        }

        impl<'de> Deserialize<'de> for $t {
            fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
                Ok(if d.is_human_readable() {
                    match $forms::$t::deserialize(d)? {
                        $forms::$t::Fixed(x) => $t::Fixed(x),
                        $forms::$t::Range(r) => $t::Range(r),
                    }
                } else {
                    match $forms::Tagged::deserialize(d)? {
                        $forms::Tagged::Fixed(x) => $t::Fixed(x),
                        $forms::Tagged::Range(r) => $t::Range(r),
                    }
                })
            }
        }
    };
}

fn default_end_ms() -> f64 {
    60_000.0
}

/// A latency: a fixed number of ms, or `[lo, hi]` drawn uniformly per message.
#[derive(Clone, Debug, PartialEq)]
pub enum LatencySpec {
    Fixed(f64),
    Range([f64; 2]),
}
fixed_or_range!(LatencySpec, latency_forms);

impl Default for LatencySpec {
    fn default() -> Self {
        LatencySpec::Fixed(1.0)
    }
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NetworkSpec {
    #[serde(default)]
    pub latency_ms: LatencySpec,
    /// Probability that a message is lost.
    #[serde(default)]
    pub loss: f64,
}

/// Overrides for the link between two processes (both directions unless `oneway`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct LinkSpec {
    pub from: String,
    pub to: String,
    #[serde(default)]
    pub latency_ms: Option<LatencySpec>,
    #[serde(default)]
    pub loss: Option<f64>,
    #[serde(default)]
    pub oneway: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct NodeSpec {
    pub name: String,
    #[serde(default)]
    pub persistence: Persistence,
    /// Time from a command's arrival to its reply leaving the node.
    #[serde(default = "default_service_ms")]
    pub service_ms: f64,
    /// The node's clock reads true time plus this.
    #[serde(default)]
    pub clock_offset_ms: f64,
    /// Clock drift in percent (+2 = runs 2 % fast).
    #[serde(default)]
    pub drift_pct: f64,
    /// Commands run at time 0, before anything else (e.g. `["SET", "fence", "32"]`).
    #[serde(default)]
    pub init: Vec<Vec<String>>,
}

fn default_service_ms() -> f64 {
    1.0
}

/// A master with replicas (asynchronous replication) and optional failover.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct GroupSpec {
    /// Clients name the group to talk to whichever node is its master.
    pub name: String,
    pub master: String,
    pub replicas: Vec<String>,
    /// Delay before the master streams a write to its replicas.
    #[serde(default)]
    pub lag_ms: f64,
    /// Failover: time to notice the master is down, then to promote a replica.
    #[serde(default)]
    pub failover: Option<FailoverSpec>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FailoverSpec {
    pub detection_ms: f64,
    pub promotion_ms: f64,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize, Default)]
#[serde(rename_all = "kebab-case")]
pub enum Fencing {
    /// The resource ignores tokens.
    #[default]
    Off,
    /// Reject `token <= highest seen`.
    Strict,
    /// Reject only `token < highest seen` (the mistake: equal tokens pass).
    AllowEqual,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ResourceSpec {
    #[serde(default = "default_resource_name")]
    pub name: String,
    #[serde(default)]
    pub fencing: Fencing,
    /// Refuse a second write carrying the same idempotency key.
    #[serde(default)]
    pub idempotency: bool,
    /// Initial values (version 0).
    #[serde(default)]
    pub init: VecMap<String, String>,
    /// Keys whose writes are real-world effects (a charge, an email): the checker
    /// reports the same write accepted twice as a double effect.
    #[serde(default)]
    pub effects: Vec<String>,
}

impl ResourceSpec {
    /// What the checker needs to know about this resource.
    pub fn rules(&self) -> Rules {
        Rules {
            effects: self.effects.clone(),
            lease_ends_hold: false,
        }
    }
}

impl Default for ResourceSpec {
    fn default() -> Self {
        ResourceSpec {
            name: default_resource_name(),
            fencing: Fencing::Off,
            idempotency: false,
            init: VecMap::new(),
            effects: Vec::new(),
        }
    }
}

fn default_resource_name() -> String {
    "storage".to_string()
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum Algorithm {
    /// No lock: just the work.
    None,
    /// One node (or one replicated group): `SET key token NX PX ttl`, with options
    /// `release`, `check_validity`, `watchdog`, `wait`, `fencing`.
    SetNx,
    /// Redlock as specified: N independent masters, majority, validity check.
    Redlock,
    /// Redlock that skips the validity check (believes any majority).
    RedlockUnchecked,
    /// A Redlock library's `using()`: retries with jitter, early quorum, automatic
    /// extension, cooperative abort signal, release in `finally`.
    Library,
    /// A lab worker: its code is the learner's JavaScript, run outside the simulator
    /// (see `sim::lab` and docs/labs.md); the world only carries its commands.
    Lab,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum ReleaseKind {
    /// Plain `DEL key`: may delete someone else's lock.
    Del,
    /// The check-and-delete Lua script.
    Lua,
    /// `GET`, compare in the client, then `DEL`: not atomic.
    GetThenDel,
    /// Never release; let the TTL expire.
    None,
}

/// A retry delay: fixed ms, or `[lo, hi)` drawn uniformly.
#[derive(Clone, Debug, PartialEq)]
pub enum DelaySpec {
    Fixed(f64),
    Range([f64; 2]),
}
fixed_or_range!(DelaySpec, delay_forms);

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct WaitSpec {
    pub replicas: u32,
    pub timeout_ms: f64,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ClientSpec {
    pub name: String,
    pub algorithm: Algorithm,
    /// Node or group names the client talks to (one for `set-nx`, N for Redlock).
    #[serde(default)]
    pub nodes: Vec<String>,
    #[serde(default = "default_lock")]
    pub lock: String,
    #[serde(default)]
    pub start_ms: f64,
    #[serde(default = "default_ttl")]
    pub ttl_ms: f64,
    /// Per-node request timeout (none: wait forever, as a library without one does).
    #[serde(default)]
    pub timeout_ms: Option<f64>,
    #[serde(default = "default_drift_factor")]
    pub drift_factor: f64,
    /// `set-nx` and Redlock: delay between attempts. Library: `retryDelay`.
    #[serde(default)]
    pub retry_delay_ms: Option<DelaySpec>,
    /// `set-nx` and Redlock: give up after this many attempts.
    #[serde(default = "default_max_attempts")]
    pub max_attempts: u32,
    #[serde(default)]
    pub release: Option<ReleaseKind>,
    /// Treat the lock as lost at `start + ttl − D` by the client's own clock.
    #[serde(default)]
    pub check_validity: Option<bool>,
    /// Renew with the token-checked PEXPIRE script every ttl/3.
    #[serde(default)]
    pub watchdog: bool,
    /// After acquiring, `WAIT replicas timeout`; fewer acks ⇒ release and retry.
    #[serde(default)]
    pub wait: Option<WaitSpec>,
    /// Acquire with the fencing script and send the token with every write.
    #[serde(default)]
    pub fencing: bool,
    #[serde(default = "default_fence_key")]
    pub fence_key: String,
    /// Send this idempotency key with every write.
    #[serde(default)]
    pub idempotency_key: Option<String>,
    /// Library settings (node-redlock names and defaults).
    #[serde(default = "default_retry_count")]
    pub retry_count: u32,
    #[serde(default = "default_retry_jitter")]
    pub retry_jitter_ms: f64,
    #[serde(default = "default_threshold")]
    pub extension_threshold_ms: f64,
    /// Steps: `sleep 40`, `sleep 200..800`, `read KEY`, `expect KEY VALUE`,
    /// `write KEY VALUE`.
    #[serde(default)]
    pub work: Vec<String>,
    /// Run acquire → work → release this many times (a worker taking job after job).
    #[serde(default = "default_repeat")]
    pub repeat: u32,
    /// Clock offset and drift of the client's own machine.
    #[serde(default)]
    pub clock_offset_ms: f64,
    #[serde(default)]
    pub drift_pct: f64,
}

impl ClientSpec {
    /// Whether the client ends its belief at start + TTL − D by its own clock: as the file
    /// says, else only Redlock's default.
    pub fn checks_validity(&self) -> bool {
        self.check_validity
            .unwrap_or(self.algorithm == Algorithm::Redlock)
    }

    /// Whether the drift factor changes what the client does: it takes D off the TTL
    /// only where it checks validity, and a library's lock expires at start + TTL − D.
    pub fn uses_drift_factor(&self) -> bool {
        self.checks_validity() || self.algorithm == Algorithm::Library
    }
}

fn default_lock() -> String {
    "lock".to_string()
}
fn default_ttl() -> f64 {
    10_000.0
}
fn default_drift_factor() -> f64 {
    0.01
}
fn default_max_attempts() -> u32 {
    1_000
}
fn default_repeat() -> u32 {
    1
}
fn default_fence_key() -> String {
    "fence".to_string()
}
fn default_retry_count() -> u32 {
    10
}
fn default_retry_jitter() -> f64 {
    100.0
}
fn default_threshold() -> f64 {
    500.0
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(rename_all = "kebab-case")]
pub enum FaultOp {
    /// Pause a process (GC, VM stall) until `until_ms`.
    Pause,
    Resume,
    /// Crash a process; with `until_ms`, restart it then.
    Crash,
    Restart,
    /// Step the target's clock by `delta_ms`.
    ClockJump,
    /// Set the target's clock drift to `drift_pct`.
    Drift,
    /// Cut the link target↔peer (`peer = "*"`: every other process); with `until_ms`,
    /// repair it then.
    Partition,
    Repair,
    /// Set the latency of target↔peer to `latency_ms` (until `until_ms`, if given).
    Latency,
    /// An operator runs `command` directly on node `target`.
    Command,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct FaultSpec {
    pub at_ms: f64,
    pub op: FaultOp,
    pub target: String,
    #[serde(default)]
    pub until_ms: Option<f64>,
    #[serde(default)]
    pub peer: Option<String>,
    #[serde(default)]
    pub oneway: bool,
    #[serde(default)]
    pub delta_ms: Option<f64>,
    #[serde(default)]
    pub drift_pct: Option<f64>,
    #[serde(default)]
    pub latency_ms: Option<LatencySpec>,
    #[serde(default)]
    pub command: Option<Vec<String>>,
}

/// The expected outcome, checked by `tests/sim_scenarios.rs` within `tolerance_ms`.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Expect {
    #[serde(default = "default_tolerance")]
    pub tolerance_ms: f64,
    /// Exactly these violations (kind, clients in order, from, to).
    #[serde(default)]
    pub violations: Vec<ExpectViolation>,
    /// Exactly these rejected writes.
    #[serde(default)]
    pub rejected: Vec<ExpectRejected>,
    /// Number of accepted writes per key, when given.
    #[serde(default)]
    pub accepted_per_key: VecMap<String, u32>,
    /// When each listed client first believed it held the lock.
    #[serde(default)]
    pub first_held_ms: VecMap<String, f64>,
    /// Clients that must never hold the lock.
    #[serde(default)]
    pub never_held: Vec<String>,
    /// When each listed client first believed it held the lock, within `[lo, hi]`
    /// (for times that depend on random retry delays).
    #[serde(default)]
    pub first_held_range: VecMap<String, [f64; 2]>,
    /// Clients that must hold the lock at some point.
    #[serde(default)]
    pub eventually_held: Vec<String>,
    /// When each listed client first stopped believing without releasing (lost, aborted).
    #[serde(default)]
    pub lost_ms: VecMap<String, f64>,
    /// The validity end each listed client computed at its first acquisition.
    #[serde(default)]
    pub valid_until_ms: VecMap<String, f64>,
    /// After each holder crash, the lock was unavailable for at most this long.
    #[serde(default)]
    pub max_unavailable_ms: Option<f64>,
    /// Instead of an exact `violations` list: how many violations, `[lo, hi]` (for
    /// runs whose violations come from random work times).
    #[serde(default)]
    pub violations_between: Option<[u32; 2]>,
}

fn default_tolerance() -> f64 {
    5.0
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectViolation {
    pub kind: String,
    pub clients: Vec<String>,
    pub from_ms: f64,
    #[serde(default)]
    pub to_ms: Option<f64>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct ExpectRejected {
    pub client: String,
    #[serde(default)]
    pub token: Option<i64>,
    #[serde(default)]
    pub highest_seen: Option<i64>,
    pub at_ms: f64,
}
