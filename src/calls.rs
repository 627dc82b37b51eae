//! The engine's calls by name, for work the page hands to the engine's worker that is
//! not a scenario's run, "Can this break?" or a trade-off row: the argument and the
//! answer in the wire's form (`crate::wire`; `src/bin/engine.rs` exports [`call`];
//! `static/engine-worker.js` answers `{"type":"call","name":N,"arg":A}` with
//! `{"type":"result","value":V}`). Each call's answer is a `Result`, so a mistake in what
//! it was given is an answer, not a failure of the worker.

use crate::lesson::pack::{files_to_fetch, load_with_unreadable};
use crate::timeline::ScriptError;
use serde::{Deserialize, Serialize};

/// What `pack_load` is given: the pack's files as fetched (the pack file first) and
/// those that were not taken, each with its reason.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PackFiles {
    pub files: Vec<(String, String)>,
    #[serde(default)]
    pub unreadable: Vec<(String, String)>,
}

/// What `pack_list` is given: the pack file's name and text.
#[derive(Clone, Debug, Default, PartialEq, Serialize, Deserialize)]
pub struct PackFile {
    pub name: String,
    pub text: String,
}

/// Makes call `name` on `arg` (wire text): its answer as wire text, or why the call could not be
/// made (an unknown name, an argument that does not read).
pub fn call(name: &str, arg: &str) -> Result<String, String> {
    match name {
        // The files a pack file lists, to fetch: `Result<Vec<path>, Vec<error>>`.
        "pack_list" => {
            let p: PackFile = read(arg)?;
            write(&files_to_fetch(&p.name, &p.text).map_err(texts))
        }
        // The pack its files make, validated: `Result<Pack, Vec<error>>`.
        "pack_load" => {
            let p: PackFiles = read(arg)?;
            write(&load_with_unreadable(&p.files, &p.unreadable).map_err(texts))
        }
        // §2's console exercise: the reply to the last of `lines`, each run in turn on a
        // fresh store whose clock starts at 0 (it moves only with `DEBUG SLEEP`), so the
        // same lines always give the same replies.
        "console" => {
            let lines: Vec<String> = read(arg)?;
            write(&console_reply(&lines))
        }
        // A learner's release or extend script, before it replaces the scenario's: it
        // must compile, and the scenario run once with it (`scenario`, the script already
        // in it, and `seed`) must not fail on a node: `Result<(), ScriptError>`.
        "script_check" => {
            let c: ScriptCheck = read(arg)?;
            write(&script_check(&c))
        }
        // A generated or "what happens next?" question's instance: `Instance`.
        "question" => {
            let job: crate::lesson::generate::InstanceJob = read(arg)?;
            write(&job.make())
        }
        // Each text's Markdown tree, encoded (`lesson::docs`: the page parses no
        // Markdown): `Vec<String>`, one per text. At most MAX_MARKDOWN_BYTES in all.
        "markdown" => {
            let texts: Vec<String> = read(arg)?;
            if texts.iter().map(String::len).sum::<usize>() > MAX_MARKDOWN_BYTES {
                return Err(format!(
                    "more than {MAX_MARKDOWN_BYTES} bytes of Markdown in one call"
                ));
            }
            write(&crate::lesson::docs::encode_all(&texts))
        }
        other => Err(format!("the engine has no call `{other}`")),
    }
}

/// The most Markdown one `markdown` call parses: a whole pack's texts (its files are at
/// most `MAX_PACK_BYTES` together) fit.
pub const MAX_MARKDOWN_BYTES: usize = 2 * crate::lesson::pack::MAX_PACK_BYTES;

/// What `script_check` is given.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct ScriptCheck {
    pub source: String,
    pub scenario: crate::sim::scenario::Scenario,
    pub seed: u64,
}

/// Does the script compile, and does the scenario with it run without a node failing it?
pub fn script_check(c: &ScriptCheck) -> Result<(), ScriptError> {
    use crate::timeline::{build, check_script, first_script_error};
    check_script(&c.source)?;
    match build(&c.scenario, c.seed) {
        Ok(m) => first_script_error(&m.trace).map_or(Ok(()), Err),
        Err(message) => Err(ScriptError { line: None, message }),
    }
}

/// The most lines a console exercise replays (each call runs them all again).
pub const MAX_CONSOLE_LINES: usize = 500;

/// The reply to the last of `lines`, run one after another on a fresh store.
pub fn console_reply(lines: &[String]) -> String {
    if lines.len() > MAX_CONSOLE_LINES {
        return format!("(error) this console keeps {MAX_CONSOLE_LINES} commands at most: reload the page to start a new one");
    }
    let mut store = crate::store::Store::new(1);
    lines
        .iter()
        .filter_map(|line| store.answer_line(line))
        .last()
        .unwrap_or_default()
}

fn read<T: for<'de> Deserialize<'de>>(arg: &str) -> Result<T, String> {
    crate::wire::from_text(arg).map_err(|e| format!("the call's argument: {e}"))
}

fn write<T: Serialize>(answer: &T) -> Result<String, String> {
    crate::wire::to_text(answer)
}

fn texts<E: std::fmt::Display>(errors: Vec<E>) -> Vec<String> {
    errors.iter().map(|e| e.to_string()).collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    use crate::lesson::pack::Pack;

    /// The answers of `pack_load` and `pack_list`, as the page reads them.
    type PackAnswer = Result<Pack, Vec<String>>;
    type ListAnswer = Result<Vec<String>, Vec<String>>;

    /// A pack's files, the pack file first, as the page fetches them.
    fn pack_files(dir: &str) -> Vec<(String, String)> {
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(dir);
        let mut files = Vec::new();
        let mut dirs = vec![root.clone()];
        while let Some(d) = dirs.pop() {
            for e in std::fs::read_dir(&d).unwrap().flatten() {
                let p = e.path();
                if p.is_dir() {
                    dirs.push(p);
                } else {
                    let rel = p
                        .strip_prefix(&root)
                        .unwrap()
                        .to_string_lossy()
                        .replace('\\', "/");
                    files.push((rel, std::fs::read_to_string(&p).unwrap()));
                }
            }
        }
        files.sort_by_key(|(p, _)| (p != "pack.toml", p.clone()));
        files
    }

    /// Packs loaded through the calls (the wire both ways) are the packs the loader makes of
    /// their files directly, labs included; a mistake comes back as its text.
    #[test]
    fn a_pack_loaded_through_the_calls_is_the_one_loaded_here() {
        for dir in ["packs/example", "tests/fixtures/packs/lab-ok"] {
            let files = pack_files(dir);
            let (name, text) = files[0].clone();
            let arg = crate::wire::to_text(&PackFile {
                name: name.clone(),
                text: text.clone(),
            })
            .unwrap();
            let listed: ListAnswer = crate::wire::from_text(&call("pack_list", &arg).unwrap()).unwrap();
            assert_eq!(listed, files_to_fetch(&name, &text).map_err(texts), "{dir}");
            let arg = crate::wire::to_text(&PackFiles {
                files: files.clone(),
                unreadable: Vec::new(),
            })
            .unwrap();
            let got: PackAnswer = crate::wire::from_text(&call("pack_load", &arg).unwrap()).unwrap();
            let here = load_with_unreadable(&files, &[]).map_err(texts);
            assert!(here.is_ok(), "{dir}: {here:?}");
            assert_eq!(got, here, "{dir}");
        }
        let pack = pack_files("tests/fixtures/packs/lab-ok");
        let got: PackAnswer = crate::wire::from_text(
            &call(
                "pack_load",
                &crate::wire::to_text(&PackFiles {
                    files: pack,
                    unreadable: Vec::new(),
                })
                .unwrap(),
            )
            .unwrap(),
        )
        .unwrap();
        assert!(got.is_ok_and(|p| !p.labs.is_empty()), "the fixture has a lab");
        let bad = PackFiles {
            files: vec![("pack.toml".into(), "id = 3".into())],
            unreadable: Vec::new(),
        };
        let got: PackAnswer =
            crate::wire::from_text(&call("pack_load", &crate::wire::to_text(&bad).unwrap()).unwrap())
                .unwrap();
        assert!(matches!(&got, Err(e) if !e.is_empty()), "{got:?}");
        assert!(call("nope", "{}").is_err());
        assert!(call("pack_load", "not the wire!").is_err());
    }

    /// §2's console: every line so far on a fresh store whose clock moves only with
    /// DEBUG SLEEP; the reply is the last line's, through the call.
    #[test]
    fn the_console_replies_to_its_last_line_on_a_store_of_its_own() {
        let lines = |ls: &[&str]| {
            crate::wire::to_text(&ls.iter().map(|l| l.to_string()).collect::<Vec<_>>()).unwrap()
        };
        let reply =
            |ls: &[&str]| crate::wire::from_text::<String>(&call("console", &lines(ls)).unwrap()).unwrap();
        assert_eq!(
            reply(&["SET lock:a t1 NX PX 1000", "DEBUG SLEEP 0.25", "PTTL lock:a"]),
            "(integer) 750"
        );
        assert_eq!(
            reply(&["SET lock:a t1 NX PX 1000", "SET lock:a t2 NX PX 1000"]),
            "(nil)"
        );
        assert_eq!(reply(&["SET lock:a t1 NX PX 1000", "", "GET lock:a"]), "\"t1\"");
        assert!(reply(&["SET \"unclosed"]).starts_with("(error)"));
        let many: Vec<&str> = vec!["INCR n"; MAX_CONSOLE_LINES + 1];
        assert!(reply(&many).contains("at most"), "{}", reply(&many));
    }

    /// A learner's script is refused if it does not compile (with its line) or fails on
    /// a node when the scenario runs with it, and taken otherwise.
    #[test]
    fn a_script_is_checked_by_compiling_it_and_running_the_scenario_once() {
        let scenario = crate::sim::scenario::builtin("safe-release").unwrap().unwrap();
        let check = |source: &str, release: bool| {
            let variant = crate::timeline::Variant {
                release_script: release.then(|| source.to_string()),
                ..Default::default()
            };
            let c = ScriptCheck {
                source: source.into(),
                scenario: variant.apply(&scenario),
                seed: 1,
            };
            crate::wire::from_text::<Result<(), ScriptError>>(
                &call("script_check", &crate::wire::to_text(&c).unwrap()).unwrap(),
            )
            .unwrap()
        };
        let good = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";
        assert_eq!(check(good, true), Ok(()));
        let broken = check("if then end", true).unwrap_err();
        assert_eq!(broken.line, Some(1), "{broken:?}");
        let failing = check("return redis.call('nosuchcommand')", true);
        assert!(
            failing.is_err(),
            "a script that fails on the nodes is refused: {failing:?}"
        );
    }

    /// A generated question's instance through the call is the one made here.
    #[test]
    fn a_question_made_through_the_call_is_the_one_made_here() {
        use crate::lesson::generate::{instance_in, needs_engine, Instance, InstanceJob};
        let questions = crate::lesson::content::compiled_questions();
        let mut made = 0;
        for q in questions.iter().filter(|q| needs_engine(q)) {
            let job = InstanceJob {
                question: q.clone(),
                lang: crate::lesson::content::Lang::Nb,
                seed: 99,
                scenarios: Vec::new(),
            };
            let got: Instance =
                crate::wire::from_text(&call("question", &crate::wire::to_text(&job).unwrap()).unwrap())
                    .unwrap();
            assert_eq!(got, instance_in(q, job.lang, 99, &[]), "{}", q.id);
            made += 1;
        }
        assert!(made >= 5, "{made} questions need the engine");
    }
}
