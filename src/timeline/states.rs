//! Faults as states across time, not only as the instants they begin: a process cut off
//! from some peers, a slowed link, a shifted or drifting clock. Each span lasts from the
//! event that began it to the event that changed it (or the end of the run), and the
//! picture draws it along the process's lane; the cluster view says the ones at the
//! cursor. Read from the trace's typed events (`Partition`, `Repair`, `Latency`,
//! `ClockJump`, `Drift`), never from words. Crashes and pauses are bars already.

use crate::sim::trace::{TraceEvent, TraceKind};
use crate::vecmap::{VecMap, VecSet};

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub enum FaultState {
    /// Messages between this process and each of these are dropped (in the direction
    /// the partition cut: `from` lists the peers this process cannot reach or hear).
    CutOff { from: Vec<u32> },
    /// Messages from this process to `to` take `latency` (the scenario's words, e.g.
    /// `40ms` or `5..50ms`).
    Slowed { to: u32, latency: String },
    /// The process's clock is `offset_us` away from true time since a jump, and runs
    /// `rate_ppm` fast (or slow) since a drift began; either may be zero.
    Clock { offset_us: i64, rate_ppm: i64 },
}

#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct FaultSpan {
    pub pid: u32,
    pub from_us: u64,
    pub to_us: u64,
    /// The trace event that began it.
    pub index: usize,
    pub state: FaultState,
}

/// Open spans, one per (process, what): the slot of a partition is `None`, a slowed
/// link's is `Some(peer)`, a clock's is `Some(u32::MAX)`.
type Slot = (u32, Option<u32>);
const CLOCK: Option<u32> = Some(u32::MAX);

/// Every fault state of a run, ordered by start, ending at `end_us` if still on then.
pub fn spans(trace: &[TraceEvent], end_us: u64) -> Vec<FaultSpan> {
    let mut out: Vec<FaultSpan> = Vec::new();
    let mut open: VecMap<Slot, usize> = VecMap::new();
    let mut cut: VecMap<u32, VecSet<u32>> = VecMap::new();
    let mut clock: VecMap<u32, (i64, i64)> = VecMap::new();
    // Ends the open span of `slot` at `t`, and opens `next` if there is one.
    let mut switch =
        |out: &mut Vec<FaultSpan>, slot: Slot, t: u64, index: usize, next: Option<FaultState>| {
            if let Some(i) = open.remove(&slot) {
                if let Some(s) = out.get_mut(i) {
                    s.to_us = t;
                }
            }
            if let Some(state) = next {
                open.insert(slot, out.len());
                out.push(FaultSpan {
                    pid: slot.0,
                    from_us: t,
                    to_us: end_us.max(t),
                    index,
                    state,
                });
            }
        };
    for (i, e) in trace.iter().enumerate() {
        match &e.kind {
            TraceKind::Partition { to, .. } | TraceKind::Repair { to } if *to != e.pid => {
                let (cutting, both) = match &e.kind {
                    TraceKind::Partition { oneway, .. } => (true, !*oneway),
                    _ => (false, true),
                };
                // This process cannot reach `to`; a two-way cut (and every repair) works
                // on the peer's side too.
                let mut sides = vec![(e.pid, *to)];
                if both {
                    sides.push((*to, e.pid));
                }
                for (p, peer) in sides {
                    let set = cut.entry(p).or_default();
                    let changed = if cutting {
                        set.insert(peer)
                    } else {
                        set.remove(&peer)
                    };
                    if changed {
                        let next = (!set.is_empty()).then(|| FaultState::CutOff {
                            from: set.iter().copied().collect(),
                        });
                        switch(&mut out, (p, None), e.t_us, i, next);
                    }
                }
            }
            TraceKind::Latency { to, latency } => {
                let next = FaultState::Slowed {
                    to: *to,
                    latency: latency.clone(),
                };
                switch(&mut out, (e.pid, Some(*to)), e.t_us, i, Some(next));
            }
            TraceKind::ClockJump { delta_us } => {
                let c = clock.entry(e.pid).or_default();
                c.0 = c.0.saturating_add(*delta_us);
                let next = (*c != (0, 0)).then_some(FaultState::Clock {
                    offset_us: c.0,
                    rate_ppm: c.1,
                });
                switch(&mut out, (e.pid, CLOCK), e.t_us, i, next);
            }
            TraceKind::Drift { rate_ppm } => {
                let c = clock.entry(e.pid).or_default();
                c.1 = *rate_ppm;
                let next = (*c != (0, 0)).then_some(FaultState::Clock {
                    offset_us: c.0,
                    rate_ppm: c.1,
                });
                switch(&mut out, (e.pid, CLOCK), e.t_us, i, next);
            }
            // A crash ends nothing here: a restarted node keeps its cut links (the
            // network's), and its clock (the process's) is shown as the trace says.
            _ => {}
        }
    }
    // A span that began and ended at one instant says nothing on the picture.
    out.retain(|s| s.to_us > s.from_us || s.to_us == end_us);
    out
}

/// The spans on `pid` at true time `t_us` (begun by then, not yet over).
pub fn at(spans: &[FaultSpan], pid: u32, t_us: u64) -> impl Iterator<Item = &FaultSpan> {
    spans
        .iter()
        .filter(move |s| s.pid == pid && s.from_us <= t_us && t_us < s.to_us.max(s.from_us + 1))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;
    use crate::timeline::build;

    fn ev(i: u64, pid: u32, kind: TraceKind) -> TraceEvent {
        TraceEvent {
            t_us: i * 1000,
            local_us: (i * 1000) as i64,
            pid,
            kind,
        }
    }

    #[test]
    fn a_two_way_cut_is_a_state_on_both_sides_until_its_repair() {
        let trace = vec![
            ev(1, 0, TraceKind::Partition { to: 1, oneway: false }),
            ev(2, 0, TraceKind::Partition { to: 2, oneway: true }),
            ev(5, 0, TraceKind::Repair { to: 1 }),
        ];
        let s = spans(&trace, 10_000);
        let on = |pid: u32, t: u64| -> Vec<FaultState> { at(&s, pid, t).map(|x| x.state.clone()).collect() };
        assert_eq!(on(0, 1500), vec![FaultState::CutOff { from: vec![1] }]);
        assert_eq!(on(1, 1500), vec![FaultState::CutOff { from: vec![0] }]);
        // The one-way cut adds 2 to 0's set only.
        assert_eq!(on(0, 3000), vec![FaultState::CutOff { from: vec![1, 2] }]);
        assert!(on(2, 3000).is_empty());
        // The repair of 0–1 leaves 0 cut from 2 and frees 1, for the rest of the run.
        assert_eq!(on(0, 7000), vec![FaultState::CutOff { from: vec![2] }]);
        assert!(on(1, 7000).is_empty());
        assert_eq!(on(0, 9999), vec![FaultState::CutOff { from: vec![2] }]);
    }

    #[test]
    fn a_clock_state_adds_its_jumps_and_keeps_its_drift() {
        let trace = vec![
            ev(1, 3, TraceKind::ClockJump { delta_us: 500_000 }),
            ev(2, 3, TraceKind::Drift { rate_ppm: 20_000 }),
            ev(4, 3, TraceKind::ClockJump { delta_us: -500_000 }),
            ev(6, 3, TraceKind::Drift { rate_ppm: 0 }),
        ];
        let s = spans(&trace, 10_000);
        let on = |t: u64| at(&s, 3, t).map(|x| x.state.clone()).next();
        assert_eq!(
            on(1500),
            Some(FaultState::Clock {
                offset_us: 500_000,
                rate_ppm: 0
            })
        );
        assert_eq!(
            on(3000),
            Some(FaultState::Clock {
                offset_us: 500_000,
                rate_ppm: 20_000
            })
        );
        assert_eq!(
            on(5000),
            Some(FaultState::Clock {
                offset_us: 0,
                rate_ppm: 20_000
            })
        );
        assert_eq!(on(7000), None);
    }

    #[test]
    fn the_built_in_partition_scenarios_show_who_is_cut_off_from_whom() {
        // Every built-in with a partition fault has a cut-off state on its lane for as long
        // as the trace says the link is down.
        let mut seen = 0;
        for name in crate::sim::scenario::BUILTINS.iter().map(|b| b.name) {
            let sc = builtin(name).unwrap().unwrap();
            let m = build(&sc, 1).unwrap();
            for (i, e) in m.trace.iter().enumerate() {
                if let TraceKind::Partition { to, .. } = e.kind {
                    seen += 1;
                    let here: Vec<_> = at(&m.faults, e.pid, e.t_us).collect();
                    assert!(
                        here.iter()
                            .any(|s| matches!(&s.state, FaultState::CutOff { from } if from.contains(&to))),
                        "{name}: event {i} cuts {} from {to}, but the states say {here:?}",
                        e.pid
                    );
                }
            }
        }
        assert!(seen > 0, "no built-in cuts a link");
    }
}
