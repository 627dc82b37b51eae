//! A pack's own labs (`labs/<id>/` in the pack's folder), natively: the fixture pack
//! `tests/fixtures/packs/lab-ok` loads with its lab and `lockstep check-pack` runs its
//! reference solution in Node.js; variants of it (copied to a temporary folder, one file
//! changed) are refused with the file, line and field, or the lab, check and trial seed.

mod cli_common;
use cli_common::{copy_dir, lockstep};

use lockstep::lesson::pack::{self, PackError};
use std::path::{Path, PathBuf};

const FIXTURE: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/tests/fixtures/packs/lab-ok");

/// A release that deletes the key without checking its token: it passes the lab's Run,
/// and a trial where a worker stalls past its TTL breaks mutual exclusion.
const WRONG_SOLUTION: &str = "import crypto from 'node:crypto';
export async function acquire(redis, key, ttlMs) {
  const token = crypto.randomBytes(16).toString('hex');
  const reply = await redis.set(key, token, { NX: true, PX: ttlMs });
  return reply === 'OK' ? token : null;
}
export async function release(redis, key, token) {
  await redis.del(key);
}
";

/// A copy of the fixture pack in a fresh temporary folder, removed when dropped.
struct Variant(PathBuf);

impl Variant {
    fn new(name: &str) -> Variant {
        let dir = std::env::temp_dir().join(format!("lockstep-pack-labs-{}-{name}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        copy_dir(Path::new(FIXTURE), &dir);
        Variant(dir)
    }

    fn path(&self) -> String {
        self.0.to_string_lossy().into_owned()
    }

    fn write(&self, rel: &str, text: &str) {
        std::fs::write(self.0.join(rel), text).unwrap_or_else(|e| panic!("{rel}: {e}"));
    }

    fn edit(&self, rel: &str, from: &str, to: &str) {
        let text = std::fs::read_to_string(self.0.join(rel)).unwrap_or_else(|e| panic!("{rel}: {e}"));
        assert!(text.contains(from), "{rel} has no `{from}`");
        self.write(rel, &text.replacen(from, to, 1));
    }
}

impl Drop for Variant {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn errors_of(dir: &str) -> Vec<String> {
    match pack::load_dir(dir) {
        Ok(p) => panic!("expected errors, the pack loaded: {}", p.summary()),
        Err(errors) => errors.iter().map(PackError::to_string).collect(),
    }
}

#[test]
fn a_packs_own_lab_loads_with_all_five_files_and_check_pack_passes_its_solution() {
    let p = pack::load_dir(FIXTURE).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(p.labs.len(), 1);
    let lab = p.lab("team-lock").expect("the pack's lab");
    assert_eq!(
        lab.title.get("en").map(String::as_str),
        Some("Lab: the team's lock")
    );
    assert_eq!(lab.functions, ["acquire", "release"]);
    assert_eq!(lab.trials, 200);
    assert_eq!(lab.scenario.name, "lab-team-lock");
    // The driver and solution come with the pack (a built-in lab's are fetched from labs/).
    let dir = Path::new(FIXTURE).join("labs/team-lock");
    let read = |f: &str| std::fs::read_to_string(dir.join(f)).unwrap_or_default();
    assert_eq!(lab.driver, read("driver.js"));
    assert_eq!(lab.solution, read("solution.js"));
    assert_eq!(lab.starter, read("starter.js"));
    assert_eq!(p.labs[0].dir, format!("{FIXTURE}/labs/team-lock"));
    assert!(
        p.lab("set-nx").is_none(),
        "a built-in lab is not copied into the pack"
    );

    let (ok, out, err) = lockstep(&["check-pack", FIXTURE]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "pack team-locks (The team's lock): en 1 section; 0 questions; 0 scenarios; 1 lab\n\
         lab team-lock: the reference solution passes the lab's Run (seed 1) and 200 trials from seed 1\n"
    );
}

#[test]
fn a_wrong_reference_solution_fails_check_pack_with_the_lab_the_check_and_the_trial_seed() {
    let v = Variant::new("wrong");
    v.write("labs/team-lock/solution.js", WRONG_SOLUTION);
    // The pack itself is valid: only running the solution finds the mistake.
    assert!(pack::load_dir(v.path()).is_ok());
    let (ok, out, err) = lockstep(&["check-pack", &v.path()]);
    assert!(!ok && out.is_empty(), "{out}");
    let replay = format!(
        "lockstep lab run --pack {0} team-lock {0}/labs/team-lock/solution.js --trial 3703990346808863829",
        v.path()
    );
    assert_eq!(
        err,
        format!(
            "{}/labs/team-lock/solution.js:1: solution: lab `team-lock`: the reference solution breaks mutual_exclusion in trial seed 3703990346808863829 (200 trials from seed 1; trial 3 of 200); replay it: {replay}\n",
            v.path()
        )
    );
    // The command it names replays the break, as a learner's counterexample does.
    let args: Vec<&str> = replay.split(' ').skip(1).collect();
    let (ok, out, err) = lockstep(&args);
    assert!(!ok, "{out}{err}");
    assert!(out.contains("VIOLATION overlap"), "{out}");
    assert!(out.contains("mutual_exclusion   BROKEN"), "{out}");
    assert!(out.contains(&format!("replay it: {replay}")), "{out}");

    // A solution that breaks the lab's Run is named with the Run's seed.
    v.write(
        "labs/team-lock/solution.js",
        &WRONG_SOLUTION.replace(", PX: ttlMs", ""),
    );
    let (ok, _, err) = lockstep(&["check-pack", &v.path()]);
    assert!(!ok);
    assert_eq!(
        err,
        format!(
            "{0}/labs/team-lock/solution.js:1: solution: lab `team-lock`: the reference solution breaks freed_after_crash, all_done in the lab's Run (seed 1); replay it: lockstep lab run --pack {0} team-lock {0}/labs/team-lock/solution.js\n",
            v.path()
        )
    );

    // A solution that does not even load names its line.
    v.write(
        "labs/team-lock/solution.js",
        "export async function acquire(redis, key, ttlMs) {\n  return null;\n}\nexport async function release(redis, key, token) {\n  await redis.del(key;\n}\n",
    );
    let (ok, _, err) = lockstep(&["check-pack", &v.path()]);
    assert!(!ok);
    assert!(
        err.starts_with(&format!(
            "{}/labs/team-lock/solution.js:5: solution: lab `team-lock`: the reference solution does not load: SyntaxError",
            v.path()
        )),
        "{err}"
    );
}

#[test]
fn a_broken_lab_toml_is_named_with_file_line_and_field_and_does_not_cascade() {
    let v = Variant::new("toml");
    v.edit("labs/team-lock/lab.toml", "trials = 200", "trials = \"many\"");
    // One error: the section's `lab team-lock` block is not a second one.
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/labs/team-lock/lab.toml:7: trials: invalid type: string \"many\", expected u32",
            v.path()
        )]
    );
    v.edit("labs/team-lock/lab.toml", "trials = \"many\"", "trials = 200");
    v.edit(
        "labs/team-lock/lab.toml",
        "\"all_done\"]",
        "\"all_done\", \"all_fine\"]",
    );
    let errors = errors_of(&v.path());
    assert_eq!(errors.len(), 1, "{errors:?}");
    assert!(
        errors[0].starts_with(&format!(
            "{}/labs/team-lock/lab.toml:6: checks: `all_fine` is not a check",
            v.path()
        )),
        "{errors:?}"
    );
    let (ok, out, err) = lockstep(&["check-pack", &v.path()]);
    assert!(!ok && out.is_empty());
    assert_eq!(err.trim_end(), errors[0]);
    // `lab run --pack` will not run a lab from a pack with mistakes, and says why.
    let (ok, out, err) = lockstep(&["lab", "run", "--pack", &v.path(), "team-lock", "x.js"]);
    assert!(!ok && out.is_empty());
    assert!(err.ends_with(&format!("{}\n", errors[0])), "{err}");
    // The lab's scenario is checked too, with its own file and line.
    v.edit("labs/team-lock/lab.toml", ", \"all_fine\"]", "]");
    v.edit(
        "labs/team-lock/scenario.toml",
        "end_ms = 8000",
        "end_ms = \"late\"",
    );
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/labs/team-lock/scenario.toml:4: end_ms: invalid type: string \"late\", expected f64",
            v.path()
        )]
    );
}

#[test]
fn a_pack_lab_with_a_built_in_labs_id_is_refused() {
    let v = Variant::new("collide");
    std::fs::rename(v.0.join("labs/team-lock"), v.0.join("labs/set-nx")).unwrap_or_else(|e| panic!("{e}"));
    let pack_toml = std::fs::read_to_string(v.0.join("pack.toml")).unwrap_or_default();
    v.write("pack.toml", &pack_toml.replace("labs/team-lock/", "labs/set-nx/"));
    v.edit("labs/set-nx/lab.toml", "id = \"team-lock\"", "id = \"set-nx\"");
    v.edit("sections/en/01-team.md", "team-lock", "set-nx");
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/labs/set-nx/lab.toml:3: id: `set-nx` is a built-in lab's id; a pack's lab needs one of its own (its folder's name; the built-in labs are {}). A `lab` block may show the built-in `set-nx` without a copy",
            v.path(),
            lockstep::labs::IDS.join(", ")
        )]
    );
    let (ok, _, err) = lockstep(&["check-pack", &v.path()]);
    assert!(!ok && err.contains("`set-nx` is a built-in lab's id"), "{err}");
}

#[test]
fn a_lab_folder_needs_its_five_files_its_own_name_and_a_block_names_a_known_lab() {
    // A file missing and not listed.
    let v = Variant::new("missing");
    std::fs::remove_file(v.0.join("labs/team-lock/starter.js")).unwrap_or_else(|e| panic!("{e}"));
    let pack_toml = std::fs::read_to_string(v.0.join("pack.toml")).unwrap_or_default();
    v.write(
        "pack.toml",
        &pack_toml.replace("  \"labs/team-lock/starter.js\",\n", ""),
    );
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/labs/team-lock/starter.js:1: file: lab `team-lock` has no starter.js: a lab's folder holds lab.toml, scenario.toml, driver.js, starter.js, solution.js",
            v.path()
        )]
    );
    // Listed but missing: the pack file names it, once.
    v.write("pack.toml", &pack_toml);
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/pack.toml:10: files: `labs/team-lock/starter.js` is listed but was not found",
            v.path()
        )]
    );
    // The id in lab.toml is its folder's name.
    let v = Variant::new("rename");
    v.edit("labs/team-lock/lab.toml", "id = \"team-lock\"", "id = \"team\"");
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/labs/team-lock/lab.toml:3: id: `team` is not the name of its folder, labs/team-lock/: a lab's id is its folder's name",
            v.path()
        )]
    );
    // The driver and the solution are code: an empty one is refused.
    let v = Variant::new("empty");
    v.write("labs/team-lock/solution.js", "\n");
    assert_eq!(
        errors_of(&v.path()),
        [format!(
            "{}/labs/team-lock/solution.js:1: file: lab `team-lock`: solution.js is empty",
            v.path()
        )]
    );
    // A stray file in the lab's folder, and a block naming no lab.
    let v = Variant::new("stray");
    v.write("labs/team-lock/notes.md", "notes");
    v.edit("sections/en/01-team.md", "\nteam-lock\n", "\nteam-locks\n");
    assert_eq!(
        errors_of(&v.path()),
        [
            format!(
                "{}/labs/team-lock/notes.md:1: file: `labs/team-lock/notes.md` is not a lab file: a lab's folder labs/<id>/ holds lab.toml, scenario.toml, driver.js, starter.js, solution.js",
                v.path()
            ),
            format!(
                "{}/sections/en/01-team.md:10: lab: `team-locks` is neither a lab of this pack (a folder labs/team-locks/) nor a built-in one ({})",
                v.path(),
                lockstep::labs::IDS.join(", ")
            ),
        ]
    );
}

#[test]
fn a_lab_file_over_its_limit_is_not_parsed_and_files_to_fetch_lists_lab_files() {
    let v = Variant::new("big");
    let big = format!("// {}\n", "x".repeat(pack::MAX_LAB_FILE_BYTES));
    v.write("labs/team-lock/driver.js", &big);
    let errors = errors_of(&v.path());
    assert_eq!(
        errors,
        [format!(
            "{}/labs/team-lock/driver.js:1: file: the lab's file is {} bytes; at most {} are allowed",
            v.path(),
            big.len(),
            pack::MAX_LAB_FILE_BYTES
        )]
    );
    let text = std::fs::read_to_string(Path::new(FIXTURE).join("pack.toml")).unwrap_or_default();
    let files = pack::files_to_fetch("pack.toml", &text).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(files.len(), 6);
    assert!(files.contains(&"labs/team-lock/solution.js".to_string()));
    let bad = text.replace("labs/team-lock/driver.js", "labs/team-lock/../driver.js");
    let errs = pack::files_to_fetch("pack.toml", &bad).expect_err("a path out of the folder");
    assert_eq!(errs.len(), 1, "{errs:?}");
}

#[test]
fn imported_progress_keeps_the_code_of_a_packs_own_lab() {
    use lockstep::lesson::progress::Progress;
    use lockstep::lesson::Lang;
    let p = pack::load_dir(FIXTURE).unwrap_or_else(|e| panic!("{e:?}"));
    let lesson = p.lesson(Lang::En).expect("English");
    let mut theirs = Progress::new();
    theirs.save_lab_code(&p.id, "team-lock", "// mine");
    theirs.save_lab_code(&p.id, "set-nx", "// built-in");
    theirs.save_lab_code(&p.id, "not-here", "// another pack's");
    let fitted = theirs.fit_to(lesson, &p.questions);
    let code = |lab: &str| fitted.lab(&p.id, lab).map(|l| l.code.clone());
    assert_eq!(code("team-lock").as_deref(), Some("// mine"));
    assert_eq!(code("set-nx").as_deref(), Some("// built-in"));
    assert_eq!(code("not-here"), None);
}

#[test]
fn an_imported_lab_pass_is_true_to_the_code_kept() {
    use lockstep::lesson::progress::{code_mark, LabOutcome, LabStatus, Progress};
    use lockstep::lesson::Lang;
    let p = pack::load_dir(FIXTURE).unwrap_or_else(|e| panic!("{e:?}"));
    let lesson = p.lesson(Lang::En).expect("English");
    let mut theirs = Progress::new();
    theirs.save_lab_code(&p.id, "team-lock", "// theirs");
    theirs.record_lab_run(&p.id, "team-lock", LabOutcome::Passed, "2026-12-01");
    theirs.save_lab_code(&p.id, "set-nx", "// same as mine");
    theirs.record_lab_run(&p.id, "set-nx", LabOutcome::Passed, "2026-12-02");
    let mut mine = Progress::new();
    mine.save_lab_code(&p.id, "team-lock", "// mine");
    mine.save_lab_code(&p.id, "set-nx", "// same as mine");
    mine.merge(&theirs.fit_to(lesson, &p.questions));
    let status = |lab: &str| mine.lab(&p.id, lab).map(|l| l.status());
    // My code stays, and their pass was for other code.
    assert_eq!(
        status("team-lock"),
        Some(LabStatus::Tried {
            passed_before: Some("2026-12-01")
        })
    );
    assert_eq!(status("set-nx"), Some(LabStatus::Passed { on: "2026-12-02" }));
    // A pass whose mark or date is not one this version writes is dropped on import.
    for (mark, on) in [
        (code_mark("// x"), "yesterday".to_string()),
        ("zz".repeat(8), "2026-12-01".to_string()),
    ] {
        let raw = format!(
            r#"{{"v":2,"lessons":{{"{}":{{"labs":{{"set-nx":{{"code":"// x","runs":1,"pass":"{mark} {on}"}}}}}}}}}}"#,
            p.id
        );
        let (theirs, why) = Progress::load(Some(&raw));
        assert_eq!(why, None, "{raw}");
        // Read, it is no pass (and no day a pass was made); fitted, it is dropped.
        let before = theirs.lab(&p.id, "set-nx").map(|l| l.status());
        assert_eq!(before, Some(LabStatus::Tried { passed_before: None }), "{raw}");
        let fitted = theirs.fit_to(lesson, &p.questions);
        assert_eq!(
            fitted.lab(&p.id, "set-nx").map(|l| l.status()),
            Some(LabStatus::Tried { passed_before: None }),
            "{raw}"
        );
    }
}

#[test]
fn more_labs_than_the_limit_are_an_error_at_the_first_one_too_many() {
    let read = |rel: &str| std::fs::read_to_string(Path::new(FIXTURE).join(rel)).unwrap_or_default();
    let ids: Vec<String> = (0..=pack::MAX_LABS).map(|i| format!("lab-{i:02}")).collect();
    let mut listed = vec!["\"sections/en/01-team.md\"".to_string()];
    let section = read("sections/en/01-team.md").replace("\nteam-lock\n", "\nlab-00\n");
    let mut files = vec![("sections/en/01-team.md".to_string(), section)];
    for id in &ids {
        for name in pack::LAB_FILES {
            let text = read(&format!("labs/team-lock/{name}"))
                .replace("id = \"team-lock\"", &format!("id = \"{id}\""));
            listed.push(format!("\"labs/{id}/{name}\""));
            files.push((format!("labs/{id}/{name}"), text));
        }
    }
    let pack_toml = format!(
        "id = \"many\"\nlanguages = [\"en\"]\ntitle = {{ en = \"Many\" }}\nfiles = [{}]\n",
        listed.join(", ")
    );
    files.insert(0, ("pack.toml".to_string(), pack_toml));
    let errors: Vec<String> = match pack::load_files(&files) {
        Ok(p) => panic!("loaded: {}", p.summary()),
        Err(e) => e.iter().map(PackError::to_string).collect(),
    };
    assert_eq!(
        errors,
        [format!(
            "labs/lab-20/lab.toml:1: file: more than {} labs in the pack: labs/lab-20/ is one too many",
            pack::MAX_LABS
        )]
    );
    // One fewer loads, every lab parsed.
    let mut fewer: Vec<(String, String)> = files
        .iter()
        .filter(|(p, _)| !p.starts_with("labs/lab-20/"))
        .cloned()
        .collect();
    fewer[0].1 = fewer[0].1.replace(
        &pack::LAB_FILES
            .iter()
            .map(|n| format!(", \"labs/lab-20/{n}\""))
            .collect::<String>(),
        "",
    );
    let p = pack::load_files(&fewer).unwrap_or_else(|e| panic!("{e:?}"));
    assert_eq!(p.labs.len(), pack::MAX_LABS);
}
