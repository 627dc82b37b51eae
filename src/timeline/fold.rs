//! Folded retries (#40 item 12): a client that fails to take a lock again and again
//! (Redlock retrying, a `SET NX` loop while another holds the lock) draws each attempt's
//! messages and a faint "·", and its lane becomes a smear. Three or more failed attempts
//! in a row by one process, with no lock taken between them, make a [`Fold`]: the first
//! and the last attempts stay drawn, the ones between are hidden behind one tag
//! ("+3 tries") that unfolds them.
//!
//! Only the drawing folds: the trace, the cursor, seeking, the bars and the tallies are
//! the model's, untouched. Plain data, so the rules are tested here; `ui::scenario::svg`
//! asks [`Hider`] what to leave out.

use super::{Arrow, Mark, MarkKind, Model};
use crate::sim::trace::TraceKind;
use crate::vecmap::VecMap;

/// Failed attempts in a row that fold: the first and the last stay, so three is the
/// fewest that hides anything.
pub const MIN_RUN: u32 = 3;

/// A run of `hidden + 2` failed attempts by `pid`, failing at f1 … fk: the attempts that
/// ended at f2 … f(k−1) are hidden.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Fold {
    pub pid: u32,
    /// f1: the first failure (true µs); what is hidden comes after it.
    pub from_us: u64,
    /// f(k−1): the last hidden failure (true µs).
    pub to_us: u64,
    /// How many attempts are hidden (k − 2).
    pub hidden: u32,
    /// The trace indices of the first and the last failure (both drawn).
    pub first_index: usize,
    pub last_index: usize,
    /// The last trace index of anything hidden: the last hidden failure, or later where
    /// a hidden message arrives after it. A cursor in `(first_index, until_index]` may be
    /// on a hidden event.
    pub until_index: usize,
}

impl Fold {
    /// Whether the message `from → to` sent at `sent_us` is one of the fold's: its
    /// process's, sent after the first failure and no later than the last hidden one.
    pub fn hides_arrow(&self, from: u32, to: u32, sent_us: u64) -> bool {
        (from == self.pid || to == self.pid) && self.from_us < sent_us && sent_us <= self.to_us
    }

    /// Whether `k` is one of the hidden failures' marks (f2 … f(k−1)).
    pub fn hides_mark(&self, k: &Mark) -> bool {
        k.pid == self.pid
            && k.kind == MarkKind::AcquireFailed
            && self.first_index < k.index
            && k.index < self.last_index
    }

    /// Whether trace event `index` may be hidden by the fold (see `until_index`).
    pub fn covers(&self, index: usize) -> bool {
        self.first_index < index && index <= self.until_index
    }
}

/// A run of failures not yet closed: (trace index, true µs) of its first, its
/// second-to-last and its last failure, and how many.
#[derive(Clone, Copy)]
struct Run {
    count: u32,
    first: (usize, u64),
    prev: (usize, u64),
    last: (usize, u64),
}

impl Run {
    fn fold(self, pid: u32) -> Option<Fold> {
        (self.count >= MIN_RUN).then(|| Fold {
            pid,
            from_us: self.first.1,
            to_us: self.prev.1,
            hidden: self.count - 2,
            first_index: self.first.0,
            last_index: self.last.0,
            until_index: self.prev.0,
        })
    }
}

/// The model's folds, by first index. One pass over the trace, one over the arrows
/// (each looked up among its processes' folds by bisection) and one bisection of the
/// trace per fold.
pub fn folds(m: &Model) -> Vec<Fold> {
    let mut runs: VecMap<u32, Run> = VecMap::new();
    let mut out: Vec<Fold> = Vec::new();
    for (i, e) in m.trace.iter().enumerate() {
        match &e.kind {
            TraceKind::AcquireFailed { .. } => {
                let at = (i, e.t_us);
                let run = runs.entry(e.pid).or_insert(Run {
                    count: 0,
                    first: at,
                    prev: at,
                    last: at,
                });
                run.prev = run.last;
                run.last = at;
                run.count += 1;
            }
            // A lock taken ends the run: what comes after is new.
            TraceKind::LockHeld { .. } => {
                if let Some(fold) = runs.remove(&e.pid).and_then(|r| r.fold(e.pid)) {
                    out.push(fold);
                }
            }
            _ => {}
        }
    }
    out.extend(runs.into_iter().filter_map(|(pid, r)| r.fold(pid)));
    crate::sorting::sort_by_key(&mut out, |f| f.first_index);
    // A hidden message may arrive after the last hidden failure: the fold reaches to
    // the last event at or before its arrival.
    let mut arrives: Vec<u64> = out.iter().map(|f| f.to_us).collect();
    {
        let all = Hider::new(&out, |_| true);
        for a in &m.arrows {
            for pos in all.folds_of_arrow(a) {
                if let Some(t) = arrives.get_mut(pos) {
                    *t = (*t).max(a.at_us);
                }
            }
        }
    }
    for (f, t) in out.iter_mut().zip(arrives) {
        f.until_index = f.until_index.max(m.index_at(t));
    }
    out
}

/// The first indices of the folds that may hide trace event `cursor`: drawn unfolded,
/// so that the event the cursor is on is never hidden.
pub fn around(folds: &[Fold], cursor: usize) -> Vec<usize> {
    folds
        .iter()
        .take_while(|f| f.first_index < cursor)
        .filter(|f| f.covers(cursor))
        .map(|f| f.first_index)
        .collect()
}

/// The folds in force (those not shown unfolded), by process, for asking what to leave
/// out: a bisection per question.
pub struct Hider<'a> {
    folds: &'a [Fold],
    /// Per process, the positions in `folds` of its folds in force, in time order (a
    /// process's folds never overlap in time).
    by_pid: VecMap<u32, Vec<usize>>,
}

impl<'a> Hider<'a> {
    /// The folds of `folds` for which `folded` says yes.
    pub fn new(folds: &'a [Fold], folded: impl Fn(&Fold) -> bool) -> Hider<'a> {
        let mut by_pid: VecMap<u32, Vec<usize>> = VecMap::new();
        for (pos, f) in folds.iter().enumerate().filter(|(_, f)| folded(f)) {
            by_pid.entry(f.pid).or_default().push(pos);
        }
        Hider { folds, by_pid }
    }

    /// Whether no fold is in force.
    pub fn is_empty(&self) -> bool {
        self.by_pid.is_empty()
    }

    /// `pid`'s fold in force whose span of time is the one that `t_us` may fall in:
    /// the first that does not end before it.
    fn at(&self, pid: u32, t_us: u64) -> Option<usize> {
        let list = self.by_pid.get(&pid)?;
        let folds = self.folds;
        let n = list.partition_point(|p| folds.get(*p).is_some_and(|f| f.to_us < t_us));
        list.get(n).copied()
    }

    /// The positions of the folds in force that hide arrow `a` (one, or two for a
    /// message between two retrying processes).
    fn folds_of_arrow(&self, a: &Arrow) -> impl Iterator<Item = usize> + '_ {
        let (from, to, sent) = (a.from, a.to, a.sent_us);
        let mine = |pid: u32| {
            self.at(pid, sent)
                .filter(|p| self.folds.get(*p).is_some_and(|f| f.hides_arrow(from, to, sent)))
        };
        let second = if to == from { None } else { mine(to) };
        mine(from).into_iter().chain(second)
    }

    /// Whether the message `from → to` sent at `sent_us` is folded away.
    pub fn hides_arrow(&self, from: u32, to: u32, sent_us: u64) -> bool {
        !self.is_empty()
            && [from, to].into_iter().any(|pid| {
                self.at(pid, sent_us)
                    .and_then(|p| self.folds.get(p))
                    .is_some_and(|f| f.hides_arrow(from, to, sent_us))
            })
    }

    /// Whether mark `k` is folded away.
    pub fn hides_mark(&self, k: &Mark) -> bool {
        if k.kind != MarkKind::AcquireFailed {
            return false;
        }
        let Some(list) = self.by_pid.get(&k.pid) else {
            return false;
        };
        let folds = self.folds;
        let n = list.partition_point(|p| folds.get(*p).is_some_and(|f| f.last_index <= k.index));
        list.get(n)
            .and_then(|p| folds.get(*p))
            .is_some_and(|f| f.hides_mark(k))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::fact::{Message, Reason, Role};
    use crate::sim::scenario::builtin;
    use crate::sim::trace::TraceEvent;
    use crate::timeline::{build, layout::layout};

    /// Client A (pid 0) and B (pid 1) ask node N (pid 2); each attempt is a request and
    /// a reply 1 ms later, and fails 1 ms after the reply (or takes the lock); a failed
    /// one sends a DEL as it fails.
    struct Script {
        trace: Vec<TraceEvent>,
        msg: u64,
    }

    impl Script {
        fn ev(&mut self, t_ms: u64, pid: u32, kind: TraceKind) {
            let t_us = t_ms * 1000;
            self.trace.push(TraceEvent {
                t_us,
                local_us: t_us as i64,
                pid,
                kind,
            });
        }

        /// An attempt by `pid` starting at `t_ms`: it fails unless `takes`.
        fn attempt(&mut self, pid: u32, t_ms: u64, takes: bool) {
            let (ask, reply) = (self.msg, self.msg + 1);
            self.msg += 2;
            let what = Message::Redis("SET lock x NX".into());
            self.ev(
                t_ms,
                pid,
                TraceKind::Send {
                    msg: ask,
                    to: 2,
                    what,
                },
            );
            self.ev(t_ms + 1, 2, TraceKind::Deliver { msg: ask, from: pid });
            let what = Message::Redis(if takes { "OK" } else { "(nil)" }.into());
            self.ev(
                t_ms + 1,
                2,
                TraceKind::Send {
                    msg: reply,
                    to: pid,
                    what,
                },
            );
            self.ev(t_ms + 2, pid, TraceKind::Deliver { msg: reply, from: 2 });
            let lock = "lock".to_string();
            let kind = if takes {
                TraceKind::LockHeld {
                    lock,
                    token: "x".into(),
                    fence: None,
                    valid_until_us: None,
                }
            } else {
                TraceKind::AcquireFailed {
                    lock,
                    reason: Reason::LockTaken,
                }
            };
            self.ev(t_ms + 3, pid, kind);
            if !takes {
                // As Redlock does: a failed attempt releases what it may have set, at once.
                let del = self.msg;
                self.msg += 1;
                let what = Message::Redis("DEL lock".into());
                self.ev(
                    t_ms + 3,
                    pid,
                    TraceKind::Send {
                        msg: del,
                        to: 2,
                        what,
                    },
                );
                self.ev(t_ms + 4, 2, TraceKind::Deliver { msg: del, from: pid });
            }
        }

        fn model(self) -> Model {
            let names = ["A", "B", "N"].map(String::from).to_vec();
            let roles = vec![Some(Role::Client), Some(Role::Client), Some(Role::Node)];
            let end_us = self.trace.last().map_or(0, |e| e.t_us + 1000);
            layout(
                "t".into(),
                1,
                names,
                roles,
                self.trace,
                Default::default(),
                Vec::new(),
                end_us,
                false,
            )
        }
    }

    fn script() -> Script {
        Script {
            trace: Vec::new(),
            msg: 0,
        }
    }

    fn failures(m: &Model, pid: u32) -> Vec<(usize, u64)> {
        m.marks
            .iter()
            .filter(|k| k.pid == pid && k.kind == MarkKind::AcquireFailed)
            .map(|k| (k.index, k.t_us))
            .collect()
    }

    /// A fails five times (at 13, 23 … 53 ms) then takes the lock; B, at the same
    /// time, fails twice, takes it, then fails three times: A's five fold into the first,
    /// three hidden, the last; B's two do not fold, its three after the hold do.
    #[test]
    fn five_failures_in_a_row_fold_the_middle_three_and_a_hold_starts_a_new_run() {
        let mut s = script();
        for i in 0..6 {
            s.attempt(0, 10 + 10 * i, i == 5);
        }
        for (i, takes) in [false, false, true, false, false, false].into_iter().enumerate() {
            s.attempt(1, 100 + 10 * i as u64, takes);
        }
        let m = s.model();
        let fa = failures(&m, 0);
        let fb = failures(&m, 1);
        assert_eq!((fa.len(), fb.len()), (5, 5));
        let folds = folds(&m);
        // Each fold reaches to the arrival of its last hidden DEL (two events after
        // the last hidden failure: its send, its delivery).
        assert_eq!(
            folds,
            vec![
                Fold {
                    pid: 0,
                    from_us: 13_000,
                    to_us: 43_000,
                    hidden: 3,
                    first_index: fa[0].0,
                    last_index: fa[4].0,
                    until_index: fa[3].0 + 2,
                },
                Fold {
                    pid: 1,
                    from_us: 133_000,
                    to_us: 143_000,
                    hidden: 1,
                    first_index: fb[2].0,
                    last_index: fb[4].0,
                    until_index: fb[3].0 + 2,
                },
            ]
        );
        let all = Hider::new(&folds, |_| true);
        // The marks: A's second to fourth failures, B's fourth; not the firsts, the
        // lasts, nor B's first two (a run of two).
        let hidden: Vec<usize> = m
            .marks
            .iter()
            .filter(|k| all.hides_mark(k))
            .map(|k| k.index)
            .collect();
        assert_eq!(hidden, vec![fa[1].0, fa[2].0, fa[3].0, fb[3].0]);
        // Each fold asked alone says the same.
        let alone = m.marks.iter().filter(|k| folds.iter().any(|f| f.hides_mark(k)));
        assert!(alone.map(|k| k.index).eq(hidden.iter().copied()));
        // The arrows: A's attempts 2 to 4 (sent at 20, 30, 40 ms, their replies a
        // ms later, their DELs as they fail), both ways; not attempt 1's (its DEL is
        // sent as the fold's first failure happens), 5's or the one that took the lock.
        let sent: Vec<(u32, u64)> = m
            .arrows
            .iter()
            .filter(|a| all.hides_arrow(a.from, a.to, a.sent_us))
            .map(|a| (a.from, a.sent_us / 1000))
            .collect();
        assert_eq!(
            sent,
            vec![
                (0, 20),
                (2, 21),
                (0, 23),
                (0, 30),
                (2, 31),
                (0, 33),
                (0, 40),
                (2, 41),
                (0, 43),
                (1, 140),
                (2, 141),
                (1, 143)
            ]
        );
        // One unfolded: its attempts are drawn again, the other's stay hidden.
        let some = Hider::new(&folds, |f| f.pid != 0);
        assert!(!some.hides_arrow(0, 2, 30_000) && !some.hides_arrow(2, 0, 31_000));
        assert!(m
            .marks
            .iter()
            .filter(|k| some.hides_mark(k))
            .map(|k| k.index)
            .eq([fb[3].0]));
        assert!(some.hides_arrow(1, 2, 140_000));
        // None folded: nothing hidden.
        let none = Hider::new(&folds, |_| false);
        assert!(none.is_empty());
        assert!(m
            .arrows
            .iter()
            .all(|a| !none.hides_arrow(a.from, a.to, a.sent_us)));
        assert!(m.marks.iter().all(|k| !none.hides_mark(k)));
    }

    #[test]
    fn the_cursor_on_a_hidden_event_opens_its_fold_and_nowhere_else() {
        let mut s = script();
        for i in 0..4 {
            s.attempt(0, 10 + 10 * i, false);
        }
        let m = s.model();
        let folds = folds(&m);
        let [f] = folds.as_slice() else {
            panic!("{folds:?}")
        };
        // Each hidden event, by the arrows and marks hidden.
        let all = Hider::new(&folds, |_| true);
        let mut hidden: Vec<usize> = m
            .arrows
            .iter()
            .filter(|a| all.hides_arrow(a.from, a.to, a.sent_us))
            .map(|a| a.index)
            .collect();
        hidden.extend(m.marks.iter().filter(|k| all.hides_mark(k)).map(|k| k.index));
        assert_eq!(hidden.len(), 2 * 3 + 2, "{hidden:?}");
        for i in hidden {
            assert_eq!(around(&folds, i), vec![f.first_index], "event {i}");
        }
        for i in [0, f.first_index, f.last_index, m.trace.len() - 1] {
            assert_eq!(around(&folds, i), Vec::<usize>::new(), "event {i}");
        }
    }

    /// A reply sent inside the fold that arrives after the last attempt failed: the
    /// fold reaches to its arrival, so a cursor there opens it.
    #[test]
    fn a_late_reply_stretches_the_fold_to_its_arrival() {
        let mut s = script();
        for i in 0..3 {
            s.attempt(0, 10 + 10 * i, false);
        }
        // Sent at 23 ms (the second failure), delivered at 200 ms, after the third.
        let what = Message::Redis("(nil)".into());
        let at = s.trace.partition_point(|e| e.t_us <= 23_000);
        s.trace.insert(
            at,
            TraceEvent {
                t_us: 23_000,
                local_us: 23_000,
                pid: 2,
                kind: TraceKind::Send { msg: 99, to: 0, what },
            },
        );
        s.ev(200, 0, TraceKind::Deliver { msg: 99, from: 2 });
        let m = s.model();
        let folds = folds(&m);
        let [f] = folds.as_slice() else {
            panic!("{folds:?}")
        };
        assert_eq!(f.until_index, m.trace.len() - 1);
        assert_eq!(around(&folds, m.trace.len() - 1), vec![f.first_index]);
    }

    /// A real run: in `safe-release`, C is refused while B holds the lock and retries
    /// every 100 ms. Its 32 failures fold into one tag for 30 of them, and no
    /// folded arrow or mark is another process's business.
    #[test]
    fn safe_release_folds_cs_retries_and_only_them() {
        let s = builtin("safe-release").expect("built-in").expect("valid");
        let m = build(&s, 1).expect("runs");
        let c = m.names.iter().position(|n| n == "C").expect("C") as u32;
        let fc = failures(&m, c);
        let folds = folds(&m);
        assert_eq!(folds.len(), 1, "{folds:?}");
        let f = &folds[0];
        assert_eq!((f.pid, f.hidden as usize), (c, fc.len() - 2));
        assert_eq!((f.first_index, f.last_index), (fc[0].0, fc[fc.len() - 1].0));
        assert_eq!((f.from_us, f.to_us), (fc[0].1, fc[fc.len() - 2].1));
        let all = Hider::new(&folds, |_| true);
        let marks: Vec<&Mark> = m.marks.iter().filter(|k| all.hides_mark(k)).collect();
        assert_eq!(marks.len(), fc.len() - 2);
        let arrows: Vec<&Arrow> = m
            .arrows
            .iter()
            .filter(|a| all.hides_arrow(a.from, a.to, a.sent_us))
            .collect();
        assert!(arrows.len() >= 2 * marks.len(), "{} arrows", arrows.len());
        assert!(arrows.iter().all(|a| a.from == c || a.to == c));
        // The first and the last attempts' messages stay.
        let drawn = |t: u64| {
            m.arrows
                .iter()
                .any(|a| a.from == c && a.sent_us <= t && !all.hides_arrow(a.from, a.to, a.sent_us))
        };
        assert!(drawn(fc[0].1));
        assert!(m
            .arrows
            .iter()
            .any(|a| a.from == c && a.sent_us > f.to_us && a.sent_us <= fc[fc.len() - 1].1));
        // The model is what it was: folding is a question asked of it.
        assert_eq!(m, build(&s, 1).expect("runs"));
    }
}
