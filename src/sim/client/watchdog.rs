//! The watchdog: while a client works it renews its lock every TTL/3 with the
//! token-checked PEXPIRE script, at a fixed rate whether or not the last renewal
//! answered; a renewal that answers 0 means the lock is gone.

use super::*;

impl Client {
    /// Renewal timer `hold` fired: extend the lock and arm the next one.
    pub(super) fn renew(&mut self, hold: u64, out: &mut Vec<Action>) {
        let Some(h) = &self.hold else { return };
        if h.id != hold || self.phase != Phase::Working {
            return;
        }
        let args = Self::eval(
            &self.cfg.scripts.extend,
            &[&self.cfg.lock],
            &[h.token.clone(), self.cfg.ttl_ms.to_string()],
        );
        if let Some(&dest) = self.cfg.dests.first() {
            self.send(dest, args, Purpose::Renew { hold }, out);
        }
        // Fixed rate: every ttl/3, whether or not the last one answered.
        out.push(Action::Timer {
            after_local_us: self.cfg.ttl_ms * 1000 / 3,
            timer: Timer::Renew(hold),
        });
    }

    /// A renewal of hold `hold` answered.
    pub(super) fn renewed(&mut self, hold: u64, reply: &Reply, out: &mut Vec<Action>) {
        if self.hold.as_ref().map(|h| h.id) != Some(hold) {
            return;
        }
        // Renewed, or the request failed: the next renewal is already
        // scheduled (a failed one is only logged, as Redisson does).
        if *reply == Reply::Int(0) {
            self.lock_lost(Reason::RenewalReturned0, out);
            self.done(out);
        }
    }
}
