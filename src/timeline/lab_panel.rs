//! A lab panel's state (`ui::lab`) as a reducer: what a session shows (its phase, from
//! the click to the verdict), the cursor on the broken run, the solution, a shared trial
//! to replay and the copied link. The panel's view and its sessions only dispatch
//! [`LabAction`]s; every rule of how they combine is here, tested natively.

use super::Model;
use crate::lesson::i18n::Texts;
use crate::sim::lab::{breaking_event, sent_from_line, Check, CodeError, LabAttack};
use crate::sim::{TraceKind, Violation};
use std::rc::Rc;

/// What the last Run or Try to break it showed.
#[derive(Clone, Debug, PartialEq)]
pub struct Shown {
    /// Trials run, out of how many, from which seed.
    pub trials: u32,
    pub total: u32,
    pub seed: u64,
    pub break_it: bool,
    pub cancelled: bool,
    /// The code that ran (a link to this run carries it, not what the editor holds now).
    pub code: Rc<str>,
    /// Each check by name, and whether it held.
    pub checks: Vec<(String, bool)>,
    pub code_error: Option<CodeError>,
    pub broken: Option<Broken>,
}

impl Shown {
    /// No check broke and the code ran (of the trials made: a cancelled session made
    /// only some).
    pub fn passed(&self) -> bool {
        self.broken.is_none() && self.code_error.is_none()
    }
}

/// The run that broke (or whose code failed), drawn.
#[derive(Clone, Debug, PartialEq)]
pub struct Broken {
    /// The trial's own seed (a link replays it), and its number in the session.
    pub seed: u64,
    pub trial: u32,
    pub attacks: Vec<LabAttack>,
    pub violations: Vec<Violation>,
    pub model: Rc<Model>,
}

impl Broken {
    /// The trace index where the run first broke: the event that broke it (a foreign
    /// delete, a kept lock, the second holder's acquisition, a failure), else the last
    /// event before that moment; without a violation, the code's error.
    pub fn broke_at(&self) -> usize {
        let trace = &self.model.trace;
        match self.violations.first() {
            Some(v) => breaking_event(trace, v),
            None => trace
                .iter()
                .position(|e| matches!(e.kind, TraceKind::CodeError { .. }))
                .unwrap_or(0),
        }
    }

    /// The line of the learner's code that sent the command where the run broke (the
    /// event at [`Broken::broke_at`], or the command it answers: `sim::lab::sent_from_line`),
    /// when the trace knows it: Run and a shared trial's replay record lines, "Try to
    /// break it"'s trials do not. Any number a harness said: the page clamps it to the
    /// code's lines.
    pub fn sent_from_line(&self) -> Option<u32> {
        sent_from_line(&self.model.trace, self.broke_at())
    }

    fn last(&self) -> usize {
        self.model.trace.len().saturating_sub(1)
    }

    /// The window the broken run's timeline opens on: its events framed (the run goes on
    /// quietly to its end time), as a scenario opens.
    pub fn first_view(&self) -> (u64, u64) {
        let m = &self.model;
        let end = m.end_us.max(1);
        let last_us = m
            .trace
            .iter()
            .rev()
            .find(|e| !matches!(e.kind, TraceKind::End))
            .map_or(0, |e| e.t_us);
        crate::timeline::view::initial(last_us, end).unwrap_or((0, end))
    }

    fn t_us(&self, at: usize) -> u64 {
        self.model.trace.get(at).map_or(0, |e| e.t_us)
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum Phase {
    Idle,
    /// The sandboxes are opening and the code is loading.
    Loading,
    Running {
        done: u32,
        total: u32,
    },
    Shown(Rc<Shown>),
    /// The session could not run (not the learner's code: the engine, a file).
    Failed(String),
}

/// A lab panel's state.
#[derive(Clone, Debug, PartialEq)]
pub struct LabState {
    pub phase: Phase,
    /// The event the broken run's cursor is on.
    pub cursor: usize,
    /// The reference solution, shown (or why it could not be loaded).
    pub solution: Option<Result<String, String>>,
    /// The shared trial the next Run replays (from the link), until a session ends.
    pub replay: Option<u64>,
    /// The last link the learner copied, which one: copied, or the link itself where
    /// the browser would not let the page copy it (shown for them to copy by hand).
    pub copied: Option<(LinkKind, Result<(), String>)>,
    /// Hints shown for the broken run, one more per click, up to [`HINTS`].
    pub hints: u8,
    /// The broken run's timeline window once the learner zoomed (else
    /// [`Broken::first_view`]).
    pub view: Option<(u64, u64)>,
}

/// Rungs of a broken check's hint ladder: what happened and a question, the idea, the
/// shape of the code. "Show a solution" comes after them.
pub const HINTS: u8 = 3;

/// The check a broken run's hints are about: the one its first violation broke.
pub fn hint_check(b: &Broken) -> Option<Check> {
    let first = b.violations.first()?;
    Check::ALL.into_iter().find(|c| c.violation_kind() == first.kind)
}

/// Rung `n` (1..=[`HINTS`]) of `check`'s ladder in the reader's language; the first
/// starts from `fact`, what the counterexample showed (its first violation, in words).
pub fn hint(t: &Texts, check: Check, n: u8, fact: &str) -> String {
    let rung = t.t_named(&format!("lab_hint_{}_{n}", check.name()));
    match n {
        1 => format!("{fact} {rung}"),
        _ => rung,
    }
}

/// The lab's two links: to the code in the editor, to the broken run shown.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LinkKind {
    Code,
    Run,
}

impl LabState {
    /// Whether the last copy was of `kind` and it worked (its button says so).
    pub fn copied(&self, kind: LinkKind) -> bool {
        self.copied == Some((kind, Ok(())))
    }
}

#[derive(Clone, Debug, PartialEq)]
pub enum LabAction {
    /// Run or Try to break it was pressed.
    Start,
    /// Trials done, out of how many.
    Progress {
        done: u32,
        total: u32,
    },
    /// The session ended: what it showed, or why it could not run.
    Finished(Result<Rc<Shown>, String>),
    /// The broken run's cursor: one event on or back, to the moment it broke, or to an
    /// event picked on the timeline.
    Step(i64),
    JumpToBreak,
    Seek(usize),
    /// The solution, as loaded; or hidden.
    ShowSolution(Result<String, String>),
    HideSolution,
    /// One more hint about the broken run.
    Hint,
    /// Zoom the broken run's timeline about its cursor (< 1 zooms in).
    Zoom(f64),
    /// A link was copied; `Err(link)` when the browser refused.
    LinkCopied(LinkKind, Result<(), String>),
}

impl LabState {
    /// A panel opened with `replay`, the trial its link names, if any.
    pub fn new(replay: Option<u64>) -> LabState {
        LabState {
            phase: Phase::Idle,
            cursor: 0,
            solution: None,
            replay,
            copied: None,
            hints: 0,
            view: None,
        }
    }

    /// A session is under way: the code may not change and no other may start.
    pub fn running(&self) -> bool {
        matches!(self.phase, Phase::Loading | Phase::Running { .. })
    }

    /// The broken run shown, if any.
    pub fn broken(&self) -> Option<&Broken> {
        match &self.phase {
            Phase::Shown(s) => s.broken.as_ref(),
            _ => None,
        }
    }

    pub fn reduce(mut self, action: LabAction) -> LabState {
        match action {
            LabAction::Start if !self.running() => {
                self.phase = Phase::Loading;
                // A new run, a new counterexample: its hints start again.
                self.hints = 0;
            }
            LabAction::Hint if self.broken().is_some() => self.hints = (self.hints + 1).min(HINTS),
            LabAction::Hint => {}
            LabAction::Start => {}
            // Progress only while a session runs: a late report never hides a verdict.
            LabAction::Progress { done, total } if self.running() => {
                self.phase = Phase::Running {
                    done: done.min(total),
                    total,
                }
            }
            LabAction::Progress { .. } => {}
            LabAction::Finished(Ok(shown)) => {
                self.cursor = shown.broken.as_ref().map_or(0, Broken::broke_at);
                self.view = None;
                // The shared trial was replayed (or the learner moved on): Run runs
                // the lab's own seed from now on.
                self.replay = None;
                self.phase = Phase::Shown(shown);
            }
            LabAction::Finished(Err(why)) => self.phase = Phase::Failed(why),
            LabAction::Step(d) => {
                if let Some(last) = self.broken().map(Broken::last) {
                    let at = i64::try_from(self.cursor).unwrap_or(i64::MAX).saturating_add(d);
                    self.cursor = usize::try_from(at.max(0)).unwrap_or(0).min(last);
                }
            }
            LabAction::JumpToBreak => {
                if let Some(at) = self.broken().map(Broken::broke_at) {
                    self.cursor = at;
                }
            }
            LabAction::Seek(i) => {
                if let Some(last) = self.broken().map(Broken::last) {
                    self.cursor = i.min(last);
                }
            }
            LabAction::Zoom(f) => {
                let zoomed = self.broken().map(|b| {
                    let end = b.model.end_us.max(1);
                    let from = self.view.unwrap_or_else(|| b.first_view());
                    let to = crate::timeline::view::zoom_at(Some(from), end, f, b.t_us(self.cursor));
                    to.unwrap_or((0, end))
                });
                if zoomed.is_some() {
                    self.view = zoomed;
                }
            }
            LabAction::ShowSolution(s) => self.solution = Some(s),
            LabAction::HideSolution => self.solution = None,
            LabAction::LinkCopied(kind, done) => self.copied = Some((kind, done)),
        }
        // A zoomed timeline keeps the cursor in its window.
        let followed = match (self.view, self.broken()) {
            (Some(view), Some(b)) => {
                let end = b.model.end_us.max(1);
                let at = b.t_us(self.cursor);
                Some(crate::timeline::view::follow(Some(view), end, at).unwrap_or((0, end)))
            }
            _ => None,
        };
        if followed.is_some() {
            self.view = followed;
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::SourceLine;

    /// A broken run to show: a built-in scenario whose run overlaps, drawn.
    fn broken() -> Broken {
        let scenario = crate::sim::scenario::builtin("unsafe-del")
            .expect("built-in")
            .expect("valid");
        let model = crate::timeline::build(&scenario, 1).expect("runs");
        let violations = model.outcome.violations.clone();
        assert!(!violations.is_empty(), "unsafe-del breaks on seed 1");
        Broken {
            seed: 7,
            trial: 3,
            attacks: Vec::new(),
            violations,
            model: Rc::new(model),
        }
    }

    #[test]
    fn hints_come_one_at_a_time_and_start_again_with_a_new_run() {
        let s = LabState::new(None).reduce(LabAction::Hint);
        assert_eq!(s.hints, 0, "no broken run, no hint");
        let s = s
            .reduce(LabAction::Start)
            .reduce(LabAction::Finished(Ok(Rc::new(shown(Some(broken()))))));
        let s = (0..5).fold(s, |s, _| s.reduce(LabAction::Hint));
        assert_eq!(s.hints, HINTS);
        assert_eq!(s.reduce(LabAction::Start).hints, 0);
        // unsafe-del's first violation is an overlap: the hints are mutual exclusion's.
        let b = broken();
        assert_eq!(hint_check(&b), Some(Check::MutualExclusion));
    }

    #[test]
    fn every_check_has_its_ladder_in_both_languages() {
        use crate::lesson::content::Lang;
        for lang in Lang::ALL {
            let t = Texts::new(lang);
            for check in Check::ALL {
                let rungs: Vec<String> = (1..=HINTS).map(|n| hint(&t, check, n, "FACT.")).collect();
                assert!(rungs[0].starts_with("FACT. "), "{lang:?} {check:?}: {}", rungs[0]);
                for (n, r) in rungs.iter().enumerate() {
                    assert!(!r.contains("lab_hint_"), "{lang:?}: no text for {}", r);
                    assert!(r.len() > 40, "{lang:?} {check:?} {}: {r}", n + 1);
                }
                let unique: std::collections::BTreeSet<&String> = rungs.iter().collect();
                assert_eq!(
                    unique.len(),
                    rungs.len(),
                    "{lang:?} {check:?}: each rung says more"
                );
                if lang != Lang::En {
                    let en = Texts::new(Lang::En);
                    for n in 1..=HINTS {
                        assert_ne!(
                            hint(&t, check, n, ""),
                            hint(&en, check, n, ""),
                            "{lang:?} {check:?} {n}: not written"
                        );
                    }
                }
            }
        }
    }

    fn shown(broken: Option<Broken>) -> Shown {
        Shown {
            trials: 3,
            total: 200,
            seed: 1,
            break_it: true,
            cancelled: false,
            checks: vec![("no_foreign_delete".into(), broken.is_none())],
            code_error: None,
            broken,
            code: Rc::from("// the code"),
        }
    }

    #[test]
    fn a_session_goes_from_the_click_to_its_verdict() {
        let s = LabState::new(None).reduce(LabAction::Start);
        assert_eq!(s.phase, Phase::Loading);
        assert!(s.running());
        let s = s.reduce(LabAction::Progress { done: 40, total: 200 });
        assert_eq!(s.phase, Phase::Running { done: 40, total: 200 });
        // A second click while it runs starts nothing.
        assert_eq!(s.clone().reduce(LabAction::Start), s);
        let s = s.reduce(LabAction::Finished(Ok(Rc::new(shown(None)))));
        assert!(matches!(&s.phase, Phase::Shown(v) if v.passed()));
        assert!(!s.running());
        // A late progress report does not hide the verdict.
        assert_eq!(
            s.clone().reduce(LabAction::Progress {
                done: 200,
                total: 200
            }),
            s
        );
        let failed = LabState::new(None)
            .reduce(LabAction::Start)
            .reduce(LabAction::Finished(Err("no engine".into())));
        assert_eq!(failed.phase, Phase::Failed("no engine".into()));
    }

    #[test]
    fn a_broken_run_opens_where_it_broke_and_the_cursor_stays_in_it() {
        let b = broken();
        let (at, last) = (b.broke_at(), b.last());
        assert!(at > 0 && at < last, "{at} of {last}");
        assert_eq!(at, breaking_event(&b.model.trace, &b.violations[0]));
        let s = LabState::new(Some(99))
            .reduce(LabAction::Start)
            .reduce(LabAction::Finished(Ok(Rc::new(shown(Some(b))))));
        assert_eq!(s.cursor, at);
        assert_eq!(s.replay, None, "the shared trial was replayed");
        assert_eq!(s.clone().reduce(LabAction::Step(1)).cursor, at + 1);
        assert_eq!(s.clone().reduce(LabAction::Step(-1)).cursor, at - 1);
        assert_eq!(s.clone().reduce(LabAction::Step(-1_000_000)).cursor, 0);
        assert_eq!(s.clone().reduce(LabAction::Step(i64::MAX)).cursor, last);
        assert_eq!(s.clone().reduce(LabAction::Seek(usize::MAX)).cursor, last);
        let away = s.reduce(LabAction::Seek(0));
        assert_eq!(away.cursor, 0);
        assert_eq!(away.reduce(LabAction::JumpToBreak).cursor, at);
    }

    #[test]
    fn without_a_broken_run_the_cursor_does_not_move() {
        let s = LabState::new(None)
            .reduce(LabAction::Start)
            .reduce(LabAction::Finished(Ok(Rc::new(shown(None)))));
        for a in [LabAction::Step(5), LabAction::Seek(9), LabAction::JumpToBreak] {
            assert_eq!(s.clone().reduce(a).cursor, 0);
        }
    }

    #[test]
    fn a_code_error_without_violations_opens_on_the_error() {
        let mut b = broken();
        b.violations.clear();
        let at = b
            .model
            .trace
            .iter()
            .position(|e| matches!(e.kind, TraceKind::CodeError { .. }));
        assert_eq!(b.broke_at(), at.unwrap_or(0));
    }

    #[test]
    fn a_broken_run_names_the_line_that_sent_the_command_it_broke_on() {
        let b = broken();
        assert_eq!(
            b.sent_from_line(),
            None,
            "a scenario's clients have no learner's lines"
        );
        // Every command numbered by its place in the trace, as a harness's lines would be.
        let mut model = (*b.model).clone();
        for (i, e) in model.trace.iter_mut().enumerate() {
            if let TraceKind::Command { line, .. } = &mut e.kind {
                *line = SourceLine(u32::try_from(i).ok());
            }
        }
        let b = Broken {
            model: Rc::new(model),
            ..b
        };
        // unsafe-del breaks when a second client takes the lock: the SET it got OK for.
        let at = b.broke_at();
        let holder = b.model.trace[at].pid;
        assert!(matches!(b.model.trace[at].kind, TraceKind::LockHeld { .. }));
        let sent = b.sent_from_line().expect("the acquisition's command") as usize;
        assert!(sent < at);
        let TraceKind::Command {
            from, args, reply, ..
        } = &b.model.trace[sent].kind
        else {
            panic!("not a command: {:?}", b.model.trace[sent])
        };
        assert_eq!((*from, args[0].as_str(), reply.as_str()), (holder, "SET", "OK"));
    }

    #[test]
    fn a_foreign_delete_is_the_delete_and_other_events_the_reply_of_their_moment() {
        use crate::sim::fact::{Message, Reason};
        use crate::sim::TraceEvent;
        let ev = |t_us, pid, kind| TraceEvent {
            t_us,
            local_us: 0,
            pid,
            kind,
        };
        let command = |from, cmd: &str, line| TraceKind::Command {
            from,
            args: cmd.split(' ').map(str::to_string).collect(),
            reply: "(integer) 1".into(),
            script: false,
            line: SourceLine(line),
        };
        // Node 0's answer `msg` to worker 1, sent and delivered.
        let answer = |msg| TraceKind::Send {
            msg,
            to: 1,
            what: Message::Redis("1".into()),
        };
        let delivered = |msg| TraceKind::Deliver { msg, from: 0 };
        let timed_out = |line| TraceKind::Timer {
            name: crate::sim::fact::TimerName::RequestTimeout,
            line: SourceLine(line),
        };
        let (lock, token) = ("lock".to_string(), "t".to_string());
        // Worker 1 sends a GET (line 4), finds the lock taken, then a DEL (line 9) that
        // node 0 runs: it frees worker 2's lock.
        let trace = vec![
            ev(10, 0, command(1, "GET lock", Some(4))),
            ev(10, 0, answer(1)),
            ev(20, 1, delivered(1)),
            ev(
                20,
                1,
                TraceKind::AcquireFailed {
                    lock: lock.clone(),
                    reason: Reason::LockTaken,
                },
            ),
            ev(
                30,
                1,
                TraceKind::ForeignDelete {
                    key: lock.clone(),
                    owner: 2,
                    token: token.clone(),
                },
            ),
            ev(30, 0, command(1, "DEL lock", Some(9))),
            ev(30, 0, answer(2)),
            ev(40, 1, delivered(2)),
            ev(
                40,
                1,
                TraceKind::LockKept {
                    lock: lock.clone(),
                    token,
                },
            ),
            ev(
                50,
                3,
                TraceKind::WriteAccepted {
                    from: 1,
                    key: "f".into(),
                    value: "v".into(),
                    token: None,
                    lost_update: false,
                    lock_lapsed: true,
                },
            ),
            ev(
                60,
                1,
                TraceKind::LockLost {
                    lock: lock.clone(),
                    reason: Reason::ValidityEnded,
                },
            ),
            // A command sent from line 12 that got no reply in time: its timeout.
            ev(70, 1, timed_out(Some(12))),
            ev(
                70,
                1,
                TraceKind::CodeError {
                    message: "Timeout".into(),
                    line: Some(12),
                    col: None,
                    coded: None,
                },
            ),
        ];
        assert_eq!(
            sent_from_line(&trace, 3),
            Some(4),
            "the reply it got then: the GET's"
        );
        assert_eq!(sent_from_line(&trace, 4), Some(9), "the delete the node ran next");
        assert_eq!(sent_from_line(&trace, 5), Some(9), "a command's own line");
        assert_eq!(
            sent_from_line(&trace, 8),
            None,
            "a kept lock is seen too late to tell"
        );
        assert_eq!(
            sent_from_line(&trace, 9),
            None,
            "sent to the resource, not to Redis"
        );
        assert_eq!(sent_from_line(&trace, 10), None, "no reply came then (a timer)");
        assert_eq!(sent_from_line(&trace, 12), Some(12), "the command that timed out");
        assert_eq!(sent_from_line(&trace, 99), None);
        // Without lines (a trial of Try to break it), nothing.
        let unlined: Vec<TraceEvent> = trace
            .into_iter()
            .map(|mut e| {
                if let TraceKind::Command { line, .. } | TraceKind::Timer { line, .. } = &mut e.kind {
                    *line = SourceLine(None);
                }
                e
            })
            .collect();
        assert_eq!(sent_from_line(&unlined, 4), None);
        assert_eq!(sent_from_line(&unlined, 12), None);
    }

    #[test]
    fn the_solution_and_the_copied_link_are_remembered() {
        let s = LabState::new(None).reduce(LabAction::ShowSolution(Ok("code".into())));
        assert_eq!(s.solution, Some(Ok("code".into())));
        let s = s
            .reduce(LabAction::HideSolution)
            .reduce(LabAction::LinkCopied(LinkKind::Run, Ok(())));
        assert_eq!(s.solution, None);
        // Only the button of the link copied says so.
        assert!(s.copied(LinkKind::Run) && !s.copied(LinkKind::Code));
        // Refused by the browser: the link is kept to be shown, until a copy works.
        let s = s.reduce(LabAction::LinkCopied(LinkKind::Code, Err("http://x/#lab".into())));
        assert_eq!(s.copied, Some((LinkKind::Code, Err("http://x/#lab".into()))));
        assert!(!s.copied(LinkKind::Run) && !s.copied(LinkKind::Code));
        assert!(s
            .reduce(LabAction::LinkCopied(LinkKind::Code, Ok(())))
            .copied(LinkKind::Code));
    }

    #[test]
    fn the_broken_runs_timeline_zooms_about_its_cursor_and_follows_it() {
        let s = LabState::new(None).reduce(LabAction::Zoom(0.5));
        assert_eq!(s.view, None, "no broken run, nothing to zoom");
        let b = broken();
        let first = b.first_view();
        let shown = Shown {
            trials: 1,
            total: 1,
            seed: 1,
            break_it: false,
            cancelled: false,
            code: Rc::from(""),
            checks: Vec::new(),
            code_error: None,
            broken: Some(b),
        };
        let s = LabState::new(None).reduce(LabAction::Finished(Ok(Rc::new(shown.clone()))));
        assert_eq!(s.view, None, "it opens on the first view");
        let zoomed = s.clone().reduce(LabAction::Zoom(0.5));
        let (a, z) = zoomed.view.expect("zoomed");
        let width = first.1 - first.0;
        assert!(
            (z - a).abs_diff(width / 2) <= 1,
            "half as wide: {a}..{z} from {first:?}"
        );
        let cursor_t = zoomed.broken().expect("broken").t_us(zoomed.cursor);
        assert!(a <= cursor_t && cursor_t <= z, "the cursor stays in view");
        // Zoomed in far, a seek to the first event brings the window with it.
        let mut deep = zoomed;
        for _ in 0..8 {
            deep = deep.reduce(LabAction::Zoom(0.5));
        }
        let far = deep.reduce(LabAction::Seek(0));
        let (a0, _) = far.view.expect("still zoomed");
        assert_eq!(a0, 0, "the window followed the cursor to the start");
        // Zoomed all the way out: the whole run, not the first view again.
        let mut out = far;
        for _ in 0..20 {
            out = out.reduce(LabAction::Zoom(2.0));
        }
        let end = out.broken().expect("broken").model.end_us.max(1);
        assert_eq!(out.view, Some((0, end)));
        // A new run opens on its own first view.
        let again = out
            .reduce(LabAction::Start)
            .reduce(LabAction::Finished(Ok(Rc::new(shown))));
        assert_eq!(again.view, None);
    }
}
