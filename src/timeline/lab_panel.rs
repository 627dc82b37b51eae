//! A lab panel's state (`ui::lab`) as a reducer: what a session shows (its phase, from
//! the click to the verdict), the cursor on the broken run, the solution, a shared trial
//! to replay and the copied link. The panel's view and its sessions only dispatch
//! [`LabAction`]s; every rule of how they combine is here, tested natively.

use super::Model;
use crate::sim::lab::{breaking_event, CodeError, LabAttack};
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
    /// Where the trials ran: `worker` (the engine beside the learner's code).
    pub ran_in: &'static str,
    /// Where the failing run shown was replayed: `worker` (the page's engine worker).
    pub drawn_in: &'static str,
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

    fn last(&self) -> usize {
        self.model.trace.len().saturating_sub(1)
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
    /// The link with the code was copied.
    pub copied: bool,
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
    /// The session ended: what it showed (boxed: it is large), or why it could not run.
    Finished(Result<Box<Shown>, String>),
    /// The broken run's cursor: one event on or back, to the moment it broke, or to an
    /// event picked on the timeline.
    Step(i64),
    JumpToBreak,
    Seek(usize),
    /// The solution, as loaded; or hidden.
    ShowSolution(Result<String, String>),
    HideSolution,
    LinkCopied,
}

impl LabState {
    /// A panel opened with `replay`, the trial its link names, if any.
    pub fn new(replay: Option<u64>) -> LabState {
        LabState {
            phase: Phase::Idle,
            cursor: 0,
            solution: None,
            replay,
            copied: false,
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
            LabAction::Start if !self.running() => self.phase = Phase::Loading,
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
                // The shared trial was replayed (or the learner moved on): Run runs
                // the lab's own seed from now on.
                self.replay = None;
                self.phase = Phase::Shown(Rc::new(*shown));
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
            LabAction::ShowSolution(s) => self.solution = Some(s),
            LabAction::HideSolution => self.solution = None,
            LabAction::LinkCopied => self.copied = true,
        }
        self
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
            ran_in: "worker",
            drawn_in: "worker",
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
        let s = s.reduce(LabAction::Finished(Ok(Box::new(shown(None)))));
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
            .reduce(LabAction::Finished(Ok(Box::new(shown(Some(b))))));
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
            .reduce(LabAction::Finished(Ok(Box::new(shown(None)))));
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
    fn the_solution_and_the_copied_link_are_remembered() {
        let s = LabState::new(None).reduce(LabAction::ShowSolution(Ok("code".into())));
        assert_eq!(s.solution, Some(Ok("code".into())));
        let s = s.reduce(LabAction::HideSolution).reduce(LabAction::LinkCopied);
        assert_eq!((s.solution, s.copied), (None, true));
    }
}
