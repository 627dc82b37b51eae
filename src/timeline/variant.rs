//! A learner's variant of a built-in scenario: knobs (TTL, drift factor, per-node
//! timeout, work time, N, retry delay, network latency) and replaced Lua scripts.
//! Applied to a copy of the scenario before a run, so the run itself stays a pure
//! function of (scenario, seed, faults).

use crate::lesson::i18n::{k, Key};
use crate::sim::scenario::{Algorithm, DelaySpec, LatencySpec, Persistence, Scenario};
use crate::store::{Reply, Store};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variant {
    pub ttl_ms: Option<f64>,
    pub drift_factor: Option<f64>,
    pub timeout_ms: Option<f64>,
    /// Median and p99 (ms) of every log-normal work step (`sleep MEDIAN~P99`).
    pub work_ms: Option<(f64, f64)>,
    /// N: how many independent masters the Redlock clients use (1 to [`MAX_N`]).
    pub nodes: Option<u32>,
    /// A fixed delay between attempts, for every client (library: `retryDelay`).
    pub retry_delay_ms: Option<f64>,
    /// The network's one-way latency on every link without an override.
    pub latency_ms: Option<f64>,
    /// How every node persists writes (what survives a crash and restart).
    pub persistence: Option<Persistence>,
    /// Retries after a failed first attempt (`set-nx`/Redlock: attempts − 1; library:
    /// `retryCount`).
    pub retries: Option<u32>,
    /// Library clients: `retryJitter` (the delay is `retryDelay ± jitter`).
    pub retry_jitter_ms: Option<f64>,
    /// Library clients: `automaticExtensionThreshold`.
    pub extension_threshold_ms: Option<f64>,
    pub release_script: Option<String>,
    pub extend_script: Option<String>,
}

impl Variant {
    pub fn is_empty(&self) -> bool {
        *self == Variant::default()
    }

    /// The scenario with this variant's changes, for every client.
    pub fn apply(&self, scenario: &Scenario) -> Scenario {
        let mut s = scenario.clone();
        for c in &mut s.clients {
            if let Some(t) = self.ttl_ms {
                c.ttl_ms = t;
            }
            if let Some(d) = self.drift_factor {
                c.drift_factor = d;
            }
            if let Some(t) = self.timeout_ms {
                c.timeout_ms = Some(t);
            }
            if let Some(d) = self.retry_delay_ms {
                c.retry_delay_ms = Some(DelaySpec::Fixed(d));
            }
            if let Some(r) = self.retries {
                c.max_attempts = r.saturating_add(1);
                c.retry_count = r;
            }
            if c.algorithm == Algorithm::Library {
                if let Some(j) = self.retry_jitter_ms {
                    c.retry_jitter_ms = j;
                }
                if let Some(t) = self.extension_threshold_ms {
                    c.extension_threshold_ms = t;
                }
            }
            if let Some((median, p99)) = self.work_ms {
                for step in &mut c.work {
                    if step.starts_with("sleep ") && step.contains('~') {
                        *step = format!("sleep {median}~{p99}");
                    }
                }
            }
        }
        if let Some(l) = self.latency_ms {
            s.network.latency_ms = LatencySpec::Fixed(l);
        }
        if let Some(n) = self.nodes {
            set_n(&mut s, n);
        }
        if let Some(p) = self.persistence {
            for node in &mut s.nodes {
                node.persistence = p;
            }
        }
        if let Some(r) = &self.release_script {
            s.scripts.release = r.clone();
        }
        if let Some(e) = &self.extend_script {
            s.scripts.extend = e.clone();
        }
        s
    }
}

/// The largest N the knob offers (the syllabus: 1 to 7).
pub const MAX_N: u32 = 7;

/// The most retries the knob takes (the built-ins retry up to 99 999 times: "until it
/// gets the lock").
pub const MAX_RETRIES: u32 = 1_000_000;

/// The values a knob takes, both ends included: one set, read by the knob editor
/// (which says the range when a value is outside it) and by a link's decoder (which
/// drops such a value).
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Bounds {
    pub lo: f64,
    pub hi: f64,
}

impl Bounds {
    pub fn contains(self, x: f64) -> bool {
        (self.lo..=self.hi).contains(&x)
    }
}

/// An hour, the longest time any knob takes.
const HOUR_MS: f64 = 3_600_000.0;

pub const TTL_MS: Bounds = Bounds { lo: 1.0, hi: HOUR_MS };
pub const DRIFT_FACTOR: Bounds = Bounds { lo: 0.0, hi: 0.5 };
pub const TIMEOUT_MS: Bounds = Bounds { lo: 0.0, hi: HOUR_MS };
pub const RETRY_DELAY_MS: Bounds = Bounds { lo: 0.0, hi: HOUR_MS };
pub const LATENCY_MS: Bounds = Bounds {
    lo: 0.0,
    hi: 60_000.0,
};
/// N, a whole number.
pub const NODES: Bounds = Bounds {
    lo: 1.0,
    hi: MAX_N as f64,
};
/// The work's median and its p99 (which is at least the median).
pub const WORK_MS: Bounds = Bounds { lo: 1.0, hi: HOUR_MS };
/// Retries, a whole number.
pub const RETRIES: Bounds = Bounds {
    lo: 0.0,
    hi: MAX_RETRIES as f64,
};
pub const RETRY_JITTER_MS: Bounds = Bounds { lo: 0.0, hi: HOUR_MS };
pub const EXTENSION_THRESHOLD_MS: Bounds = Bounds { lo: 0.0, hi: HOUR_MS };

/// A knob of the scenario panel's editor.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Knob {
    Ttl,
    DriftFactor,
    Timeout,
    RetryDelay,
    Latency,
    Nodes,
    WorkMedian,
    WorkP99,
    Retries,
    RetryJitter,
    ExtensionThreshold,
    Persistence,
}

impl Knob {
    /// Every knob, in the editor's order.
    pub const ALL: [Knob; 12] = [
        Knob::Ttl,
        Knob::DriftFactor,
        Knob::Timeout,
        Knob::RetryDelay,
        Knob::Latency,
        Knob::Nodes,
        Knob::WorkMedian,
        Knob::WorkP99,
        Knob::Retries,
        Knob::RetryJitter,
        Knob::ExtensionThreshold,
        Knob::Persistence,
    ];

    /// The key of its label in content/ui.toml (also the name a range error gives it).
    pub fn label_key(self) -> Key {
        match self {
            Knob::Ttl => k::KNOB_TTL,
            Knob::DriftFactor => k::KNOB_DRIFT,
            Knob::Timeout => k::KNOB_TIMEOUT,
            Knob::RetryDelay => k::KNOB_RETRY,
            Knob::Latency => k::KNOB_LATENCY,
            Knob::Nodes => k::KNOB_N,
            Knob::WorkMedian => k::KNOB_MEDIAN,
            Knob::WorkP99 => k::KNOB_P99,
            Knob::Retries => k::KNOB_RETRIES,
            Knob::RetryJitter => k::KNOB_JITTER,
            Knob::ExtensionThreshold => k::KNOB_THRESHOLD,
            Knob::Persistence => k::KNOB_AOF,
        }
    }

    /// Whether turning it changes a run of `s`: the editor offers only those.
    pub fn applies_to(self, s: &Scenario) -> bool {
        let locking = s.clients.iter().any(|c| c.algorithm != Algorithm::None);
        match self {
            Knob::Ttl | Knob::Timeout | Knob::RetryDelay | Knob::Retries => locking,
            Knob::DriftFactor => s.clients.iter().any(|c| c.uses_drift_factor()),
            // Every client reaches the storage service over the network.
            Knob::Latency => true,
            Knob::Nodes => redlock_nodes(s).is_some(),
            Knob::WorkMedian | Knob::WorkP99 => first_work(s).is_some(),
            Knob::RetryJitter | Knob::ExtensionThreshold => has_library(s),
            Knob::Persistence => !s.nodes.is_empty(),
        }
    }
}

/// The knobs the panel's editor offers for `s`, in its order.
pub fn knobs(s: &Scenario) -> Vec<Knob> {
    Knob::ALL.into_iter().filter(|k| k.applies_to(s)).collect()
}

/// Median and p99 of the scenario's first log-normal work step (`sleep MEDIAN~P99`), if
/// it has one: what the work knobs change.
pub fn first_work(s: &Scenario) -> Option<(f64, f64)> {
    s.clients.iter().flat_map(|c| &c.work).find_map(|w| {
        let (m, p) = w.strip_prefix("sleep ")?.split_once('~')?;
        Some((crate::decimal::parse(m.trim())?, crate::decimal::parse(p.trim())?))
    })
}

/// Whether the scenario has a Redlock library client (its retry jitter and extension
/// threshold are knobs).
pub fn has_library(s: &Scenario) -> bool {
    s.clients.iter().any(|c| c.algorithm == Algorithm::Library)
}

/// The node list the Redlock clients share, if the scenario has Redlock clients.
pub fn redlock_nodes(s: &Scenario) -> Option<Vec<String>> {
    s.clients
        .iter()
        .find(|c| {
            matches!(
                c.algorithm,
                Algorithm::Redlock | Algorithm::RedlockUnchecked | Algorithm::Library
            )
        })
        .map(|c| c.nodes.clone())
}

/// Give the Redlock clients `n` masters: drop the last ones (with the faults and link
/// overrides that name them) or add copies of the last one under fresh names.
fn set_n(s: &mut Scenario, n: u32) {
    let Some(old) = redlock_nodes(s) else { return };
    let n = n.clamp(1, MAX_N) as usize;
    let mut new: Vec<String> = old.iter().take(n).cloned().collect();
    let template = s.nodes.iter().find(|x| old.last() == Some(&x.name)).cloned();
    while new.len() < n {
        let Some(mut spec) = template.clone() else { return };
        spec.name = fresh_name(s, new.len());
        new.push(spec.name.clone());
        s.nodes.push(spec);
    }
    let dropped: Vec<String> = old.iter().filter(|x| !new.contains(x)).cloned().collect();
    let gone = |name: &str| dropped.iter().any(|d| d == name);
    for c in &mut s.clients {
        if c.nodes == old {
            c.nodes = new.clone();
        } else {
            c.nodes.retain(|x| !gone(x));
            if c.nodes.is_empty() {
                c.nodes = new.clone();
            }
        }
    }
    s.nodes.retain(|x| !gone(&x.name));
    s.faults
        .retain(|f| !gone(&f.target) && !f.peer.as_deref().is_some_and(gone));
    s.links.retain(|l| !gone(&l.from) && !gone(&l.to));
}

/// A name nobody uses: the first free capital letter when every node has a one-letter
/// name (A–E gain F, G), else the first free `nK`.
fn fresh_name(s: &Scenario, k: usize) -> String {
    let taken =
        |name: &str| s.nodes.iter().any(|x| x.name == name) || s.clients.iter().any(|c| c.name == name);
    if s.nodes.iter().all(|x| x.name.len() == 1) {
        if let Some(letter) = (b'A'..=b'Z').map(|c| (c as char).to_string()).find(|n| !taken(n)) {
            return letter;
        }
    }
    (k + 1..)
        .map(|i| format!("n{i}"))
        .find(|n| !taken(n))
        .unwrap_or_default()
}

/// A script error with the line it points at (1-based), if the message names one.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct ScriptError {
    pub line: Option<usize>,
    pub message: String,
}

/// Compiles `source` the way the nodes will (SCRIPT LOAD on a real store).
pub fn check_script(source: &str) -> Result<(), ScriptError> {
    let mut store = Store::new(1);
    match store.execute(&[b"SCRIPT".to_vec(), b"LOAD".to_vec(), source.as_bytes().to_vec()]) {
        Reply::Error(message) => Err(ScriptError {
            line: line_in(&message),
            message,
        }),
        _ => Ok(()),
    }
}

/// The first runtime error a script gave during a run (a node's reply to EVAL).
pub fn first_script_error(trace: &[crate::sim::TraceEvent]) -> Option<ScriptError> {
    trace.iter().find_map(|e| match &e.kind {
        crate::sim::TraceKind::Command {
            reply, script: true, ..
        } if reply.starts_with("(error)") || reply.starts_with("ERR") => Some(ScriptError {
            line: line_in(reply),
            message: reply.clone(),
        }),
        _ => None,
    })
}

/// Finds `user_script:N` (Redis's way of naming a script line) in a message.
fn line_in(message: &str) -> Option<usize> {
    let at = message.find("user_script:")? + "user_script:".len();
    let digits: String = message[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;
    use crate::timeline::build;

    #[test]
    fn a_release_script_without_the_token_check_brings_the_overlap_back() {
        let s = builtin("safe-release").expect("built-in").expect("valid");
        let safe = build(&s, 1).expect("runs");
        let broken = Variant {
            release_script: Some("return redis.call('del', KEYS[1])".into()),
            ..Variant::default()
        };
        let unsafe_run = build(&broken.apply(&s), 1).expect("runs");
        assert!(
            unsafe_run.bands.len() > safe.bands.len(),
            "{} bands with the check, {} without",
            safe.bands.len(),
            unsafe_run.bands.len()
        );
    }

    #[test]
    fn knobs_change_the_run_and_nothing_else() {
        let s = builtin("unsafe-del").expect("built-in").expect("valid");
        assert_eq!(Variant::default().apply(&s), s);
        let long = Variant {
            ttl_ms: Some(30_000.0),
            ..Variant::default()
        }
        .apply(&s);
        assert!(long.clients.iter().all(|c| c.ttl_ms == 30_000.0));
        // With a TTL longer than A's pause, A's key never expires under it: no overlap.
        assert!(build(&long, 1).expect("runs").bands.is_empty());
    }

    #[test]
    fn n_drops_or_adds_masters_and_keeps_the_scenario_runnable() {
        let s = builtin("redlock-clock-jump").expect("built-in").expect("valid");
        let five = redlock_nodes(&s).expect("a Redlock scenario");
        assert_eq!(five.len(), 5);
        for n in 1..=MAX_N {
            let v = Variant {
                nodes: Some(n),
                ..Variant::default()
            }
            .apply(&s);
            let list = redlock_nodes(&v).expect("still Redlock");
            assert_eq!(list.len(), n as usize, "N = {n}");
            for name in &list {
                assert!(v.nodes.iter().any(|x| &x.name == name), "{name} is a node");
            }
            assert!(
                v.faults.iter().all(|f| v.nodes.iter().any(|x| x.name == f.target)
                    || v.clients.iter().any(|c| c.name == f.target)),
                "N = {n}: a fault names a dropped node"
            );
            let m = build(&v, 1).unwrap_or_else(|e| panic!("N = {n}: {e}"));
            assert!(!m.trace.is_empty());
        }
        // Seven masters: two new ones, named on from the last letter.
        let seven = Variant {
            nodes: Some(7),
            ..Variant::default()
        }
        .apply(&s);
        assert_eq!(
            redlock_nodes(&seven).expect("Redlock")[5..],
            ["F".to_string(), "G".to_string()]
        );
        // Out of range is clamped, not a panic.
        assert_eq!(
            redlock_nodes(
                &Variant {
                    nodes: Some(99),
                    ..Variant::default()
                }
                .apply(&s)
            )
            .map(|l| l.len()),
            Some(7)
        );
    }

    #[test]
    fn library_knobs_change_when_the_abort_fires() {
        let s = builtin("using-abort-latency").expect("built-in").expect("valid");
        assert!(has_library(&s));
        let aborted_at = |v: &Variant| {
            let m = build(&v.apply(&s), 1).expect("runs");
            m.trace
                .iter()
                .find(|e| matches!(&e.kind, crate::sim::trace::TraceKind::LockLost { reason, .. } if *reason == crate::sim::Reason::ExtensionFailed))
                .map(|e| e.t_us)
        };
        let default = aborted_at(&Variant::default()).expect("the abort fires");
        // Fewer retries: the failing extension gives up, and the abort fires, sooner.
        let no_retries = aborted_at(&Variant {
            retries: Some(0),
            ..Variant::default()
        })
        .expect("the abort fires");
        assert!(no_retries < default, "{no_retries} vs {default}");
        // A smaller extension threshold: the first extension is tried later.
        let late = aborted_at(&Variant {
            extension_threshold_ms: Some(100.0),
            ..Variant::default()
        })
        .expect("the abort fires");
        assert!(late > default, "{late} vs {default}");
        let v = Variant {
            retries: Some(2),
            retry_jitter_ms: Some(0.0),
            ..Variant::default()
        }
        .apply(&s);
        assert!(v
            .clients
            .iter()
            .all(|c| c.retry_count == 2 && c.max_attempts == 3));
        assert!(v
            .clients
            .iter()
            .filter(|c| c.algorithm == Algorithm::Library)
            .all(|c| c.retry_jitter_ms == 0.0));
    }

    #[test]
    fn fsync_always_keeps_the_crashed_nodes_key_and_the_lock_safe() {
        let s = builtin("redlock-crash-restart")
            .expect("built-in")
            .expect("valid");
        let base = build(&s, 1).expect("runs");
        assert!(
            base.bands
                .iter()
                .any(|b| b.kind == crate::sim::ViolationKind::Overlap),
            "without persistence C restarts empty and C2 gets in"
        );
        let always = Variant {
            persistence: Some(Persistence::Always),
            ..Variant::default()
        }
        .apply(&s);
        assert!(always.nodes.iter().all(|n| n.persistence == Persistence::Always));
        let m = build(&always, 1).expect("runs");
        assert!(m.bands.is_empty(), "{:?}", m.bands);
    }

    #[test]
    fn work_retry_and_latency_knobs_reach_every_client_and_link() {
        let s = builtin("ttl-workers").expect("built-in").expect("valid");
        let v = Variant {
            work_ms: Some((50.0, 100.0)),
            retry_delay_ms: Some(25.0),
            latency_ms: Some(3.0),
            ..Variant::default()
        }
        .apply(&s);
        assert!(
            v.clients
                .iter()
                .filter(|c| c.work.iter().any(|w| w.contains('~')))
                .count()
                >= 19
        );
        assert!(v
            .clients
            .iter()
            .flat_map(|c| &c.work)
            .filter(|w| w.contains('~'))
            .all(|w| w == "sleep 50~100"));
        assert!(v
            .clients
            .iter()
            .all(|c| c.retry_delay_ms == Some(DelaySpec::Fixed(25.0))));
        assert_eq!(v.network.latency_ms, LatencySpec::Fixed(3.0));
        // Shorter jobs under the same TTL: fewer overlaps than the default work.
        let base = build(&s, 1).expect("runs");
        let short = build(&v, 1).expect("runs");
        assert!(
            short.bands.len() < base.bands.len() || base.bands.is_empty(),
            "{} vs {}",
            short.bands.len(),
            base.bands.len()
        );
    }

    #[test]
    fn the_editor_offers_only_the_knobs_that_change_the_run() {
        let offered = |name: &str| knobs(&builtin(name).expect("built-in").expect("valid"));
        // No lock, no node: only the network's latency reaches the run.
        assert_eq!(offered("double-charge-no-lock"), [Knob::Latency]);
        // A single-node lock that never checks its validity: no drift factor, no N.
        let set_nx = [
            Knob::Ttl,
            Knob::Timeout,
            Knob::RetryDelay,
            Knob::Latency,
            Knob::Retries,
            Knob::Persistence,
        ];
        assert_eq!(offered("unsafe-del"), set_nx);
        // check_validity = true: the drift factor sets D.
        assert!(offered("failover").contains(&Knob::DriftFactor));
        let ttl = offered("ttl-workers");
        assert!(ttl.contains(&Knob::WorkMedian) && ttl.contains(&Knob::WorkP99));
        assert!(!offered("ttl-too-short").contains(&Knob::WorkMedian));
        let redlock = offered("redlock-clock-jump");
        assert!(redlock.contains(&Knob::Nodes) && redlock.contains(&Knob::DriftFactor));
        assert!(!redlock.contains(&Knob::RetryJitter));
        let library = offered("using-abort-latency");
        assert!(library.contains(&Knob::RetryJitter) && library.contains(&Knob::ExtensionThreshold));
        assert!(library.contains(&Knob::DriftFactor));
    }

    #[test]
    fn compile_errors_name_their_line() {
        assert!(check_script("return 1").is_ok());
        let e = check_script("local x = 1\nif x then\nreturn (\nend").unwrap_err();
        assert!(e.line.is_some(), "{e:?}");
        assert!(!e.message.is_empty());
    }
}
