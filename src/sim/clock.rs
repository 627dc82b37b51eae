//! Per-process clocks: true time → local time.
//!
//! The simulator owns true time (µs since the scenario started). Each process reads a
//! local clock derived from it by an offset model, as in TigerBeetle's
//! `testing/time.zig`: a linear drift (`rate_ppm`, parts per million; +20 000 is "2 %
//! fast") and step jumps. A Redis node judges TTLs by its local clock; the checker
//! judges who held a lock in true time.

use serde::{Deserialize, Serialize};

#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub struct Clock {
    anchor_true_us: u64,
    anchor_local_us: i64,
    rate_ppm: i64,
}

/// Drift rates are limited to ±50 %: beyond that "a clock" stops meaning anything, and
/// the limit keeps every conversion far from overflow.
pub const MAX_RATE_PPM: i64 = 500_000;

impl Clock {
    pub fn new(offset_us: i64, rate_ppm: i64) -> Clock {
        Clock {
            anchor_true_us: 0,
            anchor_local_us: offset_us,
            rate_ppm: rate_ppm.clamp(-MAX_RATE_PPM, MAX_RATE_PPM),
        }
    }

    pub fn rate_ppm(&self) -> i64 {
        self.rate_ppm
    }

    /// Local time at true time `t_us` (which must not precede the last re-anchoring).
    pub fn local_us(&self, t_us: u64) -> i64 {
        let dt = t_us.saturating_sub(self.anchor_true_us) as i128;
        let local = self.anchor_local_us as i128 + dt + dt * self.rate_ppm as i128 / 1_000_000;
        local.clamp(i64::MIN as i128, i64::MAX as i128) as i64
    }

    /// Local milliseconds as a Redis node's clock reports them (never negative).
    pub fn local_ms(&self, t_us: u64) -> u64 {
        (self.local_us(t_us).max(0) / 1000) as u64
    }

    fn reanchor(&mut self, t_us: u64) {
        self.anchor_local_us = self.local_us(t_us);
        self.anchor_true_us = t_us;
    }

    /// A step change of the local clock at true time `t_us` (NTP step, VM migration).
    pub fn jump(&mut self, t_us: u64, delta_us: i64) {
        self.reanchor(t_us);
        self.anchor_local_us = self.anchor_local_us.saturating_add(delta_us);
    }

    /// From true time `t_us` on, the local clock runs at `1 + rate_ppm / 10⁶`.
    pub fn set_rate(&mut self, t_us: u64, rate_ppm: i64) {
        self.reanchor(t_us);
        self.rate_ppm = rate_ppm.clamp(-MAX_RATE_PPM, MAX_RATE_PPM);
    }

    /// How much true time passes while this clock advances by `local_us`. Timers use
    /// durations (a monotonic clock), so step jumps do not move them, but drift does.
    pub fn true_duration_us(&self, local_us: u64) -> u64 {
        let denom = (1_000_000 + self.rate_ppm) as u128;
        // Round up so a timer never fires before its local deadline.
        ((local_us as u128 * 1_000_000).div_ceil(denom)).min(u64::MAX as u128) as u64
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn drift_two_percent_fast() {
        let c = Clock::new(0, 20_000);
        assert_eq!(c.local_us(1_000), 1_020);
        assert_eq!(c.local_ms(9_806_000), 10_002);
        assert_eq!(c.true_duration_us(10_200), 10_000);
    }

    #[test]
    fn jump_moves_local_but_not_durations() {
        let mut c = Clock::new(0, 0);
        c.jump(1_000_000, 10_000_000);
        assert_eq!(c.local_us(1_000_000), 11_000_000);
        assert_eq!(c.local_us(1_500_000), 11_500_000);
        assert_eq!(c.true_duration_us(500), 500);
    }

    #[test]
    fn negative_local_time_reads_as_zero_ms() {
        let c = Clock::new(-5_000, 0);
        assert_eq!(c.local_us(1_000), -4_000);
        assert_eq!(c.local_ms(1_000), 0);
    }

    #[test]
    fn rate_change_is_continuous() {
        let mut c = Clock::new(0, 0);
        c.set_rate(2_000, 10_000);
        assert_eq!(c.local_us(2_000), 2_000);
        assert_eq!(c.local_us(3_000), 3_010);
        c.set_rate(3_000, 9_999_999);
        assert_eq!(c.rate_ppm(), MAX_RATE_PPM);
    }
}
