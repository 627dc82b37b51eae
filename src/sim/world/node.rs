//! A Redis node at work: it runs a command on its store (and sees a lab's release free
//! someone else's lock), answers, propagates writes to its replicas and its AOF, and
//! a replica is promoted when its master fails over.

use super::*;

impl World {
    pub(super) fn promote(&mut self, group: usize, old: Pid, out: &mut Vec<TraceEvent>) {
        let candidates: Vec<Pid> = self.groups[group]
            .members
            .iter()
            .copied()
            .filter(|&p| p != old && self.procs[p].alive)
            .collect();
        let Some(&new) = candidates.first() else { return };
        let others: Vec<Pid> = candidates[1..].to_vec();
        if let Kind::Node(n) = &mut self.procs[new].kind {
            n.replica_of = None;
            n.replicas = others.clone();
            n.acked.clear();
        }
        for &o in &others {
            if let Kind::Node(n) = &mut self.procs[o].kind {
                n.replica_of = Some(new);
            }
        }
        self.groups[group].master = new;
        let name = self.groups[group].name.clone();
        self.emit(out, new, TraceKind::Failover { group: name });
    }

    /// Node `node` runs command `req` from `from` (sent from the learner's `line`, for a
    /// lab worker whose harness said it).
    pub(super) fn node_command(
        &mut self,
        node: Pid,
        from: Pid,
        req: u64,
        args: Vec<Vec<u8>>,
        line: Option<u32>,
        out: &mut Vec<TraceEvent>,
    ) {
        let now = self.now_us;
        let full = self.full();
        let p = &mut self.procs[node];
        let local_ms = p.clock.local_ms(now);
        let inc = p.inc;
        let Kind::Node(n) = &mut p.kind else { return };
        n.store.set_now_ms(local_ms);
        let is_wait = args.first().is_some_and(|a| a.eq_ignore_ascii_case(b"WAIT"));
        if is_wait {
            // WAIT needs replication state the store does not have: the node answers it.
            let parse = |i: usize| {
                args.get(i)
                    .and_then(|a| std::str::from_utf8(a).ok())
                    .and_then(|s| s.parse::<i64>().ok())
            };
            let (Some(want), Some(timeout_ms), 3) = (parse(1), parse(2), args.len()) else {
                let reply = Reply::Error("ERR syntax error in WAIT".into());
                let service = n.service_us;
                self.reply_cmd(node, from, req, &args, reply, service, line, out);
                return;
            };
            let acked = n.acked.values().filter(|a| **a >= n.offset).count() as i64;
            if acked >= want || timeout_ms < 0 {
                let service = n.service_us;
                self.reply_cmd(node, from, req, &args, Reply::Int(acked), service, line, out);
                return;
            }
            n.next_wait += 1;
            let id = n.next_wait;
            n.waits.push(WaitReq {
                id,
                client: from,
                req,
                want,
                offset: n.offset,
                args: args
                    .iter()
                    .map(|a| String::from_utf8_lossy(a).into_owned())
                    .collect(),
                line,
            });
            if timeout_ms > 0 {
                let t = self.procs[node]
                    .clock
                    .true_duration_us(timeout_ms.min(86_400_000) as u64 * 1000);
                self.schedule(now + t, Ev::WaitDeadline { node, inc, wait: id });
            }
            return;
        }
        let lab_key = match &self.procs[from].kind {
            Kind::Lab(l) => Some(l.lock.clone()),
            _ => None,
        };
        let Kind::Node(n) = &mut self.procs[node].kind else {
            return;
        };
        let before = lab_key.as_deref().and_then(|k| live_value(&n.store, k, local_ms));
        let reply = n.store.execute_conn(from as u64, &args);
        let effects = n.store.take_effects();
        let service = n.service_us;
        let _ = full;
        if let (Some(key), Some(was)) = (lab_key, before) {
            let now_value = live_value(&n.store, &key, local_ms);
            let owner = self.lab_owners.get(&was).copied();
            if let Some(owner) = owner.filter(|o| *o != from && now_value.as_deref() != Some(was.as_str())) {
                self.emit(
                    out,
                    from,
                    TraceKind::ForeignDelete {
                        key,
                        owner: owner as u32,
                        token: was,
                    },
                );
            }
        }
        self.after_write(node, effects);
        self.reply_cmd(node, from, req, &args, reply, service, line, out);
    }

    #[allow(clippy::too_many_arguments)]
    pub(super) fn reply_cmd(
        &mut self,
        node: Pid,
        from: Pid,
        req: u64,
        args: &[Vec<u8>],
        reply: Reply,
        service_us: u64,
        line: Option<u32>,
        out: &mut Vec<TraceEvent>,
    ) {
        if self.full() {
            let script = args
                .first()
                .is_some_and(|a| a.eq_ignore_ascii_case(b"EVAL") || a.eq_ignore_ascii_case(b"EVALSHA"));
            self.emit(
                out,
                node,
                TraceKind::Command {
                    from: from as u32,
                    args: args
                        .iter()
                        .map(|a| String::from_utf8_lossy(a).into_owned())
                        .collect(),
                    reply: crate::store::render_line(&reply),
                    script,
                    line: SourceLine(line),
                },
            );
        }
        if from != node {
            self.send(node, from, Payload::Reply { req, reply }, service_us, out);
        }
    }

    pub(super) fn finish_wait(&mut self, node: Pid, id: u64, out: &mut Vec<TraceEvent>) {
        let Kind::Node(n) = &mut self.procs[node].kind else {
            return;
        };
        let Some(pos) = n.waits.iter().position(|w| w.id == id) else {
            return;
        };
        let w = n.waits.remove(pos);
        let acked = n.acked.values().filter(|a| **a >= w.offset).count() as i64;
        let args: Vec<Vec<u8>> = w.args.iter().map(|a| a.as_bytes().to_vec()).collect();
        self.reply_cmd(node, w.client, w.req, &args, Reply::Int(acked), 0, w.line, out);
    }

    /// Persistence and replication of a node's writes.
    pub(super) fn after_write(&mut self, node: Pid, effects: Vec<Effect>) {
        if effects.is_empty() {
            return;
        }
        let now = self.now_us;
        let inc = self.procs[node].inc;
        let Kind::Node(n) = &mut self.procs[node].kind else {
            return;
        };
        match n.persistence {
            Persistence::None => {}
            Persistence::Always => {
                for e in &effects {
                    disk_apply(&mut n.disk, e);
                }
            }
            Persistence::Everysec => n.aof_pending.extend(effects.iter().cloned()),
        }
        if !n.replicas.is_empty() {
            n.offset += 1;
            let offset = n.offset;
            let at = now + n.lag_us;
            self.schedule(
                at,
                Ev::ReplFlush {
                    node,
                    inc,
                    offset,
                    effects,
                },
            );
        }
    }

    pub(super) fn replica_apply(
        &mut self,
        node: Pid,
        from: Pid,
        offset: u64,
        effects: Vec<Effect>,
        out: &mut Vec<TraceEvent>,
    ) {
        let now = self.now_us;
        let p = &mut self.procs[node];
        let local_ms = p.clock.local_ms(now);
        let Kind::Node(n) = &mut p.kind else { return };
        if n.replica_of != Some(from) {
            return; // a stale stream from a former master
        }
        n.store.set_now_ms(local_ms);
        for e in &effects {
            n.store.apply_effect(e);
        }
        let own = n.store.take_effects();
        let count = effects.len() as u32;
        self.after_write(node, own);
        if self.full() {
            self.emit(
                out,
                node,
                TraceKind::Replicate {
                    from: from as u32,
                    offset,
                    effects: count,
                },
            );
        }
        self.send(node, from, Payload::ReplAck { offset }, 0, out);
    }
}
