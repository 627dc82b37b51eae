//! Lesson packs, natively: the example pack loads, the broken pack reports every mistake
//! with its file, line and field, the XSS pack is inert, a single-file pack works, the
//! built-in lesson loads as a pack, and `lockstep check-pack` exits as it should.

mod cli_common;
use cli_common::lockstep;

use lockstep::lesson::markdown::{self, Node};
use lockstep::lesson::pack::{self, Pack, PackError};
use lockstep::lesson::quiz::Kind;
use lockstep::lesson::Lang;
use std::process::Command;

fn root(rel: &str) -> String {
    format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"))
}

fn load(rel: &str) -> Result<Pack, Vec<PackError>> {
    pack::load_dir(root(rel))
}

fn show(errors: &[PackError]) -> String {
    errors
        .iter()
        .map(ToString::to_string)
        .collect::<Vec<_>>()
        .join("\n")
}

#[test]
fn the_example_pack_loads_with_the_expected_counts() {
    let p = load("packs/example").unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(p.id, "leases");
    assert_eq!(p.langs, vec![Lang::En, Lang::Nb]);
    assert_eq!(p.title(Lang::Nb), "Låser som leieavtaler");
    for lang in [Lang::En, Lang::Nb] {
        let lesson = p.lesson(lang).expect("lesson");
        assert_eq!(lesson.id, "leases");
        let ids: Vec<(&str, u32)> = lesson.sections.iter().map(|s| (s.id.as_str(), s.order)).collect();
        assert_eq!(ids, vec![("lease", 1), ("renew", 2)], "{}", lang.code());
    }
    assert_ne!(
        p.lessons[&Lang::En].sections[0].body,
        p.lessons[&Lang::Nb].sections[0].body
    );
    assert_eq!(p.questions.len(), 6);
    assert_eq!(p.questions_for("lease").count(), 3);
    let kinds: Vec<&str> = p
        .questions
        .iter()
        .map(|q| match q.kind {
            Kind::Single { .. } => "single",
            Kind::Numeric { .. } => "numeric",
            Kind::Predict { .. } => "predict",
            Kind::Order => "order",
            Kind::Bug { .. } => "bug",
            Kind::Generated(_) => "generated",
            Kind::Multiple { .. } => "multiple",
        })
        .collect();
    assert_eq!(
        kinds,
        ["single", "numeric", "predict", "order", "bug", "generated"]
    );
    assert_eq!(p.scenarios.len(), 1);
    assert!(p.scenario("lease-short").is_some());
    assert_eq!(
        p.summary(),
        "pack leases (Lock leases): en 2 sections, nb 2 sections; 6 questions; 1 scenario"
    );
}

#[test]
fn the_example_scenario_shows_what_its_lesson_says() {
    let p = load("packs/example").unwrap_or_else(|e| panic!("{}", show(&e)));
    let s = p.scenario("lease-short").expect("scenario");
    let run = lockstep::sim::run(s, 1, lockstep::sim::TraceLevel::Semantic).expect("runs");
    let kinds: Vec<&str> = run.outcome.violations.iter().map(|v| v.kind.as_str()).collect();
    assert_eq!(kinds, ["overlap", "stale_write"]);
    // The predict question pauses before B gets in (about 1 083 ms).
    let overlap = &run.outcome.violations[0];
    assert!(overlap.from_ms > 900.0 && overlap.from_ms < 1200.0, "{overlap:?}");
}

#[test]
fn files_to_fetch_lists_the_folder_files() {
    let text = std::fs::read_to_string(root("packs/example/pack.toml")).expect("readable");
    let files = pack::files_to_fetch("pack.toml", &text).unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(files.len(), 7);
    assert_eq!(files[0], "sections/en/01-lease.md");
    // The browser's path: the fetched texts, relative names, no filesystem.
    let mut given = vec![("pack.toml".to_string(), text)];
    for f in &files {
        let t = std::fs::read_to_string(root(&format!("packs/example/{f}"))).expect("readable");
        given.push((f.clone(), t));
    }
    let p = pack::load_files(&given).unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(p.questions.len(), 6);
    // A file the browser could not fetch is reported by name, at its line in pack.toml.
    given.remove(3);
    let errors = pack::load_files(&given).unwrap_err();
    assert_eq!(errors.len(), 1, "{}", show(&errors));
    assert_eq!(
        errors[0].to_string(),
        "pack.toml:10: files: `sections/nb/01-lease.md` is listed but was not found"
    );
}

#[test]
fn the_broken_pack_reports_every_mistake_with_file_line_and_field() {
    let errors = load("packs/broken").unwrap_err();
    let got: Vec<(String, usize, &str)> = errors
        .iter()
        .map(|e| {
            let file = e.file.rsplit("packs/broken/").next().unwrap_or("").to_string();
            (file, e.line, e.field.as_str())
        })
        .collect();
    let expected = [
        ("pack.toml", 4, "languages"),
        ("pack.toml", 11, "files"),
        ("quiz/01-start.toml", 6, "correct"),
        ("quiz/02-more.toml", 1, "section"),
        ("quiz/02-more.toml", 19, "scenario"),
        ("quiz/03-unlisted.toml", 1, "file"),
        ("scenarios/bad-type.toml", 11, "ttl_ms"),
        ("scenarios/taken-name.toml", 1, "name"),
        ("sections/en/01-start.md", 10, "scenario"),
        ("sections/en/01-start.md", 13, "body"),
        ("sections/en/01-start.md", 19, "guide"),
        ("sections/nb/02-more.md", 4, "order"),
    ];
    let expected: Vec<(String, usize, &str)> =
        expected.iter().map(|(f, l, x)| (f.to_string(), *l, *x)).collect();
    assert_eq!(got, expected, "{}", show(&errors));
    let text = show(&errors);
    for needle in [
        "`de` is not a supported language",
        "`sections/en/03-missing.md` is listed but was not found",
        "option 4 does not exist",
        "`nowhere` is not a section of this pack",
        "`nowhere-to-be-found` is neither a scenario of this pack nor a built-in one",
        "not listed in the pack file's `files`",
        "invalid type: string \"ten\"",
        "`unsafe-del` is the name of a built-in scenario",
        "`no-such-scenario` is neither",
        "`#/broken/9` points to section 9",
        "has order 2 in en but 3 in nb",
        "answers may only lead forward, and this one leads from question 1 to 1",
    ] {
        assert!(text.contains(needle), "missing {needle:?} in\n{text}");
    }
    // Display is `file:line: field: message`.
    assert!(errors[0]
        .to_string()
        .ends_with("pack.toml:4: languages: `de` is not a supported language (supported: en, nb)"));
}

/// The elements `markdown::parse` may produce: anything else would be a hole.
const ALLOWED: &[&str] = &[
    "p",
    "h1",
    "h2",
    "h3",
    "h4",
    "h5",
    "h6",
    "blockquote",
    "ol",
    "ul",
    "li",
    "table",
    "thead",
    "tbody",
    "tr",
    "th",
    "td",
    "em",
    "strong",
    "del",
    "br",
    "hr",
];

fn assert_inert(nodes: &[Node], context: &str) {
    for n in nodes {
        match n {
            Node::Element { tag, children, .. } => {
                assert!(ALLOWED.contains(tag), "{context}: element <{tag}>");
                assert_inert(children, context);
            }
            Node::Link { href, children, .. } => {
                let lower = href.to_ascii_lowercase();
                assert!(
                    lower.starts_with("https://") || lower.starts_with("http://") || href.starts_with("#/"),
                    "{context}: unsafe link {href:?}"
                );
                assert!(
                    !lower.contains("javascript") && !href.chars().any(char::is_control),
                    "{context}: {href:?}"
                );
                assert_inert(children, context);
            }
            Node::Text(_) | Node::InlineCode(_) | Node::CodeBlock { .. } => {}
        }
    }
}

#[test]
fn the_xss_pack_is_inert() {
    let p = load("packs/xss").unwrap_or_else(|e| panic!("{}", show(&e)));
    let mut all_links = Vec::new();
    let mut all_text = String::new();
    for lesson in p.lessons.values() {
        for s in &lesson.sections {
            let doc = markdown::parse(&s.body);
            assert_inert(&doc, &s.file);
            all_links.extend(markdown::links(&doc));
            all_text.extend(doc.iter().map(Node::text));
            // Titles are rendered as text: kept verbatim, never parsed as markup.
            assert!(s.title.contains('<'), "{}", s.title);
        }
    }
    // Only the two safe links survive, out of dozens of attempts.
    assert_eq!(
        all_links,
        vec!["https://example.com", "https://redis.io", "#/xss/2"]
    );
    // The attempts are still there, as text the learner can read.
    for shown in [
        "<script>alert('block')</script>",
        "<img src=x onerror=alert(1)>",
        "<script>alert('entity')</script>",
    ] {
        assert!(all_text.contains(shown), "{shown} is not shown as text");
    }
    // Question texts are rendered with the same Markdown (inline): the same guarantees.
    assert_eq!(p.questions.len(), 3);
    for q in &p.questions {
        for lang in [Lang::En, Lang::Nb] {
            let t = q.texts(lang);
            let texts = std::iter::once(&t.prompt)
                .chain(&t.options)
                .chain(&t.explanations)
                .chain(std::iter::once(&t.explanation))
                .chain(&t.items)
                .chain(t.unit.iter());
            for text in texts {
                let doc = markdown::parse(text);
                assert_inert(&doc, &q.id);
                for href in markdown::links(&doc) {
                    assert_eq!(href, "https://example.com", "{}", q.id);
                }
            }
        }
    }
    // Scenario names are slugs; descriptions and process names are only ever text.
    let s = p.scenario("xss-names").expect("scenario");
    assert!(s.description.contains("<script>"));
    assert!(p.title(Lang::En).starts_with("<script>"));
}

#[test]
fn a_pack_cannot_point_the_app_elsewhere() {
    let base = "id = \"p\"\nlanguages = [\"en\"]\ntitle = { en = \"P\" }\n";
    for bad in [
        "https://evil.example/x.md",
        "../secrets/x.md",
        "sections/en/../../x.md",
        "/etc/passwd",
        "sections/en/a b.md",
        "sections/en/x.md?y",
        "javascript:alert(1)",
        "sections/de/01-x.md",
        "notes/x.md",
    ] {
        let text = format!("{base}files = [\"{bad}\"]\n");
        let errors = pack::files_to_fetch("pack.toml", &text).unwrap_err();
        assert_eq!((errors[0].line, errors[0].field.as_str()), (4, "files"), "{bad}");
    }
}

#[test]
fn a_single_file_pack_works_and_maps_its_lines() {
    let p = load("packs/single/lease-mini.toml").unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(p.id, "lease-mini");
    assert_eq!(
        p.lessons[&Lang::Nb].sections[0].title,
        "En leieavtale i korte trekk"
    );
    assert!(p.lessons[&Lang::En].sections[0]
        .body
        .starts_with("A Redis lock with a TTL"));
    assert_eq!(p.questions.len(), 2);
    assert!(
        matches!(&p.questions[1].kind, Kind::Predict { scenario, pause_at_ms: 400 } if scenario == "lease-mini-late")
    );
    assert_eq!(p.questions[1].section, "lease-in-short");
    assert_eq!(p.scenarios[0].name, "lease-mini-late");

    // Mistakes in every part of the one file, each at its own line of that file.
    let text = std::fs::read_to_string(root("packs/single/lease-mini.toml")).expect("readable");
    let broken = text
        .replacen("lang = \"en\"\nid", "lang = \"en\"\nonload = \"alert(1)\"\nid", 1)
        .replacen(
            "title = \"En leieavtale i korte trekk\"\norder = 1",
            "title = \"En leieavtale i korte trekk\"\norder = 0",
            1,
        )
        .replacen("correct = [0]", "correct = [7]", 1)
        .replacen("ttl_ms = 500\nwork", "ttl_ms = \"x\"\nwork", 1);
    let line_of = |needle: &str| broken.lines().position(|l| l == needle).map_or(0, |i| i + 1);
    let errors = pack::load_files(&[("mini.toml".to_string(), broken.clone())]).unwrap_err();
    let got: Vec<(usize, &str)> = errors.iter().map(|e| (e.line, e.field.as_str())).collect();
    assert_eq!(
        got,
        vec![
            (line_of("onload = \"alert(1)\""), "onload"),
            (line_of("order = 0"), "order"),
            (line_of("correct = [7]"), "correct"),
            (line_of("ttl_ms = \"x\""), "ttl_ms"),
        ],
        "{}",
        show(&errors)
    );
    assert!(errors.iter().all(|e| e.file == "mini.toml"));
    // An inline question naming a missing section, at its `section` line.
    let broken = text.replacen(
        "section = \"lease-in-short\"\nkind = \"predict\"",
        "section = \"nowhere\"\nkind = \"predict\"",
        1,
    );
    let errors = pack::load_files(&[("mini.toml".to_string(), broken.clone())]).unwrap_err();
    let line = broken
        .lines()
        .position(|l| l == "section = \"nowhere\"")
        .map_or(0, |i| i + 1);
    assert_eq!(errors.len(), 1, "{}", show(&errors));
    assert_eq!((errors[0].line, errors[0].field.as_str()), (line, "section"));
}

#[test]
fn the_builtin_lesson_loads_as_a_pack() {
    let p = pack::builtin().unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(p.id, "distributed-locks");
    for lang in [Lang::En, Lang::Nb] {
        assert_eq!(p.lessons[&lang].sections.len(), 12);
    }
    let questions = lockstep::lesson::content::builtin_questions().unwrap_or_default();
    assert_eq!(p.questions.len(), questions.len());
    assert!(p.scenarios.is_empty());
    // A user pack may not take the built-in lesson's id (its routes would collide).
    let errors = pack::load_files(&[(
        "p.toml".into(),
        "id = \"distributed-locks\"\nlanguages = [\"en\"]\ntitle = { en = \"X\" }\n".into(),
    )])
    .unwrap_err();
    assert_eq!((errors[0].line, errors[0].field.as_str()), (1, "id"));
}

#[test]
fn the_compiled_builtin_lesson_is_what_the_loader_makes_of_its_files() {
    // The app starts from `builtin_compiled` (build.rs's output) and validates nothing:
    // it must be, value for value, the pack the full loader reads from content/.
    let loaded = pack::builtin().unwrap_or_else(|e| panic!("{}", show(&e)));
    let compiled = pack::builtin_compiled();
    for lang in [Lang::En, Lang::Nb] {
        let (a, b) = (&loaded.lessons[&lang], &compiled.lessons[&lang]);
        assert_eq!(a.sections.len(), b.sections.len(), "{lang:?}");
        for (x, y) in a.sections.iter().zip(&b.sections) {
            assert_eq!(x, y, "{lang:?} section {}", x.order);
        }
    }
    for (x, y) in loaded.questions.iter().zip(&compiled.questions) {
        assert_eq!(x, y, "question {}", x.id);
    }
    assert_eq!(loaded, compiled);
}

#[test]
fn unreadable_and_garbage_input_is_an_error_never_a_panic() {
    let errors = pack::load_dir("/no/such/pack").unwrap_err();
    assert_eq!(errors.len(), 1);
    assert!(
        errors[0]
            .to_string()
            .starts_with("/no/such/pack:1: file: cannot read"),
        "{}",
        errors[0]
    );
    assert!(pack::load_files(&[]).is_err());
    for garbage in [
        "",
        "\u{0}",
        "id = ",
        "[[section]]\n",
        "[[question]]\n[[scenario]]\n",
        "id = 3\ntitle = 4\nlanguages = 5",
    ] {
        let errors = pack::load_files(&[("g.toml".into(), garbage.into())]).unwrap_err();
        assert!(!errors.is_empty(), "{garbage:?}");
        assert!(
            errors.iter().all(|e| e.line >= 1 && e.file == "g.toml"),
            "{}",
            show(&errors)
        );
    }
    // A section file of invalid UTF-8 is named, and the rest is still checked.
    let dir = std::env::temp_dir().join(format!("lockstep-pack-{}", std::process::id()));
    let _ = std::fs::create_dir_all(dir.join("sections/en"));
    let _ = std::fs::write(
        dir.join("pack.toml"),
        "id = \"t\"\nlanguages = [\"en\"]\ntitle = { en = \"T\" }\nfiles = [\"sections/en/01-a.md\"]\n",
    );
    let _ = std::fs::write(dir.join("sections/en/01-a.md"), [0xff, 0xfe, 0x00]);
    let errors = pack::load_dir(&dir).unwrap_err();
    let text = show(&errors);
    assert!(
        text.contains("sections/en/01-a.md:1: file: cannot read"),
        "{text}"
    );
    assert!(!text.contains("listed but was not found"), "{text}");
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn check_pack_exits_zero_with_a_summary_for_a_valid_pack() {
    let (ok, out, err) = lockstep(&["check-pack", &root("packs/example")]);
    assert!(ok, "{err}");
    assert_eq!(
        out,
        "pack leases (Lock leases): en 2 sections, nb 2 sections; 6 questions; 1 scenario\n"
    );
    let (ok, out, _) = lockstep(&["check-pack", &root("packs/single/lease-mini.toml")]);
    assert!(ok);
    assert!(
        out.contains("en 1 section, nb 1 section; 2 questions; 1 scenario"),
        "{out}"
    );
    let (ok, _, _) = lockstep(&["check-pack", &root("packs/example/pack.toml")]);
    assert!(ok);
}

#[test]
fn check_pack_prints_every_error_and_fails() {
    let (ok, out, err) = lockstep(&["check-pack", &root("packs/broken")]);
    assert!(!ok);
    assert!(out.is_empty(), "{out}");
    let lines: Vec<&str> = err.lines().collect();
    assert_eq!(lines.len(), 12, "{err}");
    assert!(lines[0].ends_with(
        "packs/broken/pack.toml:4: languages: `de` is not a supported language (supported: en, nb)"
    ));
    assert!(lines.iter().any(|l| l.ends_with(
        "packs/broken/scenarios/bad-type.toml:11: ttl_ms: invalid type: string \"ten\", expected f64"
    )));
    assert!(!err.contains("panicked"));
    let (ok, out, err) = lockstep(&["check-pack", "/no/such/pack"]);
    assert!(!ok && out.is_empty());
    assert_eq!(err.lines().count(), 1, "{err}");
}

#[test]
fn a_predict_question_on_the_packs_own_scenario_has_an_answer() {
    use lockstep::lesson::generate::{instance_in, Body};
    let pack = lockstep::lesson::pack::load_dir("packs/example").expect("the example pack loads");
    let q = pack
        .questions
        .iter()
        .find(|q| matches!(q.kind, lockstep::lesson::quiz::Kind::Predict { .. }))
        .expect("the example pack has a predict question");
    let inst = instance_in(q, lockstep::lesson::content::Lang::En, 1, &pack.scenarios);
    let Body::Choice { correct, .. } = &inst.body else {
        panic!("a choice")
    };
    assert_eq!(correct.len(), 1, "the pack's scenario ran and gave the answer");
}

/// A single-file pack in `languages` whose one question carries the `tables` given.
fn one_question_pack(languages: &str, tables: &[&str]) -> String {
    let titles: Vec<String> = ["en", "nb"]
        .iter()
        .filter(|l| languages.contains(*l))
        .map(|l| format!("{l} = \"One {l}\""))
        .collect();
    let mut text = format!(
        "id = \"one-lang\"\nlanguages = [{languages}]\ntitle = {{ {} }}\n",
        titles.join(", ")
    );
    for lang in ["en", "nb"] {
        if languages.contains(lang) {
            text.push_str(&format!(
                "\n[[section]]\nlang = \"{lang}\"\nid = \"intro\"\ntitle = \"Intro {lang}\"\norder = 1\nbody = '''\nText.\n'''\n"
            ));
        }
    }
    text.push_str("\n[[question]]\nid = \"q-one\"\nsection = \"intro\"\nkind = \"single\"\ncorrect = [0]\n");
    for lang in tables {
        text.push_str(&format!(
            "\n[question.{lang}]\nprompt = \"Which ({lang})?\"\noptions = [\"A\", \"B\"]\nexplanations = [\"Yes.\", \"No.\"]\n"
        ));
    }
    text
}

#[test]
fn a_question_needs_the_texts_of_its_packs_languages_only() {
    // An English pack: English texts suffice, and a Norwegian reader sees them.
    let p = pack::load_files(&[("one.toml".into(), one_question_pack("\"en\"", &["en"]))])
        .unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(p.questions.len(), 1);
    assert_eq!(p.questions[0].texts(Lang::Nb).prompt, "Which (en)?");
    assert_eq!(p.lesson(Lang::Nb).map(|l| l.lang), Some(Lang::En));
    // A Norwegian pack likewise.
    let p = pack::load_files(&[("one.toml".into(), one_question_pack("\"nb\"", &["nb"]))])
        .unwrap_or_else(|e| panic!("{}", show(&e)));
    assert_eq!(p.questions[0].texts(Lang::En).prompt, "Which (nb)?");

    // Each language the pack lists is required, named by file, line and field.
    for (languages, tables, field) in [
        ("\"en\", \"nb\"", &["en"][..], "nb"),
        ("\"en\", \"nb\"", &["nb"][..], "en"),
        ("\"en\"", &["nb"][..], "en"),
        ("\"nb\"", &[][..], "nb"),
    ] {
        let text = one_question_pack(languages, tables);
        let errors = pack::load_files(&[("one.toml".into(), text.clone())]).unwrap_err();
        assert_eq!(errors.len(), 1, "{languages} {tables:?}: {}", show(&errors));
        let question_line = 1 + text[..text.find("[[question]]").unwrap()].matches('\n').count();
        assert_eq!(
            (errors[0].file.as_str(), errors[0].line, errors[0].field.as_str()),
            ("one.toml", question_line, field),
            "{languages} {tables:?}: {}",
            show(&errors)
        );
        assert!(
            errors[0].message.contains(&format!("[question.{field}]")),
            "{}",
            errors[0].message
        );
    }
}

/// Runs the binary under a 2 GB address-space limit, so that a regression fails the test
/// (the allocator aborts) instead of taking the machine down. Returns (exit code, out, err).
fn lockstep_capped(args: &[&str]) -> (Option<i32>, String, String) {
    let out = Command::new("sh")
        .arg("-c")
        .arg("ulimit -v 2000000; exec \"$0\" \"$@\"")
        .arg(env!("CARGO_BIN_EXE_lockstep"))
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run lockstep: {e}"));
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// `packs/single/lease-mini.toml` plus a scenario whose node `init` (or, with
/// `init_bomb` false, whose `[scripts]` release) is a Lua memory bomb (4 GB by doubling).
fn pack_with_bomb(init_bomb: bool) -> String {
    let bomb = "local s=string.rep('x',1000000) for i=1,12 do s=s..s end return #s";
    let base = std::fs::read_to_string(root("packs/single/lease-mini.toml")).unwrap_or_default();
    let (init, scripts) = if init_bomb {
        (format!("init = [[\"EVAL\", \"{bomb}\", \"0\"]]\n"), String::new())
    } else {
        (String::new(), format!("[scripts]\nrelease = \"{bomb}\"\n"))
    };
    format!(
        "{base}\n[[scenario]]\nsource = '''\nname = \"bomb\"\nend_ms = 2000\n\n\
         [[nodes]]\nname = \"redis\"\n{init}\n[[clients]]\nname = \"A\"\n\
         algorithm = \"set-nx\"\nnodes = [\"redis\"]\nttl_ms = 500\nrelease = \"lua\"\n\
         work = [\"sleep 100\"]\n{scripts}'''\n"
    )
}

#[test]
fn check_pack_reports_a_memory_bomb_in_a_scenarios_init_and_exits_normally() {
    let dir = std::env::temp_dir().join(format!("lockstep-pack-bomb-{}", std::process::id()));
    let _ = std::fs::create_dir_all(&dir);
    let file = dir.join("init-bomb.toml");
    let _ = std::fs::write(&file, pack_with_bomb(true));
    let (code, out, err) = lockstep_capped(&["check-pack", &file.to_string_lossy()]);
    // Exit 1 is check-pack's "the pack has errors"; an abort has no exit code.
    assert_eq!(code, Some(1), "{out}{err}");
    assert!(out.is_empty(), "{out}");
    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
    assert!(
        err.contains("init-bomb.toml:")
            && err.contains("nodes[0].init[0]: the node refused it: ERR Script killed"),
        "{err}"
    );
    assert!(err.contains("bytes of Lua memory"), "{err}");

    // A bomb as the release script compiles, so the pack is valid: the check does not run it.
    let file = dir.join("release-bomb.toml");
    let _ = std::fs::write(&file, pack_with_bomb(false));
    let (code, out, err) = lockstep_capped(&["check-pack", &file.to_string_lossy()]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("2 questions; 2 scenarios"), "{out}");
    let _ = std::fs::remove_dir_all(&dir);
}
