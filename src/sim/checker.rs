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
use crate::vecmap::VecMap;
use serde::{Deserialize, Serialize};

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
    let mut c = Checker {
        names,
        rules,
        out: Outcome::default(),
        open: VecMap::new(),
        holds: Vec::new(),
        started: VecMap::new(),
        waited: VecMap::new(),
        gave_up: VecMap::new(),
        crashes: Vec::new(),
        tokens: VecMap::new(),
        effects: VecMap::new(),
    };
    for e in trace {
        c.event(e);
    }
    let end_us = trace.last().map(|e| e.t_us).unwrap_or(0);
    c.finish(trace, end_us)
}

/// A hold in progress: (lock, since, the holder's own lease end if it ends holds).
type Open = (String, u64, Option<u64>);
/// A hold: (pid, lock, from, to, why it ended).
type HoldSpan = (u32, String, u64, u64, HoldEnd);

/// What the checker keeps while it reads a trace, event by event.
struct Checker<'a> {
    names: &'a [String],
    rules: &'a Rules,
    out: Outcome,
    open: VecMap<u32, Open>,
    holds: Vec<HoldSpan>,
    started: VecMap<u32, u64>,
    waited: VecMap<u32, u64>,
    gave_up: VecMap<u32, u64>,
    /// Crashes of a holder: (pid, when, the lock it held).
    crashes: Vec<(u32, u64, String)>,
    /// Fencing tokens accepted so far: token → (first writer, when).
    tokens: VecMap<i64, (u32, u64)>,
    /// Effect writes accepted so far: (key, value) → (first writer, when).
    effects: VecMap<(String, String), (u32, u64)>,
}

impl Checker<'_> {
    fn name(&self, pid: u32) -> String {
        self.names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    }

    /// `pid`'s hold (if any) ends at `t`, or at its lease if that came first.
    fn close(&mut self, pid: u32, t: u64, why: HoldEnd) {
        if let Some((lock, from, lease)) = self.open.remove(&pid) {
            let (t, why) = match lease {
                Some(l) if l < t => (l.max(from), HoldEnd::LeaseEnded),
                _ => (t, why),
            };
            self.holds.push((pid, lock, from, t, why));
        }
    }

    fn event(&mut self, e: &TraceEvent) {
        match &e.kind {
            TraceKind::Start => {
                self.started.entry(e.pid).or_insert(e.t_us);
            }
            TraceKind::LockHeld {
                lock, valid_until_us, ..
            } => {
                let lease = valid_until_us.filter(|_| self.rules.lease_ends_hold);
                self.open.insert(e.pid, (lock.clone(), e.t_us, lease));
                if let Some(s) = self.started.get(&e.pid) {
                    self.waited.entry(e.pid).or_insert(e.t_us.saturating_sub(*s));
                }
            }
            TraceKind::LockLost { reason, .. } => self.close(e.pid, e.t_us, HoldEnd::Lost(reason.clone())),
            TraceKind::LockReleased { .. } => self.close(e.pid, e.t_us, HoldEnd::Released),
            TraceKind::GaveUp { .. } => {
                self.gave_up.entry(e.pid).or_insert(e.t_us);
            }
            TraceKind::Crash => {
                if let Some((lock, _, _)) = self.open.get(&e.pid) {
                    self.crashes.push((e.pid, e.t_us, lock.clone()));
                }
                self.close(e.pid, e.t_us, HoldEnd::Crashed);
            }
            TraceKind::WriteAccepted {
                from,
                key,
                value,
                token,
                lost_update,
                lock_lapsed,
            } => self.write_accepted(e.t_us, *from, key, value, *token, *lost_update, *lock_lapsed),
            TraceKind::WriteRejected {
                from,
                key,
                token,
                highest_seen,
                reason,
            } => {
                let client = self.name(*from);
                self.out.rejected_writes.push(WriteRecord {
                    client,
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

    /// An accepted write: recorded, and judged for a lapsed lock, a lost update, a second
    /// effect and a fencing token seen from another client.
    #[allow(clippy::too_many_arguments)]
    fn write_accepted(
        &mut self,
        t_us: u64,
        from: u32,
        key: &str,
        value: &str,
        token: Option<i64>,
        lost_update: bool,
        lock_lapsed: bool,
    ) {
        let client = self.name(from);
        self.out.accepted_writes.push(WriteRecord {
            client: client.clone(),
            key: key.to_string(),
            value: Some(value.to_string()),
            token,
            highest_seen: None,
            at_ms: ms(t_us),
            reason: None,
        });
        let at_once = |kind: Property, detail: String| Violation {
            kind: kind.kind(),
            clients: vec![client.clone()],
            from_ms: ms(t_us),
            to_ms: ms(t_us),
            detail,
            effect: None,
        };
        if lock_lapsed {
            let v = at_once(
                Property::StaleWrite,
                format!("{client} wrote {key}={value} after its lock had lapsed"),
            );
            self.out.violations.push(v);
        }
        if lost_update {
            let v = at_once(
                Property::LostUpdate,
                format!("{client} wrote {key} based on a read that had since been overwritten"),
            );
            self.out.violations.push(v);
        }
        if self.rules.effects.iter().any(|k| k == key) {
            match self.effects.get(&(key.to_string(), value.to_string())) {
                Some(&(first, at)) => {
                    let v = Violation {
                        kind: Property::DoubleEffect.kind(),
                        clients: vec![self.name(first), client.clone()],
                        from_ms: ms(at),
                        to_ms: ms(t_us),
                        detail: format!("{key}={value} accepted twice"),
                        effect: Some(Effect {
                            key: key.to_string(),
                            value: value.to_string(),
                        }),
                    };
                    self.out.violations.push(v);
                }
                None => {
                    self.effects
                        .insert((key.to_string(), value.to_string()), (from, t_us));
                }
            }
        }
        if let Some(t) = token {
            match self.tokens.get(&t) {
                Some(&(other, at)) if other != from => {
                    let v = Violation {
                        kind: Property::DuplicateToken.kind(),
                        clients: vec![self.name(other), client.clone()],
                        from_ms: ms(at),
                        to_ms: ms(t_us),
                        detail: format!("fencing token {t} accepted from two clients"),
                        effect: None,
                    };
                    self.out.violations.push(v);
                }
                Some(_) => {}
                None => {
                    self.tokens.insert(t, (from, t_us));
                }
            }
        }
    }

    /// Overlaps: every pair of different clients' holds of the same lock. Holds are
    /// sorted by start, so the scan for `a` stops at the first hold starting after `a`
    /// ends (a sweep, not all pairs).
    fn overlaps(&mut self) {
        for (i, a) in self.holds.iter().enumerate() {
            for b in self.holds.iter().skip(i + 1) {
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
                    self.out.violations.push(Violation {
                        kind: Property::MutualExclusion.kind(),
                        clients: vec![self.name(first.0), self.name(second.0)],
                        from_ms: ms(from),
                        to_ms: ms(to),
                        detail: format!(
                            "{} and {} both believed they held {}",
                            self.name(first.0),
                            self.name(second.0),
                            a.1
                        ),
                        effect: None,
                    });
                }
            }
        }
    }

    /// The run is over: open holds end, overlaps are found, and the figures computed.
    fn finish(mut self, trace: &[TraceEvent], end_us: u64) -> Outcome {
        let still: Vec<u32> = self.open.keys().copied().collect();
        for pid in still {
            self.close(pid, end_us, HoldEnd::EndOfRun);
        }
        crate::sorting::sort_by_key(&mut self.holds, |h| (h.2, h.0));
        self.overlaps();
        crate::sorting::sort_by(&mut self.out.violations, |a, b| {
            a.from_ms
                .total_cmp(&b.from_ms)
                .then(a.kind.as_str().cmp(b.kind.as_str()))
        });
        for (pid, s) in &self.started {
            let w = match self.waited.get(pid) {
                Some(w) => *w,
                None => self
                    .gave_up
                    .get(pid)
                    .copied()
                    .unwrap_or(end_us)
                    .saturating_sub(*s),
            };
            // Clients without a lock (no hold, no attempt) have no waiting time.
            let tried = self.waited.contains_key(pid)
                || self.gave_up.contains_key(pid)
                || trace
                    .iter()
                    .any(|e| e.pid == *pid && matches!(e.kind, TraceKind::AcquireFailed { .. }));
            if tried {
                self.out.figures.wait_ms.insert(self.name(*pid), ms(w));
            }
        }
        for (pid, t, lock) in &self.crashes {
            let next = self
                .holds
                .iter()
                .find(|h| h.2 >= *t && h.1 == *lock && h.0 != *pid);
            self.out.figures.unavailable_after_crash.push(CrashGap {
                crashed: self.name(*pid),
                crash_ms: ms(*t),
                next_holder: next.map(|h| self.name(h.0)),
                unavailable_ms: ms(next.map(|h| h.2).unwrap_or(end_us).saturating_sub(*t)),
            });
        }
        let holds = std::mem::take(&mut self.holds);
        self.out.holds = holds
            .into_iter()
            .map(|(pid, lock, from, to, ended)| Hold {
                client: self.name(pid),
                lock,
                from_ms: ms(from),
                to_ms: ms(to),
                ended,
            })
            .collect();
        self.out
    }
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
