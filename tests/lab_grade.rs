//! `lockstep lab grade` on a class's folder: a right file, a wrong one, one that does not
//! compile, one that loops and one that attacks its sandbox. Each gets its own verdict,
//! in table, CSV, JSON and JUnit form, and the grader itself never fails for them.

mod cli_common;

use std::path::PathBuf;

/// A class's folder of files, in a fresh temporary folder removed when dropped.
struct Class(PathBuf);

impl Drop for Class {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn class() -> Class {
    let dir = std::env::temp_dir().join(format!("lockstep-grade-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let root = env!("CARGO_MANIFEST_DIR");
    let read =
        |p: &str| std::fs::read_to_string(format!("{root}/{p}")).unwrap_or_else(|e| panic!("{p}: {e}"));
    let canary = dir.join("escaped.canary");
    let files = [
        ("ada.js", read("labs/safe-release/solution.js")),
        ("bo.mjs", read("tests/labs/safe-release/fail/plain-del.js")),
        (
            "cy.js",
            "export async function acquire(redis, key {\n".to_string(),
        ),
        (
            "di.js",
            "export async function acquire() { for (;;) {} }\nexport async function release() {}\n"
                .to_string(),
        ),
        (
            "ed.js",
            read("tests/labs/attacks/escape-prepare-stack-trace.js")
                .replace("__CANARY__", &canary.to_string_lossy()),
        ),
        ("notes.txt", "not a lab file".to_string()),
    ];
    for (name, text) in files {
        std::fs::write(dir.join(name), text).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
    Class(dir)
}

fn grade(dir: &str, format: &str) -> (bool, String, String) {
    cli_common::lockstep(&[
        "lab",
        "grade",
        "safe-release",
        dir,
        "--trials",
        "60",
        "--seed",
        "2026",
        "--format",
        format,
    ])
}

#[test]
fn a_class_folder_is_graded_file_by_file_in_every_format() {
    let c = class();
    let dir = c.0.to_string_lossy().into_owned();

    let (ok, json, err) = grade(&dir, "json");
    assert!(!ok, "a failed file makes the exit code 1: {err}");
    let v: serde_json::Value =
        serde_json::from_str(&json).unwrap_or_else(|e| panic!("not JSON ({e}): {json}\n{err}"));
    assert_eq!(v["seed"], 2026);
    let files = v["files"].as_array().cloned().unwrap_or_default();
    let verdicts: Vec<(String, String)> = files
        .iter()
        .map(|f| {
            let name = f["file"]
                .as_str()
                .unwrap_or("")
                .rsplit('/')
                .next()
                .unwrap_or("")
                .to_string();
            (name, f["verdict"].as_str().unwrap_or("").to_string())
        })
        .collect();
    let want: Vec<(String, String)> = [
        ("ada.js", "passed"),
        ("bo.mjs", "failed"),
        ("cy.js", "error"),
        ("di.js", "error"),
        ("ed.js", "error"),
    ]
    .iter()
    .map(|(a, b)| (a.to_string(), b.to_string()))
    .collect();
    assert_eq!(verdicts, want, "{json}");
    let bo = &files[1];
    assert!(
        bo["broken"]
            .as_array()
            .is_some_and(|b| b.iter().any(|c| c == "no_foreign_delete")),
        "{bo}"
    );
    let trial = bo["trial"].as_u64().unwrap_or_else(|| panic!("no trial: {bo}"));
    assert_eq!(
        bo["replay"].as_str(),
        Some(format!("lockstep lab run safe-release {dir}/bo.mjs --trial {trial}").as_str())
    );
    assert!(
        files[2]["error"]
            .as_str()
            .is_some_and(|e| e.contains("SyntaxError")),
        "{}",
        files[2]
    );
    assert!(
        files[3]["error"]
            .as_str()
            .is_some_and(|e| e.contains("infinite loop")),
        "{}",
        files[3]
    );
    assert!(
        !c.0.join("escaped.canary").exists(),
        "a graded file wrote outside its lab"
    );

    // The replay command names the same failure.
    let (_, replay, _) = cli_common::lockstep(&[
        "lab",
        "run",
        "safe-release",
        &format!("{dir}/bo.mjs"),
        "--trial",
        &trial.to_string(),
        "--json",
    ]);
    assert!(replay.contains("\"name\": \"no_foreign_delete\""), "{replay}");

    let (_, table, _) = grade(&dir, "table");
    let lines: Vec<&str> = table.lines().collect();
    assert!(
        lines.iter().any(|l| l.contains("ada.js") && l.contains("PASSED")),
        "{table}"
    );
    assert!(
        lines
            .iter()
            .any(|l| l.contains("bo.mjs") && l.contains("FAILED") && l.contains(&format!("--trial {trial}"))),
        "{table}"
    );
    assert_eq!(lines.last().copied(), Some("1 passed, 4 failed"), "{table}");

    let (_, csv, _) = grade(&dir, "csv");
    let rows: Vec<&str> = csv.lines().collect();
    assert_eq!(
        rows.first().copied(),
        Some("file,verdict,broken,trial,replay,error")
    );
    assert_eq!(rows.len(), 6, "a header and five files: {csv}");
    assert!(
        rows[2].contains(",failed,") && rows[2].contains(&trial.to_string()),
        "{csv}"
    );

    let (_, junit, _) = grade(&dir, "junit");
    assert!(
        junit.contains("tests=\"5\" failures=\"1\" errors=\"3\""),
        "{junit}"
    );
    assert_eq!(junit.matches("<testcase ").count(), 5, "{junit}");
    assert!(junit.contains("<failure message=\"broke "), "{junit}");
}

#[test]
fn a_grader_with_nothing_to_grade_says_so() {
    let (ok, _, err) = cli_common::lockstep(&["lab", "grade", "safe-release", "/no/such/folder"]);
    assert!(!ok);
    assert!(err.contains("/no/such/folder: no such file or folder"), "{err}");
    let (ok, _, err) = cli_common::lockstep(&["lab", "grade", "no-such-lab", "."]);
    assert!(!ok);
    assert!(err.contains("no lab is called `no-such-lab`"), "{err}");
}
