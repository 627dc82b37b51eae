//! The checker: reads a trace and reports what went wrong, in true time.
//!
//! Violations: two clients believing they hold the same lock at the same true time
//! (with the interval); writes accepted from a client whose lock had lapsed; lost
//! updates (a write based on a read that had since been overwritten); the same fencing
//! token accepted from two clients. Figures: how long each client waited to acquire,
//! and how long the lock stayed unavailable after a holder crashed.

use super::trace::{TraceEvent, TraceKind};
use serde::{Deserialize, Serialize};
use std::collections::BTreeMap;

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Violation {
    /// `overlap`, `stale_write`, `lost_update` or `duplicate_token`.
    pub kind: String,
    pub clients: Vec<String>,
    pub from_ms: f64,
    pub to_ms: f64,
    pub detail: String,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct WriteRecord {
    pub client: String,
    pub key: String,
    pub value: Option<String>,
    pub token: Option<i64>,
    pub highest_seen: Option<i64>,
    pub at_ms: f64,
    pub reason: Option<String>,
}

/// A span of true time during which `client` believed it held `lock`.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Hold {
    pub client: String,
    pub lock: String,
    pub from_ms: f64,
    pub to_ms: f64,
    /// Why it ended: `released`, `lost: …`, `crashed`, or `end of run`.
    pub ended: String,
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
    pub wait_ms: BTreeMap<String, f64>,
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
    let name = |pid: u32| {
        names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    };
    let end_us = trace.last().map(|e| e.t_us).unwrap_or(0);
    let mut out = Outcome::default();
    let mut open: BTreeMap<u32, (String, u64)> = BTreeMap::new();
    let mut holds: Vec<(u32, String, u64, u64, String)> = Vec::new();
    let mut started: BTreeMap<u32, u64> = BTreeMap::new();
    let mut waited: BTreeMap<u32, u64> = BTreeMap::new();
    let mut gave_up: BTreeMap<u32, u64> = BTreeMap::new();
    let mut crashes: Vec<(u32, u64, String)> = Vec::new();
    let mut tokens: BTreeMap<i64, (u32, u64)> = BTreeMap::new();
    let close =
        |open: &mut BTreeMap<u32, (String, u64)>, holds: &mut Vec<_>, pid: u32, t: u64, why: String| {
            if let Some((lock, from)) = open.remove(&pid) {
                holds.push((pid, lock, from, t, why));
            }
        };
    for e in trace {
        match &e.kind {
            TraceKind::Start => {
                started.entry(e.pid).or_insert(e.t_us);
            }
            TraceKind::LockHeld { lock, .. } => {
                open.insert(e.pid, (lock.clone(), e.t_us));
                if let Some(s) = started.get(&e.pid) {
                    waited.entry(e.pid).or_insert(e.t_us.saturating_sub(*s));
                }
            }
            TraceKind::LockLost { reason, .. } => {
                close(&mut open, &mut holds, e.pid, e.t_us, format!("lost: {reason}"));
            }
            TraceKind::LockReleased { .. } => close(&mut open, &mut holds, e.pid, e.t_us, "released".into()),
            TraceKind::GaveUp { .. } => {
                gave_up.entry(e.pid).or_insert(e.t_us);
            }
            TraceKind::Crash => {
                if let Some((lock, _)) = open.get(&e.pid) {
                    crashes.push((e.pid, e.t_us, lock.clone()));
                }
                close(&mut open, &mut holds, e.pid, e.t_us, "crashed".into());
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
                        kind: "stale_write".into(),
                        clients: vec![client.clone()],
                        from_ms: ms(e.t_us),
                        to_ms: ms(e.t_us),
                        detail: format!("{client} wrote {key}={value} after its lock had lapsed"),
                    });
                }
                if *lost_update {
                    out.violations.push(Violation {
                        kind: "lost_update".into(),
                        clients: vec![client.clone()],
                        from_ms: ms(e.t_us),
                        to_ms: ms(e.t_us),
                        detail: format!(
                            "{client} wrote {key} based on a read that had since been overwritten"
                        ),
                    });
                }
                if let Some(t) = token {
                    match tokens.get(t) {
                        Some((other, at)) if other != from => out.violations.push(Violation {
                            kind: "duplicate_token".into(),
                            clients: vec![name(*other), client.clone()],
                            from_ms: ms(*at),
                            to_ms: ms(e.t_us),
                            detail: format!("fencing token {t} accepted from two clients"),
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
        close(&mut open, &mut holds, pid, end_us, "end of run".into());
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
                    kind: "overlap".into(),
                    clients: vec![name(first.0), name(second.0)],
                    from_ms: ms(from),
                    to_ms: ms(to),
                    detail: format!(
                        "{} and {} both believed they held {}",
                        name(first.0),
                        name(second.0),
                        a.1
                    ),
                });
            }
        }
    }
    out.violations
        .sort_by(|a, b| a.from_ms.total_cmp(&b.from_ms).then(a.kind.cmp(&b.kind)));
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
        assert_eq!((v.kind.as_str(), v.from_ms, v.to_ms), ("overlap", 50.0, 80.0));
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
        assert_eq!(o.holds[1].ended, "end of run");
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
        let kinds: Vec<&str> = o.violations.iter().map(|v| v.kind.as_str()).collect();
        assert_eq!(kinds, vec!["duplicate_token", "stale_write"]);
        assert_eq!(o.accepted_writes.len(), 2);
        assert_eq!(o.violations[0].clients, vec!["A", "B"]);
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
