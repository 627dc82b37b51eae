//! The `lockstep lab` commands: `list`, and `run` (a learner's file on the Node host,
//! simulated or live against redis-servers), with the report they print.

use super::live;
use super::node::{builtin, NodeHost};
use crate::sim::lab::Lab;

/// `lockstep lab list`.
pub fn list_text() -> Result<String, String> {
    let mut s = String::new();
    for l in builtin()? {
        let title = l.title.get("en").cloned().unwrap_or_default();
        s.push_str(&format!(
            "{:<14} §{:<2} {title}\n{:<18}writes: {}; checks: {}\n",
            l.id,
            l.section,
            "",
            l.functions.join(", "),
            l.checks.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
        ));
    }
    Ok(s)
}

/// What `lockstep lab run` asks for.
pub struct RunRequest<'a> {
    /// The lab (a built-in one, or a pack's: `lesson::pack_cli::find_lab`).
    pub lab: &'a Lab,
    pub file: &'a str,
    /// The session's seed (the Run's, or the first of many trials').
    pub seed: u64,
    /// 1: the lab's fixed run; more: "Try to break it".
    pub trials: u32,
    /// Replay this one trial seed, with the attacks it draws.
    pub trial: Option<u64>,
    pub json: bool,
    /// A lesson pack (`--pack`) whose own labs are found first.
    pub pack: Option<&'a str>,
    /// Live: the redis-servers to run on (`--redis`), one per node of the lab.
    pub redis: Option<Vec<String>>,
}

/// `lockstep lab run`: the text (or JSON) to print and the exit code (0 every check
/// held, 1 a check broke, 2 the learner's code failed or could not be run).
pub fn run_command(r: &RunRequest) -> (String, u8) {
    let lab = r.lab;
    let source = match std::fs::metadata(r.file) {
        Ok(m) if m.len() > crate::sim::lab::MAX_SOURCE_BYTES as u64 => {
            return (
                format!(
                    "lockstep lab run: {}: {} bytes; a lab takes at most {}\n",
                    r.file,
                    m.len(),
                    crate::sim::lab::MAX_SOURCE_BYTES
                ),
                2,
            )
        }
        _ => match std::fs::read_to_string(r.file) {
            Ok(s) => s,
            Err(e) => return (format!("lockstep lab run: {}: {e}\n", r.file), 2),
        },
    };
    let started = match &r.redis {
        Some(_) => live::start_host(),
        None => NodeHost::start(),
    };
    let mut host = match started {
        Ok(h) => h,
        Err(e) => return (format!("lockstep lab run: {e}\n"), 2),
    };
    let report = match crate::sim::lab::init(lab, &mut host, &source) {
        Err(e) => crate::sim::lab::LabReport {
            lab: lab.id.clone(),
            seed: r.seed,
            trials: 0,
            checks: Vec::new(),
            counterexample: None,
            code_error: Some(e),
        },
        Ok(()) => {
            let mut one = |seed: u64, attacks| match &r.redis {
                Some(urls) => live::run_once(lab, &mut host, urls, seed, attacks),
                None => crate::sim::lab::run_once(lab, &mut host, seed, attacks),
            };
            let result = match r.trial {
                Some(t) => {
                    let (t, attacks) = crate::sim::lab::Draw::Replay.trial(lab, t, 0);
                    one(t, attacks).map(|t| crate::sim::lab::report_of_one(lab, t))
                }
                None => crate::sim::lab::run_trials_with(lab, r.seed, r.trials, |_| {}, one),
            };
            match result {
                Ok(rep) => rep,
                Err(e) => return (format!("lockstep lab run: {e}\n"), 2),
            }
        }
    };
    let text = if r.json {
        report.json() + "\n"
    } else {
        report_text(lab, &report, r)
    };
    (text, report.exit_code())
}

fn report_text(lab: &Lab, rep: &crate::sim::lab::LabReport, r: &RunRequest) -> String {
    use std::fmt::Write as _;
    let mut s = String::new();
    let what = match (r.trial, r.trials) {
        (Some(t), _) => format!("trial seed {t}"),
        (None, 1) => format!("seed {} (the lab's run)", rep.seed),
        (None, _) => format!("seed {}, {} trials run", rep.seed, rep.trials),
    };
    let place = match &r.redis {
        Some(urls) => format!(" · live on {}", urls.join(", ")),
        None => String::new(),
    };
    let _ = writeln!(s, "lab {} · {} · {what}{place}", lab.id, r.file);
    if let Some(e) = &rep.code_error {
        let _ = writeln!(s, "YOUR CODE FAILED: {e}");
    }
    if let Some(t) = &rep.counterexample {
        let names = crate::sim::lab::lab_names(t);
        let verb = if rep.code_error.is_some() {
            "failed"
        } else {
            "broken"
        };
        let _ = writeln!(s, "{verb} in the run with seed {}", t.seed);
        for a in &t.attacks {
            let _ = writeln!(s, "  attack: {}", a.label(&names));
        }
        let _ = writeln!(s, "what happened:");
        for e in &t.trace {
            let shown = e.kind.is_semantic()
                || matches!(
                    e.kind,
                    crate::sim::TraceKind::Note { .. } | crate::sim::TraceKind::WorkDone
                );
            if shown && !matches!(e.kind, crate::sim::TraceKind::End) {
                let _ = writeln!(s, "  {}", crate::sim::cli::event_line(e, &t.names));
            }
        }
        if rep.code_error.is_none() {
            for v in t.violations() {
                let _ = writeln!(s, "VIOLATION {} at {} ms: {}", v.kind, v.from_ms, v.detail);
            }
        }
        if r.trials > 1 || r.trial.is_some() {
            let pack = r.pack.map(|p| format!(" --pack {p}")).unwrap_or_default();
            let live = match &r.redis {
                Some(urls) => format!(" --redis {}", urls.join(",")),
                None => String::new(),
            };
            let _ = writeln!(
                s,
                "replay it: lockstep lab run{pack} {} {} --trial {}{live}",
                lab.id, r.file, t.seed
            );
        }
    }
    for c in rep.checks.iter().filter(|_| rep.code_error.is_none()) {
        let verdict = if c.passed { "held" } else { "BROKEN" };
        let _ = writeln!(s, "  {:<18} {verdict}", c.name);
    }
    let _ = writeln!(
        s,
        "{}",
        match rep.exit_code() {
            0 => "PASSED: every check held",
            1 => "FAILED: a check broke",
            _ => "NOT GRADED: your code failed",
        }
    );
    s
}
