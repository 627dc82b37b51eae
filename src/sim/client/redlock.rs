//! Taking the lock: one SET NX PX on one node (`set-nx`, a quorum of one) or on every
//! master at once (Redlock): the votes, the validity left (TTL − elapsed − drift), the
//! retries, and giving up.

use super::*;

impl Client {
    pub(super) fn begin_attempt(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        self.attempts += 1;
        let id = self.id();
        let token = self.rng.token();
        let cfg = self.cfg.clone();
        let ttl = cfg.ttl_ms.to_string();
        let args = if cfg.fencing {
            Self::eval(
                &cfg.scripts.acquire_fenced,
                &[&cfg.lock, &cfg.fence_key],
                &[token.clone(), ttl],
            )
        } else {
            vec![b("SET"), b(&cfg.lock), b(&token), b("NX"), b("PX"), b(&ttl)]
        };
        let targets: Vec<Dest> = match cfg.algorithm {
            Algorithm::SetNx => cfg.dests.iter().take(1).copied().collect(),
            _ => cfg.dests.clone(),
        };
        self.att = Some(Attempt {
            id,
            start_local: ctx.now_local_us,
            token,
            outstanding: targets.len(),
            ok: 0,
            fence: None,
        });
        for d in targets {
            self.send(d, args.clone(), Purpose::Acquire { att: id }, out);
        }
    }

    pub(super) fn on_result(&mut self, ctx: &ClientCtx, p: Purpose, reply: Reply, out: &mut Vec<Action>) {
        match p {
            Purpose::Acquire { att } => {
                let fencing = self.cfg.fencing;
                let Some(a) = self.att.as_mut().filter(|a| a.id == att) else {
                    return;
                };
                a.outstanding = a.outstanding.saturating_sub(1);
                match &reply {
                    r if !fencing && is_ok(r) => a.ok += 1,
                    Reply::Int(n) if fencing && *n > 0 => {
                        a.ok += 1;
                        a.fence = Some(*n);
                    }
                    _ => {}
                }
                if a.outstanding == 0 && self.phase == Phase::Acquiring {
                    self.decide(ctx, out);
                }
            }
            Purpose::Wait { att } => {
                if self.phase != Phase::Acquiring || self.att.as_ref().map(|a| a.id) != Some(att) {
                    return;
                }
                let want = self.cfg.wait.map(|w| w.0).unwrap_or(0);
                match reply {
                    Reply::Int(k) if k >= i64::from(want) => self.held(ctx, out),
                    other => {
                        self.abandon(out);
                        let why = match other {
                            Reply::Int(acked) => Reason::WaitAcked { acked, want },
                            other => Reason::WaitReply {
                                reply: crate::store::render_line(&other),
                            },
                        };
                        self.attempt_failed(why, out);
                    }
                }
            }
            Purpose::Renew { hold } => self.renewed(hold, &reply, out),
            Purpose::GetForRelease { dest } => {
                if matches!(&reply, Reply::Bulk(v) if *v == self.release_token.as_bytes()) {
                    // Not atomic: between this GET and the DEL anything can happen.
                    let args = vec![b("DEL"), b(&self.cfg.lock)];
                    self.send(dest, args, Purpose::Release, out);
                } else {
                    self.release_done(out);
                }
            }
            Purpose::Release => self.release_done(out),
            Purpose::Abandon => {}
            Purpose::Lib { exec } => self.lib_vote(ctx, exec, &reply, out),
            Purpose::Read | Purpose::Write => {}
        }
    }

    pub(super) fn decide(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        let Some(a) = self.att.clone() else { return };
        let cfg = self.cfg.clone();
        match cfg.algorithm {
            Algorithm::SetNx => {
                if a.ok == 0 {
                    self.attempt_failed(Reason::LockTaken, out);
                } else if let (Some((want, timeout_ms)), Some(&dest)) = (cfg.wait, cfg.dests.first()) {
                    let args = vec![b("WAIT"), b(&want.to_string()), b(&timeout_ms.to_string())];
                    // WAIT blocks for its own timeout; do not let the request timeout
                    // cut it short.
                    let req = self.id();
                    self.pending.insert(req, Purpose::Wait { att: a.id });
                    out.push(Action::Cmd { dest, req, args });
                } else {
                    self.held(ctx, out);
                }
            }
            _ => {
                let elapsed_ms = (ctx.now_local_us - a.start_local).max(0) / 1000;
                let validity_ms = crate::sim::validity_ms(cfg.ttl_ms, elapsed_ms as u64, cfg.drift_factor);
                let quorum = a.ok >= cfg.quorum();
                let checked = cfg.algorithm == Algorithm::Redlock;
                if quorum && (!checked || validity_ms > 0) {
                    self.held(ctx, out);
                } else {
                    self.abandon(out);
                    let why = if quorum {
                        Reason::NoValidity {
                            validity_ms,
                            elapsed_ms,
                        }
                    } else {
                        Reason::Nodes {
                            ok: a.ok,
                            all: cfg.dests.len(),
                        }
                    };
                    self.attempt_failed(why, out);
                }
            }
        }
    }

    /// Release a failed attempt's keys on every node (even those that seemed to fail).
    pub(super) fn abandon(&mut self, out: &mut Vec<Action>) {
        let Some(a) = self.att.clone() else { return };
        let args = Self::eval(&self.cfg.scripts.release, &[&self.cfg.lock], &[a.token]);
        let targets: Vec<Dest> = match self.cfg.algorithm {
            Algorithm::SetNx => self.cfg.dests.iter().take(1).copied().collect(),
            _ => self.cfg.dests.clone(),
        };
        for d in targets {
            let req = self.id();
            self.pending.insert(req, Purpose::Abandon);
            out.push(Action::Cmd {
                dest: d,
                req,
                args: args.clone(),
            });
        }
    }

    pub(super) fn attempt_failed(&mut self, why: Reason, out: &mut Vec<Action>) {
        out.push(Action::Trace(TraceKind::AcquireFailed {
            lock: self.cfg.lock.clone(),
            reason: why,
        }));
        if self.attempts >= self.cfg.max_attempts {
            out.push(Action::Trace(TraceKind::GaveUp {
                lock: self.cfg.lock.clone(),
            }));
            self.done(out);
            return;
        }
        let delay = self.rng.range_u64(self.cfg.retry_lo_us, self.cfg.retry_hi_us);
        let id = self.att.as_ref().map(|a| a.id).unwrap_or(0);
        out.push(Action::Timer {
            after_local_us: delay,
            timer: Timer::Retry(id),
        });
    }

    pub(super) fn held(&mut self, ctx: &ClientCtx, out: &mut Vec<Action>) {
        let Some(a) = self.att.clone() else { return };
        let cfg = self.cfg.clone();
        let valid_until_local = if cfg.check_validity {
            let end = a.start_local + cfg.validity_ms(0) * 1000;
            if end <= ctx.now_local_us {
                self.abandon(out);
                self.attempt_failed(Reason::ValidityAlreadyOver, out);
                return;
            }
            Some(end)
        } else {
            None
        };
        let id = self.id();
        self.hold = Some(Hold {
            id,
            token: a.token.clone(),
            fence: a.fence,
            valid_until_local,
        });
        out.push(Action::Trace(TraceKind::LockHeld {
            lock: cfg.lock.clone(),
            token: a.token,
            fence: a.fence,
            valid_until_us: valid_until_local.map(|l| ctx.true_at(l)),
        }));
        if let Some(end) = valid_until_local {
            out.push(Action::Timer {
                after_local_us: (end - ctx.now_local_us).max(0) as u64,
                timer: Timer::Validity(id),
            });
        }
        if cfg.watchdog {
            // Renewals every ttl/3 counted from when the acquisition started.
            let first = a.start_local + (cfg.ttl_ms * 1000 / 3) as i64;
            out.push(Action::Timer {
                after_local_us: (first - ctx.now_local_us).max(0) as u64,
                timer: Timer::Renew(id),
            });
        }
        self.begin_work(ctx, out);
    }
}
