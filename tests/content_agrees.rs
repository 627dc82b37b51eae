//! Text and run agree (#40 item 11). In every section with a "What you can change"
//! heading (sections 1–7, both languages):
//!
//! (a) each Redis key its examples name (a `SET`, `GET`, `DEL`, `EVALSHA`… in a ```redis
//!     or ```text block or in a code span) is a key that a run of a scenario the section
//!     embeds uses: one a node holds (`Model::key_states`, what the cluster view shows)
//!     or one the resource is asked for (a read, a write, an idempotency claim: the
//!     trace). This holds in every section that embeds a scenario (§8–§10 too);
//! (b) the knobs named under the heading are the knobs the scenario panel offers for
//!     those scenarios: `timeline::variant::knobs`, the list the knob editor draws, named
//!     by their labels in content/ui.toml. A knob of the panel the text leaves out, a
//!     knob label the panel does not offer there, or a setting the scenarios fix and no
//!     panel offers ([`NOT_IN_THE_PANEL`]) is a complaint naming file and words;
//! (c) each key a section's questions name (prompt, options, explanations, the code
//!     shown with them, a generated question's session) is a key of the section's runs,
//!     as in (a), where the section embeds a scenario.

use lockstep::lesson::content::{builtin, builtin_questions, Lang};
use lockstep::lesson::i18n::Texts;
use lockstep::lesson::markdown::{parse, scenario_blocks, walk, Node};
use lockstep::lesson::quiz::Question;
use lockstep::sim::trace::TraceKind;
use lockstep::timeline::variant::{knobs, Knob};
use std::collections::{BTreeMap, BTreeSet};

/// The heading of the part that says what the learner can change.
fn change_heading(lang: Lang) -> &'static str {
    match lang {
        Lang::En => "What you can change",
        Lang::Nb => "Dette kan du endre",
    }
}

/// Settings the built-in scenarios fix that no panel lets the learner change, with the
/// words (lower case) a section would promise them by; found under the heading, each
/// is a complaint. Add to it when a text promises another one.
const NOT_IN_THE_PANEL: &[(&str, &[&str], &[&str])] = &[
    (
        "a per-process mutex (no scenario has one)",
        &["mutex"],
        &["mutex"],
    ),
    (
        "the gap between the requests (a client's start_ms)",
        &["gap between"],
        &["avstanden mellom"],
    ),
    (
        "the payment provider's delay (a fixed work step)",
        &["provider's delay", "provider delay"],
        &["leverandørens forsinkelse"],
    ),
    (
        "the renewal interval (the watchdog renews every TTL/3)",
        &["renewal interval"],
        &["fornyelsesintervall"],
    ),
    (
        "the replication lag (a group's lag_ms)",
        &["replication lag"],
        &["replikeringsforsinkelse"],
    ),
    (
        "the failure-detection and promotion times (a group's failover)",
        &["failure-detection", "failure detection", "promotion time"],
        &["oppdage feilen", "forfremmelsen tar"],
    ),
    (
        "WAIT's timeout (a client's wait)",
        &["with what timeout", "wait timeout"],
        &["med hvilken tidsfrist"],
    ),
    (
        "whether the work stops when a renewal returns 0",
        &["whether the work stops"],
        &["om arbeidet stopper"],
    ),
];

/// Commands whose first argument is a key, and those whose arguments all are (EVAL and
/// EVALSHA name theirs after the key count).
const FIRST_ARG_KEY: &[&str] = &[
    "SET",
    "GET",
    "SETNX",
    "GETDEL",
    "INCR",
    "INCRBY",
    "DECR",
    "DECRBY",
    "APPEND",
    "STRLEN",
    "TYPE",
    "EXPIRE",
    "PEXPIRE",
    "EXPIREAT",
    "PEXPIREAT",
    "TTL",
    "PTTL",
    "PERSIST",
];
const ALL_ARGS_KEYS: &[&str] = &["DEL", "EXISTS", "WATCH"];

/// The keys a line of an example names, if a Redis command stands where a command is
/// typed or logged: first on the line, after a `>` prompt, after `A:` (who sent it) or
/// after `1.` (a numbered step). Elsewhere (`0  SET to A..E`, `sends SET`) it is prose.
/// Placeholders (`key`, `<key>`, `...`, `…`) name no key.
fn command_keys(line: &str) -> Vec<String> {
    let words: Vec<(usize, &str)> = line
        .split_whitespace()
        .map(|w| (w.as_ptr() as usize - line.as_ptr() as usize, w))
        .collect();
    let at_command = |i: usize| {
        i == 0 || {
            let before = words[i - 1].1;
            before == ">"
                || before.ends_with(':')
                || (before.ends_with('.') && before[..before.len() - 1].chars().all(|c| c.is_ascii_digit()))
        }
    };
    let Some(i) = (0..words.len()).find(|&i| {
        let w = words[i].1;
        (FIRST_ARG_KEY.contains(&w) || ALL_ARGS_KEYS.contains(&w) || w == "EVAL" || w == "EVALSHA")
            && at_command(i)
    }) else {
        return Vec::new();
    };
    // The command ends where a transcript shows its reply.
    let rest = &line[words[i].0..];
    let rest = rest.split(" -> ").next().unwrap_or(rest);
    let rest = rest.split(" → ").next().unwrap_or(rest);
    let argv: Vec<String> = match lockstep::store::parse_line(rest) {
        Ok(args) => args
            .iter()
            .map(|a| String::from_utf8_lossy(a).into_owned())
            .collect(),
        Err(_) => rest.split_whitespace().map(str::to_string).collect(),
    };
    let Some((name, args)) = argv.split_first() else {
        return Vec::new();
    };
    let keys: Vec<&String> = match name.as_str() {
        "EVAL" | "EVALSHA" => match args.get(1).and_then(|n| n.parse::<usize>().ok()) {
            Some(n) => args.iter().skip(2).take(n).collect(),
            None => Vec::new(),
        },
        n if ALL_ARGS_KEYS.contains(&n) => args.iter().collect(),
        _ => args.first().into_iter().collect(),
    };
    keys.into_iter()
        .map(|k| k.trim_end_matches([',', ';']))
        .filter(|k| {
            let placeholder =
                *k == "key" || k.starts_with('<') || k.contains('…') || k.chars().all(|c| c == '.');
            let keyish = !k.is_empty() && k.chars().all(|c| c.is_alphanumeric() || ":_-.{}".contains(c));
            keyish && !placeholder
        })
        .map(str::to_string)
        .collect()
}

/// Every Redis command of the examples in `nodes` (```redis, ```text and unlabelled
/// blocks, code spans), with the keys it names.
fn example_keys(nodes: &[Node]) -> Vec<(String, Vec<String>)> {
    let mut out = Vec::new();
    for n in walk(nodes) {
        let lines: Vec<&str> = match n {
            Node::CodeBlock { lang, code } if matches!(lang.as_deref(), None | Some("redis" | "text")) => {
                code.lines().collect()
            }
            Node::InlineCode(code) => vec![code.as_str()],
            _ => continue,
        };
        for line in lines {
            let keys = command_keys(line);
            if !keys.is_empty() {
                out.push((line.trim().to_string(), keys));
            }
        }
    }
    out
}

/// The scenarios the body embeds (```scenario blocks), in order.
fn embedded(body: &str) -> Vec<String> {
    scenario_blocks(&parse(body))
}

/// The text under the "What you can change" heading (up to the next heading), if the
/// body has one.
fn change_text(body: &str, lang: Lang) -> Option<String> {
    let doc = parse(body);
    let is_heading = |n: &Node| matches!(n, Node::Element { tag: "h2", .. });
    let start = doc
        .iter()
        .position(|n| is_heading(n) && n.text().trim() == change_heading(lang))?;
    let part: Vec<String> = doc[start + 1..]
        .iter()
        .take_while(|n| !is_heading(n))
        .map(Node::text)
        .collect();
    // A soft line break renders as a space: a name may be wrapped.
    Some(part.join(" ").split_whitespace().collect::<Vec<_>>().join(" "))
}

/// A knob's label without its unit or range: `TTL (ms)` → `TTL`, `N (masters, 1–7)` → `N`.
fn knob_name(knob: Knob, lang: Lang) -> String {
    let label = Texts::new(lang).t(knob.label_key());
    match label.rfind(" (") {
        Some(i) if label.ends_with(')') => label[..i].to_string(),
        _ => label,
    }
}

/// Whether `text` has `name` as whole words: case-blind, except for a name in capitals
/// (`TTL`, `N`), which must stand as written.
fn names(text: &str, name: &str) -> bool {
    let exact = !name.chars().any(char::is_lowercase);
    let (text, name) = if exact {
        (text.to_string(), name.to_string())
    } else {
        (text.to_lowercase(), name.to_lowercase())
    };
    text.match_indices(&name).any(|(i, m)| {
        let before = text[..i].chars().next_back();
        let after = text[i + m.len()..].chars().next();
        !before.is_some_and(char::is_alphanumeric) && !after.is_some_and(char::is_alphanumeric)
    })
}

/// What the runs of the scenarios tell: the keys they use (held on a node, or asked of
/// the resource), and the knobs the panel offers, per scenario (built once).
#[derive(Default)]
struct Runs(BTreeMap<String, (BTreeSet<String>, Vec<Knob>)>);

impl Runs {
    fn of(&mut self, name: &str) -> &(BTreeSet<String>, Vec<Knob>) {
        self.0.entry(name.to_string()).or_insert_with(|| {
            let s = lockstep::sim::scenario::builtin(name)
                .unwrap_or_else(|| panic!("no built-in scenario {name}"))
                .unwrap_or_else(|e| panic!("{e}"));
            // Seed 1: the run a first visit shows. The keys do not depend on it.
            let m = lockstep::timeline::build(&s, 1).unwrap_or_else(|e| panic!("{name}: {e}"));
            let held = m
                .key_states
                .iter()
                .flat_map(|k| k.keys.iter().map(|(key, _, _)| key.clone()));
            let asked = m.trace.iter().filter_map(|e| match &e.kind {
                TraceKind::Read { key, .. }
                | TraceKind::WriteAccepted { key, .. }
                | TraceKind::WriteRejected { key, .. } => Some(key.clone()),
                _ => None,
            });
            (held.chain(asked).collect(), knobs(&s))
        })
    }
}

/// The keys `examples` name that the runs of `scenarios` do not use, each said.
fn unused_keys(
    file: &str,
    examples: Vec<(String, Vec<String>)>,
    scenarios: &[String],
    runs: &mut Runs,
) -> Vec<String> {
    let mut used = BTreeSet::new();
    for name in scenarios {
        used.extend(runs.of(name).0.iter().cloned());
    }
    let used_list = used
        .iter()
        .map(|k| format!("`{k}`"))
        .collect::<Vec<_>>()
        .join(", ");
    let shown = scenarios.join(", ");
    let mut out = Vec::new();
    for (line, keys) in examples {
        for key in keys.iter().filter(|k| !used.contains(*k)) {
            out.push(format!(
                "{file}: `{line}` names the key `{key}`, but the runs of {shown} use only {used_list}"
            ));
        }
    }
    out
}

/// Everything in one section's text that disagrees with its runs and its panel.
fn complaints(file: &str, body: &str, lang: Lang, runs: &mut Runs) -> Vec<String> {
    let scenarios = embedded(body);
    let examples = example_keys(&parse(body));
    let Some(change) = change_text(body, lang) else {
        // (a) only, where there are runs to agree with.
        if scenarios.is_empty() {
            return Vec::new();
        }
        return unused_keys(file, examples, &scenarios, runs);
    };
    let mut out = Vec::new();
    if scenarios.is_empty() {
        out.push(format!("{file}: «{}» but no scenario", change_heading(lang)));
    }
    let shown = scenarios.join(", ");
    let mut offered = BTreeSet::new();
    for name in &scenarios {
        offered.extend(runs.of(name).1.iter().map(|k| k.label_key()));
    }
    // (a) the keys of the examples
    out.extend(unused_keys(file, examples, &scenarios, runs));
    // (b) the knobs, both ways
    let heading = change_heading(lang);
    for knob in Knob::ALL {
        let name = knob_name(knob, lang);
        let on_panel = offered.contains(&knob.label_key());
        match (on_panel, names(&change, &name)) {
            (true, false) => out.push(format!(
                "{file}: «{heading}» does not name the knob «{name}», which the panel offers for {shown}"
            )),
            (false, true) => out.push(format!(
                "{file}: «{heading}» names the knob «{name}», which the panel does not offer for {shown}"
            )),
            _ => {}
        }
    }
    let lower = change.to_lowercase();
    for (what, en, nb) in NOT_IN_THE_PANEL {
        let words = match lang {
            Lang::En => *en,
            Lang::Nb => *nb,
        };
        if let Some(w) = words.iter().find(|w| lower.contains(*w)) {
            out.push(format!(
                "{file}: «{heading}» promises {what} («{w}»), which the panel cannot change"
            ));
        }
    }
    out
}

#[test]
fn each_sections_keys_and_knobs_are_its_runs_and_its_panels() {
    let mut runs = Runs::default();
    let mut all = Vec::new();
    let mut checked = BTreeSet::new();
    let mut keys_seen = 0;
    let mut without_heading = BTreeSet::new();
    for lang in Lang::ALL {
        for s in builtin(lang).expect("valid lesson").sections {
            let examples = example_keys(&parse(&s.body)).len();
            if change_text(&s.body, lang).is_some() {
                checked.insert((lang.code(), s.order));
                keys_seen += examples;
            } else if examples > 0 && !embedded(&s.body).is_empty() {
                without_heading.insert((lang.code(), s.order));
            }
            all.extend(complaints(&s.file, &s.body, lang, &mut runs));
        }
    }
    // §10 tells its scenarios with Redis commands, in both languages, without the heading.
    assert!(
        without_heading.contains(&("en", 10)) && without_heading.contains(&("nb", 10)),
        "sections without «What you can change» whose examples name keys: {without_heading:?}"
    );
    // Not vacuous: sections 1–7 have the heading in both languages, and their examples
    // name keys.
    let expected: BTreeSet<_> = Lang::ALL
        .iter()
        .flat_map(|l| (1..=7).map(move |o| (l.code(), o)))
        .collect();
    assert!(
        checked.is_superset(&expected),
        "sections with «What you can change»: {checked:?}"
    );
    assert!(
        keys_seen >= 20,
        "only {keys_seen} Redis commands found in the examples"
    );
    assert!(all.is_empty(), "{} disagreements:\n{}", all.len(), all.join("\n"));
}

/// The check can fail: a section that names a key its run does not hold, a knob its
/// panel lacks, leaves one out, or promises a fixed setting, is told so.
#[test]
fn a_section_that_disagrees_is_told_so() {
    let mut runs = Runs::default();
    let body = "Before.\n\n```redis\n> DEL lock:job\n(integer) 1\n```\n\n\
        ## What you can change\n\n- **Drift factor**: try 0.1;\n- the replication lag.\n\n\
        ## Try it\n\n```scenario\nunsafe-del\n```\n";
    let c = complaints("x.md", body, Lang::En, &mut runs).join("\n");
    assert!(
        c.contains("`> DEL lock:job` names the key `lock:job`, but the runs of unsafe-del use only `lock`"),
        "{c}"
    );
    assert!(
        c.contains("names the knob «Drift factor», which the panel does not offer"),
        "{c}"
    );
    assert!(c.contains("does not name the knob «TTL»"), "{c}");
    assert!(c.contains("promises the replication lag"), "{c}");
    // Said right, nothing to say.
    let body = body.replace("lock:job", "lock").replace(
        "- **Drift factor**: try 0.1;\n- the replication lag.",
        "TTL, Per-node timeout, Retry delay, \
            Network latency, Retries after the first attempt, Persistence on every node.",
    );
    assert_eq!(
        complaints("x.md", &body, Lang::En, &mut runs),
        Vec::<String>::new()
    );
}

/// The keys a question names, in `lang`: in the code spans and blocks of its texts, and
/// in the code shown with it (a bug hunt's, a generated question's session).
fn question_keys(q: &Question, lang: Lang) -> Vec<(String, Vec<String>)> {
    let t = q.texts(lang);
    // Seed 1: a generated question's session; its keys do not depend on the seed.
    let shown = lockstep::lesson::generate::instance(q, lang, 1);
    let texts = [&shown.prompt, &t.explanation]
        .into_iter()
        .chain(&t.options)
        .chain(&t.explanations)
        .chain(&t.items);
    let mut out: Vec<_> = texts.flat_map(|text| example_keys(&parse(text))).collect();
    if let Some((code_lang, code)) = shown.code.filter(|(l, _)| l == "redis" || l == "text") {
        let block = Node::CodeBlock {
            lang: Some(code_lang),
            code,
        };
        out.extend(example_keys(std::slice::from_ref(&block)));
    }
    out
}

/// (c): what a section's questions name that its runs do not use.
fn question_complaints(q: &Question, lang: Lang, body: &str, runs: &mut Runs) -> Vec<String> {
    let scenarios = embedded(body);
    if scenarios.is_empty() {
        return Vec::new();
    }
    let file = format!("question {} ({})", q.id, lang.code());
    unused_keys(&file, question_keys(q, lang), &scenarios, runs)
}

#[test]
fn each_questions_keys_are_its_sections_runs() {
    let questions = builtin_questions().expect("valid quizzes");
    let mut runs = Runs::default();
    let mut all = Vec::new();
    let mut keys_seen = 0;
    for lang in Lang::ALL {
        let lesson = builtin(lang).expect("valid lesson");
        for q in &questions {
            let s = lesson
                .sections
                .iter()
                .find(|s| s.id == q.section)
                .unwrap_or_else(|| panic!("{}: no section {}", q.id, q.section));
            if !embedded(&s.body).is_empty() {
                keys_seen += question_keys(q, lang).len();
            }
            all.extend(question_complaints(q, lang, &s.body, &mut runs));
        }
    }
    // Not vacuous: §2's, §4's and §10's questions name keys, in both languages.
    assert!(
        keys_seen >= 10,
        "only {keys_seen} Redis commands found in the questions"
    );
    assert!(all.is_empty(), "{} disagreements:\n{}", all.len(), all.join("\n"));
}

/// The check can fail: a question naming a key its section's runs do not use is told
/// so, wherever it names it.
#[test]
fn a_question_that_disagrees_is_told_so() {
    let toml = r#"
section = "safe-release"

[[question]]
id = "x-key"
kind = "single"
correct = [0]

[question.en]
prompt = "What does `DEL lock:job` reply?"
options = ["`GET lock:other` first", "`DEL lock`"]
explanations = ["…", "…"]

[question.nb]
prompt = "Hva svarer `DEL lock`?"
options = ["…", "…"]
explanations = ["…", "…"]
"#;
    let qs = lockstep::lesson::quiz::parse_file("x.toml", toml).unwrap_or_else(|e| panic!("{e:?}"));
    let body = "```scenario\nunsafe-del\n```\n";
    let mut runs = Runs::default();
    let c = question_complaints(&qs[0], Lang::En, body, &mut runs).join("\n");
    assert!(
        c.contains("question x-key (en): `DEL lock:job` names the key `lock:job`, but the runs of unsafe-del use only"),
        "{c}"
    );
    assert!(c.contains("`GET lock:other` names the key `lock:other`"), "{c}");
    assert!(!c.contains("`DEL lock`"), "{c}");
    assert_eq!(
        question_complaints(&qs[0], Lang::Nb, body, &mut runs),
        Vec::<String>::new()
    );
    // A section without a scenario has no runs to disagree with.
    assert_eq!(
        question_complaints(&qs[0], Lang::En, "No scenario.", &mut runs),
        Vec::<String>::new()
    );
}

/// A section without «What you can change» is held to its runs too, if it has runs.
#[test]
fn a_section_without_the_heading_is_held_to_its_runs() {
    let mut runs = Runs::default();
    let body = "## Watching\n\n```redis\n> WATCH invoice:42:status\n> GET lock\n```\n\n\
        ## Try it\n\n```scenario\nunsafe-del\n```\n";
    let c = complaints("x.md", body, Lang::En, &mut runs);
    assert_eq!(c.len(), 1, "{c:?}");
    assert!(
        c[0].contains("`> WATCH invoice:42:status` names the key `invoice:42:status`"),
        "{c:?}"
    );
    let body = body.replace("```scenario\nunsafe-del\n```\n", "No scenario.\n");
    assert_eq!(
        complaints("x.md", &body, Lang::En, &mut runs),
        Vec::<String>::new()
    );
}

#[test]
fn commands_are_read_where_they_are_typed_or_logged() {
    let keys = |l: &str| command_keys(l);
    assert_eq!(keys("> SET lock tok NX PX 10000"), ["lock"]);
    assert_eq!(
        keys("    0  A: SET lock:job tok-A NX PX 10000 -> OK"),
        ["lock:job"]
    );
    assert_eq!(keys("12200  A: DEL lock:job -> deletes B's key"), ["lock:job"]);
    assert_eq!(
        keys("1. GET lock:job        -> \"tok-A\", still mine"),
        ["lock:job"]
    );
    assert_eq!(
        keys("client A: GET lock:invoice:42   -> (nil), lock looks free"),
        ["lock:invoice:42"]
    );
    assert_eq!(
        keys("> EVALSHA 3856a7aa5c1d945c3c97e1e3ee9c2c310026a27f 1 lock tok-A"),
        ["lock"]
    );
    assert_eq!(
        keys("EVAL \"return redis.call('del', KEYS[1])\" 1 lock"),
        ["lock"]
    );
    assert_eq!(keys("DEL a b"), ["a", "b"]);
    assert_eq!(keys("SET lock <token> NX PX 10000"), ["lock"]);
    // Placeholders and prose name no key.
    for line in [
        "SET key token NX PX ttl",
        "SET ... NX PX",
        "B: SET ... NX -> OK",
        "SET … PX 30000",
        "0     SET to A..E",
        "C1 sends SET; D and E are cut off from C1",
        "TTL (ms)       300 ...... 30000",
        "EVALSHA",
    ] {
        assert_eq!(keys(line), Vec::<String>::new(), "{line}");
    }
}

#[test]
fn knob_names_are_whole_words() {
    assert!(names("the TTL and the N", "TTL"));
    assert!(names("TTL-en", "TTL"));
    assert!(!names("the ttl", "TTL"));
    assert!(names("set N (1–7)", "N"));
    assert!(!names("No way", "N"));
    assert!(names("the **Retry delay (ms)** knob", "Retry delay"));
    assert!(!names("Retry delays", "Retry delay"));
    assert_eq!(knob_name(Knob::Ttl, Lang::En), "TTL");
    assert_eq!(knob_name(Knob::Nodes, Lang::En), "N");
    assert_eq!(knob_name(Knob::RetryJitter, Lang::En), "Retry jitter");
}
