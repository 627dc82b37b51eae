//! The grade: one verdict per check the lab grades, read from a run's trace.

use super::definition::{Check, Lab};
use crate::sim::checker::{check_with, Outcome, Violation};
use crate::sim::scenario::Fencing;
use crate::sim::trace::{fmt_ms, TraceEvent, TraceKind};
use crate::vecmap::VecMap;
use serde::{Deserialize, Serialize};

fn ms(us: u64) -> f64 {
    us as f64 / 1000.0
}

fn violation(check: Check, clients: Vec<String>, from_us: u64, to_us: u64, detail: String) -> Violation {
    Violation {
        kind: check.violation_kind(),
        clients,
        from_ms: ms(from_us),
        to_ms: ms(to_us),
        detail,
        effect: None,
    }
}

/// Grade a lab run: the checker's outcome (holds end with the worker's own lease), and
/// one verdict per check the lab grades.
pub fn grade(lab: &Lab, trace: &[TraceEvent], names: &[String]) -> (Outcome, Vec<Verdict>) {
    let mut rules = lab.scenario.resource.rules();
    rules.lease_ends_hold = true;
    let outcome = check_with(trace, names, &rules);
    let name = |pid: u32| {
        names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    };
    let end_us = trace.last().map(|e| e.t_us).unwrap_or(0);
    let mut verdicts = Vec::new();
    for &check in &lab.checks {
        let mut v = Vec::new();
        match check {
            Check::NoStaleWrite if lab.scenario.resource.fencing != Fencing::Off => {
                v.extend(overtaking_writes(trace, &name));
            }
            Check::MutualExclusion | Check::NoStaleWrite | Check::NoDoubleEffect => {
                let kind = check.violation_kind();
                v.extend(outcome.violations.iter().filter(|x| x.kind == kind).cloned());
                if check == Check::MutualExclusion {
                    v.extend(unbacked_holds(trace, &name));
                }
            }
            Check::UniqueTokens => {
                let mut first: VecMap<&str, (u32, u64)> = VecMap::new();
                for e in trace {
                    if let TraceKind::LockHeld { token, .. } = &e.kind {
                        match first.get(token.as_str()) {
                            Some((p, at)) if *p != e.pid => v.push(violation(
                                check,
                                vec![name(*p), name(e.pid)],
                                *at,
                                e.t_us,
                                format!("{} and {} both got the token {token}", name(*p), name(e.pid)),
                            )),
                            Some(_) => {}
                            None => {
                                first.insert(token, (e.pid, e.t_us));
                            }
                        }
                    }
                }
            }
            Check::NoForeignDelete => {
                for e in trace {
                    if let TraceKind::ForeignDelete { key, owner, token } = &e.kind {
                        v.push(violation(
                            check,
                            vec![name(e.pid), name(*owner)],
                            e.t_us,
                            e.t_us,
                            format!(
                                "{} deleted {key} while it held {}'s token {token}",
                                name(e.pid),
                                name(*owner)
                            ),
                        ));
                    }
                }
            }
            Check::ReleaseFrees => {
                for e in trace {
                    if let TraceKind::LockKept { lock, token } = &e.kind {
                        v.push(violation(
                            check,
                            vec![name(e.pid)],
                            e.t_us,
                            e.t_us,
                            format!(
                                "{}'s release returned but {lock} still held its token {token}",
                                name(e.pid)
                            ),
                        ));
                    }
                }
            }
            Check::FreedAfterCrash => v.extend(stuck_after_crash(trace, &name, end_us)),
            Check::AllDone => v.extend(not_done(trace, names, end_us)),
            Check::EffectDone => v.extend(missing_effects(trace, &rules.effects, end_us)),
        }
        verdicts.push(Verdict { check, violations: v });
    }
    (outcome, verdicts)
}

/// Beliefs no majority of the worker's nodes stored: the worker said it held the lock
/// (its driver reported what its code answered) with a token its nodes did not have.
/// A lock made of anything but Redis (a table in a global, a token made up) ends here.
fn unbacked_holds(trace: &[TraceEvent], name: &dyn Fn(u32) -> String) -> Vec<Violation> {
    trace
        .iter()
        .filter_map(|e| match &e.kind {
            TraceKind::HeldUnbacked { lock, token, on, of } => Some(violation(
                Check::MutualExclusion,
                vec![name(e.pid)],
                e.t_us,
                e.t_us,
                format!(
                    "{} believed it held {lock} with the token {token}, but only {on} of its {of} Redis nodes stored that token",
                    name(e.pid)
                ),
            )),
            _ => None,
        })
        .collect()
}

/// Stale writes behind a fencing resource: an accepted write from a worker whose lock
/// had lapsed, after another worker's write under a lock taken since this worker's (a
/// write by a worker that still held the lock, made after this worker last said it held
/// it). That is the write fencing must refuse: it overwrites newer data. A lapsed write
/// that nothing newer came before is harmless there (its token is still the highest
/// granted with any write), so, unlike the checker's rule, it is not reported.
fn overtaking_writes(trace: &[TraceEvent], name: &dyn Fn(u32) -> String) -> Vec<Violation> {
    let mut held_at: VecMap<u32, u64> = VecMap::new();
    // The last write accepted from a worker whose lock was live: (writer, at).
    let mut live: Option<(u32, u64)> = None;
    let mut out = Vec::new();
    for e in trace {
        match &e.kind {
            TraceKind::LockHeld { .. } => {
                held_at.insert(e.pid, e.t_us);
            }
            TraceKind::WriteAccepted {
                from,
                key,
                value,
                lock_lapsed,
                token,
                ..
            } => {
                if !*lock_lapsed {
                    live = Some((*from, e.t_us));
                    continue;
                }
                let Some(&since) = held_at.get(from) else { continue };
                if let Some((other, at)) = live.filter(|(o, at)| o != from && *at >= since) {
                    let fence = token.map_or_else(|| "no token".to_string(), |t| format!("token {t}"));
                    out.push(violation(
                        Check::NoStaleWrite,
                        vec![name(*from), name(other)],
                        at,
                        e.t_us,
                        format!(
                            "{} wrote {key}={value} ({fence}) after its lock had lapsed, over {}'s write at {} ms under a newer lock",
                            name(*from),
                            name(other),
                            fmt_ms(at)
                        ),
                    ));
                }
            }
            _ => {}
        }
    }
    out
}

/// The effects (keys the resource counts, such as `charge`) that the resource never
/// accepted a write to: the work never happened.
fn missing_effects(trace: &[TraceEvent], effects: &[String], end_us: u64) -> Vec<Violation> {
    effects
        .iter()
        .filter(|key| {
            !trace
                .iter()
                .any(|e| matches!(&e.kind, TraceKind::WriteAccepted { key: k, .. } if k == *key))
        })
        .map(|key| {
            violation(
                Check::EffectDone,
                Vec::new(),
                end_us,
                end_us,
                format!("the run ended and the resource never accepted a {key}: the work was never done"),
            )
        })
        .collect()
}

/// Crashes after which no other worker ever got the lock although one still needed it:
/// the crashed worker left a key behind that never expires (judged on what happened,
/// so it also catches a crash between `SETNX` and `PEXPIRE`, before the worker knew it
/// held anything).
fn stuck_after_crash(trace: &[TraceEvent], name: &dyn Fn(u32) -> String, end_us: u64) -> Vec<Violation> {
    let mut out = Vec::new();
    for (i, e) in trace.iter().enumerate() {
        if !matches!(e.kind, TraceKind::Crash) {
            continue;
        }
        let later = trace.get(i + 1..).unwrap_or(&[]);
        let someone_held = later
            .iter()
            .any(|x| x.pid != e.pid && matches!(x.kind, TraceKind::LockHeld { .. }));
        // Workers other than the crashed one that still wanted the lock afterwards.
        let wanted = later
            .iter()
            .any(|x| x.pid != e.pid && matches!(x.kind, TraceKind::AcquireFailed { .. }));
        if !someone_held && wanted {
            out.push(violation(
                Check::FreedAfterCrash,
                vec![name(e.pid)],
                e.t_us,
                end_us,
                format!(
                    "{} crashed at {} ms and nobody got the lock again before the run ended at {} ms",
                    name(e.pid),
                    fmt_ms(e.t_us),
                    fmt_ms(end_us)
                ),
            ));
        }
    }
    out
}

/// Workers whose last life neither finished nor died for good.
fn not_done(trace: &[TraceEvent], names: &[String], end_us: u64) -> Vec<Violation> {
    // Per worker: (started at, finished, crashed since the last start, waiting since).
    let mut state: VecMap<u32, (u64, bool, bool, Option<u64>)> = VecMap::new();
    for e in trace {
        match &e.kind {
            TraceKind::Start => {
                state.insert(e.pid, (e.t_us, false, false, None));
            }
            TraceKind::WorkDone | TraceKind::CodeError { .. } => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.1 = true;
                }
            }
            TraceKind::Crash => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.2 = true;
                }
            }
            TraceKind::AcquireFailed { .. } => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.3.get_or_insert(e.t_us);
                }
            }
            TraceKind::LockHeld { .. } => {
                if let Some(s) = state.get_mut(&e.pid) {
                    s.3 = None;
                }
            }
            _ => {}
        }
    }
    let name = |pid: u32| {
        names
            .get(pid as usize)
            .cloned()
            .unwrap_or_else(|| format!("#{pid}"))
    };
    state
        .into_iter()
        .filter(|(_, (_, done, crashed, _))| !done && !crashed)
        .map(|(pid, (start, _, _, waiting))| {
            let detail = match waiting {
                Some(w) => format!(
                    "{} never finished: it was still waiting for the lock, refused since {} ms",
                    name(pid),
                    fmt_ms(w)
                ),
                None => format!("{} never finished its jobs before the run ended", name(pid)),
            };
            violation(
                Check::AllDone,
                vec![name(pid)],
                waiting.unwrap_or(start),
                end_us,
                detail,
            )
        })
        .collect()
}

/// Every violation of these verdicts, in time order.
pub fn violations_of(verdicts: &[Verdict]) -> Vec<Violation> {
    let mut all: Vec<Violation> = verdicts.iter().flat_map(|v| v.violations.clone()).collect();
    crate::sorting::sort_by(&mut all, |a, b| {
        a.from_ms
            .total_cmp(&b.from_ms)
            .then(a.kind.as_str().cmp(b.kind.as_str()))
    });
    all
}

/// One check's result in one run.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Verdict {
    pub check: Check,
    pub violations: Vec<Violation>,
}
