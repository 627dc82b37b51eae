//! A lab inside a section: the goal, the functions to write, an editor, **Run** (one run
//! on a fixed seed), **Try to break it** (many attacked trials, with progress and
//! Cancel) and, after a first attempt, a solution. A failure opens its run on the
//! timeline at the moment it broke, with the trial's seed in the URL.
//!
//! The learner's code only runs in the sandbox ([`sandbox`]) and only when they press
//! Run or Try to break it. For Run the simulator runs here, between the sandbox's
//! answers, each awaited. Try to break it runs in the sandboxes' workers beside the
//! engine's module ([`engine`]); where that module is not served, here as Run does.

pub mod apart;
mod engine;
mod sandbox;

use crate::lesson::content::Lang;
use crate::lesson::i18n::Texts;
use crate::lesson::progress::LabProgress;
use crate::lesson::route::{hash_with_state, query_param};
use crate::sim::lab::seq::{self, Draw};
#[cfg(feature = "page-engine")]
use crate::sim::lab::TrialResult;
use crate::sim::lab::{self, CodeError, Lab, LabAttack, LabAttackOp, StallPoint};
use crate::sim::Violation;
use crate::timeline::{self, Model};
use crate::ui::browser;
use crate::ui::components::doc;
use crate::ui::components::render;
use crate::ui::components::CodeBlock;
use crate::vecmap::VecMap;
use sandbox::{EngineFiles, Sandbox};
use std::cell::{Cell, RefCell};
use std::rc::Rc;
use yew::prelude::*;

/// The labs' saved code and results (from the learner's progress), and how to save.
#[derive(Clone, PartialEq)]
pub struct LabStore {
    pub saved: Rc<VecMap<String, LabProgress>>,
    /// (lab id, code): the editor's code changed.
    pub on_code: Callback<(String, String)>,
    /// (lab id, passed): a run or session graded the code.
    pub on_run: Callback<(String, bool)>,
}

/// Largest file the panel fetches from `labs/`.
const FILE_LIMIT: usize = 1024 * 1024;

/// The loaded pack's own labs (`labs/<id>/` in the pack), with their driver and
/// solution: a `lab` block finds its lab here first, then among the built-in ones.
#[derive(Clone, Default)]
pub struct PackLabs(pub Rc<Vec<Lab>>);

impl PartialEq for PackLabs {
    /// One pack is loaded once: the same list, not an equal one, is the same context.
    fn eq(&self, other: &Self) -> bool {
        Rc::ptr_eq(&self.0, &other.0)
    }
}

/// A lab by id: the pack's own (complete), or a built-in one (its driver and solution
/// fetched from `labs/` when needed).
fn find_lab(id: &str, pack: Option<&PackLabs>) -> Option<Result<Lab, String>> {
    match pack.and_then(|p| p.0.iter().find(|l| l.id == id)) {
        Some(l) => Some(Ok(l.clone())),
        None => crate::labs::shown(id),
    }
}

#[derive(Properties, PartialEq)]
pub struct LabPanelProps {
    pub id: String,
    pub lang: Lang,
}

/// What the last Run or Try to break it showed.
#[derive(Clone, PartialEq)]
struct Shown {
    /// Trials run, out of how many, from which seed.
    trials: u32,
    total: u32,
    seed: u64,
    break_it: bool,
    cancelled: bool,
    checks: Vec<(String, bool)>,
    code_error: Option<CodeError>,
    broken: Option<Broken>,
    /// Where the trials ran: `worker` (the engine beside the learner's code) or `page`.
    ran_in: &'static str,
    /// Where the failing run shown was replayed: `worker` (the page's engine worker) or `page`.
    drawn_in: &'static str,
}

/// The run that broke (or whose code failed), drawn.
#[derive(Clone, PartialEq)]
struct Broken {
    seed: u64,
    trial: u32,
    attacks: Vec<LabAttack>,
    violations: Vec<Violation>,
    model: Rc<Model>,
}

#[derive(Clone, PartialEq)]
enum Phase {
    Idle,
    Loading,
    Running { done: u32, total: u32 },
    Shown(Rc<Shown>),
    Failed(String),
}

thread_local! {
    /// Files fetched from `labs/`, by path: fetched once per page.
    static FILES: RefCell<VecMap<String, Rc<str>>> = const { RefCell::new(VecMap::new()) };
    /// Sandboxes opened ahead of the learner's click ([`warm`]): frame loaded, harness
    /// and engine sent, no code yet.
    static SPARES: RefCell<Vec<Spare>> = const { RefCell::new(Vec::new()) };
    static WARMING: Cell<bool> = const { Cell::new(false) };
    /// Who waits for the sandboxes being opened ([`warmed`]).
    static WARM_WAITERS: RefCell<Vec<js_sys::Function>> = const { RefCell::new(Vec::new()) };
}

/// A sandbox opened ahead of time, and whether its worker will hold the engine.
struct Spare {
    sandbox: Sandbox,
    engine: bool,
}

/// Opens the sandboxes the next session takes ([`SANDBOXES`] of them, with the engine's
/// module when it is served), in the background: the frames load, the harness and the
/// engine's files are fetched and sent, and the engine is compiled in each frame before
/// the learner clicks. Called when the learner starts editing a lab's code (not merely
/// when the section is shown: a reader who never opens a lab downloads no engine) and
/// after each session.
pub fn warm() {
    if WARMING.with(Cell::get) || SPARES.with(|s| s.borrow().len()) >= SANDBOXES {
        return;
    }
    WARMING.with(|w| w.set(true));
    wasm_bindgen_futures::spawn_local(async {
        if let (Ok(harness), Ok(html)) = (lab_file("harness.js").await, lab_file("sandbox.html").await) {
            let engine = engine::files().await;
            while SPARES.with(|s| s.borrow().len()) < SANDBOXES {
                match Sandbox::open(&html, &harness, engine.as_deref(), true).await {
                    Ok(sandbox) => SPARES.with(|s| {
                        s.borrow_mut().push(Spare {
                            sandbox,
                            engine: engine.is_some(),
                        })
                    }),
                    Err(_) => break,
                }
            }
        }
        WARMING.with(|w| w.set(false));
        for resolve in WARM_WAITERS.with(|w| std::mem::take(&mut *w.borrow_mut())) {
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        }
    });
}

/// Waits until the sandboxes [`warm`] is opening are ready: a session that starts
/// meanwhile takes them rather than opening more beside them.
async fn warmed() {
    if !WARMING.with(Cell::get) {
        return;
    }
    let p = js_sys::Promise::new(&mut |resolve, _| WARM_WAITERS.with(|w| w.borrow_mut().push(resolve)));
    let _ = wasm_bindgen_futures::JsFuture::from(p).await;
}

/// A spare sandbox: one holding the engine when `engine`; any otherwise (a worker that
/// holds the engine and is never asked to run it is the same as one without).
fn take_spare(engine: bool) -> Option<Sandbox> {
    SPARES.with(|s| {
        let mut s = s.borrow_mut();
        let i = s.iter().position(|x| x.engine || !engine)?;
        let sandbox = s.swap_remove(i).sandbox;
        sandbox.set_spare(false);
        Some(sandbox)
    })
}

/// Puts a lab file in the page's cache, as if fetched from `labs/<path>` (for the browser
/// tests, whose test page has no `labs/` folder).
pub fn preload(path: &str, text: &str) {
    FILES.with(|f| f.borrow_mut().insert(path.to_string(), Rc::from(text)));
}

/// One run of `code` in a fresh sandbox, exactly as Run does it on the page (the browser
/// tests look at its trace).
#[cfg(feature = "page-engine")]
pub async fn run_once_in_sandbox(lab_id: &str, code: &str, seed: u64) -> Result<TrialResult, String> {
    let mut lab = crate::labs::shown(lab_id).ok_or("no such lab")??;
    lab.driver = lab_file(&format!("{lab_id}/driver.js")).await?.to_string();
    let (harness, html) = (lab_file("harness.js").await?, lab_file("sandbox.html").await?);
    let sandbox = open_sandbox(&lab, code, &html, &harness, None)
        .await?
        .map_err(|e| e.to_string())?;
    let pool = RefCell::new(lab::TrialPool::new(&lab, 1, 1, 1, |_| {
        (seed, lab.run_attacks.clone())
    }));
    let no = Cell::new(false);
    drive(&pool, 0, &sandbox, &no, &Callback::noop(), 1, &Cell::new(0)).await?;
    pool.into_inner()
        .into_only()
        .ok_or_else(|| "the run did not finish".to_string())
}

async fn lab_file(path: &str) -> Result<Rc<str>, String> {
    if let Some(f) = FILES.with(|f| f.borrow().get(path).cloned()) {
        return Ok(f);
    }
    let text = crate::ui::pack_loader::fetch_text(&format!("labs/{path}"), FILE_LIMIT)
        .await
        .map_err(|e| match e {
            crate::ui::pack_loader::FetchError::Failed(why) => format!("labs/{path}: {why}"),
            crate::ui::pack_loader::FetchError::TooBig { read } => {
                format!("labs/{path}: larger than {read} bytes")
            }
        })?;
    let rc: Rc<str> = Rc::from(text.as_str());
    FILES.with(|f| f.borrow_mut().insert(path.to_string(), rc.clone()));
    Ok(rc)
}

/// `name` from the URL hash's state, when the state names this lab (`lab=<id>&…`).
fn lab_param(id: &str, name: &str) -> Option<String> {
    let hash = browser::hash();
    let q = hash.split_once('?').map_or("", |(_, q)| q);
    (query_param(q, "lab").as_deref() == Some(id))
        .then(|| query_param(q, name))
        .flatten()
}

/// Whether the URL names the lab `id` (`lab=<id>`: a shared link, a replayed trial).
pub fn in_url(id: &str) -> bool {
    let hash = browser::hash();
    let q = hash.split_once('?').map_or("", |(_, q)| q);
    query_param(q, "lab").as_deref() == Some(id)
}

/// The lab's `lab=…&trial=…` in the URL, if this panel's.
fn shared_trial(id: &str) -> Option<u64> {
    lab_param(id, "trial").and_then(|s| s.parse().ok())
}

/// Code a link brought for this lab (`lab=<id>&code=…`): shown in the editor, never run
/// by itself.
fn shared_code(id: &str) -> Option<String> {
    lab_param(id, "code").filter(|c| !c.trim().is_empty() && c.len() <= MAX_LINK_CODE)
}

/// Longest code a link carries (URL-encoded it is up to three times longer).
const MAX_LINK_CODE: usize = 8 * 1024;

/// A link to this page with the lab, its code and, if any, the trial to replay.
fn link_with_code(id: &str, code: &str, trial: Option<u64>) -> Option<String> {
    let loc = web_sys::window()?.location();
    let base = format!(
        "{}{}{}",
        loc.origin().ok()?,
        loc.pathname().ok()?,
        loc.search().ok()?
    );
    let mut state = format!("lab={id}");
    if let Some(t) = trial {
        state.push_str(&format!("&trial={t}"));
    }
    if code.len() <= MAX_LINK_CODE {
        state.push_str(&format!(
            "&code={}",
            String::from(js_sys::encode_uri_component(code))
        ));
    }
    Some(format!("{base}{}", hash_with_state(&browser::hash(), &state)))
}

fn ordinal(n: u32, lang: Lang) -> String {
    match lang {
        Lang::Nb => format!("{n}."),
        _ => {
            let s = match (n % 10, n % 100) {
                (1, 11) | (2, 12) | (3, 13) => "th",
                (1, _) => "st",
                (2, _) => "nd",
                (3, _) => "rd",
                _ => "th",
            };
            format!("{n}{s}")
        }
    }
}

/// What a check says: its rule when it held ("no release deleted another worker's
/// lock"), what happened when it broke ("a release deleted another worker's lock").
fn check_words(t: &Texts, name: &str, held: bool) -> String {
    t.t(&format!("lab_{}_{name}", if held { "check" } else { "broke" }))
}

fn ms_text(us: u64) -> String {
    format!("{}", us / 1000)
}

fn attack_text(a: &LabAttack, names: &[String], lang: Lang) -> String {
    let t = Texts::new(lang);
    let who = names.get(a.worker as usize).cloned().unwrap_or_default();
    let nth = ordinal(a.command, lang);
    let at_key = match a.at {
        StallPoint::Command => "lab_at_command",
        StallPoint::Timer => "lab_at_timer",
        StallPoint::Reply => "lab_at_reply",
    };
    let at = t.fmt(at_key, &[("nth", nth)]);
    match &a.op {
        LabAttackOp::Pause { for_us } => t.fmt(
            "lab_attack_pause",
            &[("who", who), ("at", at), ("ms", ms_text(*for_us))],
        ),
        LabAttackOp::Crash { restart_after_us } => t.fmt(
            "lab_attack_crash",
            &[
                ("who", who),
                ("at", at),
                ("ms", ms_text(restart_after_us.unwrap_or(0))),
            ],
        ),
        LabAttackOp::NodeDown { node, at_us } => t.fmt(
            "lab_attack_node_down",
            &[("node", (node + 1).to_string()), ("ms", ms_text(*at_us))],
        ),
    }
}

fn violation_text(v: &Violation, lang: Lang) -> String {
    let t = Texts::new(lang);
    let a = v.clients.first().cloned().unwrap_or_default();
    let b = v.clients.get(1).cloned().unwrap_or_default();
    let key = format!("lab_v_{}", v.kind);
    let text = t.fmt(
        &key,
        &[
            ("a", a),
            ("b", b),
            ("from", format!("{:.0}", v.from_ms)),
            ("to", format!("{:.0}", v.to_ms)),
        ],
    );
    if text == key {
        v.detail.clone()
    } else {
        text
    }
}

/// Everything a session needs, gathered before the first message.
struct Session {
    lab: Lab,
    code: String,
    seed: u64,
    trials: u32,
    /// Replay this trial seed alone (a shared counterexample).
    replay: Option<u64>,
    cancel: Rc<Cell<bool>>,
}

/// How "Try to break it" runs its trials (`sim::lab::TrialPool`): in [`SANDBOXES`]
/// sandboxes (a worker each, so one runs the learner's code while the page prepares the
/// other's next inputs), each with [`LANES`] trials in flight, a harness each. A
/// message to a sandbox's worker, not the work, is what an input costs, and one message
/// carries an input per lane. The verdict does not depend on either number (the lowest
/// failing trial is the one shown).
pub const SANDBOXES: usize = 2;
/// Trials in flight per sandbox.
pub const LANES: usize = 32;

/// Opens a sandbox and loads the learner's code into it: the sandbox, or the code's error.
async fn open_sandbox(
    lab: &Lab,
    code: &str,
    html: &str,
    harness: &str,
    engine: Option<&EngineFiles>,
) -> Result<Result<Sandbox, CodeError>, String> {
    let sandbox = match take_spare(engine.is_some()) {
        Some(s) => s,
        None => Sandbox::open(html, harness, engine, false)
            .await
            .map_err(|e| e.to_string())?,
    };
    Ok(match sandbox.exchange(&lab.init_message(code)).await {
        Ok(a) => lab::parse_ready(&a).map(|()| sandbox),
        Err(e) => Err(e),
    })
}

/// Opens `groups` sandboxes side by side (each loads a frame, a worker and the code):
/// the sandboxes, or the code's error.
async fn open_all(
    lab: &Lab,
    code: &str,
    (html, harness): (&str, &str),
    groups: usize,
    engine: Option<&EngineFiles>,
) -> Result<Result<Vec<Sandbox>, CodeError>, String> {
    let opening = (0..groups).map(|_| open_sandbox(lab, code, html, harness, engine));
    let mut sandboxes = Vec::new();
    for opened in futures_util::future::join_all(opening).await {
        match opened? {
            Ok(sandbox) => sandboxes.push(sandbox),
            Err(e) => return Ok(Err(e)),
        }
    }
    Ok(Ok(sandboxes))
}

#[cfg(feature = "page-engine")]
/// Runs group `group`'s batches through its sandbox until the group is done or the
/// session is cancelled. Progress is reported every 5 % of the trials: re-rendering the
/// panel (and laying the page out again) once per 1 % took 0.9 s of 200 trials' 2.5 s.
async fn drive(
    pool: &RefCell<lab::TrialPool<'_>>,
    group: usize,
    sandbox: &Sandbox,
    cancel: &Cell<bool>,
    progress: &Callback<(u32, u32)>,
    total: u32,
    reported: &Cell<u32>,
) -> Result<(), String> {
    let step = (total / 20).max(1);
    loop {
        let Some(batch) = pool.borrow_mut().next_batch(group)? else {
            return Ok(());
        };
        if cancel.get() {
            return Ok(());
        }
        let finished = pool.borrow().finished();
        if finished >= reported.get() + step {
            reported.set(finished);
            progress.emit((finished, total));
        }
        let answer = sandbox.exchange(&batch).await;
        pool.borrow_mut().answer_batch(group, answer);
    }
}

/// Run a session in the sandbox, reporting progress; the result to show.
async fn run_session(s: Session, progress: Callback<(u32, u32)>) -> Result<Shown, String> {
    let (harness, html) = (lab_file("harness.js").await?, lab_file("sandbox.html").await?);
    let mut lab = s.lab.clone();
    // A pack's lab brings its driver; a built-in one's is fetched.
    if lab.driver.is_empty() {
        lab.driver = lab_file(&format!("{}/driver.js", lab.id)).await?.to_string();
    }
    let break_it = s.trials > 1;
    let mut shown = Shown {
        trials: 0,
        total: s.trials,
        seed: s.replay.unwrap_or(s.seed),
        break_it,
        cancelled: false,
        checks: lab.checks.iter().map(|c| (c.name().to_string(), true)).collect(),
        code_error: None,
        broken: None,
        ran_in: "page",
        drawn_in: "page",
    };
    let groups = if break_it { SANDBOXES } else { 1 };
    warmed().await;
    // The runs are made in the sandboxes' workers, beside the learner's code, when the
    // engine's module is served: "Try to break it"'s trials, Run, and a shared trial's replay.
    let engine = engine::files().await;
    let (draw, seed) = match (break_it, s.replay) {
        (true, _) => (Draw::Trials, s.seed),
        (false, Some(t)) => (Draw::Replay, t),
        (false, None) => (Draw::Run, s.seed),
    };
    let mut sandboxes = match open_all(&lab, &s.code, (&html, &harness), groups, engine.as_deref()).await? {
        Ok(v) => v,
        Err(e) => {
            shown.code_error = Some(e);
            return Ok(shown);
        }
    };
    // `None`: no engine; `Some(Err)`: the engine failed.
    let in_worker = match engine.is_some() {
        true => Some(engine::run(&lab, draw, seed, s.trials, &sandboxes, &s.cancel, &progress).await),
        false => None,
    };
    if let Some(Err(why)) = &in_worker {
        // The engine failed, not the learner's code (a browser that will not start it
        // in the sandbox, say): the page runs the trials itself, as without the engine.
        web_sys::console::warn_1(&format!("lab engine: {why}; the page runs the trials").into());
        drop(sandboxes);
        sandboxes = match open_all(&lab, &s.code, (&html, &harness), groups, None).await? {
            Ok(v) => v,
            Err(e) => {
                shown.code_error = Some(e);
                return Ok(shown);
            }
        };
    }
    if let Some(Ok(out)) = in_worker {
        drop(sandboxes);
        shown.ran_in = "worker";
        shown.trials = out.finished;
        progress.emit((shown.trials, s.trials));
        shown.cancelled = s.cancel.get();
        if let Some(f) = out.failure.filter(|_| !shown.cancelled) {
            show_engine_failure(&lab, draw, &mut shown, f).await?;
        }
        return Ok(shown);
    }
    trials_on_page(&lab, &s, sandboxes, (groups, break_it), &progress, shown).await
}

/// The trials made on the page's own thread, the learner's code in the sandboxes (the
/// browser tests' page, which serves no engine module): `lab::TrialPool`.
#[cfg(feature = "page-engine")]
async fn trials_on_page(
    lab: &Lab,
    s: &Session,
    sandboxes: Vec<Sandbox>,
    (groups, break_it): (usize, bool),
    progress: &Callback<(u32, u32)>,
    mut shown: Shown,
) -> Result<Shown, String> {
    let draw = |i: u32| match s.replay {
        Some(t) => Draw::Replay.trial(lab, t, i),
        None if break_it => Draw::Trials.trial(lab, s.seed, i),
        None => Draw::Run.trial(lab, s.seed, i),
    };
    let per_group = if break_it { LANES } else { 1 };
    let pool = RefCell::new(lab::TrialPool::new(lab, s.trials, groups, per_group, draw));
    let reported = Cell::new(0);
    let runs = sandboxes
        .iter()
        .enumerate()
        .map(|(g, sandbox)| drive(&pool, g, sandbox, &s.cancel, progress, s.trials, &reported));
    let results = futures_util::future::join_all(runs).await;
    results.into_iter().collect::<Result<Vec<()>, String>>()?;
    drop(sandboxes);
    let pool = pool.into_inner();
    shown.trials = pool.finished();
    progress.emit((shown.trials, s.trials));
    if s.cancel.get() {
        shown.cancelled = true;
        return Ok(shown);
    }
    if let Some((i, t)) = pool.into_failure() {
        shown.trials = i + 1;
        show_failure(&mut shown, &t.verdicts, t.code_error.clone());
        let model = timeline::build_lab(lab, t.seed, &t.attacks, t.tape.clone())?;
        shown.broken = Some(Broken {
            seed: t.seed,
            trial: i + 1,
            attacks: t.attacks.clone(),
            violations: t.violations(),
            model: Rc::new(model),
        });
    }
    Ok(shown)
}

/// Without the engine on the page, the trials are the engine's module's to make.
#[cfg(not(feature = "page-engine"))]
async fn trials_on_page(
    _: &Lab,
    _: &Session,
    _: Vec<Sandbox>,
    _: (usize, bool),
    _: &Callback<(u32, u32)>,
    _: Shown,
) -> Result<Shown, String> {
    Err(format!(
        "The trials could not run: {}",
        crate::timeline::panel::NO_ENGINE
    ))
}

/// The lowest failing trial the engine's groups found: the worker sends its tape, and
/// replaying it gives what the worker graded and the run to draw. The replay is made in
/// the page's engine worker (`timeline::panel::lab_replay`; on the page if it cannot). A
/// trial that never returned (an infinite loop) has no run to draw.
async fn show_engine_failure(
    lab: &Lab,
    draw: Draw,
    shown: &mut Shown,
    f: seq::FailedTrial,
) -> Result<(), String> {
    shown.trials = f.trial + 1;
    if f.tape.is_empty() && f.code_error.is_some() {
        show_failure(shown, &[], f.code_error);
        return Ok(());
    }
    let job = crate::timeline::panel::RunJob::Lab {
        texts: lab.texts.clone(),
        draw,
        seed: f.seed,
        tape: f.tape,
    };
    let (answer, made_in) = made_elsewhere(job).await;
    let replay = match answer {
        crate::timeline::panel::RunAnswer::Lab(r) => r?,
        _ => return Err("the lab's run could not be replayed".into()),
    };
    show_failure(shown, &replay.verdicts, f.code_error.clone());
    shown.drawn_in = made_in;
    shown.broken = Some(Broken {
        seed: f.seed,
        trial: f.trial + 1,
        violations: lab::violations_of(&replay.verdicts),
        attacks: replay.attacks,
        model: Rc::new(replay.model),
    });
    Ok(())
}

/// `job` made in the page's engine worker (or on the page if it cannot), awaited.
async fn made_elsewhere(
    job: crate::timeline::panel::RunJob,
) -> (crate::timeline::panel::RunAnswer, &'static str) {
    use crate::timeline::panel::RunsIn;
    let slot = Rc::new(RefCell::new(None));
    let mut handle = None;
    let promise = js_sys::Promise::new(&mut |resolve, _| {
        let slot = slot.clone();
        handle = crate::ui::scenario::make_elsewhere(job.clone(), move |answer, made_in| {
            *slot.borrow_mut() = Some((answer, made_in));
            let _ = resolve.call0(&wasm_bindgen::JsValue::NULL);
        });
    });
    let _ = wasm_bindgen_futures::JsFuture::from(promise).await;
    drop(handle);
    let made = slot.borrow_mut().take();
    match made {
        Some((answer, RunsIn::Elsewhere)) => (answer, "worker"),
        Some((answer, RunsIn::Here)) => (answer, "page"),
        None => (crate::timeline::panel::run_here(&job), "page"),
    }
}

/// Which checks a failing trial broke, and its code error.
fn show_failure(shown: &mut Shown, verdicts: &[lab::Verdict], code_error: Option<CodeError>) {
    for (name, ok) in shown.checks.iter_mut() {
        *ok = verdicts
            .iter()
            .find(|v| v.check.name() == name)
            .is_none_or(|v| v.violations.is_empty());
    }
    shown.code_error = code_error;
}

/// The solution button's action: show the lab's reference solution (a pack's lab has it;
/// a built-in one's is fetched), or hide it.
fn toggle_solution(
    solution: UseStateHandle<Option<Result<String, String>>>,
    lab: &Lab,
) -> Callback<MouseEvent> {
    let (id, known) = (lab.id.clone(), lab.solution.clone());
    Callback::from(move |_: MouseEvent| {
        if solution.is_some() {
            solution.set(None);
        } else if !known.is_empty() {
            solution.set(Some(Ok(known.clone())));
        } else {
            let (solution, id) = (solution.clone(), id.clone());
            wasm_bindgen_futures::spawn_local(async move {
                let s = lab_file(&format!("{id}/solution.js"))
                    .await
                    .map(|s| s.to_string());
                solution.set(Some(s));
            });
        }
    })
}

/// A button's action: select line `line` of the editor's code (a code error's line).
fn select_line(editor: NodeRef, code: UseStateHandle<String>, line: u32) -> Callback<MouseEvent> {
    Callback::from(move |_: MouseEvent| {
        let Some(el) = editor.cast::<web_sys::HtmlTextAreaElement>() else {
            return;
        };
        let before = line.saturating_sub(1) as usize;
        // Offsets in UTF-16 units, as the textarea counts them.
        let start: usize = code
            .split('\n')
            .take(before)
            .map(|l| l.encode_utf16().count() + 1)
            .sum();
        let len = code
            .split('\n')
            .nth(before)
            .map_or(0, |l| l.encode_utf16().count());
        let _ = el.focus();
        el.set_selection_start(Some(start as u32)).ok();
        el.set_selection_end(Some((start + len) as u32)).ok();
    })
}

/// What a session started from the panel reads and updates.
#[derive(Clone)]
struct Handles {
    phase: UseStateHandle<Phase>,
    cancel: Rc<RefCell<Rc<Cell<bool>>>>,
    code: UseStateHandle<String>,
    cursor: UseStateHandle<usize>,
    store: Option<LabStore>,
    replay: UseStateHandle<Option<u64>>,
    verdict_ref: NodeRef,
    editor: NodeRef,
    lab: Lab,
    id: String,
}

/// Run or Try to break it: save the code, run the session in the background, show it.
fn start_session(h: &Handles, break_it: bool) {
    let flag = Rc::new(Cell::new(false));
    *h.cancel.borrow_mut() = flag.clone();
    // What the editor shows now: this callback's `code` is the state of the last render,
    // which is not yet the text typed (or handed over by the first page's loader) in the
    // same task as the click.
    let code = match h.editor.cast::<web_sys::HtmlTextAreaElement>() {
        Some(t) => t.value(),
        None => (*h.code).clone(),
    };
    if code != *h.code {
        h.code.set(code.clone());
    }
    if let Some(s) = &h.store {
        s.on_code.emit((h.id.clone(), code.clone()));
    }
    let session = Session {
        lab: h.lab.clone(),
        code,
        seed: if break_it {
            browser::random_u64()
        } else {
            lab::RUN_SEED
        },
        trials: if break_it { h.lab.trials } else { 1 },
        replay: if break_it { None } else { *h.replay },
        cancel: flag,
    };
    h.phase.set(Phase::Loading);
    let h = h.clone();
    wasm_bindgen_futures::spawn_local(async move {
        let progress = {
            let phase = h.phase.clone();
            Callback::from(move |(done, total)| phase.set(Phase::Running { done, total }))
        };
        let result = run_session(session, progress).await;
        // The next session's sandboxes, ready before the next click.
        warm();
        match result {
            Ok(shown) => {
                if let Some(b) = &shown.broken {
                    h.cursor.set(broke_index(b));
                    let state = format!("lab={}&trial={}", h.id, b.seed);
                    browser::replace_hash(&hash_with_state(&browser::hash(), &state));
                }
                if !shown.cancelled {
                    if let Some(s) = &h.store {
                        let passed = shown.broken.is_none() && shown.code_error.is_none();
                        s.on_run.emit((h.id.clone(), passed && shown.break_it));
                    }
                }
                h.replay.set(None);
                h.phase.set(Phase::Shown(Rc::new(shown)));
                // The verdict where the learner can see it (below the editor on a phone).
                if let Some(el) = h.verdict_ref.cast::<web_sys::Element>() {
                    let opts = web_sys::ScrollIntoViewOptions::new();
                    opts.set_block(web_sys::ScrollLogicalPosition::Nearest);
                    el.scroll_into_view_with_scroll_into_view_options(&opts);
                }
            }
            Err(e) => h.phase.set(Phase::Failed(e)),
        }
    });
}

#[function_component(LabPanel)]
pub fn lab_panel(props: &LabPanelProps) -> Html {
    let t = Texts::new(props.lang);
    let store = use_context::<LabStore>();
    let pack = use_context::<PackLabs>();
    let lab = use_memo((props.id.clone(), pack), |(id, pack)| find_lab(id, pack.as_ref()));
    let saved = store.as_ref().and_then(|s| s.saved.get(&props.id).cloned());
    let code = {
        let starter = match &*lab {
            Some(Ok(l)) => l.starter.clone(),
            _ => String::new(),
        };
        let saved_code = saved
            .as_ref()
            .map(|s| s.code.clone())
            .filter(|c| !c.trim().is_empty());
        let code = {
            let (saved_code, starter) = (saved_code.clone(), starter.clone());
            let id = props.id.clone();
            use_state(move || shared_code(&id).or(saved_code).unwrap_or(starter))
        };
        // Stored progress may arrive after the first render: it replaces the starter,
        // never code the learner has typed.
        {
            let code = code.clone();
            use_effect_with(saved_code, move |saved| {
                if let Some(s) = saved {
                    if *code == starter && *s != starter {
                        code.set(s.clone());
                    }
                }
            });
        }
        code
    };
    let phase = use_state(|| Phase::Idle);
    let cancel = use_mut_ref(|| Rc::new(Cell::new(false)));
    let cursor = use_state(|| 0usize);
    let solution = use_state(|| None::<Result<String, String>>);
    let replay = use_state(|| shared_trial(&props.id));
    let from_link = *use_state(|| shared_code(&props.id).is_some());
    let copied = use_state(|| false);
    let on_copy_link = {
        let (id, code, replay, copied) = (props.id.clone(), code.clone(), replay.clone(), copied.clone());
        Callback::from(move |_: MouseEvent| {
            if let Some(link) = link_with_code(&id, &code, *replay) {
                browser::copy_text(&link);
                copied.set(true);
            }
        })
    };
    let editor = use_node_ref();
    let verdict_ref = use_node_ref();
    let Some(Ok(lab)) = (*lab).clone() else {
        let why = match &*lab {
            Some(Err(e)) => e.clone(),
            _ => format!("no lab is called `{}`", props.id),
        };
        return html! { <p class="lab-error" role="alert">{ why }</p> };
    };
    let attempted = saved.as_ref().is_some_and(|s| s.runs > 0) || matches!(*phase, Phase::Shown(_));
    let running = matches!(*phase, Phase::Loading | Phase::Running { .. });

    let save = {
        let store = store.clone();
        let id = props.id.clone();
        move |code: &str| {
            if let Some(s) = &store {
                s.on_code.emit((id.clone(), code.to_string()));
            }
        }
    };
    // Typing saves the code a moment after the last key (a reload keeps it), not on
    // every key: saving rewrites the learner's whole progress.
    let pending_save = use_mut_ref(|| None::<gloo::timers::callback::Timeout>);
    let oninput = {
        let (code, save) = (code.clone(), save.clone());
        Callback::from(move |e: InputEvent| {
            if let Some(el) = e.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                let value = el.value();
                code.set(value.clone());
                let save = save.clone();
                *pending_save.borrow_mut() =
                    Some(gloo::timers::callback::Timeout::new(800, move || save(&value)));
            }
        })
    };
    let onchange = {
        let save = save.clone();
        Callback::from(move |e: Event| {
            if let Some(el) = e.target_dyn_into::<web_sys::HtmlTextAreaElement>() {
                save(&el.value());
            }
        })
    };
    let start = {
        let h = Handles {
            phase: phase.clone(),
            cancel: cancel.clone(),
            code: code.clone(),
            cursor: cursor.clone(),
            store: store.clone(),
            replay: replay.clone(),
            verdict_ref: verdict_ref.clone(),
            editor: editor.clone(),
            lab: lab.clone(),
            id: props.id.clone(),
        };
        move |break_it: bool| start_session(&h, break_it)
    };
    let on_run = {
        let start = start.clone();
        Callback::from(move |_: MouseEvent| start(false))
    };
    let on_break = Callback::from(move |_: MouseEvent| start(true));
    let on_cancel = {
        let cancel = cancel.clone();
        Callback::from(move |_: MouseEvent| cancel.borrow().set(true))
    };
    let on_solution = toggle_solution(solution.clone(), &lab);
    let on_reset = {
        let (code, save, starter, msg) = (
            code.clone(),
            save.clone(),
            lab.starter.clone(),
            t.t("lab_reset_confirm"),
        );
        Callback::from(move |_: MouseEvent| {
            let ok = web_sys::window()
                .and_then(|w| w.confirm_with_message(&msg).ok())
                .unwrap_or(false);
            if ok {
                code.set(starter.clone());
                save(&starter);
            }
        })
    };
    let goto_line = {
        let (editor, code) = (editor.clone(), code.clone());
        move |line: u32| select_line(editor.clone(), code.clone(), line)
    };
    let onkeydown = {
        let on_run = on_run.clone();
        Callback::from(move |e: KeyboardEvent| {
            if e.key() == "Enter" && (e.ctrl_key() || e.meta_key()) {
                e.prevent_default();
                if let Ok(m) = web_sys::MouseEvent::new("click") {
                    on_run.emit(m);
                }
            }
        })
    };

    let lang = props.lang;
    let code_lang = lang.code().to_string();
    let title = lab
        .title
        .get(&code_lang)
        .or_else(|| lab.title.get("en"))
        .cloned()
        .unwrap_or_default();
    let goal = lab
        .goal
        .get(&code_lang)
        .or_else(|| lab.goal.get("en"))
        .cloned()
        .unwrap_or_default();
    let editor_id = format!("lab-editor-{}", props.id);
    let status = match &*phase {
        Phase::Idle => html! {},
        Phase::Loading => html! { <p class="lab-status" role="status">{ t.t("lab_running") }</p> },
        Phase::Running { done, total } => html! {
            <p class="lab-status" role="status">
                <progress max={total.to_string()} value={done.to_string()}></progress>
                { " " }{ t.fmt("lab_progress", &[("done", done.to_string()), ("total", total.to_string())]) }
            </p>
        },
        Phase::Failed(e) => {
            html! { <p class="lab-error" role="alert">{ t.fmt("lab_load_failed", &[("why", e.clone())]) }</p> }
        }
        Phase::Shown(s) => result_view(s, lang, &goto_line),
    };
    html! {
        <section class="lab" aria-labelledby={format!("lab-title-{}", props.id)} data-lab={props.id.clone()}>
            <h2 id={format!("lab-title-{}", props.id)}>{ title }</h2>
            { render(&doc(&goal), lang) }
            <h3>{ t.t("lab_signature") }</h3>
            <CodeBlock lang={Some("js".to_string())} code={lab.signature.trim().to_string()} ui_lang={lang} />
            if from_link {
                <p class="lab-note" role="note">{ t.t("lab_link_code") }</p>
            }
            if let Some(seed) = *replay {
                <p class="lab-note" role="note">{ t.fmt("lab_shared", &[("seed", seed.to_string())]) }</p>
            }
            <label for={editor_id.clone()} class="lab-editor-label">{ t.t("lab_editor") }</label>
            <textarea id={editor_id} class="lab-editor" ref={editor} spellcheck="false" autocapitalize="off"
                      rows={code.lines().count().clamp(12, 40).to_string()} value={(*code).clone()}
                      {oninput} {onchange} {onkeydown} onfocus={Callback::from(|_: FocusEvent| warm())} readonly={running} aria-describedby={format!("lab-keys-{}", props.id)} />
            <p class="lab-keys" id={format!("lab-keys-{}", props.id)}>{ t.t("lab_keys") }</p>
            <div class="lab-actions">
                <button type="button" class="primary" onclick={on_run} disabled={running}>
                    { match *replay { Some(s) => t.fmt("lab_replay", &[("seed", s.to_string())]), None => t.t("lab_run") } }
                </button>
                <button type="button" onclick={on_break} disabled={running}>{ t.fmt("lab_break", &[("trials", lab.trials.to_string())]) }</button>
                if running {
                    <button type="button" onclick={on_cancel}>{ t.t("lab_cancel") }</button>
                }
                if attempted {
                    <button type="button" onclick={on_solution} aria-expanded={solution.is_some().to_string()}>
                        { if solution.is_some() { t.t("lab_solution_hide") } else { t.t("lab_solution_show") } }
                    </button>
                }
                <button type="button" class="quiet" onclick={on_reset} disabled={running}>{ t.t("lab_reset") }</button>
                <button type="button" class="quiet" onclick={on_copy_link}>
                    { if *copied { t.t("lab_link_copied") } else { t.t("lab_copy_link") } }
                </button>
            </div>
            // What a screen reader announces: the verdict and the checks. The broken run's
            // timeline and violations follow outside it (they are read on demand).
            <div class="lab-status" aria-live="polite" ref={verdict_ref}>{ status }</div>
            {
                match &*phase {
                    Phase::Shown(s) => s.broken.as_ref().map(|b| broken_view(b, lang, &cursor)).unwrap_or_default(),
                    _ => html! {},
                }
            }
            {
                match &*solution {
                    Some(Ok(s)) => html! {
                        <div class="lab-solution">
                            <h3>{ t.t("lab_solution") }</h3>
                            <CodeBlock lang={Some("js".to_string())} code={s.clone()} ui_lang={lang} />
                        </div>
                    },
                    Some(Err(e)) => html! { <p class="lab-error" role="alert">{ t.fmt("lab_load_failed", &[("why", e.clone())]) }</p> },
                    None => html! {},
                }
            }
        </section>
    }
}

fn result_view(s: &Shown, lang: Lang, goto_line: &impl Fn(u32) -> Callback<MouseEvent>) -> Html {
    let t = Texts::new(lang);
    let headline = if let Some(e) = &s.code_error {
        let msg = match (e.line, e.col) {
            (Some(l), Some(c)) => t.fmt(
                "lab_code_failed_at",
                &[
                    ("line", l.to_string()),
                    ("col", c.to_string()),
                    ("message", e.message.clone()),
                ],
            ),
            _ => t.fmt("lab_code_failed", &[("message", e.message.clone())]),
        };
        let who = e.worker.clone().map(|w| format!("{w}: ")).unwrap_or_default();
        html! {
            <div class="lab-verdict lab-failed" role="alert">
                <p>{ who }{ msg }</p>
                if let Some(l) = e.line {
                    <button type="button" onclick={goto_line(l)}>{ t.fmt("lab_goto_line", &[("line", l.to_string())]) }</button>
                }
            </div>
        }
    } else if s.cancelled {
        html! { <p class="lab-verdict">{ t.fmt("lab_cancelled", &[("done", s.trials.to_string())]) }</p> }
    } else if let Some(b) = &s.broken {
        let text = if s.break_it {
            t.fmt(
                "lab_broken_trial",
                &[
                    ("trial", b.trial.to_string()),
                    ("total", s.total.to_string()),
                    ("seed", b.seed.to_string()),
                ],
            )
        } else {
            t.fmt("lab_broken_run", &[("seed", b.seed.to_string())])
        };
        html! { <p class="lab-verdict lab-failed" role="alert">{ text }</p> }
    } else if s.break_it {
        html! { <p class="lab-verdict lab-passed">{ t.fmt("lab_passed_break", &[("trials", s.trials.to_string()), ("seed", s.seed.to_string())]) }</p> }
    } else {
        html! { <p class="lab-verdict lab-passed">{ t.fmt("lab_passed_run", &[("seed", s.seed.to_string())]) }</p> }
    };
    let checks = (s.code_error.is_none() && !s.cancelled).then(|| {
        html! {
            <ul class="lab-checks" aria-label={t.t("lab_checks")} data-ran-in={s.ran_in} data-drawn-in={s.broken.is_some().then_some(s.drawn_in)}>
                { for s.checks.iter().map(|(name, ok)| html! {
                    <li class={if *ok { "held" } else { "broken" }}>
                        <span aria-hidden="true">{ if *ok { "✓ " } else { "✗ " } }</span>
                        <strong>{ if *ok { t.t("lab_check_held") } else { t.t("lab_check_broken") } }</strong>
                        { ": " }{ check_words(&t, name, *ok) }
                    </li>
                }) }
            </ul>
        }
    });
    html! {
        <>
            { headline }
            { checks.unwrap_or_default() }
        </>
    }
}

/// Violations listed in words; the rest are counted (a first break often cascades).
const SHOWN_VIOLATIONS: usize = 3;

/// The trace index where the run first broke: the event that broke it (a foreign
/// delete, a kept lock, the second holder's acquisition, a failure), else the last
/// event before that moment.
fn broke_index(b: &Broken) -> usize {
    use crate::sim::TraceKind as K;
    let m = &b.model;
    let Some(v) = b.violations.first() else {
        return m
            .trace
            .iter()
            .position(|e| matches!(e.kind, K::CodeError { .. }))
            .unwrap_or(0);
    };
    lab::breaking_event(&m.trace, v)
}

fn broken_view(b: &Broken, lang: Lang, cursor: &UseStateHandle<usize>) -> Html {
    let t = Texts::new(lang);
    let m = b.model.clone();
    let workers: Vec<String> = {
        let mut pids: Vec<u32> = m
            .trace
            .iter()
            .filter(|e| matches!(e.kind, crate::sim::TraceKind::Start))
            .map(|e| e.pid)
            .collect();
        pids.dedup();
        let mut seen = Vec::new();
        for p in pids {
            let n = m.name(p).to_string();
            if !seen.contains(&n) {
                seen.push(n);
            }
        }
        seen
    };
    let last = m.trace.len().saturating_sub(1);
    let at = (**cursor).min(last);
    let t_us = m.trace.get(at).map_or(0, |e| e.t_us);
    // The events framed (the run goes on quietly to its end time), as a scenario opens.
    let last_us = m
        .trace
        .iter()
        .rev()
        .find(|e| !matches!(e.kind, crate::sim::TraceKind::End))
        .map_or(0, |e| e.t_us);
    let view = timeline::view::initial(last_us, m.end_us.max(1)).unwrap_or((0, m.end_us.max(1)));
    let step = |d: i64| {
        let cursor = cursor.clone();
        Callback::from(move |_: MouseEvent| {
            let next = (*cursor as i64 + d).clamp(0, last as i64) as usize;
            cursor.set(next);
        })
    };
    let broke_at = broke_index(b);
    let on_jump = {
        let cursor = cursor.clone();
        Callback::from(move |_: MouseEvent| cursor.set(broke_at))
    };
    let on_seek = {
        let cursor = cursor.clone();
        Callback::from(move |i: usize| cursor.set(i))
    };
    let on_share = Callback::from(move |_: MouseEvent| {
        if let Some(href) = web_sys::window().and_then(|w| w.location().href().ok()) {
            browser::copy_text(&href);
        }
    });
    let now = m
        .trace
        .get(at)
        .map(|e| timeline::describe(&m, e, lang))
        .unwrap_or_default();
    html! {
        <div class="lab-broken">
            <ul class="lab-attacks">
                { for b.attacks.iter().map(|a| html! { <li>{ attack_text(a, &workers, lang) }</li> }) }
            </ul>
            <ul class="lab-violations">
                { for b.violations.iter().take(SHOWN_VIOLATIONS).map(|v| html! { <li>{ violation_text(v, lang) }</li> }) }
                if b.violations.len() > SHOWN_VIOLATIONS {
                    <li class="lab-more">{ t.fmt("lab_more", &[("n", (b.violations.len() - SHOWN_VIOLATIONS).to_string())]) }</li>
                }
            </ul>
            <h3>{ t.t("lab_timeline") }</h3>
            <div class="timeline-wrap">
                <crate::ui::scenario::TimelineSvg model={crate::ui::scenario::Shared(m.clone())} {t_us} {view} {on_seek} {lang} />
            </div>
            <div class="lab-actions">
                <button type="button" onclick={step(-1)} disabled={at == 0}>{ t.t("lab_prev") }</button>
                <button type="button" onclick={step(1)} disabled={at >= last}>{ t.t("lab_next") }</button>
                <button type="button" onclick={on_jump}>{ t.t("lab_jump") }</button>
                <button type="button" class="quiet" onclick={on_share}>{ t.t("lab_share") }</button>
            </div>
            <p class="lab-now" aria-live="polite">{ now }</p>
        </div>
    }
}
