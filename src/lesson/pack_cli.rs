//! `lockstep check-pack <path>`: the logic behind the subcommand, so the binary stays a
//! thin argument parser. Validates a pack folder, its `pack.toml`, or a single-file pack
//! with exactly the checks the app runs; then runs each of the pack's labs' reference
//! solutions as `lockstep lab run` does (Node.js), which must pass.

use super::pack::{load_dir, PackLab};
#[cfg(not(target_arch = "wasm32"))]
use crate::sim::lab::Lab;

/// The most attacked trials `check-pack` runs of a pack lab's reference solution: the
/// lab's own `trials` ("Try to break it"), at most this many.
pub const SOLUTION_TRIALS: u32 = 200;

/// `Ok(summary)` for a valid pack (a line for the pack, one per lab); otherwise every
/// mistake, one `file:line: field: message` per entry, in the order found.
pub fn check_pack(path: &str) -> Result<String, Vec<String>> {
    let pack = load_dir(path).map_err(|errors| errors.iter().map(ToString::to_string).collect::<Vec<_>>())?;
    let mut out = format!("{}\n", pack.summary());
    let mut errors = Vec::new();
    for l in &pack.labs {
        match check_solution(l) {
            Ok(line) => out.push_str(&line),
            Err(e) => errors.push(e),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// Runs a pack lab's `solution.js` in Node.js: the lab's Run (seed 1), then its trials
/// from seed 1, stopping at the first that breaks. `Ok(line)` when every check held;
/// otherwise the error naming the lab, the check that broke and the trial's seed.
#[cfg(not(target_arch = "wasm32"))]
pub fn check_solution(l: &PackLab) -> Result<String, String> {
    use crate::labs::NodeHost;
    use crate::sim::lab::{self, RUN_SEED};
    let lab = &l.lab;
    let file = format!("{}/solution.js", l.dir);
    // The pack's folder, for the replay command.
    let pack = l.dir.strip_suffix(&format!("/labs/{}", lab.id)).unwrap_or(".");
    let at = |line: Option<u32>, what: String| {
        format!("{file}:{}: solution: lab `{}`: {what}", line.unwrap_or(1), lab.id)
    };
    let mut host = NodeHost::start().map_err(|e| at(None, e))?;
    lab::init(lab, &mut host, &lab.solution)
        .map_err(|e| at(e.line, format!("the reference solution does not load: {e}")))?;
    let trials = lab.trials.min(SOLUTION_TRIALS);
    for (n, what) in [
        (1, "the lab's Run".to_string()),
        (trials, format!("{trials} trials from seed {RUN_SEED}")),
    ] {
        let report = lab::run_trials(lab, &mut host, RUN_SEED, n, |_| {}).map_err(|e| at(None, e))?;
        if report.passed() {
            continue;
        }
        let seed = report.counterexample.as_ref().map_or(RUN_SEED, |t| t.seed);
        let (when, again) = if n == 1 {
            (format!("in {what} (seed {seed})"), String::new())
        } else {
            (
                format!(
                    "in trial seed {seed} ({what}; trial {} of {trials})",
                    report.trials
                ),
                format!(" --trial {seed}"),
            )
        };
        let replay = format!(
            "{when}; replay it: lockstep lab run --pack {pack} {} {file}{again}",
            lab.id
        );
        if let Some(e) = &report.code_error {
            return Err(at(e.line, format!("the reference solution failed {replay}: {e}")));
        }
        let broken: Vec<&str> = report
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name.as_str())
            .collect();
        return Err(at(
            None,
            format!("the reference solution breaks {} {replay}", broken.join(", ")),
        ));
    }
    Ok(format!(
        "lab {}: the reference solution passes the lab's Run (seed {RUN_SEED}) and {trials} trials from seed {RUN_SEED}\n",
        lab.id
    ))
}

/// In the browser there is no Node.js: a pack lab's solution is checked natively only.
#[cfg(target_arch = "wasm32")]
pub fn check_solution(l: &PackLab) -> Result<String, String> {
    Ok(format!("lab {}: not run here\n", l.lab.id))
}

/// A lab of the pack at `pack` (checked as `check-pack` does), or a built-in one.
/// Lab `id`: the pack's own (when a pack is named), else a built-in one. For `lockstep
/// lab run` and `lab grade`, which take the lab found (so `labs` never reads a pack).
#[cfg(not(target_arch = "wasm32"))]
pub fn find_lab(pack: Option<&str>, id: &str) -> Result<Lab, String> {
    match pack {
        Some(pack) => find_in_pack(pack, id),
        None => crate::labs::find(id),
    }
}

#[cfg(not(target_arch = "wasm32"))]
fn find_in_pack(pack: &str, id: &str) -> Result<Lab, String> {
    let p = load_dir(pack).map_err(|errors| {
        let lines: Vec<String> = errors.iter().map(ToString::to_string).collect();
        format!(
            "the pack has mistakes (lockstep check-pack lists them):\n{}",
            lines.join("\n")
        )
    })?;
    match p.lab(id) {
        Some(lab) => Ok(lab.clone()),
        None => crate::labs::find(id).map_err(|e| {
            let own: Vec<&str> = p.labs.iter().map(|l| l.lab.id.as_str()).collect();
            format!("{e}; the pack's own: {}", own.join(", "))
        }),
    }
}
