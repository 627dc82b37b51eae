//! How fast playback moves: how long the cursor dwells on each event at a speed.
//!
//! Playback goes event by event, so a learner can follow each step at 1×: an ordinary
//! step (a message sent or delivered, a timer) stays up for a quarter second, a command
//! on a node a little longer, and a key moment (a lock taken, lost or released, a write,
//! a crash, a violation beginning) long enough to read. Simulated time adds to it at a
//! readable rate (a long pause in the run is a visible pause on screen, capped so
//! playback never stalls). A speed divides every dwell: 0.25× takes four times as long
//! as 1×, and 4× a quarter, as the labels say. A run too long to follow event by event
//! (thousands of events) is compressed to [`MAX_RUN_MS`] at 1×.

use super::Model;
use crate::sim::{TraceKind, Weight};

/// An ordinary step at 1×, real ms.
pub const STEP_MS: f64 = 250.0;
/// A command a node runs, at 1×.
pub const COMMAND_MS: f64 = 700.0;
/// A key moment, at 1×: long enough to read the line it adds to the log.
pub const KEY_MOMENT_MS: f64 = 1_600.0;
/// Simulated time adds one real ms per this many simulated ms, at 1×…
pub const SIM_MS_PER_REAL_MS: f64 = 10.0;
/// …up to this much (a 25 s stretch of nothing does not stall playback).
pub const MAX_GAP_MS: f64 = 1_200.0;
/// The shortest wait between two stops at any speed, real ms (a browser frame): faster
/// than that, several events go by in one stop.
pub const MIN_DWELL_MS: f64 = 16.0;

/// Whether the event at `at` is a moment the learner should stop on.
pub fn is_key_moment(m: &Model, at: usize) -> bool {
    let Some(e) = m.trace.get(at) else {
        return false;
    };
    let band_starts = m.bands.iter().any(|b| {
        b.from_us <= e.t_us
            && at
                .checked_sub(1)
                .and_then(|p| m.trace.get(p))
                .is_none_or(|p| p.t_us < b.from_us)
    });
    band_starts || matches!(e.kind.weight(), Weight::Turn | Weight::Attempt)
}

/// Real ms to stay on the event at `at` at 1×, before a long run's compression.
fn dwell_1x(m: &Model, at: usize) -> f64 {
    let Some(e) = m.trace.get(at) else {
        return 0.0;
    };
    let base = if is_key_moment(m, at) {
        KEY_MOMENT_MS
    } else if matches!(e.kind, TraceKind::Command { .. }) {
        COMMAND_MS
    } else {
        STEP_MS
    };
    let gap_ms = m.trace.get(at + 1).map_or(0, |n| n.t_us.saturating_sub(e.t_us)) as f64 / 1000.0;
    base + (gap_ms / SIM_MS_PER_REAL_MS).min(MAX_GAP_MS)
}

/// A whole run plays in at most this long at 1×: a run of thousands of events (§4's
/// workers) is compressed to it, evenly, and then moves several events per frame.
pub const MAX_RUN_MS: f64 = 180_000.0;

/// The pace of one run.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Pace {
    /// 1, or less for a run that would take longer than [`MAX_RUN_MS`] at 1×.
    pub scale: f64,
}

impl Pace {
    pub fn of(m: &Model) -> Pace {
        let total: f64 = (0..m.trace.len().saturating_sub(1)).map(|i| dwell_1x(m, i)).sum();
        Pace {
            scale: if total > MAX_RUN_MS {
                MAX_RUN_MS / total
            } else {
                1.0
            },
        }
    }

    /// Real ms to stay on the event at `at` at `speed` (× the 1× pace; anything not a
    /// positive number counts as 1×), before compression into frames.
    pub fn dwell(&self, m: &Model, at: usize, speed: f64) -> f64 {
        let speed = if speed.is_finite() && speed > 0.0 {
            speed
        } else {
            1.0
        };
        dwell_1x(m, at) * self.scale / speed
    }

    /// The next stop after the event at `at` (at most `limit`) and how long to wait
    /// before moving to it, real ms: one event on, or several when each would be shorter
    /// than a frame.
    pub fn next(&self, m: &Model, at: usize, limit: usize, speed: f64) -> (usize, u32) {
        let mut wait = 0.0;
        let mut i = at;
        while i < limit {
            wait += self.dwell(m, i, speed);
            i += 1;
            if wait >= MIN_DWELL_MS {
                break;
            }
        }
        (i.min(limit), wait.max(MIN_DWELL_MS).round() as u32)
    }

    /// Real ms playback takes from event `from` to event `to` at `speed`.
    pub fn playback_ms(&self, m: &Model, from: usize, to: usize, speed: f64) -> u64 {
        let (mut at, mut total) = (from, 0u64);
        while at < to {
            let (next, wait) = self.next(m, at, to, speed);
            total += u64::from(wait);
            at = next;
        }
        total
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;
    use crate::timeline::build;

    fn model(name: &str) -> Model {
        build(&builtin(name).expect("built-in").expect("valid"), 1).expect("runs")
    }

    /// §3's 25-second run takes long enough at 1× to follow, event by event.
    #[test]
    fn a_learner_can_follow_section_3_at_1x() {
        let m = model("unsafe-del");
        let end = m.trace.len() - 1;
        let pace = Pace::of(&m);
        let total = pace.playback_ms(&m, 0, end, 1.0);
        // Every event is a stop, up for at least a quarter second, the key ones 1.5 s.
        assert!(total >= 20_000, "{total} ms");
        for i in 0..end {
            let (next, d) = pace.next(&m, i, end, 1.0);
            assert_eq!(next, i + 1);
            assert!(f64::from(d) >= STEP_MS, "event {i}: {d} ms");
            if matches!(
                m.trace[i].kind,
                TraceKind::LockHeld { .. } | TraceKind::LockReleased { .. }
            ) {
                assert!(d >= 1_500, "event {i}: {d} ms");
            }
        }
        // A violation's start is a moment to stop on.
        let band = &m.bands[0];
        let first = m
            .trace
            .iter()
            .position(|e| e.t_us >= band.from_us)
            .expect("in the run");
        assert!(is_key_moment(&m, first));
    }

    /// The speeds differ as their labels say.
    #[test]
    fn speeds_scale_playback_as_labelled() {
        for name in [
            "unsafe-del",
            "double-charge-no-lock",
            "redlock-contention",
            "ttl-workers",
        ] {
            let m = model(name);
            let (end, pace) = (m.trace.len() - 1, Pace::of(&m));
            let one = pace.playback_ms(&m, 0, end, 1.0) as f64;
            for speed in [0.25, 0.5, 2.0, 4.0, 8.0, 16.0] {
                let t = pace.playback_ms(&m, 0, end, speed) as f64;
                let ratio = one / t;
                assert!(
                    (ratio - speed).abs() / speed < 0.05,
                    "{name} at {speed}×: {t} vs {one} ms at 1×"
                );
            }
            // Long runs (§4's has thousands of events) play through at 1× in minutes.
            assert!(one <= MAX_RUN_MS * 1.05, "{name}: {one} ms");
        }
    }

    #[test]
    fn bad_speeds_and_cursors_do_not_stall() {
        let m = model("unsafe-del");
        let (p, end) = (Pace::of(&m), m.trace.len() - 1);
        assert_eq!(p.next(&m, 5, end, f64::NAN), p.next(&m, 5, end, 1.0));
        assert_eq!(p.next(&m, 5, end, -2.0), p.next(&m, 5, end, 1.0));
        assert_eq!(p.next(&m, usize::MAX, end, 1.0), (end, MIN_DWELL_MS as u32));
        let (next, wait) = p.next(&m, 5, end, 1e12);
        assert!(next > 5 && wait >= MIN_DWELL_MS as u32);
        assert_eq!(p.next(&m, end, end, 1.0).0, end);
    }
}
