//! The network between processes: a message is sent over a link (latency, loss,
//! partitions, never overtaking the one before it), delivered or dropped, and handed to
//! its receiver.

use super::*;

impl World {
    pub(super) fn describe(payload: &Payload) -> Message {
        let arg = |a: &[u8]| {
            let s = String::from_utf8_lossy(a);
            if s.len() > 24 {
                format!("{}…", s.chars().take(20).collect::<String>())
            } else {
                s.into_owned()
            }
        };
        match payload {
            Payload::Cmd { args, .. } => {
                Message::Redis(args.iter().map(|a| arg(a)).collect::<Vec<_>>().join(" "))
            }
            Payload::Reply { reply, .. } => Message::Redis(crate::store::render_line(reply)),
            Payload::Repl { offset, effects } => Message::Replicate {
                offset: *offset,
                writes: effects.len(),
            },
            Payload::ReplAck { offset } => Message::Ack { offset: *offset },
            Payload::Res { op, .. } => match op {
                ResOp::Read { key } => Message::Read { key: key.clone() },
                ResOp::Claim { key, ttl_us } => Message::Claim {
                    key: key.clone(),
                    ttl_ms: ttl_us / 1000,
                },
                ResOp::Write {
                    key, value, token, ..
                } => Message::Write {
                    key: key.clone(),
                    value: value.clone(),
                    token: *token,
                },
            },
            Payload::ResReply { reply, .. } => match reply {
                ResReply::Read { value, version } => Message::ReadReply {
                    value: value.clone(),
                    version: *version,
                },
                ResReply::Accepted => Message::Accepted,
                ResReply::Rejected { reason } => Message::Rejected(reason.clone()),
            },
        }
    }

    pub(super) fn send(
        &mut self,
        from: Pid,
        to: Pid,
        payload: Payload,
        extra_us: u64,
        out: &mut Vec<TraceEvent>,
    ) {
        self.next_msg += 1;
        let msg = self.next_msg;
        if self.full() {
            let what = Self::describe(&payload);
            self.emit(
                out,
                from,
                TraceKind::Send {
                    msg,
                    to: to as u32,
                    what,
                },
            );
        }
        let ix = self.net.ix(from, to);
        if self.net.blocked[ix] {
            self.emit(
                out,
                from,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::Partitioned,
                },
            );
            return;
        }
        let link = self.net.links[ix];
        if link.loss > 0.0 && self.net.rng.chance(link.loss) {
            self.emit(
                out,
                from,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::Lost,
                },
            );
            return;
        }
        let lat = match link.latency {
            Latency::Fixed(l) => l,
            Latency::Uniform(a, b) => self.net.rng.range_u64(a, b),
        };
        // Links are FIFO (TCP): a message never overtakes an earlier one.
        let at = (self.now_us + extra_us + lat).max(self.net.last_at[ix]);
        self.net.last_at[ix] = at;
        self.schedule(
            at,
            Ev::Deliver {
                msg,
                from,
                to,
                payload,
            },
        );
    }

    pub(super) fn deliver(
        &mut self,
        msg: u64,
        from: Pid,
        to: Pid,
        payload: Payload,
        out: &mut Vec<TraceEvent>,
    ) {
        if !self.procs[to].alive {
            self.emit(
                out,
                to,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::ReceiverDown,
                },
            );
            return;
        }
        if self.net.blocked[self.net.ix(from, to)] {
            self.emit(
                out,
                to,
                TraceKind::Drop {
                    msg,
                    from: from as u32,
                    to: to as u32,
                    reason: Reason::Partitioned,
                },
            );
            return;
        }
        if self.full() {
            self.emit(
                out,
                to,
                TraceKind::Deliver {
                    msg,
                    from: from as u32,
                },
            );
        }
        if self.procs[to].paused {
            self.procs[to].inbox.push(Pending::Msg { from, payload });
            return;
        }
        self.handle_msg(to, from, payload, out);
    }

    pub(super) fn handle_msg(&mut self, to: Pid, from: Pid, payload: Payload, out: &mut Vec<TraceEvent>) {
        match payload {
            Payload::Cmd { req, args, line } => self.node_command(to, from, req, args, line, out),
            Payload::Reply { req, reply } => self.client_input(to, Input::Reply { req, reply }, out),
            Payload::ResReply { req, reply } => self.client_input(to, Input::Res { req, reply }, out),
            Payload::Res { req, op } => self.resource(to, from, req, op, out),
            Payload::Repl { offset, effects } => self.replica_apply(to, from, offset, effects, out),
            Payload::ReplAck { offset } => {
                if let Kind::Node(n) = &mut self.procs[to].kind {
                    let e = n.acked.entry(from).or_insert(0);
                    *e = (*e).max(offset);
                    let ready: Vec<u64> = n
                        .waits
                        .iter()
                        .filter(|w| n.acked.values().filter(|a| **a >= w.offset).count() as i64 >= w.want)
                        .map(|w| w.id)
                        .collect();
                    for id in ready {
                        self.finish_wait(to, id, out);
                    }
                }
            }
        }
    }
}
