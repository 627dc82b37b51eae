//! Lab workers in the world: the inputs the world queues for the harness, the attacks
//! that strike at their stall points, and what their actions do (commands, timers,
//! beliefs checked against the nodes, releases that must free). Their state
//! ([`LabProc`]) is `lab_worker.rs`; the messages are `lab_io.rs`.

use super::*;
use crate::sim::fact::Coded;

impl World {
    /// The lab workers, in the scenario's order: what a live run (`sim::lab::live`) needs to
    /// start each one as the world would. `None` if a worker's lock is on a replication
    /// group (a live run takes one server per node).
    pub fn lab_workers(&self) -> Option<Vec<LabWorker>> {
        let nodes: Vec<Pid> = (0..self.procs.len()).filter(|p| self.is_node(*p)).collect();
        let mut out = Vec::new();
        for (pid, p) in self.procs.iter().enumerate() {
            let Kind::Lab(l) = &p.kind else { continue };
            let mut dests = Vec::new();
            for d in &l.dests {
                match d {
                    Dest::Node(n) => dests.push(nodes.iter().position(|x| x == n)?),
                    Dest::Group(_) => return None,
                }
            }
            out.push(LabWorker {
                pid,
                worker: l.worker,
                name: p.name.clone(),
                start_us: l.start_us,
                nodes: dests,
                lock: l.lock.clone(),
                seed: l.seed,
                clock_offset_us: p.clock.local_us(0),
                clock_rate_ppm: p.clock.rate_ppm(),
            });
        }
        Some(out)
    }

    /// The next input for a lab worker, if one is waiting: the runner gives it to the
    /// harness and hands the answer to [`World::lab_actions`] before the next
    /// [`World::step`]. Inputs for a worker paused since they were queued wait for its
    /// resume; inputs from an earlier incarnation are dropped.
    pub fn next_lab_input(&mut self) -> Option<LabInput> {
        while let Some(input) = self.lab_queue.pop_front() {
            let Some(p) = self.procs.get_mut(input.pid) else {
                continue;
            };
            if matches!(input.ev, LabEvent::Crash) {
                return Some(input);
            }
            if p.inc != input.inc || !p.alive {
                continue;
            }
            let Kind::Lab(l) = &mut p.kind else { continue };
            if l.over {
                continue;
            }
            if p.paused {
                l.held.push(input);
                continue;
            }
            return Some(input);
        }
        None
    }

    /// Replay the harness's recorded answers (see `lab_tape`), read into actions by the
    /// caller (`sim::lab::replay_world`): the world reads no harness's JSON.
    pub fn set_lab_tape(&mut self, tape: Arc<LabTape>) {
        self.lab_tape = Some((tape, 0));
    }

    pub(super) fn replay_lab_answers(&mut self, out: &mut Vec<TraceEvent>) {
        if self.lab_tape.is_none() {
            return;
        }
        while let Some(input) = self.next_lab_input() {
            let Some((tape, pos)) = self.lab_tape.as_mut() else {
                return;
            };
            let Some(answer) = tape.get(*pos).cloned() else {
                // The recorded run stopped here (the code failed): nothing more happens.
                self.lab_queue.clear();
                return;
            };
            *pos += 1;
            match answer {
                Some(actions) => self.lab_actions(input.pid, input.inc, actions, out),
                // An answer that did not read: the run ended there.
                None => {
                    self.lab_tape = None;
                    self.lab_queue.clear();
                    return;
                }
            }
        }
    }

    /// An attack to carry out when a lab worker is about to send its k-th command.
    pub fn add_lab_attack(&mut self, attack: LabAttack) {
        self.lab_attacks.push(attack);
    }

    /// The index of lab worker `pid` (0-based), if it is one.
    pub fn lab_worker(&self, pid: Pid) -> Option<u32> {
        match self.procs.get(pid).map(|p| &p.kind) {
            Some(Kind::Lab(l)) => Some(l.worker),
            _ => None,
        }
    }

    pub(super) fn lab_queue_input(&mut self, pid: Pid, ev: LabEvent) {
        if let Some(input) = self.lab_input_now(pid, ev) {
            self.lab_queue.push_back(input);
        }
    }

    /// `ev` for lab worker `pid`, stamped with its clock now (None once it is over).
    pub(super) fn lab_input_now(&self, pid: Pid, ev: LabEvent) -> Option<LabInput> {
        let p = &self.procs[pid];
        let Kind::Lab(l) = &p.kind else { return None };
        if l.over {
            return None;
        }
        Some(LabInput {
            pid,
            worker: l.worker,
            inc: p.inc,
            now_local_us: p.clock.local_us(self.now_us),
            ev,
        })
    }

    /// An input for lab worker `pid`, unless an attack strikes as it arrives: a timer's
    /// callback about to start, or a reply about to resume the code that awaited it.
    /// A pause keeps the input for the worker's resume (it then runs, late, by a clock
    /// that moved on); a crash loses it with the process.
    pub(super) fn lab_input(&mut self, pid: Pid, ev: LabEvent, out: &mut Vec<TraceEvent>) {
        let at = match ev {
            LabEvent::Timer { .. } => StallPoint::Timer,
            LabEvent::Reply { .. } | LabEvent::Resource { .. } | LabEvent::Timeout { .. } => {
                StallPoint::Reply
            }
            _ => return self.lab_queue_input(pid, ev),
        };
        let Kind::Lab(l) = &mut self.procs[pid].kind else {
            return;
        };
        if l.over {
            return;
        }
        let k = if at == StallPoint::Timer {
            l.timers_fired = l.timers_fired.saturating_add(1);
            l.timers_fired
        } else {
            l.replies_seen = l.replies_seen.saturating_add(1);
            l.replies_seen
        };
        let worker = l.worker;
        let Some(op) = self.take_attack(worker, k, at) else {
            return self.lab_queue_input(pid, ev);
        };
        if self.strike(pid, op, out) {
            if let Kind::Lab(l) = &mut self.procs[pid].kind {
                l.stalled.push(ev);
            }
        }
    }

    /// The attack on lab worker `worker` at its `k`-th stall point of kind `at`, taken off
    /// the list (a node going down strikes at a time instead, never here).
    pub(super) fn take_attack(&mut self, worker: u32, k: u32, at: StallPoint) -> Option<LabAttackOp> {
        let i = self.lab_attacks.iter().position(|x| {
            x.worker == worker
                && x.command == k
                && x.at == at
                && !matches!(x.op, LabAttackOp::NodeDown { .. })
        })?;
        Some(self.lab_attacks.remove(i).op)
    }

    /// Strikes `op` at lab worker `pid` now: a crash (and its restart, if any), or a pause
    /// (and its resume). True for a pause: what the worker was about to do waits for it.
    pub(super) fn strike(&mut self, pid: Pid, op: LabAttackOp, out: &mut Vec<TraceEvent>) -> bool {
        let now = self.now_us;
        match op {
            LabAttackOp::Crash { restart_after_us } => {
                self.fault(Fault::Crash(pid), out);
                if let Some(d) = restart_after_us {
                    self.schedule(now + d, Ev::Fault(Fault::Restart(pid)));
                }
                false
            }
            LabAttackOp::Pause { for_us } => {
                self.fault(Fault::Pause(pid), out);
                self.schedule(now + for_us, Ev::Fault(Fault::Resume(pid)));
                true
            }
            LabAttackOp::NodeDown { .. } => false,
        }
    }

    /// Was command `req` of lab worker `pid` still waiting (then it is not any more)?
    /// If so, the learner's line that sent it, if known.
    pub(super) fn lab_answered(&mut self, pid: Pid, req: u64) -> Option<Option<u32>> {
        match &mut self.procs[pid].kind {
            Kind::Lab(l) => l.waiting.remove(&req),
            _ => None,
        }
    }

    pub(super) fn lab_timer(&mut self, pid: Pid, timer: Timer, out: &mut Vec<TraceEvent>) {
        let ev = match timer {
            Timer::Start => {
                let (seed, inc) = match &self.procs[pid].kind {
                    Kind::Lab(l) => (l.seed, self.procs[pid].inc),
                    _ => return,
                };
                self.emit(out, pid, TraceKind::Start);
                LabEvent::Start {
                    seed: sub_seed(seed, &format!("incarnation:{inc}")),
                }
            }
            Timer::Step(id) => LabEvent::Timer { id },
            Timer::ReqTimeout(id) => {
                let Some(line) = self.lab_answered(pid, id) else {
                    return;
                };
                if self.full() {
                    let (name, line) = (timer.name(), SourceLine(line));
                    self.emit(out, pid, TraceKind::Timer { name, line });
                }
                LabEvent::Timeout { id }
            }
            _ => return,
        };
        self.lab_input(pid, ev, out);
    }

    /// Carry out what lab worker `pid` (incarnation `inc`) did with its last input.
    pub fn lab_actions(&mut self, pid: Pid, inc: u32, actions: Vec<LabAction>, out: &mut Vec<TraceEvent>) {
        let Some(p) = self.procs.get(pid) else { return };
        if p.inc != inc || !p.alive || !matches!(p.kind, Kind::Lab(_)) {
            return;
        }
        let mut rest = actions.into_iter();
        while let Some(a) = rest.next() {
            let p = &mut self.procs[pid];
            if !p.alive || p.inc != inc {
                return;
            }
            let paused = p.paused;
            let Kind::Lab(l) = &mut p.kind else { return };
            if l.over {
                return;
            }
            if paused {
                l.deferred.push(a);
                l.deferred.extend(rest);
                return;
            }
            if let LabAction::Cmd { .. } = a {
                let (worker, k) = (l.worker, l.sent + 1);
                if let Some(op) = self.take_attack(worker, k, StallPoint::Command) {
                    if self.strike(pid, op, out) {
                        if let Kind::Lab(l) = &mut self.procs[pid].kind {
                            l.deferred.push(a);
                            l.deferred.extend(rest);
                        }
                    }
                    return;
                }
            }
            self.lab_apply(pid, a, out);
        }
    }

    pub(super) fn lab_apply(&mut self, pid: Pid, a: LabAction, out: &mut Vec<TraceEvent>) {
        if matches!(
            a,
            LabAction::Held { .. } | LabAction::Failed { .. } | LabAction::Done
        ) {
            self.lab_check_release(pid, out);
        }
        let now = self.now_us;
        let p = &mut self.procs[pid];
        let local = p.clock.local_us(now);
        let clock = p.clock.clone();
        let Kind::Lab(l) = &mut p.kind else { return };
        match a {
            LabAction::Cmd {
                id,
                node,
                args,
                timeout_ms,
                line,
            } => {
                let Some(dest) = l.dests.get(node).copied() else {
                    l.over = true;
                    let nodes = l.dests.len();
                    let message = format!("there is no Redis client {node}: this worker has {nodes}");
                    let coded = Coded::new(
                        "no_client",
                        &[("client", node.to_string()), ("nodes", nodes.to_string())],
                    );
                    self.emit(
                        out,
                        pid,
                        TraceKind::CodeError {
                            message,
                            line: None,
                            col: None,
                            coded: Some(coded),
                        },
                    );
                    return;
                };
                l.sent = l.sent.saturating_add(1);
                l.waiting.insert(id, line);
                let args = args.into_iter().map(String::into_bytes).collect();
                self.send_cmd(pid, dest, id, args, line, out);
                if let Some(ms) = timeout_ms {
                    let after_local_us = ms_to_us(ms.clamp(0.0, MAX_TIME_MS)).unwrap_or(0);
                    let timer = Timer::ReqTimeout(id);
                    self.apply(
                        pid,
                        Action::Timer {
                            after_local_us,
                            timer,
                        },
                        out,
                    );
                }
            }
            LabAction::Resource { id, op } => self.apply(pid, Action::Res { req: id, op }, out),
            LabAction::Timer { id, ms } => {
                let after_local_us = ms_to_us(ms.clamp(0.0, MAX_TIME_MS)).unwrap_or(0);
                self.apply(
                    pid,
                    Action::Timer {
                        after_local_us,
                        timer: Timer::Step(id),
                    },
                    out,
                );
            }
            LabAction::Held { token, until_ms } => {
                l.token = Some(token.clone());
                let lock = l.lock.clone();
                let valid_until_us = until_ms.map(|u| {
                    let ahead = (u * 1000.0).round() as i64 - local;
                    if ahead <= 0 {
                        now.saturating_sub(ahead.unsigned_abs())
                    } else {
                        now.saturating_add(clock.true_duration_us(ahead as u64))
                    }
                });
                let dests = l.dests.clone();
                self.lab_owners.insert(token.clone(), pid);
                let backing = self.backing(&dests, &lock, &token);
                self.emit(
                    out,
                    pid,
                    TraceKind::LockHeld {
                        lock: lock.clone(),
                        token: token.clone(),
                        fence: None,
                        valid_until_us,
                    },
                );
                // A belief is accepted only where the nodes back it: the worker's token
                // is the lock's value on a majority of its nodes now (a node that is
                // down counts for it). Whatever the code says, a lock no node stores is
                // no lock.
                if backing.unbacked() {
                    let (on, of) = (backing.on(), backing.of);
                    self.emit(out, pid, TraceKind::HeldUnbacked { lock, token, on, of });
                }
            }
            LabAction::Released => {
                l.releasing = l.token.take();
                let lock = l.lock.clone();
                self.emit(out, pid, TraceKind::LockReleased { lock });
            }
            LabAction::Lost { reason, coded } => {
                l.token = None;
                let lock = l.lock.clone();
                let reason = LabAction::reason(reason, coded);
                self.emit(out, pid, TraceKind::LockLost { lock, reason });
            }
            LabAction::Failed { reason, coded } => {
                let lock = l.lock.clone();
                let reason = LabAction::reason(reason, coded);
                self.emit(out, pid, TraceKind::AcquireFailed { lock, reason });
            }
            LabAction::Log { text, coded } => {
                if self.lab_notes < MAX_LAB_NOTES {
                    self.lab_notes += 1;
                    self.emit(out, pid, TraceKind::Note { text, coded });
                }
            }
            LabAction::Done => {
                l.over = true;
                self.emit(out, pid, TraceKind::WorkDone);
            }
            LabAction::Error {
                message,
                line,
                col,
                coded,
            } => {
                l.over = true;
                let kind = TraceKind::CodeError {
                    message,
                    line,
                    col,
                    coded,
                };
                self.emit(out, pid, kind);
            }
        }
    }

    /// How `dests` stand toward `token` as `lock`'s value now: each node up and storing
    /// it (by its own clock), up and not, or down.
    pub(super) fn backing(&mut self, dests: &[Dest], lock: &str, token: &str) -> Backing {
        let mut nodes = Vec::with_capacity(dests.len());
        for d in dests {
            let node = match d {
                Dest::Node(p) => *p,
                Dest::Group(g) => self.groups[*g].master,
            };
            let up = self.procs[node].alive;
            let stores = up
                && self
                    .node_keys(node)
                    .iter()
                    .any(|(k, v, _)| k == lock && v == token);
            nodes.push((up, stores));
        }
        Backing::of(nodes)
    }

    /// A worker that released moves on (acquires again, or is done): its release has
    /// returned, so its own key must be gone from the nodes it holds it on.
    pub(super) fn lab_check_release(&mut self, pid: Pid, out: &mut Vec<TraceEvent>) {
        let (token, lock, dests) = match &mut self.procs[pid].kind {
            Kind::Lab(l) => match l.releasing.take() {
                Some(t) => (t, l.lock.clone(), l.dests.clone()),
                None => return,
            },
            _ => return,
        };
        if self.backing(&dests, &lock, &token).kept() {
            self.emit(out, pid, TraceKind::LockKept { lock, token });
        }
    }

    /// A paused lab worker resumes: what it was about to do when the pause struck goes
    /// first, then what reached the runner's queue for it meanwhile.
    pub(super) fn lab_resume(&mut self, pid: Pid, out: &mut Vec<TraceEvent>) {
        let inc = self.procs[pid].inc;
        let (deferred, held, stalled) = match &mut self.procs[pid].kind {
            Kind::Lab(l) => (
                std::mem::take(&mut l.deferred),
                std::mem::take(&mut l.held),
                std::mem::take(&mut l.stalled),
            ),
            _ => return,
        };
        if !deferred.is_empty() {
            self.lab_actions(pid, inc, deferred, out);
        }
        for input in held.into_iter().rev() {
            self.lab_queue.push_front(input);
        }
        // What the stall struck at runs first, by the clock as it reads now.
        for ev in stalled.into_iter().rev() {
            if let Some(input) = self.lab_input_now(pid, ev) {
                self.lab_queue.push_front(input);
            }
        }
    }
}
