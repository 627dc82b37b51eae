//! The checker: reads a trace and reports what went wrong, in true time.
//!
//! Violations: two clients believing they hold the same lock at the same true time
//! (with the interval); writes accepted from a client whose lock had lapsed; lost
//! updates (a write based on a read that had since been overwritten); the same fencing
//! token accepted from two clients; the same effect (a write to a key the scenario
//! names in `[resource] effects`, such as a charge) accepted twice. Each violation breaks
//! one [`Property`]. Figures: how long each client waited to acquire, and how long the
//! lock stayed unavailable after a holder crashed.

use super::fact::{HoldEnd, Reason, ViolationKind};
use super::trace::{TraceEvent, TraceKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

/// The safety property a violation breaks.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
#[serde(rename_all = "snake_case")]
pub enum Property {
    /// At most one client believes it holds the lock (broken: an `overlap`).
    MutualExclusion,
    /// The resource accepts no write from a client whose lock had lapsed.
    StaleWrite,
    /// No write is based on a read that had since been overwritten.
    LostUpdate,
    /// No fencing token is accepted from two clients.
    DuplicateToken,
    /// An effect (a write to a key named in `[resource] effects`) happens once.
    DoubleEffect,
}

impl Property {
    pub const ALL: [Property; 5] = [
        Property::MutualExclusion,
        Property::StaleWrite,
        Property::LostUpdate,
        Property::DuplicateToken,
        Property::DoubleEffect,
    ];

    /// The violation kind the checker writes for it (`overlap`, `stale_write`, …).
    pub fn kind(self) -> ViolationKind {
        match self {
            Property::MutualExclusion => ViolationKind::Overlap,
            Property::StaleWrite => ViolationKind::StaleWrite,
            Property::LostUpdate => ViolationKind::LostUpdate,
            Property::DuplicateToken => ViolationKind::DuplicateToken,
            Property::DoubleEffect => ViolationKind::DoubleEffect,
        }
    }

    /// The property of a violation kind; `None` for the labs' own kinds.
    pub fn of_kind(kind: ViolationKind) -> Option<Property> {
        Property::ALL.into_iter().find(|p| p.kind() == kind)
    }
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// `overlap`, `stale_write`, `lost_update`, `duplicate_token` or `double_effect`
    /// ([`Property::kind`]), or a lab's own kind.
    pub kind: ViolationKind,
    pub clients: Vec<String>,
    pub from_ms: f64,
    pub to_ms: f64,
    pub detail: String,
    /// For a double effect: the write that happened twice.
    #[serde(default)]
    pub effect: Option<Effect>,
}

/// A write to the resource, as `key = value`.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Effect {
    pub key: String,
    pub value: String,
}

impl Violation {
    /// The property this violation breaks.
    pub fn property(&self) -> Option<Property> {
        Property::of_kind(self.kind)
    }

    /// The moment the check broke: the second of two things where it takes two (the stale
    /// write after the newer one, the second charge, the second grant of a token), the
    /// start of the span otherwise (the second holder's acquisition, the crash).
    pub fn broke_at_ms(&self) -> f64 {
        match self.kind {
            ViolationKind::StaleWrite
            | ViolationKind::LostUpdate
            | ViolationKind::DoubleEffect
            | ViolationKind::DuplicateToken
            | ViolationKind::DuplicateLockToken => self.to_ms,
            _ => self.from_ms,
        }
    }
}

/// What the checker needs to know beyond the trace: the scenario's effect keys.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Rules {
    /// Keys whose every accepted write is one real-world effect (a charge, an email):
    /// the same write accepted twice is a double effect.
    pub effects: Vec<String>,
    /// A hold ends when the holder's own lease does (`valid_until_us` of its
    /// `LockHeld`), if that is before it released: the labs' belief, where a worker
    /// that outlived its TTL knows it no longer holds the lock.
    pub lease_ends_hold: bool,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteRecord {
    pub client: String,
    pub key: String,
    pub value: Option<String>,
    pub token: Option<i64>,
    pub highest_seen: Option<i64>,
    pub at_ms: f64,
    pub reason: Option<Reason>,
}

/// A span of true time during which `client` believed it held `lock`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hold {
    pub client: String,
    pub lock: String,
    pub from_ms: f64,
    pub to_ms: f64,
    /// Why it ended: `released`, `lost: …`, `crashed`, `lease ended` or `end of run`.
    pub ended: HoldEnd,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct CrashGap {
    pub crashed: String,
    pub crash_ms: f64,
    /// The next client to get the lock, and when (none: nobody did before the end).
    pub next_holder: Option<String>,
    pub unavailable_ms: f64,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Figures {
    /// Per client: time from its start to its first acquisition (or to the end of the
    /// run / giving up, when it never got the lock).
    pub wait_ms: crate::vecmap::VecMap<String, f64>,
    pub unavailable_after_crash: Vec<CrashGap>,
}

#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct Outcome {
    pub violations: Vec<Violation>,
    pub rejected_writes: Vec<WriteRecord>,
    pub accepted_writes: Vec<WriteRecord>,
    pub holds: Vec<Hold>,
    pub figures: Figures,
}

impl Outcome {
    pub fn is_safe(&self) -> bool {
        self.violations.is_empty()
    }

    /// True time (ms) of the first violation, if any.
    pub fn first_violation_ms(&self) -> Option<f64> {
        self.violations.iter().map(|v| v.from_ms).reduce(f64::min)
    }
}

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

/// Check a trace. `names[pid]` names the processes.
pub fn check(trace: &[TraceEvent], names: &[String]) -> Outcome {
    check_with(trace, names, &Rules::default())
}

/// Check a trace with the scenario's [`Rules`].
pub fn check_with(trace: &[TraceEvent], names: &[String], rules: &Rules) -> Outcome {
    let name = |pid: u32| {
        names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    };
    let end_us = trace.last().map(|e| e.t_us).unwrap_or(0);
    let mut out = Outcome::default();
    let mut open: BTreeMap<u32, (String, u64, Option<u64>)> = BTreeMap::new();
    let mut holds: Vec<(u32, String, u64, u64, HoldEnd)> = Vec::new();
    let mut started: BTreeMap<u32, u64> = BTreeMap::new();
    let mut waited: BTreeMap<u32, u64> = BTreeMap::new();
    let mut gave_up: BTreeMap<u32, u64> = BTreeMap::new();
    let mut crashes: Vec<(u32, u64, String)> = Vec::new();
    let mut tokens: BTreeMap<i64, (u32, u64)> = BTreeMap::new();
    // Effect writes accepted so far: (key, value) → (first writer, when).
    let mut effects: BTreeMap<(String, String), (u32, u64)> = BTreeMap::new();
    let close = |open: &mut BTreeMap<u32, (String, u64, Option<u64>)>,
                 holds: &mut Vec<_>,
                 pid: u32,
                 t: u64,
                 why: HoldEnd| {
        if let Some((lock, from, lease)) = open.remove(&pid) {
            let (t, why) = match lease {
                Some(l) if l < t => (l.max(from), HoldEnd::LeaseEnded),
                _ => (t, why),
            };
            holds.push((pid, lock, from, t, why));
        }
    };
    for e in trace {
        match &e.kind {
            TraceKind::Start => {
                started.entry(e.pid).or_insert(e.t_us);
            }
            TraceKind::LockHeld {
                lock, valid_until_us, ..
            } => {
                let lease = valid_until_us.filter(|_| rules.lease_ends_hold);
                open.insert(e.pid, (lock.clone(), e.t_us, lease));
                if let Some(s) = started.get(&e.pid) {
                    waited.entry(e.pid).or_insert(e.t_us.saturating_sub(*s));
                }
            }
            TraceKind::LockLost { reason, .. } => {
                close(
                    &mut open,
                    &mut holds,
                    e.pid,
                    e.t_us,
                    HoldEnd::Lost(reason.clone()),
                );
            }
            TraceKind::LockReleased { .. } => close(&mut open, &mut holds, e.pid, e.t_us, HoldEnd::Released),
            TraceKind::GaveUp { .. } => {
                gave_up.entry(e.pid).or_insert(e.t_us);
            }
            TraceKind::Crash => {
                if let Some((lock, _, _)) = open.get(&e.pid) {
                    crashes.push((e.pid, e.t_us, lock.clone()));
                }
                close(&mut open, &mut holds, e.pid, e.t_us, HoldEnd::Crashed);
            }
            TraceKind::WriteAccepted {
                from,
                key,
                value,
                token,
                lost_update,
                lock_lapsed,
            } => {
                let client = name(*from);
                out.accepted_writes.push(WriteRecord {
                    client: client.clone(),
                    key: key.clone(),
                    value: Some(value.clone()),
                    token: *token,
                    highest_seen: None,
                    at_ms: ms(e.t_us),
                    reason: None,
                });
                if *lock_lapsed {
                    out.violations.push(Violation {
                        kind: Property::StaleWrite.kind(),
                        clients: vec![client.clone()],
                        from_ms: ms(e.t_us),
                        to_ms: ms(e.t_us),
                        detail: format!("{client} wrote {key}={value} after its lock had lapsed"),
                        effect: None,
                    });
                }
                if *lost_update {
                    out.violations.push(Violation {
                        kind: Property::LostUpdate.kind(),
                        clients: vec![client.clone()],
                        from_ms: ms(e.t_us),
                        to_ms: ms(e.t_us),
                        detail: format!(
                            "{client} wrote {key} based on a read that had since been overwritten"
                        ),
                        effect: None,
                    });
                }
                if rules.effects.contains(key) {
                    match effects.get(&(key.clone(), value.clone())) {
                        Some((first, at)) => out.violations.push(Violation {
                            kind: Property::DoubleEffect.kind(),
                            clients: vec![name(*first), client.clone()],
                            from_ms: ms(*at),
                            to_ms: ms(e.t_us),
                            detail: format!("{key}={value} accepted twice"),
                            effect: Some(Effect {
                                key: key.clone(),
                                value: value.clone(),
                            }),
                        }),
                        None => {
                            effects.insert((key.clone(), value.clone()), (*from, e.t_us));
                        }
                    }
                }
                if let Some(t) = token {
                    match tokens.get(t) {
                        Some((other, at)) if other != from => out.violations.push(Violation {
                            kind: Property::DuplicateToken.kind(),
                            clients: vec![name(*other), client.clone()],
                            from_ms: ms(*at),
                            to_ms: ms(e.t_us),
                            detail: format!("fencing token {t} accepted from two clients"),
                            effect: None,
                        }),
                        Some(_) => {}
                        None => {
                            tokens.insert(*t, (*from, e.t_us));
                        }
                    }
                }
            }
            TraceKind::WriteRejected {
                from,
                key,
                token,
                highest_seen,
                reason,
            } => {
                out.rejected_writes.push(WriteRecord {
                    client: name(*from),
                    key: key.clone(),
                    value: None,
                    token: *token,
                    highest_seen: *highest_seen,
                    at_ms: ms(e.t_us),
                    reason: Some(reason.clone()),
                });
            }
            _ => {}
        }
    }
    let still: Vec<u32> = open.keys().copied().collect();
    for pid in still {
        close(&mut open, &mut holds, pid, end_us, HoldEnd::EndOfRun);
    }
    holds.sort_by_key(|h| (h.2, h.0));
    // Overlaps: every pair of different clients' holds of the same lock. Holds are
    // sorted by start, so the scan for `a` stops at the first hold starting after `a`
    // ends (a sweep, not all pairs).
    for (i, a) in holds.iter().enumerate() {
        for b in holds.iter().skip(i + 1) {
            if b.2 >= a.3 {
                break;
            }
            if a.0 == b.0 || a.1 != b.1 {
                continue;
            }
            let from = a.2.max(b.2);
            let to = a.3.min(b.3);
            if from < to {
                let (first, second) = if a.2 <= b.2 { (a, b) } else { (b, a) };
                out.violations.push(Violation {
                    kind: Property::MutualExclusion.kind(),
                    clients: vec![name(first.0), name(second.0)],
                    from_ms: ms(from),
                    to_ms: ms(to),
                    detail: format!(
                        "{} and {} both believed they held {}",
                        name(first.0),
                        name(second.0),
                        a.1
                    ),
                    effect: None,
                });
            }
        }
    }
    out.violations.sort_by(|a, b| {
        a.from_ms
            .total_cmp(&b.from_ms)
            .then(a.kind.as_str().cmp(b.kind.as_str()))
    });
    for (pid, s) in &started {
        let w = match waited.get(pid) {
            Some(w) => *w,
            None => gave_up.get(pid).copied().unwrap_or(end_us).saturating_sub(*s),
        };
        // Clients without a lock (no hold, no attempt) have no waiting time.
        let tried = waited.contains_key(pid)
            || gave_up.contains_key(pid)
            || trace
                .iter()
                .any(|e| e.pid == *pid && matches!(e.kind, TraceKind::AcquireFailed { .. }));
        if tried {
            out.figures.wait_ms.insert(name(*pid), ms(w));
        }
    }
    for (pid, t, lock) in crashes {
        let next = holds.iter().find(|h| h.2 >= t && h.1 == lock && h.0 != pid);
        out.figures.unavailable_after_crash.push(CrashGap {
            crashed: name(pid),
            crash_ms: ms(t),
            next_holder: next.map(|h| name(h.0)),
            unavailable_ms: ms(next.map(|h| h.2).unwrap_or(end_us).saturating_sub(t)),
        });
    }
    out.holds = holds
        .into_iter()
        .map(|(pid, lock, from, to, ended)| Hold {
            client: name(pid),
            lock,
            from_ms: ms(from),
            to_ms: ms(to),
            ended,
        })
        .collect();
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn ev(t_ms: u64, pid: u32, kind: TraceKind) -> TraceEvent {
        TraceEvent {
            t_us: t_ms * 1000,
            local_us: (t_ms * 1000) as i64,
            pid,
            kind,
        }
    }
    fn held(t: u64, pid: u32) -> TraceEvent {
        ev(
            t,
            pid,
            TraceKind::LockHeld {
                lock: "l".into(),
                token: "t".into(),
                fence: None,
                valid_until_us: None,
            },
        )
    }
    fn released(t: u64, pid: u32) -> TraceEvent {
        ev(t, pid, TraceKind::LockReleased { lock: "l".into() })
    }

    #[test]
    fn overlap_interval_is_the_intersection() {
        let names = vec!["A".to_string(), "B".to_string()];
        let t = vec![
            held(0, 0),
            held(50, 1),
            released(80, 0),
            released(120, 1),
            ev(200, 0, TraceKind::End),
        ];
        let o = check(&t, &names);
        assert_eq!(o.violations.len(), 1);
        let v = &o.violations[0];
        assert_eq!((v.kind, v.from_ms, v.to_ms), (ViolationKind::Overlap, 50.0, 80.0));
        assert_eq!(v.clients, vec!["A", "B"]);
    }

    #[test]
    fn back_to_back_holds_do_not_overlap() {
        let names = vec!["A".to_string(), "B".to_string()];
        let t = vec![
            held(0, 0),
            released(50, 0),
            held(50, 1),
            ev(90, 1, TraceKind::End),
        ];
        let o = check(&t, &names);
        assert!(o.is_safe(), "{:?}", o.violations);
        assert_eq!(o.holds.len(), 2);
        assert_eq!(o.holds[1].to_ms, 90.0);
        assert_eq!(o.holds[1].ended, HoldEnd::EndOfRun);
    }

    #[test]
    fn writes_and_tokens() {
        let names = vec!["A".to_string(), "B".to_string(), "S".to_string()];
        let acc = |t, from, token, lapsed| {
            ev(
                t,
                2,
                TraceKind::WriteAccepted {
                    from,
                    key: "k".into(),
                    value: "v".into(),
                    token,
                    lost_update: false,
                    lock_lapsed: lapsed,
                },
            )
        };
        let t = vec![acc(10, 0, Some(34), false), acc(20, 1, Some(34), true)];
        let o = check(&t, &names);
        let kinds: Vec<ViolationKind> = o.violations.iter().map(|v| v.kind).collect();
        assert_eq!(
            kinds,
            vec![ViolationKind::DuplicateToken, ViolationKind::StaleWrite]
        );
        assert_eq!(o.accepted_writes.len(), 2);
        assert_eq!(o.violations[0].clients, vec!["A", "B"]);
    }

    #[test]
    fn the_same_effect_accepted_twice_is_a_double_effect() {
        let names = vec!["A".to_string(), "B".to_string(), "S".to_string()];
        let acc = |t, from, key: &str, value: &str| {
            ev(
                t,
                2,
                TraceKind::WriteAccepted {
                    from,
                    key: key.into(),
                    value: value.into(),
                    token: None,
                    lost_update: false,
                    lock_lapsed: false,
                },
            )
        };
        let t = vec![
            acc(43, 0, "charge", "42"),
            acc(44, 0, "paid", "true"),
            acc(48, 1, "charge", "42"),
            acc(49, 1, "paid", "true"),
            acc(60, 1, "charge", "43"),
        ];
        let rules = Rules {
            effects: vec!["charge".into()],
            ..Rules::default()
        };
        let o = check_with(&t, &names, &rules);
        assert_eq!(o.violations.len(), 1, "{:?}", o.violations);
        let v = &o.violations[0];
        assert_eq!(v.property(), Some(Property::DoubleEffect));
        assert_eq!((v.from_ms, v.to_ms), (43.0, 48.0));
        assert_eq!(v.clients, vec!["A", "B"]);
        let e = v.effect.as_ref().expect("the effect");
        assert_eq!((e.key.as_str(), e.value.as_str()), ("charge", "42"));
        // Without the rule, writes are only data: the same trace is safe.
        assert!(check(&t, &names).is_safe());
    }

    #[test]
    fn every_kind_names_its_property() {
        for p in Property::ALL {
            assert_eq!(Property::of_kind(p.kind()), Some(p));
        }
        assert_eq!(Property::of_kind(ViolationKind::NotDone), None);
    }

    #[test]
    fn crash_gap_measures_until_next_holder() {
        let names = vec!["A".to_string(), "B".to_string()];
        let t = vec![
            held(0, 0),
            ev(15_000, 0, TraceKind::Crash),
            held(40_001, 1),
            ev(50_000, 1, TraceKind::End),
        ];
        let o = check(&t, &names);
        assert_eq!(o.figures.unavailable_after_crash.len(), 1);
        let g = &o.figures.unavailable_after_crash[0];
        assert_eq!(g.next_holder.as_deref(), Some("B"));
        assert_eq!(g.unavailable_ms, 25_001.0);
    }
}
