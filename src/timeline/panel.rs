//! The scenario panel's state and every change to it, as one pure `reduce` (no browser).
//!
//! `ui::scenario` wraps this in yew's `Reducible` and draws it; the tests here drive it
//! directly. The run is part of the state: it is built here once for each change of what
//! it is made of (scenario, seed, knobs, injected faults and commands), and a console
//! command's fork, already run to read the reply, becomes the run as it is.

use super::{build_with, fork, view, LaneKind, Model, Variant};
use crate::sim::scenario::Scenario;
use crate::sim::{Fault, TraceKind};
use crate::store::parse_line;
use serde::{Deserialize, Serialize};
use std::rc::Rc;

/// Where the panel's runs are made: here, inside `reduce` (tests, a page without the
/// engine's worker), or elsewhere (the engine's worker): `reduce` then leaves the run
/// [`PanelState::pending`], the page hands it to the worker, and the answer comes back as
/// [`PanelAction::Ran`]. Either way the state that results is the same.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum RunsIn {
    #[default]
    Here,
    Elsewhere,
}

/// A run the panel needs, as it crosses to the engine's worker (JSON).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RunJob {
    /// The scenario (knobs applied) with a seed and the fork's injections.
    Run {
        scenario: Scenario,
        seed: u64,
        injections: Vec<(u64, Fault)>,
    },
    /// A console line on `node` at true time `at_us` of that run (`fork::console_command`).
    Console {
        scenario: Scenario,
        seed: u64,
        injections: Vec<(u64, Fault)>,
        at_us: u64,
        node: u32,
        args: Vec<Vec<u8>>,
    },
    /// A lab's failing run, replayed from the harness's answers ([`lab_replay`]).
    Lab {
        /// The lab as the engine needs it (`Lab::for_engine`), in the wire's form: text,
        /// so the page's module, which never sends one, carries no writer for a lab.
        lab: String,
        draw: crate::sim::lab::seq::Draw,
        seed: u64,
        tape: Vec<String>,
    },
}

/// What a [`RunJob`] gave.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RunAnswer {
    Run(Result<Model, String>),
    Console {
        reply: String,
        fork: Option<(Vec<(u64, Fault)>, Model)>,
    },
    Lab(Result<LabReplay, String>),
}

/// A lab's failing run, replayed from the harness's answers: what it broke, and its run
/// to draw (`timeline::build_lab`).
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct LabReplay {
    pub attacks: Vec<crate::sim::lab::LabAttack>,
    pub verdicts: Vec<crate::sim::lab::Verdict>,
    pub model: Model,
}

/// A lab's run replayed from its tape: the run `draw` made from `seed` (Run's fixed
/// attacks, or those drawn from a trial's seed).
pub fn lab_replay(
    lab: &crate::sim::lab::Lab,
    draw: crate::sim::lab::seq::Draw,
    seed: u64,
    tape: &[String],
) -> Result<LabReplay, String> {
    let failed = crate::sim::lab::seq::FailedTrial {
        trial: 0,
        seed,
        code_error: None,
        tape: tape.to_vec(),
    };
    let (attacks, verdicts) = failed.regrade(lab, draw)?;
    let model = super::build_lab(lab, seed, &attacks, tape.to_vec())?;
    Ok(LabReplay {
        attacks,
        verdicts,
        model,
    })
}

/// What a run needed on the page says where the page has no engine of its own and the
/// engine's worker could not start.
pub const NO_ENGINE: &str =
    "the simulator could not start in this browser (its worker did not run). Reload the page to try again.";

impl RunJob {
    /// The answer to `self` where it cannot be made: the simulator's absence, said.
    pub fn unmade(&self) -> RunAnswer {
        match self {
            RunJob::Run { .. } => RunAnswer::Run(Err(NO_ENGINE.into())),
            RunJob::Console { .. } => RunAnswer::Console {
                reply: format!("(error) {NO_ENGINE}"),
                fork: None,
            },
            RunJob::Lab { .. } => RunAnswer::Lab(Err(NO_ENGINE.into())),
        }
    }
}

#[cfg(feature = "page-engine")]
fn made_here(job: &RunJob, shown: Option<&Model>) -> RunAnswer {
    run_job_on(job, shown)
}

#[cfg(not(feature = "page-engine"))]
fn made_here(job: &RunJob, _shown: Option<&Model>) -> RunAnswer {
    job.unmade()
}

/// Makes the run `job` asks for: the same code wherever it runs.
pub fn run_job(job: &RunJob) -> RunAnswer {
    run_job_on(job, None)
}

/// Like [`run_job`]; a console line forks `shown` if given (the run of the same inputs,
/// already made), else the run made again (the same inputs give the same run).
fn run_job_on(job: &RunJob, shown: Option<&Model>) -> RunAnswer {
    match job {
        RunJob::Run {
            scenario,
            seed,
            injections,
        } => RunAnswer::Run(build_with(scenario, *seed, injections)),
        RunJob::Console {
            scenario,
            seed,
            injections,
            at_us,
            node,
            args,
        } => {
            let made;
            let base = match shown {
                Some(m) => m,
                None => match build_with(scenario, *seed, injections) {
                    Ok(m) => {
                        made = m;
                        &made
                    }
                    Err(_) => {
                        return RunAnswer::Console {
                            reply: fork::NOT_RUN.into(),
                            fork: None,
                        }
                    }
                },
            };
            let run = fork::console_command(scenario, *seed, base, injections, *at_us, *node, args.clone());
            RunAnswer::Console {
                reply: run.reply,
                fork: run.fork,
            }
        }
        RunJob::Lab {
            lab,
            draw,
            seed,
            tape,
        } => RunAnswer::Lab(
            crate::wire::from_text(lab)
                .map_err(|e| format!("the lab does not read: {e}"))
                .and_then(|lab| lab_replay(&lab, *draw, *seed, tape)),
        ),
    }
}

impl RunAnswer {
    /// The run in it, if any.
    pub fn model_mut(&mut self) -> Option<&mut Model> {
        match self {
            RunAnswer::Run(Ok(m)) => Some(m),
            RunAnswer::Console {
                fork: Some((_, m)), ..
            } => Some(m),
            RunAnswer::Lab(Ok(r)) => Some(&mut r.model),
            _ => None,
        }
    }
}

/// How many items of one of a run's long lists cross to the page in one message: the
/// page reads each message in a task of its own, so no task reads a whole long run (a
/// run of §4 has 15 000 events; read at once, the browser's first, unoptimised code for
/// it held the page 130 ms).
pub const PART_ITEMS: usize = 1000;

/// A piece of one of a run's long lists.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum RunPart {
    Trace(Vec<crate::sim::TraceEvent>),
    Arrows(Vec<super::Arrow>),
    Marks(Vec<super::Mark>),
    KeyStates(Vec<super::KeyState>),
}

/// `answer` in pieces to send one by one: the pieces of its run's long lists, and the
/// answer without them. [`Parts`] puts them together again.
pub fn split_answer(mut answer: RunAnswer) -> (Vec<RunPart>, RunAnswer) {
    fn pieces<T: Clone>(v: Vec<T>) -> Vec<Vec<T>> {
        v.chunks(PART_ITEMS).map(<[T]>::to_vec).collect()
    }
    let mut parts = Vec::new();
    if let Some(m) = answer.model_mut() {
        parts.extend(
            pieces(std::mem::take(&mut m.trace))
                .into_iter()
                .map(RunPart::Trace),
        );
        parts.extend(
            pieces(std::mem::take(&mut m.arrows))
                .into_iter()
                .map(RunPart::Arrows),
        );
        parts.extend(
            pieces(std::mem::take(&mut m.marks))
                .into_iter()
                .map(RunPart::Marks),
        );
        parts.extend(
            pieces(std::mem::take(&mut m.key_states))
                .into_iter()
                .map(RunPart::KeyStates),
        );
    }
    (parts, answer)
}

/// [`split_answer`]'s pieces as texts in the wire's form (`crate::wire::to_text`), the
/// answer last. [`read_part`] and [`read_answer`] read them.
pub fn answer_parts(answer: RunAnswer) -> Result<Vec<String>, String> {
    let (parts, rest) = split_answer(answer);
    let mut texts = parts
        .iter()
        .map(crate::wire::to_text)
        .collect::<Result<Vec<_>, _>>()?;
    texts.push(crate::wire::to_text(&rest)?);
    Ok(texts)
}

/// A run's piece as it crosses from the engine's worker to the page (in the worker's
/// messages and in the runs made at build time, `pre/runs/`) is in the wire's form
/// (`crate::wire`). JSON's readers for the run's types were 51 KB gzip of the page's
/// module; the wire's are a fraction of that (BENCHMARKS.md).
fn read_wire<T: for<'de> Deserialize<'de>>(text: &str) -> Result<T, String> {
    crate::wire::from_text(text).map_err(|e| format!("a run's piece: {e}"))
}

/// A piece of a run's long lists, from [`answer_parts`]' text.
pub fn read_part(text: &str) -> Result<RunPart, String> {
    read_wire(text)
}

/// A run's answer without its long lists, from [`answer_parts`]' last text.
pub fn read_answer(text: &str) -> Result<RunAnswer, String> {
    read_wire(text)
}

/// The pieces of a run's long lists read so far (see [`answer_parts`]).
#[derive(Debug, Default)]
pub struct Parts {
    trace: Vec<crate::sim::TraceEvent>,
    arrows: Vec<super::Arrow>,
    marks: Vec<super::Mark>,
    key_states: Vec<super::KeyState>,
}

impl Parts {
    pub fn add(&mut self, part: RunPart) {
        match part {
            RunPart::Trace(v) => self.trace.extend(v),
            RunPart::Arrows(v) => self.arrows.extend(v),
            RunPart::Marks(v) => self.marks.extend(v),
            RunPart::KeyStates(v) => self.key_states.extend(v),
        }
    }

    /// The answer whole again.
    pub fn finish(self, mut answer: RunAnswer) -> RunAnswer {
        if let Some(m) = answer.model_mut() {
            m.trace = self.trace;
            m.arrows = self.arrows;
            m.marks = self.marks;
            m.key_states = self.key_states;
        }
        answer
    }
}

/// A run asked for and not yet answered. Only the latest counts: an answer to an
/// earlier one is dropped.
#[derive(Clone, Debug, PartialEq)]
pub struct Pending {
    pub id: u64,
    pub job: RunJob,
    /// What the answer does besides becoming the run.
    then: Then,
    /// The true time (µs) shown before the action that asked for it: the view follows
    /// from there when the answer comes, as it would have at once.
    before_us: u64,
}

#[derive(Clone, Debug, PartialEq)]
enum Then {
    /// The cursor stays where it is.
    Keep,
    /// Another scenario: its first view.
    FirstView,
    /// A followed link: the cursor on the moment it names.
    Link { t_ms: Option<u64>, event: Option<usize> },
    /// Undo: the cursor at the moment the learner was looking at (`None`: the start).
    SameMoment(Option<u64>),
    /// A panel's first run: its first view, and the cursor where a link put it.
    Open { t_ms: Option<u64>, event: Option<usize> },
    /// A console line: its reply, and the fork if it changed anything.
    Console(String),
}

/// What the panel shows and what its run is made of.
#[derive(Clone, Debug)]
pub struct PanelState {
    /// The scenario's name, and the scenario itself (before the knobs), or why it cannot be had.
    pub name: String,
    pub base: Rc<Result<Scenario, String>>,
    pub seed: u64,
    /// The learner's knobs and scripts.
    pub variant: Variant,
    /// Faults and console commands injected at true times (µs): the fork.
    pub injections: Vec<(u64, Fault)>,
    /// The run of `base` with `variant`, `seed` and `injections`.
    pub model: Rc<Result<Rc<Model>, String>>,
    /// How many times the simulator has run for this panel (every run is counted).
    pub runs: u64,
    /// How many runs the panel has taken: changes exactly when `model` does (a run
    /// asked of the engine's worker counts in `runs` when asked, here when it comes).
    pub made: u64,
    /// The event the cursor is on (the view may show less: see [`PanelState::cur`]).
    pub cursor: usize,
    /// Stop at this true time (ms) until cleared ("what happens next?").
    pub hold_at_ms: Option<u64>,
    pub playing: bool,
    /// Playback speed, × the 1× pace.
    pub speed: f64,
    /// The visible window in true µs (`None`: the whole run).
    pub view: Option<(u64, u64)>,
    /// The paired scenario drawn beside this one.
    pub compare: bool,
    /// The seed field as typed, and what was typed if it was not a seed.
    pub seed_input: String,
    pub seed_error: Option<String>,
    /// The console's (line, reply) pairs; the reply [`fork::NOT_RUN`] is said in the
    /// reader's language when drawn.
    pub console: Vec<(String, String)>,
    /// The node the console talks to, if the learner picked one.
    pub console_node: Option<u32>,
    /// Where runs are made, and the one asked for and not yet made.
    pub runs_in: RunsIn,
    pub pending: Option<Rc<Pending>>,
    /// Where the run shown was made.
    pub made_in: RunsIn,
    /// The id the next run asked for gets.
    next_id: u64,
    /// Set by an answer: the time shown before the action that asked for it.
    answered_before: Option<u64>,
}

/// A run's answer carried by [`PanelAction::Ran`], taken out once by the reducer: a
/// long run is megabytes, so it is moved, never copied (a copy would also put the run's
/// whole `Clone` on the page, about 9 KB of code). Equal only to itself.
#[derive(Clone)]
pub struct Answer(Rc<std::cell::RefCell<Option<RunAnswer>>>);

impl Answer {
    pub fn new(answer: RunAnswer) -> Answer {
        Answer(Rc::new(std::cell::RefCell::new(Some(answer))))
    }

    /// The answer, the first time; `None` after.
    fn take(&self) -> Option<RunAnswer> {
        self.0.borrow_mut().take()
    }
}

impl PartialEq for Answer {
    fn eq(&self, other: &Answer) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

impl std::fmt::Debug for Answer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str("Answer")
    }
}

/// Everything a learner (or the page) can do to the panel.
#[derive(Clone, Debug, PartialEq)]
pub enum PanelAction {
    /// Play from the cursor, from the start if the cursor is at the end.
    Play,
    Pause,
    /// Space: play or pause where the cursor is.
    TogglePlay,
    /// An embedding page's autoplay: play from where the cursor is.
    Autoplay,
    /// Playback's next step: the cursor moves on, and playback stops at the end.
    Advance(usize),
    /// Put the cursor on an event and stop playing (buttons, a click on the timeline, a host's `goto`).
    Seek(usize),
    /// Move the cursor and keep playing (keys, the slider).
    MoveTo(usize),
    /// ↺: stop, back to the start, the first view.
    Reset,
    SetSpeed(f64),
    /// A window from a gesture.
    SetView(Option<(u64, u64)>),
    /// Zoom about the cursor (buttons) by a factor (< 1 zooms in).
    ZoomAtCursor(f64),
    /// Zoom about the window's middle (Ctrl + wheel).
    Zoom(f64),
    /// Pan by a fraction of the window's width.
    Pan(f64),
    /// Another scenario of the section (resolved by the page: its pack's, then the built-ins).
    PickScenario {
        name: String,
        base: Rc<Result<Scenario, String>>,
    },
    /// A new seed (a random one for "New seed"): the fork is dropped.
    NewSeed(u64),
    /// The seed field's text.
    SeedInput(String),
    /// "Use seed": the typed seed, or an error saying what was typed.
    SubmitSeed,
    /// New knobs or scripts: rerun from the start, without the fork.
    SetVariant(Variant),
    /// Faults from the fault form, added to the fork.
    Inject(Vec<(u64, Fault)>),
    /// "Can this break?" found a counterexample: its seed and faults, from the start.
    Counterexample {
        seed: u64,
        faults: Vec<(u64, Fault)>,
    },
    /// Undo the fork: the run without it, at the moment the learner was looking at.
    Undo,
    /// The answer to the run asked for as `id` (see [`RunsIn::Elsewhere`]), and where
    /// it was made (the page makes it if the worker cannot).
    Ran {
        id: u64,
        answer: Answer,
        made_in: RunsIn,
    },
    /// A console line, run on the console's node at the cursor.
    Console(String),
    ConsoleNode(Option<u32>),
    ToggleCompare,
    /// A link to a moment was followed while the panel is open (a "step by step" line,
    /// a link in the text): its scenario, seed, knobs and faults, and the cursor on the
    /// moment it names (`t_ms`, and `event` where several share a millisecond).
    FollowLink {
        name: String,
        base: Rc<Result<Scenario, String>>,
        seed: u64,
        variant: Variant,
        injections: Vec<(u64, Fault)>,
        t_ms: Option<u64>,
        event: Option<usize>,
    },
    /// The hold point changed; a released hold plays on, or (`reduced_motion`) shows the end.
    Hold {
        at_ms: Option<u64>,
        reduced_motion: bool,
    },
}

/// The event a link names in `m`: `event` if `m` has it at the link's time (a
/// hand-edited `t` wins over a stale `e`), else the last event at or before `t_ms`.
pub fn link_index(m: &Model, t_ms: Option<u64>, event: Option<usize>) -> Option<usize> {
    event
        .filter(|&e| {
            m.trace
                .get(e)
                .is_some_and(|ev| t_ms.is_none_or(|t| ev.t_us / 1000 == t))
        })
        .or_else(|| t_ms.map(|t| m.index_at(t.saturating_mul(1000))))
}

impl PanelState {
    /// A panel on `name` (its scenario `base`), run once.
    pub fn new(
        name: String,
        base: Result<Scenario, String>,
        seed: u64,
        changes: (Variant, Vec<(u64, Fault)>),
        hold_at_ms: Option<u64>,
    ) -> PanelState {
        let mut s = PanelState::unrun(name, base, seed, changes, hold_at_ms, RunsIn::Here);
        s.rerun();
        s.view = s.model().and_then(first_view);
        s
    }

    /// A panel whose first run, too, is made elsewhere (the engine's worker): it has no
    /// run until [`PanelAction::Ran`] brings it, then opens as [`PanelState::new`] and
    /// [`PanelState::at`] would, on its first view with the cursor on the link's moment.
    pub fn opening_elsewhere(
        name: String,
        base: Result<Scenario, String>,
        seed: u64,
        changes: (Variant, Vec<(u64, Fault)>),
        hold_at_ms: Option<u64>,
        (t_ms, event): (Option<u64>, Option<usize>),
    ) -> PanelState {
        let mut s = PanelState::unrun(name, base, seed, changes, hold_at_ms, RunsIn::Elsewhere);
        s.ask(Then::Open { t_ms, event }, 0);
        s
    }

    /// The pending run answered at once by `answer`, a run made ahead of time from the
    /// same job (at build time, for the hand-over from the prerendered page): the state
    /// is the one the worker's answer would have made.
    pub fn answered_now(mut self, answer: RunAnswer) -> PanelState {
        if let Some(id) = self.pending.as_ref().map(|p| p.id) {
            self.answered(id, Answer::new(answer), RunsIn::Elsewhere);
        }
        self
    }

    /// A panel on `name` before its first run.
    fn unrun(
        name: String,
        base: Result<Scenario, String>,
        seed: u64,
        (variant, injections): (Variant, Vec<(u64, Fault)>),
        hold_at_ms: Option<u64>,
        runs_in: RunsIn,
    ) -> PanelState {
        PanelState {
            name,
            base: Rc::new(base),
            seed,
            variant,
            injections,
            model: Rc::new(Err(String::new())),
            runs: 0,
            made: 0,
            cursor: 0,
            hold_at_ms,
            playing: false,
            speed: 1.0,
            view: None,
            compare: false,
            seed_input: String::new(),
            seed_error: None,
            console: Vec::new(),
            console_node: None,
            runs_in,
            pending: None,
            made_in: RunsIn::Here,
            next_id: 1,
            answered_before: None,
        }
    }

    /// The same panel, its later runs made where `runs_in` says (its first is made).
    pub fn runs_in(mut self, runs_in: RunsIn) -> PanelState {
        self.runs_in = runs_in;
        self
    }

    /// True while a run asked for has not come back: the run shown is the one before.
    pub fn running(&self) -> bool {
        self.pending.is_some()
    }

    /// The same panel with its cursor on `index` (a link's cursor), the view following it.
    pub fn at(mut self, index: Option<usize>) -> PanelState {
        if let Some(i) = index {
            let before = self.t_us();
            self.cursor = i;
            self.clamp_cursor();
            self.follow(before);
        }
        self
    }

    pub fn model(&self) -> Option<&Model> {
        self.model.as_ref().as_ref().ok().map(|m| m.as_ref())
    }

    /// The scenario as it runs: the base with the knobs.
    pub fn scenario(&self) -> Option<Scenario> {
        self.base.as_ref().as_ref().ok().map(|s| self.variant.apply(s))
    }

    /// The furthest the cursor may go: the end, or the hold point.
    pub fn last(&self) -> usize {
        self.model().map_or(0, |m| {
            self.hold_at_ms.map_or(m.trace.len().saturating_sub(1), |h| {
                m.index_at(h.saturating_mul(1000))
            })
        })
    }

    /// The event shown: the cursor, not past the hold point.
    pub fn cur(&self) -> usize {
        self.cursor.min(self.last())
    }

    /// The true time (µs) of the event shown.
    pub fn t_us(&self) -> u64 {
        self.model()
            .and_then(|m| m.trace.get(self.cur()))
            .map_or(0, |e| e.t_us)
    }

    /// The run's end (µs), at least 1.
    pub fn end_us(&self) -> u64 {
        self.model().map_or(1, |m| m.end_us.max(1))
    }

    /// The run's nodes (pid, name), which the console can talk to.
    pub fn nodes(&self) -> Vec<(u32, String)> {
        self.model().map_or_else(Vec::new, |m| {
            m.lanes
                .iter()
                .filter(|l| l.kind == LaneKind::Node)
                .map(|l| (l.pid, l.name.clone()))
                .collect()
        })
    }

    /// The node the console talks to: the one picked, else the first.
    pub fn console_target(&self) -> Option<u32> {
        self.console_node.or_else(|| self.nodes().first().map(|n| n.0))
    }

    /// The state after `action`. The run is built again only when what it is made of
    /// changed, and not when the action already ran it (a console fork, Undo).
    pub fn reduce(mut self, action: PanelAction) -> PanelState {
        let inputs = (
            self.name.clone(),
            self.seed,
            self.variant.clone(),
            self.injections.clone(),
        );
        let before = self.t_us();
        let asked = self.pending.as_ref().map(|p| p.id);
        let ran = self.apply(action, before);
        if !ran
            && inputs
                != (
                    self.name.clone(),
                    self.seed,
                    self.variant.clone(),
                    self.injections.clone(),
                )
        {
            self.ask(Then::Keep, before);
        }
        let newly_pending = self.pending.as_ref().is_some_and(|p| Some(p.id) != asked);
        if newly_pending {
            // The view follows when the run it is asked for comes back.
            return self;
        }
        self.clamp_cursor();
        let before = self.answered_before.take().unwrap_or(before);
        self.follow(before);
        self
    }

    /// Applies `action` (`before_us`: the time shown before it); true if it set the run
    /// itself, or asked for it.
    fn apply(&mut self, action: PanelAction, before_us: u64) -> bool {
        use PanelAction as A;
        match action {
            A::Play => {
                if self.cursor >= self.last() {
                    self.cursor = 0;
                }
                self.playing = true;
            }
            A::Pause => self.playing = false,
            A::TogglePlay => self.playing = !self.playing,
            A::Autoplay => self.playing = true,
            A::Advance(next) => {
                self.cursor = next;
                if next >= self.last() {
                    self.playing = false;
                }
            }
            A::Seek(i) => {
                self.playing = false;
                self.cursor = i;
            }
            A::MoveTo(i) => self.cursor = i.min(self.last()),
            A::Reset => {
                self.playing = false;
                self.cursor = 0;
                self.view = self.model().and_then(first_view);
            }
            A::SetSpeed(x) => self.speed = x,
            A::SetView(v) => self.view = v,
            A::ZoomAtCursor(f) => self.view = view::zoom_at(self.view, self.end_us(), f, self.t_us()),
            A::Zoom(f) => self.view = view::zoom(self.view, self.end_us(), f),
            A::Pan(frac) => self.view = view::pan(self.view, self.end_us(), frac),
            A::PickScenario { name, base } => {
                self.name = name;
                self.base = base;
                self.injections.clear();
                self.variant = Variant::default();
                self.cursor = 0;
                self.ask(Then::FirstView, before_us);
                return true;
            }
            A::NewSeed(s) => {
                self.seed = s;
                self.injections.clear();
            }
            A::SeedInput(text) => self.seed_input = text,
            A::SubmitSeed => match self.seed_input.trim().parse::<u64>() {
                Ok(s) => {
                    self.seed = s;
                    self.injections.clear();
                    self.seed_error = None;
                }
                Err(_) => self.seed_error = Some(self.seed_input.trim().to_string()),
            },
            A::SetVariant(v) => {
                self.injections.clear();
                self.cursor = 0;
                self.variant = v;
            }
            A::Inject(faults) => self.injections.extend(faults),
            A::Counterexample { seed, faults } => {
                self.seed = seed;
                self.injections = faults;
                self.cursor = 0;
            }
            A::Undo => return self.undo(before_us),
            A::Console(line) => return self.console_line(line, before_us),
            A::Ran { id, answer, made_in } => return self.answered(id, answer, made_in),
            A::ConsoleNode(n) => self.console_node = n,
            A::ToggleCompare => self.compare = !self.compare,
            A::FollowLink {
                name,
                base,
                seed,
                variant,
                injections,
                t_ms,
                event,
            } => {
                self.playing = false;
                let same = (&name, seed, &variant, &injections)
                    == (&self.name, self.seed, &self.variant, &self.injections);
                if !same {
                    if name != self.name {
                        self.base = base;
                        self.view = None;
                    }
                    self.name = name;
                    self.seed = seed;
                    self.variant = variant;
                    self.injections = injections;
                    self.ask(Then::Link { t_ms, event }, before_us);
                } else if let Some(i) = self.model().and_then(|m| link_index(m, t_ms, event)) {
                    self.cursor = i;
                }
                return !same;
            }
            A::Hold {
                at_ms,
                reduced_motion,
            } => {
                let released = self.hold_at_ms.is_some() && at_ms.is_none();
                self.hold_at_ms = at_ms;
                if released {
                    if reduced_motion {
                        self.cursor = self.last();
                    } else {
                        self.playing = true;
                    }
                }
            }
        }
        false
    }

    /// Runs the scenario with the knobs, seed and injections (the first run).
    fn rerun(&mut self) {
        self.ask(Then::Keep, 0);
    }

    /// The run of the scenario with the knobs, seed and injections, made now or asked for.
    fn ask(&mut self, then: Then, before_us: u64) {
        let Some(scenario) = self.scenario() else {
            let e = self.base.as_ref().as_ref().err().cloned().unwrap_or_default();
            self.model = Rc::new(Err(e));
            self.made += 1;
            self.pending = None;
            return;
        };
        let job = RunJob::Run {
            scenario,
            seed: self.seed,
            injections: self.injections.clone(),
        };
        self.make(job, then, before_us);
    }

    /// `job` run now (here) or left pending (elsewhere); counted either way.
    fn make(&mut self, job: RunJob, then: Then, before_us: u64) {
        self.runs += 1;
        match self.runs_in {
            RunsIn::Here => {
                self.pending = None;
                self.made_in = RunsIn::Here;
                // A console line forks the run shown: it is not made again.
                let answer = made_here(&job, self.model());
                self.take(answer, then);
            }
            RunsIn::Elsewhere => {
                let id = self.next_id;
                self.next_id += 1;
                self.pending = Some(Rc::new(Pending {
                    id,
                    job,
                    then,
                    before_us,
                }));
            }
        }
    }

    /// The answer to run `id`, if it is the one pending.
    fn answered(&mut self, id: u64, answer: Answer, made_in: RunsIn) -> bool {
        if self.pending.as_ref().is_none_or(|p| p.id != id) {
            return false;
        }
        // Taken once: the same action reduced again finds nothing to take.
        let Some(answer) = answer.take() else {
            return false;
        };
        let Some(p) = self.pending.take() else {
            return false;
        };
        self.made_in = made_in;
        self.answered_before = Some(p.before_us);
        self.take(answer, p.then.clone());
        true
    }

    /// A run made: it becomes the run, and does what it was asked for besides.
    fn take(&mut self, answer: RunAnswer, then: Then) {
        match (answer, then) {
            (RunAnswer::Console { reply, fork }, Then::Console(line)) => {
                self.console.push((line, reply));
                if let Some((inj, forked)) = fork {
                    self.injections = inj;
                    self.model = Rc::new(Ok(Rc::new(forked)));
                    self.made += 1;
                }
            }
            // A panel asks for no lab's run.
            (RunAnswer::Console { .. } | RunAnswer::Lab(_), _) | (RunAnswer::Run(_), Then::Console(_)) => {}
            (RunAnswer::Run(model), then) => {
                self.model = Rc::new(model.map(Rc::new));
                self.made += 1;
                match then {
                    Then::Keep | Then::Console(_) => {}
                    Then::FirstView => self.view = self.model().and_then(first_view),
                    Then::Open { t_ms, event } => {
                        self.view = self.model().and_then(first_view);
                        if let Some(i) = self.model().and_then(|m| link_index(m, t_ms, event)) {
                            // As `at` does: the window follows the cursor from the start.
                            self.cursor = i;
                            self.clamp_cursor();
                            self.follow(0);
                        }
                    }
                    Then::Link { t_ms, event } => {
                        if let Some(i) = self.model().and_then(|m| link_index(m, t_ms, event)) {
                            self.cursor = i;
                        }
                    }
                    Then::SameMoment(t_us) => {
                        self.cursor = match (t_us, self.model()) {
                            (Some(t), Some(m)) => m.index_at(t),
                            _ => 0,
                        };
                    }
                }
            }
        }
    }

    /// A new run keeps the cursor's index while the run is long enough.
    fn clamp_cursor(&mut self) {
        let len = self.model().map_or(0, |m| m.trace.len());
        if self.cursor >= len && len > 0 {
            self.cursor = len - 1;
        }
    }

    /// After the cursor moved in time, the window follows it.
    fn follow(&mut self, before_us: u64) {
        let t = self.t_us();
        if t != before_us {
            self.view = view::follow(self.view, self.end_us(), t);
        }
    }

    fn undo(&mut self, before_us: u64) -> bool {
        let Some(unforked) = self.scenario() else {
            self.injections.clear();
            self.console.clear();
            return false;
        };
        // Where the learner was looking: kept in the run without the fork.
        let moment = self.model().and_then(|m| m.trace.get(self.cur())).map(|e| e.t_us);
        self.injections.clear();
        self.console.clear();
        let job = RunJob::Run {
            scenario: unforked,
            seed: self.seed,
            injections: Vec::new(),
        };
        self.make(job, Then::SameMoment(moment), before_us);
        true
    }

    /// Runs a console line: one run, the fork, which becomes the run if the command
    /// changed anything.
    fn console_line(&mut self, line: String, before_us: u64) -> bool {
        let (Some(node), Some(s), true) = (self.console_target(), self.scenario(), self.model().is_some())
        else {
            return false;
        };
        match parse_line(&line) {
            Ok(args) if !args.is_empty() => {
                let job = RunJob::Console {
                    scenario: s,
                    seed: self.seed,
                    injections: self.injections.clone(),
                    at_us: self.t_us(),
                    node,
                    args,
                };
                self.make(job, Then::Console(line), before_us);
            }
            Ok(_) => {}
            Err(e) => self.console.push((line, format!("(error) {e}"))),
        }
        true
    }
}

/// The view a run opens on: its events framed (see `view::initial`).
pub fn first_view(m: &Model) -> Option<(u64, u64)> {
    let last = m
        .trace
        .iter()
        .rev()
        .find(|e| !matches!(e.kind, TraceKind::End))
        .map_or(0, |e| e.t_us);
    view::initial(last, m.end_us.max(1))
}

#[cfg(test)]
mod tests;
