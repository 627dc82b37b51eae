//! A Redlock library's `using()`: its attempts and votes, automatic extension, and the
//! abort signal its routine gets when an extension fails.

use super::*;

impl Client {
    pub(super) fn lib_script(&self, op: LibOp) -> &str {
        match op {
            LibOp::Acquire => &self.cfg.scripts.lib_acquire,
            LibOp::Extend => &self.cfg.scripts.lib_extend,
            LibOp::Release => &self.cfg.scripts.lib_release,
        }
    }

    pub(super) fn lib_exec(&mut self, ctx: &ClientCtx, op: LibOp, out: &mut Vec<Action>) {
        let id = self.id();
        self.lib.exec = Some(Exec {
            id,
            op,
            attempts: 0,
            votes_for: 0,
            votes_against: 0,
            resolved: false,
            start_local: ctx.now_local_us,
        });
        self.lib_attempt(out);
    }

    /// One attempt: the script on every node; votes are counted as they come in.
    pub(super) fn lib_attempt(&mut self, out: &mut Vec<Action>) {
        let Some(e) = self.lib.exec.as_mut() else { return };
        e.attempts += 1;
        e.votes_for = 0;
        e.votes_against = 0;
        e.resolved = false;
        let op = e.op;
        let id = self.id();
        if let Some(e) = self.lib.exec.as_mut() {
            // Votes carry the attempt id: late votes of an earlier attempt are ignored.
            e.id = id;
        }
        let args = match op {
            LibOp::Release => vec![self.lib.token.clone()],
            _ => vec![self.lib.token.clone(), self.cfg.ttl_ms.to_string()],
        };
        let eval = Self::eval(self.lib_script(op), &[&self.cfg.lock], &args);
        for d in self.cfg.dests.clone() {
            self.send(d, eval.clone(), Purpose::Lib { exec: id }, out);
        }
    }

    pub(super) fn lib_vote(&mut self, ctx: &ClientCtx, exec: u64, reply: &Reply, out: &mut Vec<Action>) {
        let quorum = self.cfg.quorum();
        let Some(e) = self.lib.exec.as_mut().filter(|e| e.id == exec && !e.resolved) else {
            return;
        };
        // "for" only when the script touched every requested key (here: one).
        if matches!(reply, Reply::Int(1)) {
            e.votes_for += 1;
        } else {
            e.votes_against += 1;
        }
        if e.votes_for == quorum {
            e.resolved = true;
            let e = e.clone();
            self.lib_success(ctx, &e, out);
        } else if e.votes_against == quorum {
            e.resolved = true;
            let e = e.clone();
            if e.attempts < self.cfg.lib.retry_count.saturating_add(1) {
                let l = &self.cfg.lib;
                let jitter = ((self.rng.unit() * 2.0 - 1.0) * l.retry_jitter_ms as f64).floor() as i64;
                let delay_ms = (l.retry_delay_ms as i64 + jitter).max(0) as u64;
                out.push(Action::Timer {
                    after_local_us: delay_ms * 1000,
                    timer: Timer::LibRetry(e.id),
                });
            } else {
                self.lib_failed(ctx, &e, out);
            }
        } else if e.votes_for + e.votes_against == self.cfg.dests.len() {
            // An even split: every vote is in and neither side has a quorum. node-redlock
            // settles an attempt only on a quorum for or against, so it never settles:
            // no retry, no release of the partial keys, the caller waits forever.
            out.push(Action::Trace(TraceKind::Stalled {
                lock: self.cfg.lock.clone(),
                votes_for: e.votes_for as u32,
                votes_against: e.votes_against as u32,
            }));
        }
    }

    pub(super) fn lib_success(&mut self, ctx: &ClientCtx, e: &Exec, out: &mut Vec<Action>) {
        // node-redlock's expiration: the start of the attempt + TTL − drift.
        let validity_us = self.cfg.validity_ms(0) * 1000;
        self.lib.exec = None;
        match e.op {
            LibOp::Acquire => {
                self.lib.expiration_local = self.lib.acquire_start_local + validity_us;
                let id = self.id();
                self.hold = Some(Hold {
                    id,
                    token: self.lib.token.clone(),
                    fence: None,
                    valid_until_local: Some(self.lib.expiration_local),
                });
                out.push(Action::Trace(TraceKind::LockHeld {
                    lock: self.cfg.lock.clone(),
                    token: self.lib.token.clone(),
                    fence: None,
                    valid_until_us: Some(ctx.true_at(self.lib.expiration_local)),
                }));
                self.lib_queue_extension(ctx, out);
                self.begin_work(ctx, out);
            }
            LibOp::Extend => {
                self.lib.ext_in_flight = false;
                self.lib.expiration_local = e.start_local + validity_us;
                if let Some(h) = self.hold.as_mut() {
                    h.valid_until_local = Some(self.lib.expiration_local);
                }
                if self.lib.release_after_ext {
                    self.lib_release(ctx, out);
                } else {
                    self.lib_queue_extension(ctx, out);
                }
            }
            LibOp::Release => self.done(out),
        }
    }

    pub(super) fn lib_failed(&mut self, ctx: &ClientCtx, e: &Exec, out: &mut Vec<Action>) {
        self.lib.exec = None;
        match e.op {
            LibOp::Acquire => {
                // Release any partial state on a minority, then give up.
                let args = Self::eval(
                    &self.cfg.scripts.lib_release,
                    &[&self.cfg.lock],
                    std::slice::from_ref(&self.lib.token),
                );
                for d in self.cfg.dests.clone() {
                    let req = self.id();
                    self.pending.insert(req, Purpose::Abandon);
                    out.push(Action::Cmd {
                        dest: d,
                        req,
                        args: args.clone(),
                    });
                }
                out.push(Action::Trace(TraceKind::AcquireFailed {
                    lock: self.cfg.lock.clone(),
                    reason: Reason::NoQuorumInRetryWindow,
                }));
                out.push(Action::Trace(TraceKind::GaveUp {
                    lock: self.cfg.lock.clone(),
                }));
                self.done(out);
            }
            LibOp::Extend => {
                self.lib.ext_in_flight = false;
                if self.lib.release_after_ext {
                    self.lib_release(ctx, out);
                } else if self.lib.expiration_local > ctx.now_local_us {
                    self.lib.ext_in_flight = true;
                    self.lib_exec(ctx, LibOp::Extend, out);
                } else {
                    self.lib_abort(out);
                }
            }
            LibOp::Release => self.done(out),
        }
    }

    pub(super) fn lib_queue_extension(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.lib.ext_gen += 1;
        let at = self.lib.expiration_local - self.cfg.lib.threshold_ms as i64 * 1000;
        out.push(Action::Timer {
            after_local_us: (at - ctx.now_local_us).max(0) as u64,
            timer: Timer::LibExtend(self.lib.ext_gen),
        });
    }

    pub(super) fn lib_abort(&mut self, out: &mut Vec<Action>) {
        self.lib.aborted = true;
        self.lock_lost(Reason::ExtensionFailed, out);
    }

    pub(super) fn lib_release(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.lib.release_after_ext = false;
        if self.hold.take().is_some() {
            out.push(Action::Trace(TraceKind::LockReleased {
                lock: self.cfg.lock.clone(),
            }));
        }
        self.phase = Phase::Releasing;
        self.lib_exec(ctx, LibOp::Release, out);
    }
}
