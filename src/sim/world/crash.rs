//! A process crashes and comes back: what each kind loses and keeps (a node its
//! un-fsynced writes, a client its program, a lab worker its code but, until the
//! restart, its token), and how a node rejoins a group that failed over.

use super::*;

impl World {
    /// Process `p` dies now.
    pub(super) fn crash(&mut self, p: Pid, out: &mut Vec<TraceEvent>) {
        let now = self.now_us;
        if !self.procs[p].alive {
            return;
        }
        let proc_ = &mut self.procs[p];
        proc_.alive = false;
        proc_.paused = false;
        proc_.inbox.clear();
        proc_.inc += 1;
        let inc = proc_.inc;
        self.emit(out, p, TraceKind::Crash);
        match &mut self.procs[p].kind {
            Kind::Node(n) => {
                // The process is gone; a restart replays what the AOF kept.
                let mut store = Store::new(sub_seed(n.seed, &format!("restart:{inc}")));
                if n.persistence == Persistence::None {
                    n.disk.clear();
                }
                for (key, (value, expire_at_ms)) in &n.disk {
                    store.apply_effect(&Effect::Set {
                        key: key.clone(),
                        value: value.clone(),
                        expire_at_ms: *expire_at_ms,
                    });
                }
                let _ = store.take_effects();
                n.store = store;
                n.aof_pending.clear();
                n.waits.clear();
                n.acked.clear();
                if let Some(g) = n.group {
                    if self.groups[g].master == p {
                        if let Some((detect, _)) = self.groups[g].failover {
                            self.schedule(
                                now + detect,
                                Ev::FailoverDetect {
                                    group: g,
                                    master: p,
                                    inc,
                                },
                            );
                        }
                    }
                }
            }
            Kind::Client(c) => {
                let mut actions = Vec::new();
                c.crash(&mut actions);
                for a in actions {
                    self.apply(p, a, out);
                }
            }
            Kind::Lab(l) => {
                // The token outlives the crash until the restart: a write the
                // worker sent just before it died still lands, and is judged by
                // whether the key holds that token then, not by the crash.
                let token = l.token.take();
                l.reset();
                l.token = token;
                let worker = l.worker;
                let now_local_us = self.procs[p].clock.local_us(now);
                self.lab_queue.retain(|i| i.pid != p);
                self.lab_queue.push_back(LabInput {
                    pid: p,
                    worker,
                    inc,
                    now_local_us,
                    ev: LabEvent::Crash,
                });
            }
            Kind::Resource(_) => {}
        }
    }

    /// Process `p` comes back now.
    pub(super) fn restart(&mut self, p: Pid, out: &mut Vec<TraceEvent>) {
        let now = self.now_us;
        if self.procs[p].alive {
            return;
        }
        self.procs[p].alive = true;
        let inc = self.procs[p].inc;
        // A node whose group failed over comes back as a replica of the new
        // master and resynchronises from it (a full sync).
        let new_master = match &self.procs[p].kind {
            Kind::Node(n) => n.group.map(|g| self.groups[g].master).filter(|m| *m != p),
            _ => None,
        };
        let master_store = new_master.and_then(|m| match &self.procs[m].kind {
            Kind::Node(mn) => Some(mn.store.clone()),
            _ => None,
        });
        if let Some(m) = new_master {
            if let Kind::Node(mn) = &mut self.procs[m].kind {
                if !mn.replicas.contains(&p) {
                    mn.replicas.push(p);
                }
            }
        }
        let local_ms = self.procs[p].clock.local_ms(now);
        let (label, keys) = match &mut self.procs[p].kind {
            Kind::Node(n) => {
                if let (Some(m), Some(s)) = (new_master, master_store) {
                    n.store = s;
                    n.replica_of = Some(m);
                    n.replicas.clear();
                }
                n.store.set_now_ms(local_ms);
                let keys = n
                    .store
                    .live_keys()
                    .iter()
                    .filter(|k| k.expire_at_ms.is_none_or(|e| e > local_ms))
                    .count() as u32;
                let label = if new_master.is_some() {
                    Comeback::Resync
                } else {
                    Comeback::Disk(n.persistence)
                };
                (label, keys)
            }
            Kind::Client(c) => {
                let fresh = c.restarted(inc);
                **c = fresh;
                (Comeback::FreshProgram, 0)
            }
            Kind::Lab(l) => {
                l.reset();
                (Comeback::FreshProgram, 0)
            }
            Kind::Resource(_) => (Comeback::AsItWas, 0),
        };
        self.emit(
            out,
            p,
            TraceKind::Restart {
                persistence: label,
                keys,
            },
        );
        if self.is_client(p) {
            self.schedule(
                now,
                Ev::Timer {
                    pid: p,
                    inc,
                    timer: Timer::Start,
                },
            );
        }
    }
}
