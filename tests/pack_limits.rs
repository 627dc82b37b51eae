//! Hostile packs, scenarios and progress files (issue #21): each ends in a clear error
//! naming file, line and field, within a bound, with the process alive. Bounds are
//! asserted by structure or by counting work (bytes handed to the parsers), never by
//! timing; the times measured for the report are in `docs/authoring.md`'s limits table.

use lockstep::lesson::content::build_lesson;
use lockstep::lesson::markdown::{self, Node, MAX_DEPTH};
use lockstep::lesson::pack::{self, PackError};
use lockstep::lesson::progress::{Progress, Score};
use lockstep::lesson::Lang;
use std::path::{Path, PathBuf};

fn show(errors: &[PackError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

/// A single-file pack: the header, then `sections` sections whose body is `body`.
fn single(title: &str, sections: usize, body: &str) -> String {
    let mut out = format!("id = \"h\"\nlanguages = [\"en\"]\ntitle = {{ en = \"{title}\" }}\n");
    for i in 0..sections {
        out.push_str(&format!(
            "\n[[section]]\nlang = \"en\"\nid = \"s{i}\"\ntitle = \"S{i}\"\norder = {}\nbody = '''\n{body}\n'''\n",
            i + 1
        ));
    }
    out
}

fn load_one(name: &str, text: String) -> Result<pack::Pack, Vec<PackError>> {
    pack::load_files(&[(name.to_string(), text)])
}

fn errors_of(r: Result<pack::Pack, Vec<PackError>>) -> Vec<PackError> {
    match r {
        Ok(p) => panic!("expected errors, the pack loaded: {}", p.summary()),
        Err(e) => e,
    }
}

/// The deepest nesting of a document tree, walked with a stack.
fn depth(nodes: &[Node]) -> usize {
    let mut deepest = 0;
    let mut todo: Vec<(&Node, usize)> = nodes.iter().map(|n| (n, 1)).collect();
    while let Some((n, d)) = todo.pop() {
        deepest = deepest.max(d);
        todo.extend(n.children().iter().map(|c| (c, d + 1)));
    }
    deepest
}

// ---------------------------------------------------------------------------------------
// Nesting

#[test]
fn deep_nesting_is_rejected_with_its_line_on_a_small_stack() {
    // 50 000 `>` overflowed check-pack's 8 MB stack; here the whole load runs on 256 KB.
    let text = single("T", 1, &format!("Fine.\n\n{} x", ">".repeat(50_000)));
    let errors = std::thread::Builder::new()
        .stack_size(256 * 1024)
        .spawn(move || errors_of(load_one("deep.toml", text)))
        .and_then(|h| h.join().map_err(|_| std::io::Error::other("the load panicked")))
        .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(errors.len(), 1, "{}", show(&errors));
    let e = &errors[0];
    // The header is 3 lines, the body starts on line 11 ("Fine."): the quotes are on 13.
    assert_eq!(
        (e.file.as_str(), e.line, e.field.as_str()),
        ("deep.toml", 13, "body"),
        "{e}"
    );
    assert!(e.message.contains(&format!("at most {MAX_DEPTH}")), "{e}");
}

#[test]
fn the_markdown_tree_is_never_deeper_than_the_bound() {
    for (md, deep) in [
        ("> ".repeat(5_000) + "x", true),
        ("*".repeat(3_000) + "x" + &"*".repeat(3_000), true),
        (
            (0..500).map(|i| format!("{}- x\n", "  ".repeat(i))).collect(),
            true,
        ),
        // Links cannot contain links: this one is flat in any case.
        ("[".repeat(3_000) + "x" + &"](#/a/1)".repeat(3_000), false),
    ] {
        let doc = markdown::parse(&md);
        assert!(depth(&doc) <= MAX_DEPTH + 1, "depth {}", depth(&doc));
        // The text survives the flattening.
        assert!(doc.iter().map(Node::text).collect::<String>().contains('x'));
        assert_eq!(markdown::too_deep(&md).is_some(), deep);
    }
    // Ordinary prose is not touched.
    let md = "> a *b [c](https://x.example) **d**\n>\n> - e\n>   - f\n";
    assert_eq!(markdown::too_deep(md), None);
    assert!(depth(&markdown::parse(md)) <= 6);
}

// ---------------------------------------------------------------------------------------
// Paths: checked before the file system sees them

/// A fresh folder pack in the temp dir listing `files`.
fn folder_pack(name: &str, files: &[&str]) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("lockstep-limits-{}-{name}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(dir.join("sections/en")).unwrap_or_else(|e| panic!("{e}"));
    let listed: Vec<String> = files.iter().map(|f| format!("  \"{f}\",\n")).collect();
    let text = format!(
        "id = \"h\"\nlanguages = [\"en\"]\ntitle = {{ en = \"T\" }}\nfiles = [\n{}]\n",
        listed.concat()
    );
    std::fs::write(dir.join("pack.toml"), text).unwrap_or_else(|e| panic!("{e}"));
    dir
}

const SECTION: &str = "+++\nid = \"a\"\ntitle = \"A\"\norder = 1\n+++\nText.\n";

#[test]
fn absolute_and_escaping_paths_are_refused_without_being_opened() {
    // `/dev/zero` read until memory ran out: it must not even be opened.
    let dir = folder_pack(
        "paths",
        &[
            "/dev/zero",
            "../outside.md",
            "/etc/passwd",
            "sections/en/../../x.md",
        ],
    );
    let errors = errors_of(pack::load_dir(&dir));
    let text = show(&errors);
    for (line, path) in [
        (5, "/dev/zero"),
        (6, "../outside.md"),
        (7, "/etc/passwd"),
        (8, "sections/en/../../x.md"),
    ] {
        assert!(
            errors.iter().any(|e| e.line == line
                && e.field == "files"
                && e.message.contains(path)
                && e.message.contains("not a plain relative path")),
            "{path} at line {line}:\n{text}"
        );
    }
    assert!(!text.contains("cannot read"), "nothing may be opened:\n{text}");
}

#[cfg(unix)]
#[test]
fn symbolic_links_out_of_the_pack_are_refused() {
    use std::os::unix::fs::symlink;
    // A valid section outside the pack, reached by a linked file and by a linked folder.
    let outside = std::env::temp_dir().join(format!("lockstep-limits-{}-outside", std::process::id()));
    std::fs::create_dir_all(outside.join("en")).unwrap_or_else(|e| panic!("{e}"));
    std::fs::write(outside.join("en/01-a.md"), SECTION).unwrap_or_else(|e| panic!("{e}"));

    let dir = folder_pack("link-file", &["sections/en/01-a.md"]);
    symlink(outside.join("en/01-a.md"), dir.join("sections/en/01-a.md")).unwrap_or_else(|e| panic!("{e}"));
    let errors = errors_of(pack::load_dir(&dir));
    assert!(
        errors.iter().any(|e| e.file.ends_with("sections/en/01-a.md")
            && e.field == "file"
            && e.message.contains("outside the pack")),
        "{}",
        show(&errors)
    );

    let dir = folder_pack("link-dir", &["sections/en/01-a.md"]);
    std::fs::remove_dir_all(dir.join("sections")).unwrap_or_else(|e| panic!("{e}"));
    symlink(&outside, dir.join("sections")).unwrap_or_else(|e| panic!("{e}"));
    let errors = errors_of(pack::load_dir(&dir));
    assert!(
        errors.iter().any(|e| e.message.contains("outside the pack")),
        "{}",
        show(&errors)
    );

    // A link that stays inside the pack is fine.
    let dir = folder_pack("link-inside", &["sections/en/01-a.md"]);
    std::fs::write(dir.join("sections/a.txt"), SECTION).unwrap_or_else(|e| panic!("{e}"));
    symlink(dir.join("sections/a.txt"), dir.join("sections/en/01-a.md")).unwrap_or_else(|e| panic!("{e}"));
    pack::load_dir(&dir).unwrap_or_else(|e| panic!("{}", show(&e)));
}

#[cfg(unix)]
#[test]
fn a_fifo_or_a_folder_is_not_opened() {
    let dir = folder_pack("fifo", &["sections/en/01-a.md", "sections/en/02-b.md"]);
    let fifo = dir.join("sections/en/01-a.md");
    let made = std::process::Command::new("mkfifo").arg(&fifo).status();
    assert!(made.is_ok_and(|s| s.success()), "mkfifo");
    std::fs::create_dir_all(dir.join("sections/en/02-b.md")).unwrap_or_else(|e| panic!("{e}"));
    // Opening the FIFO would block for ever; the load returns instead.
    let errors = errors_of(pack::load_dir(&dir));
    for name in ["01-a.md", "02-b.md"] {
        assert!(
            errors.iter().any(|e| e.file.ends_with(name)
                && e.field == "file"
                && e.message.contains("not a regular file")),
            "{name}:\n{}",
            show(&errors)
        );
    }
}

#[test]
fn a_file_over_the_limit_is_not_read() {
    let dir = folder_pack("big", &["sections/en/01-a.md"]);
    let big = format!("{SECTION}{}", "word ".repeat(pack::MAX_FILE_BYTES / 5 + 1));
    std::fs::write(dir.join("sections/en/01-a.md"), big).unwrap_or_else(|e| panic!("{e}"));
    let errors = errors_of(pack::load_dir(&dir));
    assert!(
        errors.iter().any(|e| e.file.ends_with("01-a.md")
            && e.field == "file"
            && e.message.contains(&format!("at most {}", pack::MAX_FILE_BYTES))),
        "{}",
        show(&errors)
    );
    // A single-file pack over the limit too.
    let file = dir.join("big.toml");
    std::fs::write(
        &file,
        single("T", 1, &"word ".repeat(pack::MAX_FILE_BYTES / 5 + 1)),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let errors = errors_of(pack::load_dir(&file));
    assert_eq!(errors.len(), 1, "{}", show(&errors));
    assert!(errors[0].message.contains("bytes; at most"), "{}", errors[0]);
}

// ---------------------------------------------------------------------------------------
// Sizes and counts

#[test]
fn a_pack_file_over_the_limit_is_refused_before_parsing() {
    let text = single("T", 1, &"word ".repeat(pack::MAX_FILE_BYTES / 5 + 1));
    let (r, parsed) = pack::load_files_counted(&[("big.toml".into(), text)]);
    let errors = errors_of(r);
    assert_eq!(
        (errors[0].line, errors[0].field.as_str()),
        (1, "file"),
        "{}",
        errors[0]
    );
    assert_eq!(parsed, 0, "nothing is parsed");
    // Files that are each small but together too heavy.
    let small = single("T", 1, "Text.");
    let mut files = vec![("p/pack.toml".to_string(), small)];
    for i in 0..5 {
        files.push((
            format!("p/sections/en/0{i}-x.md"),
            "x".repeat(pack::MAX_FILE_BYTES),
        ));
    }
    let errors = errors_of(pack::load_files(&files));
    assert!(
        errors[0]
            .message
            .contains(&format!("at most {}", pack::MAX_PACK_BYTES)),
        "{}",
        show(&errors)
    );
}

#[test]
fn too_many_sections_are_an_error_at_the_first_one_too_many() {
    let text = single("T", pack::MAX_SECTIONS + 5, "Text.");
    // Each section is 9 lines with its blank line; the header is 3.
    let line = 3 + 9 * pack::MAX_SECTIONS + 2;
    let errors = errors_of(load_one("many.toml", text));
    assert_eq!(errors.len(), 1, "{}", show(&errors));
    assert_eq!(
        (errors[0].line, errors[0].field.as_str()),
        (line, "section"),
        "{}",
        errors[0]
    );
    assert!(errors[0]
        .message
        .contains(&format!("more than {}", pack::MAX_SECTIONS)));
}

#[test]
fn too_many_questions_and_scenarios_are_errors() {
    let mut text = single("T", 1, "Text.");
    for i in 0..=pack::MAX_QUESTIONS {
        text.push_str(&format!(
            "\n[[question]]\nid = \"q{i}\"\nsection = \"s0\"\nkind = \"single\"\ncorrect = [0]\n[question.en]\nprompt = \"P\"\noptions = [\"A\", \"B\"]\nexplanations = [\"Y\", \"N\"]\n"
        ));
    }
    for i in 0..=pack::MAX_SCENARIOS {
        text.push_str(&format!("\n[[scenario]]\nsource = '''\nname = \"x{i}\"\n'''\n"));
    }
    let errors = errors_of(load_one("many.toml", text));
    let fields: Vec<&str> = errors.iter().map(|e| e.field.as_str()).collect();
    assert!(
        fields.contains(&"question") && fields.contains(&"scenario"),
        "{}",
        show(&errors)
    );
    assert!(errors.len() <= pack::MAX_ERRORS);
}

#[test]
fn long_titles_and_big_scenarios_are_errors() {
    let text = single(&"x".repeat(pack::MAX_TITLE_CHARS + 1), 1, "Text.");
    let errors = errors_of(load_one("t.toml", text));
    assert_eq!(
        (errors[0].line, errors[0].field.as_str()),
        (3, "title"),
        "{}",
        show(&errors)
    );
    let mut text = single("T", 1, "Text.");
    text.push_str(&format!(
        "\n[[scenario]]\nsource = '''\nname = \"big\"\ndescription = \"{}\"\n'''\n",
        "d".repeat(pack::MAX_SCENARIO_BYTES)
    ));
    let errors = errors_of(load_one("s.toml", text));
    assert_eq!(
        (errors[0].line, errors[0].field.as_str()),
        (16, "source"),
        "{}",
        show(&errors)
    );
}

#[test]
fn loading_is_linear_in_the_size_of_the_pack() {
    // The bytes handed to the parsers, per byte of pack, do not grow with the number of
    // sections (cutting each [[section]] out of the file used to copy everything before it).
    let ratio = |n: usize| {
        let text = single("T", n, &"Some prose that is long enough. ".repeat(20));
        let len = text.len();
        let (r, parsed) = pack::load_files_counted(&[("l.toml".into(), text)]);
        r.unwrap_or_else(|e| panic!("{}", show(&e)));
        parsed as f64 / len as f64
    };
    let (small, large) = (ratio(10), ratio(pack::MAX_SECTIONS));
    assert!(large < 6.0, "{large} bytes parsed per byte of pack");
    assert!(
        large <= small * 1.2,
        "{small} → {large}: the work grows faster than the pack"
    );
}

#[test]
fn errors_are_capped_with_a_count_of_the_rest() {
    let mut text = single("T", 1, "Text.");
    for i in 0..500 {
        text.push_str(&format!(
            "\n[[question]]\nid = \"q{i}\"\nsection = \"nope\"\nkind = \"single\"\ncorrect = [0]\n[question.en]\nprompt = \"P\"\noptions = [\"A\", \"B\"]\nexplanations = [\"Y\", \"N\"]\n"
        ));
    }
    let errors = errors_of(load_one("e.toml", text));
    assert_eq!(errors.len(), pack::MAX_ERRORS);
    assert!(
        errors[pack::MAX_ERRORS - 1].message.contains("more errors"),
        "{}",
        errors[pack::MAX_ERRORS - 1]
    );
}

// ---------------------------------------------------------------------------------------
// Scenarios

#[test]
fn sweep_ttls_and_scripts_are_checked_when_a_scenario_loads() {
    use lockstep::sim::scenario::parse;
    let base = "name = \"x\"\n[[nodes]]\nname = \"R\"\n";
    for (extra, line, field) in [
        ("sweep_ttl_ms = [300, 0]\n", 1, "sweep_ttl_ms"),
        ("sweep_ttl_ms = [1e300]\n", 1, "sweep_ttl_ms"),
        (
            &format!("sweep_ttl_ms = [{}]\n", vec!["100"; 17].join(", ")),
            1,
            "sweep_ttl_ms",
        ),
    ] {
        let src = format!("{extra}{base}");
        let e = parse("s.toml", &src).err().unwrap_or_else(|| panic!("{src}"));
        assert_eq!((e.line, e.field.as_str()), (Some(line), field), "{e}");
    }
    for (script, message) in [
        ("release = \"return (\"", "does not compile"),
        ("release = \"  \"", "empty"),
        (&format!("extend = \"{}\"", "-".repeat(20_000)), "bytes"),
    ] {
        let src = format!("{base}\n[scripts]\n{script}\n");
        let e = parse("s.toml", &src).err().unwrap_or_else(|| panic!("{src}"));
        assert_eq!(e.line, Some(6), "{e}");
        assert!(e.field.starts_with("scripts."), "{e}");
        assert!(e.message.contains(message), "{e}");
    }
    let ok = format!("sweep_ttl_ms = [300, 800]\n{base}\n[scripts]\nrelease = \"return 1\"\n");
    assert!(parse("s.toml", &ok).is_ok());
}

#[test]
fn a_scenario_file_is_reproduced_by_its_path() {
    let dir = std::env::temp_dir().join(format!("lockstep-limits-{}-run", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{e}"));
    let file = dir.join("my scenario.toml");
    std::fs::write(
        &file,
        "name = \"named-differently\"\nend_ms = 10\n[[nodes]]\nname = \"R\"\n",
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let path = file.to_string_lossy().to_string();
    let text = lockstep::sim::cli::cmd_run(&path, 5, false).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains(&format!("reproduce with: lockstep run '{path}' --seed 5")),
        "{text}"
    );
    let text = lockstep::sim::cli::cmd_run("fencing", 5, false).unwrap_or_else(|e| panic!("{e}"));
    assert!(
        text.contains("reproduce with: lockstep run fencing --seed 5"),
        "{text}"
    );
}

// ---------------------------------------------------------------------------------------
// Progress

fn lesson() -> lockstep::lesson::Lesson {
    let f =
        |id: &str, order: u32| format!("+++\nid = \"{id}\"\ntitle = \"T\"\norder = {order}\n+++\nBody.\n");
    let files = [f("a", 1), f("b", 2)];
    build_lesson("l", Lang::En, files.iter().map(|s| ("x.md", s.as_str())))
        .unwrap_or_else(|e| panic!("{e:?}"))
}

fn two_questions() -> Vec<lockstep::lesson::quiz::Question> {
    let p = pack::load_files(&[(
        "q.toml".into(),
        format!(
            "{}{}",
            single("T", 1, "Text."),
            (1..=2)
                .map(|i| format!("\n[[question]]\nid = \"q{i}\"\nsection = \"s0\"\nkind = \"single\"\ncorrect = [0]\n[question.en]\nprompt = \"P\"\noptions = [\"A\", \"B\"]\nexplanations = [\"Y\", \"N\"]\n"))
                .collect::<String>()
        ),
    )])
    .unwrap_or_else(|e| panic!("{}", show(&e)));
    p.questions
}

#[test]
fn an_import_cannot_wrap_a_score_or_make_progress_worse() {
    let mut mine = Progress::new();
    mine.set_quick_check("l", Score { correct: 2, total: 2 });
    mine.visit("l", "a", 1);
    // 1000 × 2 vs 2 × 2147483649: the second wraps to 2 in u32, so the import "won".
    let hostile = r#"{"v":2,"lessons":{"l":{"visited":["a","b","zz","yy"],"last":99,
        "questions":{"q1":{"attempts":3,"solved":true},"nope":{"attempts":9,"solved":true}},
        "quick_check":{"correct":1000,"total":2147483649}},"other":{"visited":["x"]}}}"#;
    let (theirs, why) = Progress::load(Some(hostile));
    assert_eq!(why, None);
    let before = mine.clone();
    mine.merge(&theirs.fit_to(&lesson(), &two_questions()));
    let l = mine.lesson("l").unwrap_or_else(|| panic!("lesson"));
    assert_eq!(
        l.quick_check,
        Some(Score { correct: 2, total: 2 }),
        "the score stays 2 of 2"
    );
    assert_eq!(mine.visited_count("l"), 2, "only sections the lesson has: 2 of 2");
    assert_eq!(l.last, Some(1), "the resume point stays one the lesson has");
    assert_eq!(l.questions.keys().collect::<Vec<_>>(), vec!["q1"]);
    assert!(mine.lesson("other").is_none());
    // Nothing the learner had is lost.
    for id in before.lesson("l").map(|l| l.visited.clone()).unwrap_or_default() {
        assert!(mine.is_visited("l", &id));
    }
    // Even without fitting, the comparison itself no longer wraps.
    let mut raw = before.clone();
    raw.merge(&theirs);
    assert_eq!(
        raw.lesson("l").and_then(|l| l.quick_check),
        Some(Score { correct: 2, total: 2 })
    );
}

#[test]
fn impossible_scores_are_dropped_and_better_ones_kept() {
    let qs = two_questions();
    for (correct, total, kept) in [
        (3, 2, false),
        (1, 0, false),
        (0, 3, false),
        (2, 2, true),
        (1, 2, true),
    ] {
        let mut p = Progress::new();
        p.set_quick_check("l", Score { correct, total });
        let fitted = p.fit_to(&lesson(), &qs);
        assert_eq!(
            fitted.lesson("l").and_then(|l| l.quick_check).is_some(),
            kept,
            "{correct} of {total}"
        );
    }
    let mut mine = Progress::new();
    mine.set_quick_check("l", Score { correct: 1, total: 2 });
    let mut theirs = Progress::new();
    theirs.set_quick_check("l", Score { correct: 2, total: 2 });
    mine.merge(&theirs.fit_to(&lesson(), &qs));
    assert_eq!(
        mine.lesson("l").and_then(|l| l.quick_check),
        Some(Score { correct: 2, total: 2 })
    );
}

#[test]
fn the_hostile_packs_are_in_the_fuzz_corpus() {
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("fuzz/corpus/pack_loader");
    for seed in ["seed-deep-nesting", "seed-many-sections", "seed-escaping-paths"] {
        assert!(corpus.join(seed).is_file(), "{seed}");
    }
}

#[test]
fn deep_nesting_in_a_question_text_is_rejected_with_its_line() {
    let mut text = single("T", 1, "Text.");
    text.push_str(&format!(
        "\n[[question]]\nid = \"q\"\nsection = \"s0\"\nkind = \"single\"\ncorrect = [0]\n[question.en]\nprompt = \"{} x\"\noptions = [\"A\", \"B\"]\nexplanations = [\"Y\", \"N\"]\n",
        ">".repeat(5_000)
    ));
    let errors = errors_of(load_one("q.toml", text));
    assert_eq!(errors.len(), 1, "{}", show(&errors));
    // Lines: header 3, the section 9, a blank line, 6 of the question: `prompt` is 20.
    assert_eq!(
        (errors[0].line, errors[0].field.as_str()),
        (20, "prompt"),
        "{}",
        errors[0]
    );
    assert!(errors[0].message.contains("nested"), "{}", errors[0]);
}

#[test]
fn the_reader_fits_an_import_to_its_lesson() {
    use lockstep::lesson::route::Route;
    use lockstep::lesson::state::{Action, Lessons, ReaderState};
    let lessons = std::rc::Rc::new(Lessons {
        en: lesson(),
        nb: lesson(),
        questions: two_questions(),
        pack_title: None,
    });
    let mut mine = Progress::new();
    mine.set_quick_check("l", Score { correct: 2, total: 2 });
    let state = ReaderState::new(lessons, Lang::En, Route::Home, mine);
    let visited: Vec<String> = (0..200_000).map(|i| format!("\"x{i}\"")).collect();
    let hostile = format!(
        r#"{{"v":2,"lessons":{{"l":{{"visited":[{}],"quick_check":{{"correct":1000,"total":2147483649}}}}}}}}"#,
        visited.join(",")
    );
    let (theirs, _) = Progress::load(Some(&hostile));
    let next = state.reduce(Action::Import(theirs));
    assert_eq!(
        next.progress.visited_count("l"),
        0,
        "none of 200 000 unknown ids (and nothing is read on arrival)"
    );
    assert_eq!(
        next.progress.lesson("l").and_then(|l| l.quick_check),
        Some(Score { correct: 2, total: 2 })
    );
}
