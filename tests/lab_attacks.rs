//! The attack suite (`tests/labs/attacks/`, its README says how each file is read): every
//! file is a learner's that tries to leave its lab or fake its grade, run as
//! `lockstep lab run <lab> <file> --trials 200 --json` runs it. None may pass, none may
//! write its canary file, and each report stays small (a 100 MB error is cut).

mod cli_common;

use std::path::{Path, PathBuf};
use std::process::Command;

/// One attack file: its name, lab, the check it must break (if it names one) and text.
struct Attack {
    name: String,
    lab: String,
    expect: Option<String>,
    text: String,
}

fn header<'a>(text: &'a str, key: &str) -> Option<&'a str> {
    text.lines()
        .take_while(|l| l.starts_with("//"))
        .find_map(|l| l.strip_prefix("//")?.trim().strip_prefix(key)?.strip_prefix(':'))
        .map(str::trim)
}

fn attacks() -> Vec<Attack> {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/labs/attacks");
    let mut paths: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("{}: {e}", dir.display()))
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|x| x == "js"))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
            let name = p
                .file_stem()
                .map(|s| s.to_string_lossy().into_owned())
                .unwrap_or_default();
            let lab = header(&text, "lab")
                .unwrap_or_else(|| panic!("{name}: no `// lab:` line"))
                .to_string();
            assert!(header(&text, "what").is_some(), "{name}: no `// what:` line");
            let expect = header(&text, "expect").map(str::to_string);
            Attack {
                name,
                lab,
                expect,
                text,
            }
        })
        .collect()
}

/// A folder of this test's own, empty, where the attacks' canaries would land.
fn canary_dir(test: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lockstep-attacks-{}-{test}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    dir
}

#[test]
fn no_attack_escapes_its_lab_or_passes() {
    let dir = canary_dir("files");
    let all = attacks();
    assert!(all.len() >= 15, "the suite has {} attacks", all.len());
    for a in all {
        let canary = dir.join(format!("{}.canary", a.name));
        let file = dir.join(format!("{}.js", a.name));
        let text = a.text.replace("__CANARY__", &canary.to_string_lossy());
        std::fs::write(&file, text).unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
            .args(["lab", "run", &a.lab])
            .arg(&file)
            .args(["--trials", "200", "--seed", "2026", "--json"])
            .output()
            .unwrap_or_else(|e| panic!("cannot run lockstep: {e}"));
        let stdout = String::from_utf8_lossy(&out.stdout);
        let code = out.status.code();
        assert!(
            !canary.exists(),
            "{}: the attack wrote {} outside its lab",
            a.name,
            canary.display()
        );
        assert!(
            matches!(code, Some(1) | Some(2)),
            "{}: exit {code:?}, the grade must be a failure: {stdout}",
            a.name
        );
        assert!(
            stdout.len() < 200_000,
            "{}: a report of {} bytes",
            a.name,
            stdout.len()
        );
        let report: serde_json::Value = serde_json::from_str(&stdout)
            .unwrap_or_else(|e| panic!("{}: the report is not JSON ({e}): {stdout}", a.name));
        if let Some(check) = &a.expect {
            let broke = report["checks"]
                .as_array()
                .map(|cs| {
                    cs.iter()
                        .any(|c| c["name"] == check.as_str() && c["passed"] == false)
                })
                .unwrap_or(false);
            assert!(broke, "{}: {check} did not break: {stdout}", a.name);
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// What a stranger's pack runs during `lockstep check-pack`: its reference solution, and
/// its driver. Neither reaches the machine, and a wrong solution does not pass.
#[test]
fn a_packs_solution_or_driver_cannot_escape_check_pack() {
    let dir = canary_dir("pack");
    let fixture = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/fixtures/packs/lab-ok");
    let escape = attacks()
        .into_iter()
        .find(|a| a.name == "escape-prepare-stack-trace")
        .unwrap_or_else(|| panic!("the suite has escape-prepare-stack-trace.js"));
    let canary = dir.join("canary");
    let driver = "'use strict';
async function worker(lab) {
  const tries = [
    () => lab.constructor.constructor('return process')(),
    () => lab.redis.set.constructor('return process')(),
    () => { Error.prepareStackTrace = (e, s) => s.constructor.constructor('return process')(); return new Error('x').stack; },
    () => globalThis.process,
  ];
  for (const t of tries) {
    try {
      const p = t();
      if (p && p.versions) p.getBuiltinModule('fs').writeFileSync('__CANARY__', 'driver');
    } catch (e) { /* refused */ }
  }
}
";
    for (file, text) in [("solution.js", escape.text.as_str()), ("driver.js", driver)] {
        let _ = std::fs::remove_dir_all(&dir);
        cli_common::copy_dir(&fixture, &dir);
        let target = dir.join("labs/team-lock").join(file);
        std::fs::write(&target, text.replace("__CANARY__", &canary.to_string_lossy()))
            .unwrap_or_else(|e| panic!("{}: {e}", target.display()));
        let (ok, out, err) = cli_common::lockstep(&["check-pack", &dir.to_string_lossy()]);
        assert!(!canary.exists(), "the pack's {file} wrote {}", canary.display());
        // A driver decides what its own lab checks (one that drives nothing passes
        // anything); a wrong solution under the pack's own driver must not pass.
        if file == "solution.js" {
            assert!(
                !ok,
                "check-pack passed a pack whose {file} attacks it:\n{out}\n{err}"
            );
        } else {
            assert!(
                out.contains("lab team-lock"),
                "check-pack ran the lab:\n{out}\n{err}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}
