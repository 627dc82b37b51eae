//! What a process does when its time comes: a timer fires, an input reaches a client's
//! algorithm, the actions it takes (commands, timers, resource requests) are carried
//! out, and a paused process resumes with what reached it meanwhile.

use super::*;

impl World {
    /// Process `p` resumes: what reached it while paused is handled in order.
    pub(super) fn resume(&mut self, p: Pid, out: &mut Vec<TraceEvent>) {
        if !self.procs[p].paused {
            return;
        }
        self.procs[p].paused = false;
        self.emit(out, p, TraceKind::Resume);
        self.lab_resume(p, out);
        let mut inbox = std::mem::take(&mut self.procs[p].inbox).into_iter();
        while let Some(item) = inbox.next() {
            if !self.procs[p].alive {
                break;
            }
            if self.procs[p].paused {
                // Paused again while catching up (a lab attack struck before a deferred
                // command): what is left waits for the next resume, ahead of anything
                // that arrives meanwhile.
                let rest: Vec<Pending> = std::iter::once(item).chain(inbox).collect();
                let newer = std::mem::replace(&mut self.procs[p].inbox, rest);
                self.procs[p].inbox.extend(newer);
                break;
            }
            match item {
                Pending::Msg { from, payload } => self.handle_msg(p, from, payload, out),
                Pending::Timer(t) => self.fire_timer(p, t, out),
            }
        }
    }

    pub(super) fn fire_timer(&mut self, pid: Pid, timer: Timer, out: &mut Vec<TraceEvent>) {
        if matches!(self.procs[pid].kind, Kind::Lab(_)) {
            self.lab_timer(pid, timer, out);
            return;
        }
        let live = match &self.procs[pid].kind {
            Kind::Client(c) => c.is_live(&timer),
            _ => false,
        };
        if !live {
            return;
        }
        self.emit_timer(out, pid, &timer);
        self.client_input(pid, Input::Timer(timer), out);
    }

    /// A timer fired at `pid` (recorded in full traces only).
    pub(super) fn emit_timer(&self, out: &mut Vec<TraceEvent>, pid: Pid, timer: &Timer) {
        if self.full() {
            let name = timer.name();
            let line = SourceLine(None);
            self.emit(out, pid, TraceKind::Timer { name, line });
        }
    }

    pub(super) fn client_input(&mut self, pid: Pid, input: Input, out: &mut Vec<TraceEvent>) {
        if matches!(self.procs[pid].kind, Kind::Lab(_)) {
            let ev = match input {
                Input::Reply { req, reply } => {
                    if self.lab_answered(pid, req).is_none() {
                        return;
                    }
                    LabEvent::Reply { id: req, reply }
                }
                Input::Res { req, reply } => LabEvent::Resource { id: req, reply },
                Input::Timer(t) => return self.lab_timer(pid, t, out),
            };
            self.lab_input(pid, ev, out);
            return;
        }
        let now = self.now_us;
        let mut actions = std::mem::take(&mut self.actions);
        {
            let p = &mut self.procs[pid];
            let ctx = ClientCtx {
                now_true_us: now,
                now_local_us: p.clock.local_us(now),
                clock: &p.clock,
            };
            if let Kind::Client(c) = &mut p.kind {
                c.handle(&ctx, input, &mut actions);
            }
        }
        for a in actions.drain(..) {
            self.apply(pid, a, out);
        }
        self.actions = actions;
    }

    /// Sends command `req` to `dest` (a group: its master now); `line` is the learner's
    /// line a lab worker sent it from, carried to the node's `Command` event.
    pub(super) fn send_cmd(
        &mut self,
        pid: Pid,
        dest: Dest,
        req: u64,
        args: Vec<Vec<u8>>,
        line: Option<u32>,
        out: &mut Vec<TraceEvent>,
    ) {
        let to = match dest {
            Dest::Node(p) => p,
            Dest::Group(g) => self.groups[g].master,
        };
        self.send(pid, to, Payload::Cmd { req, args, line }, 0, out);
    }

    pub(super) fn apply(&mut self, pid: Pid, a: Action, out: &mut Vec<TraceEvent>) {
        match a {
            Action::Cmd { dest, req, args } => self.send_cmd(pid, dest, req, args, None, out),
            Action::Res { req, op } => {
                let to = self
                    .procs
                    .iter()
                    .position(|p| matches!(p.kind, Kind::Resource(_)))
                    .unwrap_or(0);
                self.send(pid, to, Payload::Res { req, op }, 0, out);
            }
            Action::Timer {
                after_local_us,
                timer,
            } => {
                let p = &self.procs[pid];
                let at = self.now_us + p.clock.true_duration_us(after_local_us);
                let inc = p.inc;
                self.schedule(at, Ev::Timer { pid, inc, timer });
            }
            Action::Trace(kind) => self.emit(out, pid, kind),
            Action::CrashSelf => {
                let now = self.now_us;
                self.schedule(now, Ev::Fault(Fault::Crash(pid)));
            }
        }
    }
}
