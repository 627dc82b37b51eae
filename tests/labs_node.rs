//! The labs end to end with the real JavaScript harness in Node.js, as `lockstep lab run`
//! runs them: each lab's reference solution passes 200 attacked trials and every file under
//! `tests/labs/<lab>/pass/` passes 60 (other seeds than the solution's), every
//! file under `tests/labs/<lab>/fail/` fails with the check its first line names
//! (`// expect: <check>`, or `code_error` for code that cannot be graded), each lab's
//! reference solution passes, and one seed gives byte-identical JSON twice.

use lockstep::labs::{self, NodeHost};
use lockstep::sim::lab::{self, Host, Lab, LabReport};
use std::path::{Path, PathBuf};

fn files(lab: &str, kind: &str) -> Vec<PathBuf> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("tests/labs")
        .join(lab)
        .join(kind);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "js"))
        .collect();
    v.sort();
    v
}

fn grade(lab: &Lab, source: &str, seed: u64, trials: u32) -> LabReport {
    let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
    match lab::init(lab, &mut host, source) {
        Ok(()) => lab::run_trials(lab, &mut host, seed, trials, |_| {}).unwrap_or_else(|e| panic!("{e}")),
        Err(e) => LabReport {
            lab: lab.id.clone(),
            seed,
            trials: 0,
            checks: Vec::new(),
            counterexample: None,
            code_error: Some(e),
        },
    }
}

fn failed_checks(r: &LabReport) -> Vec<String> {
    r.checks
        .iter()
        .filter(|c| !c.passed)
        .map(|c| c.name.clone())
        .collect()
}

fn labs_list() -> Vec<Lab> {
    labs::builtin().unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn every_reference_solution_and_passing_file_holds_under_attack() {
    for lab in labs_list() {
        let mut sources = vec![("solution.js".to_string(), lab.solution.clone(), 2026, 200)];
        for f in files(&lab.id, "pass") {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            sources.push((f.display().to_string(), text, 7, 60));
        }
        for (name, src, seed, trials) in sources {
            let run = grade(&lab, &src, 1, 1);
            assert_eq!(
                run.exit_code(),
                0,
                "{} {name}, the lab's run: {}",
                lab.id,
                run.json()
            );
            let r = grade(&lab, &src, seed, trials);
            assert_eq!(r.trials, trials, "{} {name}: {}", lab.id, r.json());
            assert_eq!(r.exit_code(), 0, "{} {name}: {}", lab.id, r.json());
        }
    }
}

#[test]
fn every_failing_file_breaks_the_check_it_names() {
    for lab in labs_list() {
        let fails = files(&lab.id, "fail");
        assert!(fails.len() >= 2, "{}: too few wrong solutions", lab.id);
        for f in fails {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            let expect = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("// expect:"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|| panic!("{}: no `// expect:` line", f.display()));
            let r = grade(&lab, &text, 2026, 200);
            if expect == "code_error" {
                assert_eq!(r.exit_code(), 2, "{}: {}", f.display(), r.json());
            } else {
                assert_eq!(r.exit_code(), 1, "{}: {}", f.display(), r.json());
                let failed = failed_checks(&r);
                assert!(
                    failed.contains(&expect),
                    "{}: expected {expect} to break, broke {failed:?}",
                    f.display()
                );
                let ce = r
                    .counterexample
                    .as_ref()
                    .unwrap_or_else(|| panic!("no counterexample"));
                assert!(!ce.violations().is_empty());
            }
        }
    }
}

#[test]
fn a_syntax_error_names_the_line_and_column_in_the_learners_file() {
    let lab = labs::find("set-nx").unwrap_or_else(|e| panic!("{e}"));
    let src = "export async function acquire(redis, key, ttlMs) {\n  return null;\n}\n\nexport async function release(redis, key, token) {\n  await redis.del(key;\n}\n";
    let r = grade(&lab, src, 1, 1);
    let e = r.code_error.unwrap_or_else(|| panic!("no error"));
    assert_eq!(e.line, Some(6), "{e:?}");
    assert!(e.message.contains("SyntaxError"), "{e:?}");
}

#[test]
fn a_missing_function_is_named() {
    let lab = labs::find("safe-release").unwrap_or_else(|e| panic!("{e}"));
    let r = grade(&lab, "export async function acquire() { return null; }\n", 1, 1);
    let e = r.code_error.unwrap_or_else(|| panic!("no error"));
    assert!(e.message.contains("release"), "{e:?}");
}

#[test]
fn the_same_seed_gives_byte_identical_json_twice() {
    let lab = labs::find("safe-release").unwrap_or_else(|e| panic!("{e}"));
    let plain_del = files("safe-release", "fail")
        .into_iter()
        .find(|p| p.ends_with("plain-del.js"))
        .unwrap_or_else(|| panic!("plain-del.js"));
    let src = std::fs::read_to_string(plain_del).unwrap_or_default();
    let a = grade(&lab, &src, 77, 50).json();
    let b = grade(&lab, &src, 77, 50).json();
    assert_eq!(a, b);
    // And the solution's 50 trials too (they all pass, so all 50 run).
    let c = grade(&lab, &lab.solution, 77, 50);
    let d = grade(&lab, &lab.solution, 77, 50);
    assert_eq!(c.json(), d.json());
    assert_eq!(c.trials, 50);
}

#[test]
fn an_infinite_loop_is_stopped_with_a_clear_message() {
    let lab = labs::find("set-nx").unwrap_or_else(|e| panic!("{e}"));
    let src = "export async function acquire() { for (;;) {} }\nexport async function release() {}\n";
    let r = grade(&lab, src, 1, 1);
    assert_eq!(r.exit_code(), 2);
    let e = r.code_error.unwrap_or_else(|| panic!("no error"));
    assert!(e.message.contains("infinite loop"), "{e:?}");
}

#[test]
fn the_cli_exits_0_1_and_2_and_prints_the_json_contract() {
    let bin = env!("CARGO_BIN_EXE_lockstep");
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labs/safe-release");
    let run = |file: &Path| {
        let out = std::process::Command::new(bin)
            .args(["lab", "run", "safe-release"])
            .arg(file)
            .args(["--seed", "5", "--json"])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
        (out.status.code(), v)
    };
    let (code, v) = run(&Path::new(env!("CARGO_MANIFEST_DIR")).join("labs/safe-release/solution.js"));
    assert_eq!(code, Some(0), "{v}");
    assert_eq!(v["passed"], true);
    assert!(v["checks"]
        .as_array()
        .is_some_and(|c| c.iter().all(|c| c["passed"] == true)));
    let (code, v) = run(&dir.join("fail/plain-del.js"));
    assert_eq!(code, Some(1), "{v}");
    assert_eq!(v["passed"], false);
    let kinds: Vec<&str> = v["counterexample"]["violations"]
        .as_array()
        .map(|a| a.iter().filter_map(|x| x["kind"].as_str()).collect())
        .unwrap_or_default();
    assert!(kinds.contains(&"foreign_delete"), "{v}");
    assert_eq!(v["counterexample"]["seed"], 5);
    let tmp = std::env::temp_dir().join(format!("lockstep-syntax-{}.js", std::process::id()));
    std::fs::write(&tmp, "export async function acquire( {\n").unwrap_or_else(|e| panic!("{e}"));
    let (code, v) = run(&tmp);
    let _ = std::fs::remove_file(&tmp);
    assert_eq!(code, Some(2), "{v}");
    assert!(
        v["code_error"]["message"]
            .as_str()
            .is_some_and(|m| m.contains("SyntaxError")),
        "{v}"
    );
}

#[test]
fn every_built_in_lab_is_listed_shown_and_ends_its_section_in_both_languages() {
    let labs = labs_list();
    let ids: Vec<&str> = labs.iter().map(|l| l.id.as_str()).collect();
    assert_eq!(ids, labs::IDS.to_vec(), "builtin_sources and IDS disagree");
    let listed = labs::list_text().unwrap_or_else(|e| panic!("{e}"));
    for lab in &labs {
        let shown = labs::shown(&lab.id)
            .unwrap_or_else(|| panic!("{}: not in SHOWN", lab.id))
            .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(shown.section, lab.section, "{}", lab.id);
        assert!(
            listed.contains(&format!("{:<14} §{}", lab.id, lab.section)),
            "{listed}"
        );
        for lang in ["en", "nb"] {
            let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("content").join(lang);
            let prefix = format!("{:02}-", lab.section);
            let file = std::fs::read_dir(&dir)
                .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
                .filter_map(|e| e.ok().map(|e| e.path()))
                .find(|p| {
                    p.file_name()
                        .is_some_and(|n| n.to_string_lossy().starts_with(&prefix))
                })
                .unwrap_or_else(|| panic!("{lang}: no section {}", lab.section));
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            assert!(
                text.trim_end().ends_with(&format!("```lab\n{}\n```", lab.id)),
                "{} does not end with the `{}` lab block",
                file.display(),
                lab.id
            );
        }
    }
}

/// The first failing trial of a session, as `lockstep lab run` finds it: its index, and
/// its code error, or else its violations (as the engine's groups compare).
fn first_failure_in_order(lab: &Lab, source: &str, seed: u64, trials: u32) -> Option<(u32, String)> {
    let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
    lab::init(lab, &mut host, source).unwrap_or_else(|e| panic!("{e}"));
    // The CLI's own runner (`lockstep lab run --trials`), not a copy of its loop.
    let report = lab::run_trials(lab, &mut host, seed, trials, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    let t = report.counterexample?;
    let keyed = match &t.code_error {
        Some(e) => format!("{e:?}"),
        None => format!("{:?}", t.violations()),
    };
    // The trial's index in the session: the last one run.
    Some((report.trials - 1, keyed))
}

#[test]
fn the_cli_and_the_engines_groups_name_the_same_failing_trial_for_one_seed() {
    for lab in labs_list() {
        let mut sources = vec![("solution.js".to_string(), lab.solution.clone())];
        for f in files(&lab.id, "fail") {
            sources.push((
                f.display().to_string(),
                std::fs::read_to_string(&f).unwrap_or_default(),
            ));
        }
        for (name, src) in sources {
            if lab::init(
                &lab,
                &mut NodeHost::start().unwrap_or_else(|e| panic!("{e}")),
                &src,
            )
            .is_err()
            {
                continue; // code that does not compile never reaches a trial
            }
            let in_order = first_failure_in_order(&lab, &src, 99, 12);
            // Three groups: trials 0, 3, 6, 9 in the first, and limits between them.
            let grouped = first_failure_in_groups(&lab, &src, 99, 12, 3);
            assert_eq!(grouped, in_order, "{} {name}, in the engine's groups", lab.id);
        }
    }
}

/// ...and as the engine's worker does (`sim::lab::seq`): each group runs its trials one
/// after another beside its own harness; a group's failure limits the groups after it.
/// Its report goes through JSON, as it does from the worker to the page, and the page's
/// verdicts come from replaying the failing trial's tape. A trial whose code failed is
/// compared by its error (the checks are not shown for it), the others by violations.
fn first_failure_in_groups(
    lab: &Lab,
    source: &str,
    seed: u64,
    trials: u32,
    groups: u32,
) -> Option<(u32, String)> {
    use lockstep::sim::lab::seq::{FailedTrial, GroupReport, TrialSeq};
    use lockstep::sim::lab::violations_of as violations;
    let mut lowest: Option<FailedTrial> = None;
    let mut finished = 0;
    for g in 0..groups {
        let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
        lab::init(lab, &mut host, source).unwrap_or_else(|e| panic!("{e}"));
        let mut seq = TrialSeq::new(lab.for_engine(), seed, trials, g, groups);
        if let Some(f) = &lowest {
            seq.limit(f.trial);
        }
        while let Some(m) = seq.next_message() {
            match host.exchange(&m) {
                Ok(a) => seq.answer(&a),
                Err(e) => seq.host_failed(e),
            }
        }
        let v: serde_json::Value = serde_json::from_str(&seq.report_json()).unwrap_or_else(|e| panic!("{e}"));
        let report = GroupReport::read(&v).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(report, seq.report(), "the report survives JSON");
        finished += report.finished;
        if let Some(f) = report.failure {
            assert!(f.trial % groups == g, "group {g} ran trial {}", f.trial);
            if lowest.as_ref().is_none_or(|l| f.trial < l.trial) {
                lowest = Some(f);
            }
        }
    }
    if lowest.is_none() {
        assert_eq!(finished, trials, "every trial ran once");
    }
    lowest.map(|f| {
        let key = match &f.code_error {
            Some(e) => format!("{e:?}"),
            None => format!(
                "{:?}",
                violations(
                    &f.regrade(lab, lockstep::sim::lab::seq::Draw::Trials)
                        .unwrap_or_else(|e| panic!("{e}"))
                        .1
                )
            ),
        };
        (f.trial, key)
    })
}

/// Run and a shared trial's replay, as the engine's worker makes them beside the harness
/// (`TrialSeq` drawing `run` or `replay`): the same run as the one made in order with
/// Run's fixed attacks or the trial's own. The failing run is then replayed from its tape
/// as the page's engine worker does (`RunJob::Lab`, through JSON and in parts), to the
/// verdicts the run had and the timeline the page drew before (`timeline::build_lab`).
#[test]
fn run_and_replay_in_the_engine_make_the_runs_made_in_order() {
    use lockstep::sim::lab::seq::{Draw, GroupReport};
    let mut failures = 0;
    for lab in labs_list() {
        for f in files(&lab.id, "fail") {
            let src = std::fs::read_to_string(&f).unwrap_or_default();
            let name = f.display().to_string();
            if lab::init(
                &lab,
                &mut NodeHost::start().unwrap_or_else(|e| panic!("{e}")),
                &src,
            )
            .is_err()
            {
                continue;
            }
            let trial = lab::trial_seed(99, 4);
            for (draw, seed, attacks) in [
                (Draw::Run, 99, lab.run_attacks.clone()),
                (Draw::Replay, trial, lab.trial_attacks(trial)),
            ] {
                let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
                lab::init(&lab, &mut host, &src).unwrap_or_else(|e| panic!("{e}"));
                let expected = lab::run_once(&lab, &mut host as &mut dyn Host, seed, attacks.clone())
                    .unwrap_or_else(|e| panic!("{e}"));
                let seq = drawn_alone(&lab, &src, draw, seed);
                let v: serde_json::Value =
                    serde_json::from_str(&seq.report_json()).unwrap_or_else(|e| panic!("{e}"));
                let report = GroupReport::read(&v).unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(report.finished, 1, "{name} {draw:?}: one run");
                let Some(failed) = report.failure else {
                    assert!(
                        expected.passed(),
                        "{name} {draw:?}: the engine's run passed, the run in order did not"
                    );
                    continue;
                };
                assert!(
                    !expected.passed(),
                    "{name} {draw:?}: the engine's run failed, the run in order did not"
                );
                assert_eq!(failed.seed, seed, "{name} {draw:?}");
                assert_eq!(failed.code_error, expected.code_error, "{name} {draw:?}");
                if failed.tape.is_empty() {
                    continue;
                }
                let replay = replayed_on_the_page(&lab, draw, seed, &failed.tape)
                    .unwrap_or_else(|e| panic!("{name} {draw:?}: not replayed: {e}"));
                assert_eq!(replay.attacks, attacks, "{name} {draw:?}");
                assert_eq!(
                    lab::violations_of(&replay.verdicts),
                    expected.violations(),
                    "{name} {draw:?}"
                );
                let drawn = lockstep::timeline::build_lab(&lab, seed, &attacks, failed.tape.clone())
                    .unwrap_or_else(|e| panic!("{e}"));
                assert_eq!(replay.model, drawn, "{name} {draw:?}");
                failures += 1;
            }
        }
    }
    assert!(failures >= 6, "only {failures} failing runs were replayed");
}

/// One trial drawn alone (Run, a replay) as the engine's worker makes it beside the
/// harness (`TrialSeq` drawing `draw`), in a fresh Node host: the finished sequence.
fn drawn_alone(lab: &Lab, src: &str, draw: lab::seq::Draw, seed: u64) -> lab::seq::TrialSeq {
    let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
    lab::init(lab, &mut host, src).unwrap_or_else(|e| panic!("{e}"));
    let mut seq = lab::seq::TrialSeq::new(lab.for_engine(), seed, 1, 0, 1).drawing(draw);
    while let Some(m) = seq.next_message() {
        match host.exchange(&m) {
            Ok(a) => seq.answer(&a),
            Err(e) => seq.host_failed(e),
        }
    }
    seq
}

/// A failing trial's tape replayed as the page has it replayed in its engine worker
/// (`RunJob::Lab`): the job through JSON, the answer through the wire, in parts.
fn replayed_on_the_page(
    lab: &Lab,
    draw: lab::seq::Draw,
    seed: u64,
    tape: &[String],
) -> Result<lockstep::timeline::panel::LabReplay, String> {
    use lockstep::timeline::panel::{
        answer_parts, read_answer, read_part, run_job, Parts, RunAnswer, RunJob,
    };
    let job = RunJob::Lab {
        lab: lockstep::wire::to_text(&lab.for_engine()).unwrap_or_else(|e| panic!("{e}")),
        draw,
        seed,
        tape: tape.to_vec(),
    };
    let job: RunJob = serde_json::from_str(&serde_json::to_string(&job).map_err(|e| e.to_string())?)
        .map_err(|e| e.to_string())?;
    let texts = answer_parts(run_job(&job))?;
    let (last, parts) = texts.split_last().ok_or("no answer")?;
    let mut got = Parts::default();
    for p in parts {
        got.add(read_part(p)?);
    }
    match got.finish(read_answer(last)?) {
        RunAnswer::Lab(r) => r,
        other => Err(format!("{other:?}")),
    }
}

/// The broken run the page shows for a failing trial's tape (`ui::lab::session`).
fn broken_as_shown(
    lab: &Lab,
    draw: lab::seq::Draw,
    seed: u64,
    tape: &[String],
) -> lockstep::timeline::lab_panel::Broken {
    let replay =
        replayed_on_the_page(lab, draw, seed, tape).unwrap_or_else(|e| panic!("{draw:?} {seed}: {e}"));
    lockstep::timeline::lab_panel::Broken {
        seed,
        trial: 1,
        violations: lab::violations_of(&replay.verdicts),
        attacks: replay.attacks,
        model: std::rc::Rc::new(replay.model),
    }
}

/// A broken Run points at the line of the learner's file that sent the command it broke
/// on: a release by plain `DEL` deletes the next holder's lock, from the line of its
/// `redis.del`. Run draws one trial in the engine beside the harness, which then says
/// each command's line; the page replays its tape and asks the `Broken` it shows. The
/// same trial among "Try to break it"'s has no lines, and the same verdicts; the trial
/// that breaks a session is run again with lines, so it names the line too.
#[test]
fn a_broken_run_names_the_line_that_sent_the_breaking_command() {
    use lockstep::sim::lab::seq::Draw;
    let lab = labs::find("safe-release").unwrap_or_else(|e| panic!("{e}"));
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labs/safe-release/fail/plain-del.js");
    let src = std::fs::read_to_string(path).unwrap_or_else(|e| panic!("{e}"));
    let del = src
        .lines()
        .position(|l| l.contains("await redis.del(key)"))
        .map(|i| i as u32 + 1);
    assert_eq!(del, Some(12), "the fixture's DEL");
    // Run, as the page makes it: one trial in the engine beside the harness.
    let run = drawn_alone(&lab, &src, Draw::Run, lab::RUN_SEED)
        .report()
        .failure
        .expect("a plain DEL breaks Run");
    let b = broken_as_shown(&lab, Draw::Run, lab::RUN_SEED, &run.tape);
    assert_eq!(
        b.violations.first().map(|v| v.kind.as_str()),
        Some("foreign_delete"),
        "{:?}",
        b.violations
    );
    assert_eq!(
        b.sent_from_line(),
        del,
        "where the run broke: {:?}",
        b.model.trace[b.broke_at()]
    );
    // The same run, as one of Try to break it's trials (the Run's seed and attacks, no
    // lines): the same verdicts, and no line to show.
    let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
    lab::init(&lab, &mut host, &src).unwrap_or_else(|e| panic!("{e}"));
    let trial = lab::run_once(&lab, &mut host, lab::RUN_SEED, lab.run_attacks.clone())
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(
        said_lines(&trial.tape),
        [],
        "Try to break it's trials read no stack"
    );
    assert!(
        said_lines(&run.tape).contains(&del.map(u64::from)),
        "Run says where its commands came from"
    );
    let unlined = broken_as_shown(&lab, Draw::Run, lab::RUN_SEED, &trial.tape);
    assert_eq!(unlined.violations, b.violations, "lines change no verdict");
    assert_eq!(unlined.sent_from_line(), None);
    // Try to break it, in the engine beside the harness: its trials read no stack, but
    // the one that broke is run again with lines before it is reported.
    let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
    lab::init(&lab, &mut host, &src).unwrap_or_else(|e| panic!("{e}"));
    let mut seq = lab::seq::TrialSeq::new(lab.for_engine(), 2026, 200, 0, 1);
    while let Some(m) = seq.next_message() {
        match host.exchange(&m) {
            Ok(a) => seq.answer(&a),
            Err(e) => seq.host_failed(e),
        }
    }
    let report = seq.report();
    let failed = report.failure.expect("a plain DEL breaks in 200 trials");
    assert_eq!(
        report.finished,
        failed.trial + 1,
        "the watched rerun is not a trial of its own"
    );
    let shown = broken_as_shown(&lab, Draw::Replay, failed.seed, &failed.tape);
    assert!(
        shown
            .violations
            .iter()
            .any(|v| v.kind.as_str() == "foreign_delete"),
        "{:?}",
        shown.violations
    );
    assert_eq!(
        shown.sent_from_line(),
        del,
        "Try to break it names the DEL's line too"
    );
}

/// The lines a tape's `cmd` actions say they were sent from (`None`: from no line of
/// the learner's file), for those that say.
fn said_lines(tape: &[String]) -> Vec<Option<u64>> {
    tape.iter()
        .filter_map(|a| serde_json::from_str::<serde_json::Value>(a).ok())
        .flat_map(|v| v["actions"].as_array().cloned().unwrap_or_default())
        .filter(|a| a["a"] == "cmd")
        .filter_map(|a| a.get("line").map(serde_json::Value::as_u64))
        .collect()
}

/// "Where it broke" opens on the event that broke the check (#40): the stale write that
/// came after a newer one (not the newer, legitimate write), the second charge (not the
/// first).
#[test]
fn where_it_broke_is_the_stale_write_or_the_second_charge() {
    use lockstep::sim::TraceKind;
    let mut seen = 0;
    for (lab_id, check) in [("fencing", "no_stale_write"), ("idempotency", "no_double_effect")] {
        let lab = labs::find(lab_id).unwrap_or_else(|e| panic!("{e}"));
        for f in files(lab_id, "fail") {
            let text = std::fs::read_to_string(&f).unwrap_or_default();
            if !text.starts_with(&format!("// expect: {check}")) {
                continue;
            }
            let r = grade(&lab, &text, 2026, 200);
            let t = r
                .counterexample
                .as_ref()
                .unwrap_or_else(|| panic!("{}: no counterexample", f.display()));
            let v = t
                .violations()
                .into_iter()
                .find(|v| {
                    v.kind
                        == lab
                            .checks
                            .iter()
                            .find(|c| c.name() == check)
                            .map(|c| c.violation_kind())
                            .unwrap_or(v.kind)
                })
                .unwrap_or_else(|| panic!("{}: no {check} violation", f.display()));
            let i = lab::breaking_event(&t.trace, &v);
            let TraceKind::WriteAccepted { key, lock_lapsed, .. } = &t.trace[i].kind else {
                panic!(
                    "{}: where it broke is {:?}, not a write",
                    f.display(),
                    t.trace[i].kind
                );
            };
            if check == "no_stale_write" {
                assert!(
                    *lock_lapsed,
                    "{}: opens on a write whose lock was live",
                    f.display()
                );
            } else {
                let earlier = t.trace[..i]
                    .iter()
                    .filter(|e| matches!(&e.kind, TraceKind::WriteAccepted { key: k, .. } if k == key))
                    .count();
                assert_eq!(
                    earlier,
                    1,
                    "{}: opens on charge {} of {key}, not the second",
                    f.display(),
                    earlier + 1
                );
            }
            seen += 1;
        }
    }
    assert!(seen >= 2, "the fail files cover both checks ({seen})");
}

/// The lines of tests/fixtures/first-failing-trials.txt: (lab, file, seed, trials, the
/// first failing trial counted from 1, its seed).
fn first_failing_trials() -> Vec<(String, String, u64, u32, u32, u64)> {
    include_str!("fixtures/first-failing-trials.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            let n = |i: usize| f[i].parse::<u64>().unwrap_or_else(|e| panic!("{l}: {e}"));
            (f[0].into(), f[1].into(), n(2), n(3) as u32, n(4) as u32, n(5))
        })
        .collect()
}

/// The command line names the failing trial the fixture names (and tests/web_lab.rs
/// checks that the browser names the same).
#[test]
fn the_cli_names_the_first_failing_trial_the_browser_names() {
    let bin = env!("CARGO_BIN_EXE_lockstep");
    let root = Path::new(env!("CARGO_MANIFEST_DIR"));
    for (lab, file, seed, trials, failing, trial_seed) in first_failing_trials() {
        let out = std::process::Command::new(bin)
            .args(["lab", "run", &lab])
            .arg(root.join(&file))
            .args([
                "--seed",
                &seed.to_string(),
                "--trials",
                &trials.to_string(),
                "--json",
            ])
            .output()
            .unwrap_or_else(|e| panic!("{e}"));
        let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(out.status.code(), Some(1), "{lab} {file}: {v}");
        assert_eq!(
            v["trials"], failing,
            "{lab} {file} seed {seed}: trials run up to the failure"
        );
        assert_eq!(
            v["counterexample"]["seed"], trial_seed,
            "{lab} {file} seed {seed}"
        );
    }
}

/// Every broken Run or replay of the fail files that names a line names one the harness
/// said a command was sent from, a line of the file that calls the client; and the runs
/// of these labs that break on a Redis command name one (a stale write, a second charge
/// or a kept lock names none).
#[test]
fn every_line_a_broken_run_names_sent_a_command() {
    use lockstep::sim::lab::seq::Draw;
    let mut named = std::collections::BTreeSet::new();
    for lab in labs_list() {
        for f in files(&lab.id, "fail") {
            let src = std::fs::read_to_string(&f).unwrap_or_default();
            let name = f.display().to_string();
            let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
            if lab::init(&lab, &mut host, &src).is_err() {
                continue;
            }
            for (draw, seed) in [(Draw::Run, lab::RUN_SEED), (Draw::Replay, lab::trial_seed(99, 4))] {
                let seq = drawn_alone(&lab, &src, draw, seed);
                let Some(failed) = seq.report().failure.filter(|f| !f.tape.is_empty()) else {
                    continue;
                };
                let b = broken_as_shown(&lab, draw, seed, &failed.tape);
                let Some(line) = b.sent_from_line() else {
                    continue;
                };
                let sending = said_lines(&failed.tape);
                let text = src.lines().nth(line as usize - 1).unwrap_or_default();
                assert!(
                    sending.contains(&Some(u64::from(line)))
                        && (text.contains("redis") || text.contains("c.set(") || text.contains("clients[")),
                    "{name} {draw:?}: line {line} `{text}` sent no command ({sending:?})"
                );
                named.insert(name.clone());
            }
        }
    }
    assert!(
        named.len() >= 8,
        "only {} fail files named a line: {named:?}",
        named.len()
    );
}
