//! Tests of `panel`.

use super::*;
use crate::sim::scenario::builtin;
use crate::timeline::build;
use PanelAction as A;

fn panel(name: &str) -> PanelState {
    let base = builtin(name).expect("built-in").map_err(|e| e.to_string());
    PanelState::new(name.into(), base, 1, (Variant::default(), Vec::new()), None)
}

fn len(s: &PanelState) -> usize {
    s.model().expect("runs").trace.len()
}

/// The moment the cursor is on, in ms, and the event there.
fn at(s: &PanelState, ms: u64) -> PanelState {
    let i = s.model().expect("runs").index_at(ms * 1000);
    s.clone().reduce(A::Seek(i))
}

#[test]
fn a_panel_runs_once_and_opens_on_its_events() {
    let s = panel("unsafe-del");
    assert_eq!(s.runs, 1);
    assert_eq!((s.cursor, s.playing), (0, false));
    assert_eq!(s.view, first_view(s.model().expect("runs")));
    let bad = PanelState::new("x".into(), Err("no".into()), 1, Default::default(), None);
    assert_eq!(
        (bad.runs, bad.model.as_ref().clone().err()),
        (0, Some("no".to_string()))
    );
}

/// A console write forks the run: the simulator runs once for it, and the fork is
/// the run drawn (the old panel ran the fork, then ran it again as the new run).
#[test]
fn a_console_line_runs_the_simulation_once() {
    let s = at(&panel("unsafe-del"), 5_000);
    let before = (s.runs, s.t_us(), len(&s));
    let s = s.reduce(A::Console("SET mine v".into()));
    assert_eq!(s.runs, before.0 + 1, "one run for one line");
    assert_eq!(s.console, vec![("SET mine v".to_string(), "OK".to_string())]);
    assert_eq!(s.injections.len(), 1);
    assert_eq!(len(&s), before.2 + 1, "the command is in the run drawn");
    assert_eq!(s.t_us(), before.1, "the cursor stays at its moment");
    // The run drawn is the one a fresh build of the same inputs gives.
    let fresh = build_with(&s.scenario().expect("scenario"), 1, &s.injections).expect("runs");
    assert_eq!(s.model().expect("runs"), &fresh);
    // A read answers and changes nothing: one run, no fork.
    let s = s.reduce(A::Console("GET mine".into()));
    assert_eq!(s.runs, before.0 + 2);
    assert_eq!(s.console.last().map(|c| c.1.as_str()), Some("\"v\""));
    assert_eq!(s.injections.len(), 1);
    // A line that does not parse runs nothing and says why; an empty one does nothing.
    let s = s.reduce(A::Console("GET \"open".into()));
    assert_eq!(s.runs, before.0 + 2);
    assert!(
        s.console.last().is_some_and(|c| c.1.starts_with("(error)")),
        "{:?}",
        s.console
    );
    let n = s.console.len();
    assert_eq!(s.reduce(A::Console("   ".into())).console.len(), n);
}

#[test]
fn undo_drops_the_fork_in_one_run_and_keeps_the_moment() {
    let s = at(&panel("unsafe-del"), 5_000).reduce(A::Console("DEL lock".into()));
    assert!(!s.injections.is_empty());
    let s = s
        .clone()
        .reduce(A::Seek(s.model().expect("runs").index_at(11_000_000)));
    let (runs, t) = (s.runs, s.t_us());
    let s = s.reduce(A::Undo);
    assert_eq!(s.runs, runs + 1);
    assert!(s.injections.is_empty() && s.console.is_empty());
    let plain = panel("unsafe-del");
    assert_eq!(s.model(), plain.model());
    assert!(
        s.t_us() <= t
            && s.model()
                .expect("runs")
                .trace
                .get(s.cursor + 1)
                .is_none_or(|e| e.t_us > t)
    );
}

#[test]
fn knobs_seeds_and_faults_rerun_once_and_drop_the_fork() {
    let forked = at(&panel("unsafe-del"), 5_000).reduce(A::Console("DEL lock".into()));
    let runs = forked.runs;
    let v = Variant {
        ttl_ms: Some(20_000.0),
        ..Variant::default()
    };
    let s = forked.clone().reduce(A::SetVariant(v.clone()));
    assert_eq!((s.runs, s.cursor, s.injections.len()), (runs + 1, 0, 0));
    assert_eq!(s.variant, v);
    assert_eq!(
        s.model().expect("runs"),
        &build(&v.apply(&s.base.as_ref().clone().expect("base")), 1).expect("runs")
    );
    // A new seed keeps the cursor's index (within the run) and drops the fork.
    let s = forked.clone().reduce(A::NewSeed(7));
    assert_eq!((s.seed, s.runs, s.injections.len()), (7, runs + 1, 0));
    assert!(s.cursor <= forked.cursor);
    // A typed seed: used if it is one, said if not (and nothing runs).
    let s = forked
        .clone()
        .reduce(A::SeedInput(" 42 ".into()))
        .reduce(A::SubmitSeed);
    assert_eq!((s.seed, s.seed_error.clone(), s.runs), (42, None, runs + 1));
    let s = s.reduce(A::SeedInput("4x2".into())).reduce(A::SubmitSeed);
    assert_eq!(
        (s.seed, s.seed_error.as_deref(), s.runs),
        (42, Some("4x2"), runs + 1)
    );
    // Faults add to the fork; a counterexample replaces it and starts over.
    let s = forked.clone().reduce(A::Inject(vec![(1_000, Fault::Crash(0))]));
    assert_eq!((s.injections.len(), s.runs), (2, runs + 1));
    let s = s.reduce(A::Counterexample {
        seed: 3,
        faults: vec![(2_000, Fault::Pause(0))],
    });
    assert_eq!(
        (s.seed, s.injections.len(), s.cursor, s.runs),
        (3, 1, 0, runs + 2)
    );
    // Nothing that leaves the run's inputs alone runs it again.
    let s = s
        .reduce(A::Seek(3))
        .reduce(A::ToggleCompare)
        .reduce(A::SetSpeed(4.0))
        .reduce(A::Zoom(0.5));
    assert_eq!((s.runs, s.compare, s.speed), (runs + 2, true, 4.0));
}

#[test]
fn another_scenario_starts_fresh_on_its_own_view() {
    let s = at(&panel("unsafe-del"), 5_000)
        .reduce(A::SetVariant(Variant {
            ttl_ms: Some(20_000.0),
            ..Variant::default()
        }))
        .reduce(A::Inject(vec![(1_000, Fault::Crash(0))]));
    let base = builtin("safe-release")
        .expect("built-in")
        .map_err(|e| e.to_string());
    let s = s.reduce(A::PickScenario {
        name: "safe-release".into(),
        base: Rc::new(base),
    });
    let fresh = panel("safe-release");
    assert_eq!(
        (
            s.name.as_str(),
            s.cursor,
            s.variant.is_empty(),
            s.injections.len()
        ),
        ("safe-release", 0, true, 0)
    );
    assert_eq!(s.model(), fresh.model());
    assert_eq!(s.view, fresh.view);
}

#[test]
fn playback_stops_at_the_end_and_play_there_starts_over() {
    let s = panel("unsafe-del");
    let last = len(&s) - 1;
    let s = s.reduce(A::Play).reduce(A::Advance(2));
    assert_eq!((s.cursor, s.playing), (2, true));
    let s = s.reduce(A::Advance(last));
    assert_eq!((s.cursor, s.playing), (last, false));
    let s = s.reduce(A::Play);
    assert_eq!((s.cursor, s.playing), (0, true));
    // Keys and the slider move the cursor without stopping; a seek stops.
    let s = s.reduce(A::MoveTo(5));
    assert_eq!((s.cursor, s.playing), (5, true));
    let s = s.reduce(A::MoveTo(usize::MAX));
    assert_eq!(s.cursor, last);
    let s = s.reduce(A::Seek(1));
    assert_eq!((s.cursor, s.playing), (1, false));
    let s = s.reduce(A::TogglePlay);
    assert_eq!((s.cursor, s.playing), (1, true));
    let s = s.reduce(A::Reset);
    assert_eq!(
        (s.cursor, s.playing, s.view),
        (0, false, first_view(s.model().expect("runs")))
    );
}

#[test]
fn a_hold_stops_the_cursor_and_its_release_plays_on_or_shows_the_end() {
    let base = builtin("unsafe-del")
        .expect("built-in")
        .map_err(|e| e.to_string());
    let held = PanelState::new("unsafe-del".into(), base, 1, Default::default(), Some(5_000));
    let m = held.model().expect("runs");
    let (hold, end) = (m.index_at(5_000_000), m.trace.len() - 1);
    assert!(hold < end);
    assert_eq!(held.last(), hold);
    let s = held.clone().reduce(A::MoveTo(end));
    assert_eq!(s.cur(), hold);
    let played = s.clone().reduce(A::Hold {
        at_ms: None,
        reduced_motion: false,
    });
    assert_eq!((played.playing, played.last()), (true, end));
    let shown = s.reduce(A::Hold {
        at_ms: None,
        reduced_motion: true,
    });
    assert_eq!((shown.playing, shown.cursor), (false, end));
}

#[test]
fn the_view_zooms_pans_and_follows_the_cursor() {
    let s = panel("unsafe-del");
    let end = s.end_us();
    let s = s.reduce(A::ZoomAtCursor(0.1));
    let (a, b) = s.view.expect("zoomed");
    assert!(b - a < end / 5, "{a}..{b} of {end}");
    let panned = s.clone().reduce(A::Pan(1.0));
    assert!(panned.view.expect("zoomed").0 > a);
    // Seeking past the window moves it to show the cursor.
    let last = len(&s) - 1;
    let s = s.reduce(A::Seek(last));
    let t = s.t_us();
    let (a, b) = s.view.expect("zoomed");
    assert!(a <= t && t <= b, "{t} in {a}..{b}");
}

#[test]
fn a_link_cursor_is_kept_and_followed() {
    let s = panel("unsafe-del");
    let last = len(&s) - 1;
    let s = s.at(Some(last + 100));
    assert_eq!(s.cursor, last);
    let t = s.t_us();
    assert!(
        s.view.is_none_or(|(a, b)| a <= t && t <= b),
        "{t} in {:?}",
        s.view
    );
}

#[test]
fn a_followed_link_moves_the_cursor_and_reruns_only_for_another_run() {
    let s = panel("unsafe-del").reduce(A::Play);
    let follow = |s: &PanelState, seed: u64, t_ms: u64| A::FollowLink {
        name: "unsafe-del".into(),
        base: s.base.clone(),
        seed,
        variant: Variant::default(),
        injections: Vec::new(),
        t_ms: Some(t_ms),
        event: None,
    };
    // The same run: the cursor goes to the moment (B takes the lock at 10 500 ms),
    // playback stops, and nothing runs again.
    let s = s.clone().reduce(follow(&s, 1, 10_500));
    assert_eq!((s.runs, s.playing, s.t_us()), (1, false, 10_500_000));
    assert!(matches!(
        s.model().and_then(|m| m.trace.get(s.cursor)).map(|e| &e.kind),
        Some(TraceKind::LockHeld { .. })
    ));
    // Another seed: one run, then the moment in it.
    let s = s.clone().reduce(follow(&s, 7, 12_300));
    assert_eq!((s.runs, s.seed, s.t_us()), (2, 7, 12_300_000));
    // Another of the section's scenarios: its own base and run.
    let other = builtin("safe-release")
        .expect("built-in")
        .map_err(|e| e.to_string());
    let s = s.reduce(A::FollowLink {
        name: "safe-release".into(),
        base: Rc::new(other),
        seed: 1,
        variant: Variant::default(),
        injections: Vec::new(),
        t_ms: Some(10_500),
        event: None,
    });
    assert_eq!(
        (s.name.as_str(), s.runs, s.t_us()),
        ("safe-release", 3, 10_500_000)
    );
}

/// The pending run answered as the engine's worker would: the job and the answer
/// both crossing as JSON.
fn settle(s: PanelState) -> PanelState {
    let Some(p) = s.pending.clone() else {
        return s;
    };
    let job: RunJob = serde_json::from_str(&serde_json::to_string(&p.job).expect("job")).expect("job back");
    let text = serde_json::to_string(&run_job(&job)).expect("answer");
    let answer: RunAnswer = serde_json::from_str(&text).expect("answer back");
    s.reduce(A::Ran {
        id: p.id,
        answer: Answer::new(answer),
        made_in: RunsIn::Elsewhere,
    })
}

/// A long run crosses in pieces of at most `PART_ITEMS` items, and is whole again
/// after them: §4's run (15 000 events) and a console fork of it.
#[test]
fn every_built_in_run_crosses_to_the_page_whole() {
    for b in crate::sim::scenario::BUILTINS {
        let scenario = crate::sim::scenario::builtin(b.name)
            .expect("a built-in")
            .expect("valid");
        for seed in [1, 7] {
            let answer = run_job(&RunJob::Run {
                scenario: scenario.clone(),
                seed,
                injections: Vec::new(),
            });
            let texts = answer_parts(answer.clone()).expect("parts");
            let (last, pieces) = texts.split_last().expect("the answer");
            let mut parts = Parts::default();
            for t in pieces {
                parts.add(read_part(t).expect("a part"));
            }
            assert_eq!(
                parts.finish(read_answer(last).expect("answer")),
                answer,
                "{} {seed}",
                b.name
            );
        }
    }
}

#[test]
fn a_long_run_crosses_in_pieces_and_is_whole_again() {
    let s = at(&panel("ttl-workers"), 20_000);
    let m = s.model().expect("runs").clone();
    assert!(m.trace.len() > 10 * PART_ITEMS, "{}", m.trace.len());
    for answer in [
        RunAnswer::Run(Ok(m.clone())),
        run_job(&RunJob::Console {
            scenario: s.scenario().expect("scenario"),
            seed: 1,
            injections: Vec::new(),
            at_us: s.t_us(),
            node: s.console_target().expect("a node"),
            args: vec![b"SET".to_vec(), b"x".to_vec(), b"1".to_vec()],
        }),
    ] {
        assert!(answer.clone().model_mut().is_some(), "a run, or a fork");
        let texts = answer_parts(answer.clone()).expect("parts");
        let mut parts = Parts::default();
        let (last, pieces) = texts.split_last().expect("the answer");
        for t in pieces {
            let part = read_part(t).expect("a part");
            let n = match &part {
                RunPart::Trace(v) => v.len(),
                RunPart::Arrows(v) => v.len(),
                RunPart::Marks(v) => v.len(),
                RunPart::KeyStates(v) => v.len(),
            };
            assert!((1..=PART_ITEMS).contains(&n), "{n}");
            parts.add(part);
        }
        assert!(pieces.len() > m.trace.len() / PART_ITEMS, "{}", pieces.len());
        assert!(last.len() < 200_000, "the rest is small: {} bytes", last.len());
        assert_eq!(parts.finish(read_answer(last).expect("answer")), answer);
        assert!(
            read_part("not base64!").is_err()
                && read_answer(&crate::wire::to_text(&1u8).expect("one byte")).is_err()
        );
    }
}

/// What the learner sees of a panel (and what its runs are made of).
fn seen(s: &PanelState) -> impl PartialEq + std::fmt::Debug {
    (
        (s.name.clone(), s.seed, s.variant.clone(), s.injections.clone()),
        s.model().cloned(),
        (s.cursor, s.cur(), s.view, s.playing),
        (s.console.clone(), s.seed_error.clone(), s.runs),
    )
}

/// Runs made in the engine's worker leave the panel as runs made at once would, for
/// every action that makes one: knobs, seeds, faults, console lines (a write that
/// forks and a read that does not), Undo, another scenario, and followed links.
#[test]
fn runs_made_elsewhere_leave_the_panel_as_runs_made_here() {
    let other = Rc::new(
        builtin("safe-release")
            .expect("built-in")
            .map_err(|e| e.to_string()),
    );
    let link = |seed: u64, t_ms: u64| A::FollowLink {
        name: "unsafe-del".into(),
        base: Rc::new(
            builtin("unsafe-del")
                .expect("built-in")
                .map_err(|e| e.to_string()),
        ),
        seed,
        variant: Variant::default(),
        injections: Vec::new(),
        t_ms: Some(t_ms),
        event: None,
    };
    let steps = vec![
        A::Seek(12),
        A::Console("SET mine v".into()),
        A::Console("GET mine".into()),
        A::Seek(30),
        A::Console("DEL lock".into()),
        A::Undo,
        A::NewSeed(7),
        // Zoomed in late in the run: knobs put the cursor back at the start, and the
        // view follows it there.
        A::Seek(40),
        A::ZoomAtCursor(0.1),
        A::SetVariant(Variant {
            ttl_ms: Some(3_000.0),
            ..Variant::default()
        }),
        A::MoveTo(20),
        A::Inject(vec![(4_000_000, Fault::Crash(1))]),
        A::SeedInput("42".into()),
        A::SubmitSeed,
        A::ZoomAtCursor(0.5),
        link(1, 10_500),
        link(9, 12_300),
        A::PickScenario {
            name: "safe-release".into(),
            base: other,
        },
        A::Seek(25),
        A::Console("PTTL lock".into()),
    ];
    let mut here = panel("unsafe-del");
    let mut there = panel("unsafe-del").runs_in(RunsIn::Elsewhere);
    assert_eq!(seen(&here), seen(&there));
    for (i, step) in steps.into_iter().enumerate() {
        here = here.reduce(step.clone());
        there = there.reduce(step.clone());
        assert!(here.pending.is_none(), "a panel that runs here never waits");
        there = settle(there);
        assert!(!there.running());
        assert_eq!(seen(&here), seen(&there), "after step {i}: {step:?}");
    }
    assert!(here.runs >= 12, "the steps ran the simulator: {}", here.runs);
}

/// A panel opened after the app has started makes its first run elsewhere too, and
/// opens on it as a panel that made it at once: first view, the link's moment.
#[test]
fn a_first_run_made_elsewhere_opens_as_one_made_here() {
    for at in [(None, None), (Some(12_300), None), (Some(10_500), Some(30))] {
        let base = || {
            builtin("unsafe-del")
                .expect("built-in")
                .map_err(|e| e.to_string())
        };
        let here = PanelState::new("unsafe-del".into(), base(), 7, Default::default(), None);
        let index = here.model().and_then(|m| link_index(m, at.0, at.1));
        let here = here.at(index);
        let there =
            PanelState::opening_elsewhere("unsafe-del".into(), base(), 7, Default::default(), None, at);
        assert!(there.running() && there.model().is_none());
        // A run made ahead of time (at build time, for the hand-over) from the same
        // job, as its JSON texts: the panel opens on it as on the worker's answer.
        let job = there
            .pending
            .as_ref()
            .map(|p| p.job.clone())
            .expect("a run is asked for");
        let texts = answer_parts(run_job(&job)).expect("serializes");
        let (last, parts) = texts.split_last().expect("an answer");
        let mut whole = Parts::default();
        for p in parts {
            whole.add(read_part(p).expect("a part"));
        }
        let ahead = there
            .clone()
            .answered_now(whole.finish(read_answer(last).expect("the answer")));
        let there = settle(there);
        assert_eq!(
            (there.model(), there.cursor, there.view, there.made_in),
            (here.model(), here.cursor, here.view, RunsIn::Elsewhere),
            "{at:?}"
        );
        assert!(!ahead.running());
        assert_eq!(
            (ahead.model(), ahead.cursor, ahead.view, ahead.runs),
            (here.model(), here.cursor, here.view, 1),
            "{at:?}, made ahead"
        );
    }
    // A scenario that cannot be had says so at once, with no run asked for.
    let bad = PanelState::opening_elsewhere(
        "x".into(),
        Err("no".into()),
        1,
        Default::default(),
        None,
        (None, None),
    );
    assert!(!bad.running());
    assert_eq!(bad.model.as_ref().clone().err(), Some("no".to_string()));
}

/// While a run is out, the panel shows the run before it and keeps working on it;
/// only the latest run asked for is taken, and an answer to an earlier one is dropped.
#[test]
fn only_the_latest_run_asked_for_is_taken() {
    let s = panel("unsafe-del").runs_in(RunsIn::Elsewhere);
    let first = s.model().cloned();
    let s = s.reduce(A::NewSeed(7));
    assert!(s.running());
    assert_eq!(s.model().cloned(), first, "the run before is shown meanwhile");
    let stale = s.pending.clone().expect("asked");
    let s = s.reduce(A::Seek(3)).reduce(A::NewSeed(8));
    assert_eq!(s.cursor, 3, "the panel works on the run shown");
    let latest = s.pending.clone().expect("asked again");
    assert_ne!(stale.id, latest.id);
    // The answer to seed 7 comes late: dropped.
    let s = s.reduce(A::Ran {
        id: stale.id,
        answer: Answer::new(run_job(&stale.job)),
        made_in: RunsIn::Elsewhere,
    });
    assert!(s.running());
    assert_eq!(s.model().cloned(), first);
    let s = settle(s);
    assert!(!s.running());
    assert_eq!(s.made_in, RunsIn::Elsewhere);
    let eight = build_with(&s.scenario().expect("scenario"), 8, &[]).expect("runs");
    assert_eq!((s.seed, s.model()), (8, Some(&eight)));
}
