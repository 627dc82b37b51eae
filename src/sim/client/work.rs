//! Holding the lock: the work's steps against the resource (with the watchdog's renewals
//! and the validity checks on the way), then the release (the token-checked script, or
//! the unsafe DEL a scenario asks for).

use super::*;

impl Client {
    pub(super) fn begin_work(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.phase = Phase::Working;
        self.pc = 0;
        self.next_step(ctx, out);
    }

    pub(super) fn next_step(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        loop {
            if self.phase != Phase::Working {
                return;
            }
            if self.cfg.algorithm == Algorithm::Library && self.lib.aborted {
                // The routine checks the signal between steps and stops.
                self.end_work(ctx, out);
                return;
            }
            let Some(step) = self.cfg.work.get(self.pc).cloned() else {
                out.push(Action::Trace(TraceKind::WorkDone));
                self.end_work(ctx, out);
                return;
            };
            match step {
                Step::Sleep { lo_us, hi_us } => {
                    self.step_gen += 1;
                    let d = self.rng.range_u64(lo_us, hi_us.max(lo_us));
                    out.push(Action::Timer {
                        after_local_us: d,
                        timer: Timer::Step(self.step_gen),
                    });
                    return;
                }
                Step::SleepLogNormal { median_us, p99_us } => {
                    self.step_gen += 1;
                    let d = log_normal_us(&mut self.rng, median_us, p99_us);
                    out.push(Action::Timer {
                        after_local_us: d,
                        timer: Timer::Step(self.step_gen),
                    });
                    return;
                }
                Step::Crash => {
                    out.push(Action::CrashSelf);
                    return;
                }
                Step::Read(key) => {
                    let req = self.id();
                    self.pending.insert(req, Purpose::Read);
                    out.push(Action::Res {
                        req,
                        op: ResOp::Read { key },
                    });
                    return;
                }
                Step::Expect(key, value) => {
                    let seen = self.reads.get(&key).and_then(|r| r.0.clone());
                    if seen.as_deref() != Some(value.as_str()) {
                        out.push(Action::Trace(TraceKind::WorkSkipped {
                            reason: Reason::Expected {
                                key,
                                seen,
                                want: value,
                            },
                        }));
                        self.end_work(ctx, out);
                        return;
                    }
                    self.pc += 1;
                }
                Step::Claim { ttl_us } => {
                    let Some(key) = self.cfg.idempotency_key.clone() else {
                        // Nothing to claim (the loader refuses this; skip the step).
                        self.pc += 1;
                        continue;
                    };
                    let req = self.id();
                    self.pending.insert(req, Purpose::Write);
                    out.push(Action::Res {
                        req,
                        op: ResOp::Claim { key, ttl_us },
                    });
                    return;
                }
                Step::Write(key, value) => {
                    let req = self.id();
                    self.pending.insert(req, Purpose::Write);
                    let base_version = self.reads.get(&key).map(|r| r.1);
                    out.push(Action::Res {
                        req,
                        op: ResOp::Write {
                            key,
                            value,
                            token: self.hold.as_ref().and_then(|h| h.fence),
                            idempotency_key: self.cfg.idempotency_key.clone(),
                            base_version,
                        },
                    });
                    return;
                }
            }
        }
    }

    pub(super) fn on_res(&mut self, ctx: &ClientCtx, p: Purpose, reply: ResReply, out: &mut Vec<Action>) {
        if self.phase != Phase::Working {
            return;
        }
        match (p, reply) {
            (Purpose::Read, ResReply::Read { value, version }) => {
                if let Some(Step::Read(key)) = self.cfg.work.get(self.pc).cloned() {
                    self.reads.insert(key, (value, version));
                }
                self.pc += 1;
                self.next_step(ctx, out);
            }
            (Purpose::Write, ResReply::Accepted) => {
                self.pc += 1;
                self.next_step(ctx, out);
            }
            (Purpose::Write, ResReply::Rejected { .. }) => {
                // The resource refused: stop the work.
                self.end_work(ctx, out);
            }
            _ => {}
        }
    }

    pub(super) fn end_work(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        match self.cfg.algorithm {
            Algorithm::None => self.done(out),
            Algorithm::Library => {
                // `finally`: stop the extension timer, wait for one in flight, release.
                self.lib.ext_gen += 1;
                self.phase = Phase::Releasing;
                if self.lib.ext_in_flight {
                    self.lib.release_after_ext = true;
                } else {
                    self.lib_release(ctx, out);
                }
            }
            _ => self.release(out),
        }
    }

    pub(super) fn release(&mut self, out: &mut Vec<Action>) {
        let Some(h) = self.hold.take() else {
            self.done(out);
            return;
        };
        out.push(Action::Trace(TraceKind::LockReleased {
            lock: self.cfg.lock.clone(),
        }));
        self.phase = Phase::Releasing;
        self.release_token = h.token.clone();
        let cfg = self.cfg.clone();
        let targets: Vec<Dest> = match cfg.algorithm {
            Algorithm::SetNx => cfg.dests.iter().take(1).copied().collect(),
            _ => cfg.dests.clone(),
        };
        self.release_outstanding = 0;
        for d in targets {
            let (args, purpose) = match cfg.release {
                ReleaseKind::None => continue,
                ReleaseKind::Del => (vec![b("DEL"), b(&cfg.lock)], Purpose::Release),
                ReleaseKind::Lua => (
                    Self::eval(&cfg.scripts.release, &[&cfg.lock], std::slice::from_ref(&h.token)),
                    Purpose::Release,
                ),
                ReleaseKind::GetThenDel => (vec![b("GET"), b(&cfg.lock)], Purpose::GetForRelease { dest: d }),
            };
            self.release_outstanding += 1;
            self.send(d, args, purpose, out);
        }
        if self.release_outstanding == 0 {
            self.done(out);
        }
    }

    pub(super) fn release_done(&mut self, out: &mut Vec<Action>) {
        self.release_outstanding = self.release_outstanding.saturating_sub(1);
        if self.release_outstanding == 0 && self.phase == Phase::Releasing {
            self.done(out);
        }
    }
}
