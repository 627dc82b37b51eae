//! The Norwegian texts keep the glossary's terms: no form that `content/glossary.toml`
//! forbids appears in content/nb/*.md, the Norwegian tables of content/quiz/*.toml and
//! content/ui.toml, the Norwegian texts of scenarios/*.toml and labs/*/lab.toml, the
//! labs' Norwegian starters, or the example pack (packs/example) that pack authors start
//! from. A hit names file and line.
//!
//! And a Norwegian learner reads the labs in Norwegian (#40 item 7): below, every text
//! the lab panel shows them is made in Norwegian (from real runs in Node.js too) and
//! checked for English words as well as for the glossary.

use serde::Deserialize;
use std::path::{Path, PathBuf};

const GLOSSARY: &str = "content/glossary.toml";

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Glossary {
    term: Vec<Term>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct Term {
    en: String,
    nb: String,
    #[serde(default)]
    forbidden: Vec<String>,
    #[serde(default)]
    #[allow(dead_code)]
    note: Option<String>,
}

/// One word of a forbidden form.
#[derive(Debug)]
enum WordPat {
    /// `<name>`: a client or node name, A, B, C1 (not the words I and Å).
    Name,
    /// Letters, with `*` for any letters before and/or after them.
    Glob {
        core: String,
        any_before: bool,
        any_after: bool,
    },
}

struct Forbidden {
    source: String,
    words: Vec<WordPat>,
    en: String,
    nb: String,
}

fn parse_pattern(source: &str) -> Result<Vec<WordPat>, String> {
    let mut words = Vec::new();
    for w in source.split_whitespace() {
        if w == "<name>" {
            words.push(WordPat::Name);
            continue;
        }
        let any_before = w.starts_with('*');
        let any_after = w.len() > 1 && w.ends_with('*');
        let core = w.trim_start_matches('*').trim_end_matches('*');
        if core.is_empty() || !core.chars().all(|c| c.is_alphanumeric() || c == '-') {
            return Err(format!(
                "«{w}»: a word is letters, digits and hyphens, with `*` only at its ends"
            ));
        }
        words.push(WordPat::Glob {
            core: core.to_lowercase(),
            any_before,
            any_after,
        });
    }
    if words.is_empty() {
        return Err("an empty form".into());
    }
    Ok(words)
}

fn load_glossary(text: &str) -> Result<Vec<Forbidden>, String> {
    let g: Glossary = toml::from_str(text).map_err(|e| {
        let line = e
            .span()
            .map(|s| text[..s.start].matches('\n').count() + 1)
            .unwrap_or(0);
        format!("{GLOSSARY}:{line}: {}", e.message())
    })?;
    let mut out = Vec::new();
    for t in g.term {
        if t.en.trim().is_empty() || t.nb.trim().is_empty() {
            return Err(format!("{GLOSSARY}: a term has an empty en or nb"));
        }
        for f in &t.forbidden {
            let words = parse_pattern(f).map_err(|e| format!("{GLOSSARY}: term «{}»: {e}", t.en))?;
            out.push(Forbidden {
                source: f.clone(),
                words,
                en: t.en.clone(),
                nb: t.nb.clone(),
            });
        }
    }
    Ok(out)
}

/// A word of a text: its letters, its line, and whether only white space separates it
/// from the word before (so a phrase may continue through it).
struct Word {
    text: String,
    lower: String,
    line: usize,
    joined: bool,
}

/// Words are runs of letters, digits and inner hyphens (`TTL-en`, `fencing-tokener`).
fn words(lines: &[(usize, String)]) -> Vec<Word> {
    let mut out = Vec::new();
    let mut gap_is_space = false;
    for (line, text) in lines {
        let mut current = String::new();
        for c in text.chars().chain(std::iter::once('\n')) {
            if c.is_alphanumeric() || (c == '-' && !current.is_empty()) {
                current.push(c);
                continue;
            }
            if !current.is_empty() {
                let trimmed = current.trim_end_matches('-').to_string();
                let hyphens_after = trimmed.len() != current.len();
                out.push(Word {
                    lower: trimmed.to_lowercase(),
                    text: trimmed,
                    line: *line,
                    joined: gap_is_space,
                });
                current.clear();
                gap_is_space = !hyphens_after;
            }
            if c != '\n' && !c.is_whitespace() {
                gap_is_space = false;
            }
        }
    }
    out
}

fn word_matches(p: &WordPat, w: &Word) -> bool {
    match p {
        WordPat::Name => {
            let mut chars = w.text.chars();
            let first = chars.next();
            first.is_some_and(|c| c.is_ascii_uppercase())
                && chars.all(|c| c.is_ascii_digit())
                && w.text != "I"
        }
        WordPat::Glob {
            core,
            any_before,
            any_after,
        } => match (any_before, any_after) {
            (false, false) => w.lower == *core,
            (true, false) => w.lower.ends_with(core.as_str()),
            (false, true) => w.lower.starts_with(core.as_str()),
            (true, true) => w.lower.contains(core.as_str()),
        },
    }
}

/// Every forbidden form in one region of Norwegian text: (line, the words found, form).
fn hits<'a>(lines: &[(usize, String)], forbidden: &'a [Forbidden]) -> Vec<(usize, String, &'a Forbidden)> {
    let ws = words(lines);
    let mut out = Vec::new();
    for i in 0..ws.len() {
        for f in forbidden {
            let n = f.words.len();
            if i + n > ws.len() {
                continue;
            }
            let span = &ws[i..i + n];
            let matched = f
                .words
                .iter()
                .zip(span)
                .enumerate()
                .all(|(j, (p, w))| word_matches(p, w) && (j == 0 || w.joined));
            if matched {
                let found = span.iter().map(|w| w.text.as_str()).collect::<Vec<_>>().join(" ");
                out.push((span[0].line, found, f));
                // One report per place, even when several forms match it.
                break;
            }
        }
    }
    out
}

/// A region of Norwegian text: its file and its lines (1-based numbers).
struct Region {
    file: String,
    lines: Vec<(usize, String)>,
}

fn is_table_header(line: &str) -> bool {
    let t = line.trim();
    t.starts_with('[') && t.ends_with(']') && !t.contains('=') && !t.contains('"')
}

/// The lines of each table of a TOML file whose header `keep` accepts.
fn toml_tables(file: &str, text: &str, keep: impl Fn(&str) -> bool) -> Vec<Region> {
    let mut out = Vec::new();
    let mut current: Option<Region> = None;
    for (i, line) in text.lines().enumerate() {
        if is_table_header(line) {
            out.extend(current.take());
            if keep(line.trim()) {
                current = Some(Region {
                    file: file.to_string(),
                    lines: Vec::new(),
                });
            }
        } else if let Some(r) = current.as_mut() {
            r.lines.push((i + 1, line.to_string()));
        }
    }
    out.extend(current);
    out
}

/// Each `nb = …` line of a scenario file, a region of its own.
fn nb_keys(file: &str, text: &str) -> Vec<Region> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| l.trim_start().starts_with("nb ="))
        .map(|(i, l)| Region {
            file: file.to_string(),
            lines: vec![(i + 1, l.to_string())],
        })
        .collect()
}

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn files(dir: &str, ext: &str) -> Vec<(String, String)> {
    let mut paths: Vec<PathBuf> = std::fs::read_dir(root().join(dir))
        .unwrap_or_else(|e| panic!("{dir}: {e}"))
        .map(|e| e.expect("dir entry").path())
        .filter(|p| p.extension().is_some_and(|x| x == ext))
        .collect();
    paths.sort();
    paths
        .into_iter()
        .map(|p| {
            let rel = p
                .strip_prefix(root())
                .unwrap_or(&p)
                .to_string_lossy()
                .into_owned();
            let text = std::fs::read_to_string(&p).unwrap_or_else(|e| panic!("{rel}: {e}"));
            (rel, text)
        })
        .collect()
}

/// All the Norwegian text of the built-in lesson, as regions.
fn norwegian_regions() -> Vec<Region> {
    let mut out = Vec::new();
    for (file, text) in files("content/nb", "md") {
        // The front matter's `id` is the section's shared (English) id, not Norwegian text.
        let lines = text
            .lines()
            .enumerate()
            .filter(|(_, l)| !l.starts_with("id = "))
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect();
        out.push(Region { file, lines });
    }
    // The example pack is what pack authors copy: it keeps the terms too.
    for (file, text) in files("packs/example/sections/nb", "md") {
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect();
        out.push(Region { file, lines });
    }
    for (file, text) in files("packs/example/quiz", "toml") {
        out.extend(toml_tables(&file, &text, |h| h.ends_with(".nb]")));
    }
    for (file, text) in files("content/quiz", "toml") {
        let regions = toml_tables(&file, &text, |h| h.ends_with(".nb]"));
        assert!(!regions.is_empty(), "{file}: no [question.nb] table found");
        out.extend(regions);
    }
    let ui = std::fs::read_to_string(root().join("content/ui.toml")).expect("content/ui.toml");
    let regions = toml_tables("content/ui.toml", &ui, |h| h == "[nb]");
    assert_eq!(regions.len(), 1, "content/ui.toml: one [nb] table");
    out.extend(regions);
    for (file, text) in files("scenarios", "toml") {
        let regions = nb_keys(&file, &text);
        assert!(!regions.is_empty(), "{file}: no `nb = ` text found");
        out.extend(regions);
    }
    out
}

fn glossary() -> Vec<Forbidden> {
    let text = std::fs::read_to_string(root().join(GLOSSARY)).expect(GLOSSARY);
    load_glossary(&text).unwrap_or_else(|e| panic!("{e}"))
}

#[test]
fn norwegian_texts_use_the_glossary_terms() {
    let forbidden = glossary();
    let mut report = Vec::new();
    for region in norwegian_regions() {
        for (line, found, f) in hits(&region.lines, &forbidden) {
            report.push(format!(
                "{}:{line}: «{found}» (forbidden form «{}»): use «{}» for «{}»",
                region.file, f.source, f.nb, f.en
            ));
        }
    }
    assert!(
        report.is_empty(),
        "{} forbidden form(s) in the Norwegian texts (see {GLOSSARY}):\n{}",
        report.len(),
        report.join("\n")
    );
}

#[test]
fn the_glossary_is_well_formed_and_its_own_choices_pass() {
    let text = std::fs::read_to_string(root().join(GLOSSARY)).expect(GLOSSARY);
    let forbidden = glossary();
    assert!(
        forbidden.len() >= 10,
        "the glossary forbids {} forms",
        forbidden.len()
    );
    let g: Glossary = toml::from_str(&text).expect("parsed above");
    for t in &g.term {
        let lines = vec![(1, t.nb.clone())];
        let bad: Vec<_> = hits(&lines, &forbidden).into_iter().map(|(_, w, _)| w).collect();
        assert!(
            bad.is_empty(),
            "the chosen term «{}» contains forbidden {bad:?}",
            t.nb
        );
    }
    assert!(load_glossary("[[term]]\nen = \"x\"\nnb = \"y\"\nforbidden = [\"a*b\"]\n").is_err());
    let err = load_glossary("[[term]]\nen = \"x\"\nnbb = \"y\"\n")
        .err()
        .expect("unknown field");
    assert!(err.starts_with(&format!("{GLOSSARY}:3:")), "{err}");
}

fn test_glossary() -> Vec<Forbidden> {
    load_glossary(
        r#"
[[term]]
en = "release"
nb = "frigjøring"
forbidden = ["frigi*", "*frigivelse*"]
[[term]]
en = "lock key"
nb = "låsnøkkel"
forbidden = ["*låsenøk*"]
[[term]]
en = "slip"
nb = "nettopp de som"
forbidden = ["nettopp dem som", "<name> sin"]
"#,
    )
    .expect("valid")
}

fn found(text: &str) -> Vec<(usize, String)> {
    let lines: Vec<(usize, String)> = text
        .lines()
        .enumerate()
        .map(|(i, l)| (i + 1, l.to_string()))
        .collect();
    let g = test_glossary();
    hits(&lines, &g).into_iter().map(|(l, w, _)| (l, w)).collect()
}

#[test]
fn inflections_and_compounds_of_a_forbidden_word_are_found_with_their_line() {
    assert_eq!(
        found("Først frigivelsen.\nSå Frigivelsesskriptet, og A frigir.\nLua-låsenøkkelen og låsenøklene"),
        vec![
            (1, "frigivelsen".to_string()),
            (2, "Frigivelsesskriptet".to_string()),
            (2, "frigir".to_string()),
            (3, "Lua-låsenøkkelen".to_string()),
            (3, "låsenøklene".to_string()),
        ]
    );
    // The chosen forms are not caught.
    assert!(found("A frigjør, frigjøringen og frigjøringsskriptet; låsnøkkelen.").is_empty());
}

#[test]
fn phrases_match_across_a_line_break_but_not_across_punctuation() {
    assert_eq!(
        found("de er nettopp dem\n  som sprenger"),
        vec![(1, "nettopp dem som".to_string())]
    );
    assert!(found("nettopp dem. Som").is_empty());
    assert!(found("nettopp *dem* som").is_empty());
    assert_eq!(
        found("fra A sin side, og C2 sin SET"),
        vec![(1, "A sin".to_string()), (1, "C2 sin".to_string())]
    );
    // The reflexive possessive itself, and the preposition I, are fine.
    assert!(found("hver pod har sin egen mutex. I sin enkleste form").is_empty());
}

#[test]
fn only_the_norwegian_tables_of_a_toml_file_are_searched() {
    let quiz = "section = \"x\"\n[[question]]\nid = \"q\"\n[question.en]\nprompt = \"frigivelse is not English\"\n[question.nb]\nprompt = \"en\"\noptions = [\n  \"ok\",\n  \"frigivelsen\",\n]\n[[question]]\n[question.en]\nprompt = \"frigi\"\n";
    let regions = toml_tables("q.toml", quiz, |h| h.ends_with(".nb]"));
    let g = test_glossary();
    let all: Vec<(usize, String)> = regions
        .iter()
        .flat_map(|r| hits(&r.lines, &g))
        .map(|(l, w, _)| (l, w))
        .collect();
    assert_eq!(all, vec![(10, "frigivelsen".to_string())]);
    let scenario = "title = \"frigi\"\n[description]\nen = \"release\"\nnb = \"frigivelse\"\n";
    let regions = nb_keys("s.toml", scenario);
    assert_eq!(regions.len(), 1);
    assert_eq!(regions[0].lines, vec![(4, "nb = \"frigivelse\"".to_string())]);
    assert!(Path::new(&root().join(GLOSSARY)).is_file());
}

// ---------------------------------------------------------------------------
// The labs as a Norwegian learner reads them (#40 item 7): each lab's own texts, and
// every sentence the lab panel makes in Norwegian: the code's failures in the words of
// the harness, a driver or the simulator (`lab_msg_*`), the checks, attacks and
// violations, and the timeline of real runs in Node.js. No English sentence is left,
// and the glossary's terms hold there too.
// ---------------------------------------------------------------------------

use lockstep::labs::{self, NodeHost};
use lockstep::lesson::content::Lang;
use lockstep::lesson::i18n::{k, Texts};
use lockstep::sim::fact::ViolationKind;
use lockstep::sim::lab::{self as simlab, Check, Lab, LabAttack, LabAttackOp, StallPoint, TrialResult};
use lockstep::sim::{TraceKind, Violation};
use lockstep::timeline::words::{self, lab as lab_words};

/// English words that a Norwegian sentence of ours never holds once its code is taken
/// out ([`prose`]). Words Norwegian shares (at, for, i, to, be, …) are not here.
const ENGLISH_WORDS: &[&str] = &[
    "the", "and", "your", "you", "with", "was", "were", "has", "have", "does", "did", "not", "only", "when",
    "which", "while", "after", "before", "from", "its", "it", "this", "that", "there", "then", "than",
    "what", "will", "would", "should", "must", "could", "of", "or", "but", "are", "lock", "locks", "holds",
    "held", "waits", "never", "again", "answered", "refused", "write", "wrote", "job", "starts", "taken",
    "gives", "still", "calls", "worker", "answer", "majority", "time", "more", "no", "nobody", "every",
    "each", "until", "is", "in", "by", "an", "returns", "return", "free", "frees", "takes", "take", "give",
    "back", "if", "else", "here", "ms-long", "attack", "stalls", "crashes", "fires", "arrives", "believed",
    "expired", "finished", "deleted",
];

/// `text` without its code: `…` spans, '…' and "…" strings, and tokens of code (a
/// `.`, `(`, `[`, `:`, `=`, `_`, `/` or `$` inside them: `redis.set`, `lock:report`,
/// `clients[0]`, `sleep(ms)`).
fn prose(text: &str) -> String {
    let mut out = String::new();
    let mut quote: Option<char> = None;
    let mut prev = ' ';
    for c in text.chars() {
        match quote {
            Some(q) if c == q => quote = None,
            Some(_) => {}
            // An apostrophe inside a word (don't, A's) opens no string.
            None if c == '`' || c == '"' || (c == '\'' && !prev.is_alphanumeric()) => quote = Some(c),
            None => out.push(c),
        }
        prev = c;
    }
    out.split_whitespace()
        .filter(|tok| {
            let inner = tok.trim_matches(|c: char| !c.is_alphanumeric());
            !inner.chars().any(|c| ".([:=_/$".contains(c))
        })
        .collect::<Vec<_>>()
        .join(" ")
}

/// The English words of `text`'s prose.
fn english_in(text: &str) -> Vec<String> {
    prose(text)
        .split(|c: char| !c.is_alphanumeric() && c != '-')
        .map(|w| w.trim_matches('-').to_lowercase())
        .filter(|w| ENGLISH_WORDS.contains(&w.as_str()))
        .collect()
}

/// A Norwegian text shown to the learner, where it came from, and what it says.
struct Shown {
    from: String,
    text: String,
}

fn shown(from: impl Into<String>, text: impl Into<String>) -> Shown {
    Shown {
        from: from.into(),
        text: text.into(),
    }
}

/// Every Norwegian text that is English or breaks the glossary, one line each.
fn english_or_forbidden(texts: &[Shown]) -> Vec<String> {
    let forbidden = glossary();
    let mut report = Vec::new();
    for s in texts {
        let english = english_in(&s.text);
        if !english.is_empty() {
            report.push(format!("{}: English {english:?} in «{}»", s.from, s.text));
        }
        let lines = vec![(1, s.text.clone())];
        for (_, found, f) in hits(&lines, &forbidden) {
            report.push(format!(
                "{}: «{found}» (forbidden form «{}»): use «{}» in «{}»",
                s.from, f.source, f.nb, s.text
            ));
        }
    }
    report
}

fn built_in_labs() -> Vec<Lab> {
    labs::builtin().unwrap_or_else(|e| panic!("{e}"))
}

/// The `lab_msg_*` texts of content/ui.toml, by code, in one language.
fn lab_messages(lang: &str) -> Vec<(String, String)> {
    let ui = std::fs::read_to_string(root().join("content/ui.toml")).expect("content/ui.toml");
    let table: toml::Table = toml::from_str(&ui).expect("ui.toml parses");
    let texts = table
        .get(lang)
        .and_then(|t| t.as_table())
        .expect("a table per language");
    texts
        .iter()
        .filter_map(|(k, v)| Some((k.strip_prefix("lab_msg_")?.to_string(), v.as_str()?.to_string())))
        .collect()
}

/// The placeholders of a text: `{name}`.
fn placeholders(text: &str) -> Vec<String> {
    text.split('{')
        .skip(1)
        .filter_map(|rest| rest.split_once('}').map(|(name, _)| name.to_string()))
        .filter(|n| !n.is_empty() && n.chars().all(|c| c.is_ascii_lowercase() || c == '_'))
        .collect()
}

/// Every code the harness, the drivers or the simulator send (`code: '…'` in
/// labs/**/*.js; `Coded::new("…"` and `CodeError::coded(…, "…"` in src/), with the file.
fn codes_in_sources() -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut js = vec![root().join("labs/harness.js")];
    for lab in labs::IDS {
        js.push(root().join(format!("labs/{lab}/driver.js")));
    }
    for path in js {
        let text = std::fs::read_to_string(&path).expect("a lab file");
        for part in text.split("code: '").skip(1) {
            match part.split_once('\'') {
                Some((code, _)) if code.chars().all(|c| c.is_ascii_lowercase() || c == '_') => {
                    out.push((code.to_string(), path.display().to_string()))
                }
                _ => {}
            }
        }
    }
    fn rust_files(dir: &Path, out: &mut Vec<PathBuf>) {
        for e in std::fs::read_dir(dir).expect("src/ is readable").flatten() {
            let p = e.path();
            if p.is_dir() {
                rust_files(&p, out);
            } else if p.extension().is_some_and(|x| x == "rs") {
                out.push(p);
            }
        }
    }
    let mut rs = Vec::new();
    rust_files(&root().join("src"), &mut rs);
    for path in rs {
        let text = std::fs::read_to_string(&path).expect("a source file");
        for call in ["Coded::new(", "CodeError::coded("] {
            for part in text.split(call).skip(1) {
                // The first string literal that is a code (the message has spaces).
                let code = part
                    .split('"')
                    .skip(1)
                    .step_by(2)
                    .take(4)
                    .find(|s| s.len() >= 3 && s.chars().all(|c| c.is_ascii_lowercase() || c == '_'));
                if let Some(code) = code {
                    out.push((code.to_string(), path.display().to_string()));
                }
            }
        }
    }
    out
}

/// What a Norwegian learner reads of one lab run: its failure, its attacks and
/// violations, and its timeline (the events, their story, the marks and the bands),
/// without what is Redis's or the learner's own (commands, messages, console lines and
/// the JavaScript engine's error texts).
fn run_in_norwegian(lab: &Lab, what: &str, t: &TrialResult) -> Vec<Shown> {
    let mut out = Vec::new();
    let tx = Texts::new(Lang::Nb);
    if let Some(e) = t.code_error.as_ref().filter(|e| e.coded.is_some()) {
        let text = tx.fmt(
            k::LAB_CODE_FAILED,
            &[("message", lab_words::code_error(e, Lang::Nb))],
        );
        out.push(shown(format!("{} {what}: the verdict", lab.id), text));
    }
    let names = simlab::lab_names(t);
    for a in &t.attacks {
        out.push(shown(
            format!("{} {what}: an attack", lab.id),
            lab_words::attack(a, &names, Lang::Nb),
        ));
    }
    for v in t.violations() {
        out.push(shown(
            format!("{} {what}: a violation", lab.id),
            lab_words::violation(&v, Lang::Nb),
        ));
    }
    let m = lockstep::timeline::build_lab(lab, t.seed, &t.attacks, t.tape.clone())
        .unwrap_or_else(|e| panic!("{} {what}: {e}", lab.id));
    for e in &m.trace {
        let theirs = match &e.kind {
            TraceKind::Command { .. } | TraceKind::Send { .. } => true,
            TraceKind::Note { coded, .. } | TraceKind::CodeError { coded, .. } => coded.is_none(),
            _ => false,
        };
        if !theirs {
            out.push(shown(
                format!("{} {what}: the timeline", lab.id),
                words::describe(&m, e, Lang::Nb),
            ));
        }
        if let Some(label) = words::mark_label(&m.names, e, Lang::Nb) {
            out.push(shown(format!("{} {what}: a mark", lab.id), label));
        }
    }
    for b in &m.bands {
        out.push(shown(
            format!("{} {what}: a band", lab.id),
            words::band_sentence(b, Lang::Nb),
        ));
    }
    for s in &m.stories {
        out.push(shown(
            format!("{} {what}: a story", lab.id),
            words::story_text(&m, s, Lang::Nb),
        ));
    }
    out.push(shown(
        format!("{} {what}: the timeline's label", lab.id),
        tx.fmt(
            k::SC_TIMELINE_LABEL,
            &[("scenario", m.title(Lang::Nb).to_string())],
        ),
    ));
    out
}

/// Runs `source` in `lab` in Node.js: its first failing trial of `trials` from `seed`
/// (the lab's Run when `trials` is 1), or, when every trial held, that first one; or the
/// failure of its `init`.
fn run_lab(lab: &Lab, source: &str, seed: u64, trials: u32) -> Result<TrialResult, simlab::CodeError> {
    let mut host = NodeHost::start().unwrap_or_else(|e| panic!("{e}"));
    simlab::init(lab, &mut host, source)?;
    let report = simlab::run_trials(lab, &mut host, seed, trials, |_| {}).unwrap_or_else(|e| panic!("{e}"));
    Ok(match report.counterexample {
        Some(t) => t,
        None => {
            let (s, attacks) = simlab::Draw::Run.trial(lab, seed, 0);
            simlab::run_once(lab, &mut host, s, attacks).unwrap_or_else(|e| panic!("{e}"))
        }
    })
}

#[test]
fn every_code_the_labs_send_has_words_in_both_languages() {
    let (en, nb) = (lab_messages("en"), lab_messages("nb"));
    let mut missing = Vec::new();
    let codes = codes_in_sources();
    assert!(codes.len() > 30, "{codes:?}");
    for (code, file) in &codes {
        for (lang, table) in [("en", &en), ("nb", &nb)] {
            if !table.iter().any(|(c, _)| c == code) {
                missing.push(format!("{file}: code `{code}` has no lab_msg_{code} in [{lang}]"));
            }
        }
    }
    // Both languages fill the same placeholders.
    for (code, text) in &en {
        let theirs = nb.iter().find(|(c, _)| c == code).map(|(_, t)| placeholders(t));
        let mut ours = placeholders(text);
        ours.sort();
        let mut theirs = theirs.unwrap_or_default();
        theirs.sort();
        if ours != theirs {
            missing.push(format!("lab_msg_{code}: [en] fills {ours:?}, [nb] {theirs:?}"));
        }
    }
    assert!(missing.is_empty(), "{}", missing.join("\n"));
}

#[test]
fn a_norwegian_learner_reads_every_lab_in_norwegian() {
    let tx = Texts::new(Lang::Nb);
    let mut texts = Vec::new();
    let labs = built_in_labs();
    // Each lab's own texts.
    for lab in &labs {
        for (what, t) in [("title", &lab.title), ("goal", &lab.goal)] {
            let text = t.get("nb").cloned().unwrap_or_default();
            texts.push(shown(format!("labs/{}/lab.toml: {what}", lab.id), text));
        }
    }
    // Every coded message, as the verdict says it, with made-up data.
    for (code, text) in lab_messages("nb") {
        let filled = placeholders(&text)
            .into_iter()
            .fold(text.clone(), |t, p| t.replace(&format!("{{{p}}}"), "X1"));
        texts.push(shown(
            format!("lab_msg_{code}"),
            tx.fmt(k::LAB_CODE_FAILED, &[("message", filled)]),
        ));
    }
    // The checks, the attacks and the violations, each kind.
    for c in Check::ALL {
        for held in [true, false] {
            texts.push(shown(
                format!("check {}", c.name()),
                lab_words::check(c.name(), held, Lang::Nb),
            ));
        }
    }
    let names: Vec<String> = ["A", "B", "C"].map(String::from).to_vec();
    for at in [StallPoint::Command, StallPoint::Timer, StallPoint::Reply] {
        for op in [
            LabAttackOp::Pause { for_us: 700_000 },
            LabAttackOp::Crash {
                restart_after_us: Some(300_000),
            },
            LabAttackOp::NodeDown {
                node: 1,
                at_us: 1_500_000,
            },
        ] {
            let a = LabAttack {
                worker: 1,
                command: 2,
                op,
                at,
            };
            texts.push(shown("an attack", lab_words::attack(&a, &names, Lang::Nb)));
        }
    }
    for kind in ViolationKind::ALL {
        for clients in [vec!["A".to_string()], vec!["A".to_string(), "B".to_string()]] {
            let v = Violation {
                kind,
                clients,
                from_ms: 100.0,
                to_ms: 900.0,
                detail: "the checker's English detail".into(),
                effect: None,
            };
            texts.push(shown(
                format!("violation {kind}"),
                lab_words::violation(&v, Lang::Nb),
            ));
        }
    }
    // Real runs: each lab's solution and starter, and its wrong files (tests/labs/), at
    // their first failing trial.
    for lab in &labs {
        let mut sources = vec![
            ("solution.js".to_string(), lab.solution.clone(), 1),
            ("starter.js".to_string(), lab.starter.clone(), 1),
        ];
        let dir = root().join("tests/labs").join(&lab.id).join("fail");
        for (file, text) in files(
            &dir.strip_prefix(root())
                .expect("under the root")
                .to_string_lossy(),
            "js",
        ) {
            sources.push((file, text, 30));
        }
        for (what, source, trials) in sources {
            match run_lab(lab, &source, 2026, trials) {
                Ok(t) => texts.extend(run_in_norwegian(lab, &what, &t)),
                Err(e) if e.coded.is_some() => texts.push(shown(
                    format!("{} {what}: init", lab.id),
                    tx.fmt(
                        k::LAB_CODE_FAILED,
                        &[("message", lab_words::code_error(&e, Lang::Nb))],
                    ),
                )),
                Err(_) => {} // the engine's own text: a syntax error
            }
        }
    }
    let report = english_or_forbidden(&texts);
    assert!(texts.len() > 500, "{}", texts.len());
    assert!(
        report.is_empty(),
        "{} Norwegian text(s) a learner reads are English or break the glossary:\n{}",
        report.len(),
        report.join("\n")
    );
}

/// The harness's own failures reach the page as codes, so the verdict is Norwegian; the
/// JavaScript engine's texts stay as the engine wrote them.
#[test]
fn the_harness_says_its_own_failures_as_codes() {
    let lab = labs::find("set-nx").unwrap_or_else(|e| panic!("{e}"));
    let head = "export async function acquire(redis, key, ttlMs) {";
    let cases = [
        ("missing_function", "export async function acquire() { return null; }\n".to_string()),
        ("require_unavailable", "const fs = require('fs');\nexport async function acquire() { return null; }\nexport async function release() {}\n".to_string()),
        ("export_from", "export { acquire, release } from './elsewhere.js';\n".to_string()),
        ("hash_unavailable", format!("import crypto from 'node:crypto';\n{head}\n  crypto.createHash('md5');\n  return null;\n}}\nexport async function release() {{}}\n")),
        ("too_many_commands", format!("{head}\n  for (;;) redis.get(key);\n}}\nexport async function release() {{}}\n")),
        ("stuck", format!("{head}\n  await new Promise(() => {{}});\n}}\nexport async function release() {{}}\n")),
        ("needs_function", format!("{head}\n  setTimeout('later', 5);\n  return null;\n}}\nexport async function release() {{}}\n")),
    ];
    let mut report = Vec::new();
    for (code, source) in cases {
        let e = match run_lab(&lab, &source, 1, 1) {
            Err(e) => e,
            Ok(t) => t
                .code_error
                .unwrap_or_else(|| panic!("{code}: the code did not fail")),
        };
        let nb = lab_words::code_error(&e, Lang::Nb);
        let got = e.coded.as_ref().map(|c| c.code.as_str());
        if got != Some(code) || !english_in(&nb).is_empty() {
            report.push(format!(
                "{code}: coded {got:?}, the verdict says «{nb}» (the harness wrote «{}»)",
                e.message
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// A JavaScript text cut in two: its code without comments (white space squeezed), and
/// its comments' text (`//` and `/* */`), line by line.
fn js_code_and_comments(src: &str) -> (String, Vec<String>) {
    let (mut code, mut comments) = (String::new(), Vec::new());
    let chars: Vec<char> = src.chars().collect();
    let mut i = 0;
    // Template literals open inside one another through `${`: the brace depth at each.
    let mut templates: Vec<usize> = Vec::new();
    let mut depth = 0usize;
    while i < chars.len() {
        let c = chars[i];
        let next = chars.get(i + 1).copied();
        if templates.last().is_some_and(|d| *d == usize::MAX) {
            // Inside a template's text.
            code.push(c);
            match (c, next) {
                ('\\', Some(n)) => {
                    code.push(n);
                    i += 1;
                }
                ('`', _) => {
                    templates.pop();
                }
                ('$', Some('{')) => {
                    code.push('{');
                    i += 1;
                    // Code until the brace that closes this one, then the text again.
                    templates.pop();
                    templates.push(depth);
                    depth += 1;
                }
                _ => {}
            }
            i += 1;
            continue;
        }
        match (c, next) {
            ('/', Some('/')) => {
                let end = chars[i..]
                    .iter()
                    .position(|&c| c == '\n')
                    .map_or(chars.len(), |p| i + p);
                comments.push(chars[i + 2..end].iter().collect());
                i = end;
                continue;
            }
            ('/', Some('*')) => {
                let rest: String = chars[i + 2..].iter().collect();
                let len = rest.find("*/").unwrap_or(rest.len());
                for line in rest[..len].lines() {
                    comments.push(line.trim_start().trim_start_matches('*').to_string());
                }
                i += 2 + rest[..len].chars().count() + 2;
                continue;
            }
            ('\'' | '"', _) => {
                code.push(c);
                i += 1;
                while i < chars.len() && chars[i] != c {
                    if chars[i] == '\\' {
                        code.push(chars[i]);
                        i += 1;
                    }
                    if let Some(&ch) = chars.get(i) {
                        code.push(ch);
                    }
                    i += 1;
                }
                code.push(c);
            }
            ('`', _) => {
                code.push(c);
                templates.push(usize::MAX);
            }
            ('{', _) => {
                code.push(c);
                depth += 1;
            }
            ('}', _) => {
                code.push(c);
                depth = depth.saturating_sub(1);
                if templates.last() == Some(&depth) {
                    templates.pop();
                    templates.push(usize::MAX);
                }
            }
            _ => code.push(c),
        }
        i += 1;
    }
    (code.split_whitespace().collect::<Vec<_>>().join(" "), comments)
}

#[test]
fn js_comments_are_told_from_code() {
    let src =
        "// one\nconst a = 'x // y'; /* two\n * three */ const t = `a ${b ? `c` : '//'} d // e`; // four\n";
    let (code, comments) = js_code_and_comments(src);
    assert_eq!(
        code,
        "const a = 'x // y'; const t = `a ${b ? `c` : '//'} d // e`;"
    );
    assert_eq!(comments, vec![" one", "two", " three ", " four"]);
}

/// Each lab's starter and its functions to write (`signature`) have a Norwegian text:
/// the same code, its comments in Norwegian (#40 item 7).
#[test]
fn every_lab_has_its_starter_and_signature_in_norwegian_with_the_same_code() {
    let mut report = Vec::new();
    let mut texts = Vec::new();
    for lab in built_in_labs() {
        for (what, en, nb) in [
            ("starter.nb.js", lab.starter.as_str(), lab.starter_in("nb")),
            (
                "lab.toml: signature.nb",
                lab.signature_in("en"),
                lab.signature_in("nb"),
            ),
        ] {
            let (en_code, en_comments) = js_code_and_comments(en);
            let (nb_code, nb_comments) = js_code_and_comments(nb);
            if en_code != nb_code {
                report.push(format!(
                    "labs/{}/{what}: its code is not the English one's",
                    lab.id
                ));
            }
            if nb_comments == en_comments {
                report.push(format!(
                    "labs/{}/{what}: its comments are the English ones",
                    lab.id
                ));
            }
            // As one text: code quoted in a comment may run over several lines.
            texts.push(shown(format!("labs/{}/{what}", lab.id), nb_comments.join("\n")));
        }
    }
    report.extend(english_or_forbidden(&texts));
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// Every Norwegian text of the labs, as regions: their lab.toml's `nb` texts (title, goal,
/// signature) and their Norwegian starters. The glossary holds there as in the lesson.
fn norwegian_lab_regions() -> Vec<Region> {
    let mut out = Vec::new();
    for id in labs::IDS {
        let file = format!("labs/{id}/lab.toml");
        let text = std::fs::read_to_string(root().join(&file)).expect("lab.toml");
        let mut current: Option<Region> = None;
        for (i, line) in text.lines().enumerate() {
            // `nb = "…"` or `nb = """` up to its closing `"""`.
            if let Some(region) = current.as_mut() {
                if line.trim() == "\"\"\"" {
                    out.extend(current.take());
                } else {
                    region.lines.push((i + 1, line.to_string()));
                }
            } else if let Some(rest) = line.strip_prefix("nb = ") {
                let region = Region {
                    file: file.clone(),
                    lines: vec![(i + 1, rest.trim_matches('"').to_string())],
                };
                if rest == "\"\"\"" {
                    current = Some(region);
                } else {
                    out.push(region);
                }
            }
        }
        assert!(
            out.iter().any(|r| r.file == file),
            "{file}: no `nb = ` text found"
        );
        let file = format!("labs/{id}/starter.nb.js");
        let text = std::fs::read_to_string(root().join(&file)).expect("starter.nb.js");
        let lines = text
            .lines()
            .enumerate()
            .map(|(i, l)| (i + 1, l.to_string()))
            .collect();
        out.push(Region { file, lines });
    }
    out
}

#[test]
fn the_labs_norwegian_texts_use_the_glossary_terms() {
    let forbidden = glossary();
    let mut report = Vec::new();
    for region in norwegian_lab_regions() {
        for (line, found, f) in hits(&region.lines, &forbidden) {
            report.push(format!(
                "{}:{line}: «{found}» (forbidden form «{}»): use «{}» for «{}»",
                region.file, f.source, f.nb, f.en
            ));
        }
    }
    assert!(report.is_empty(), "{}", report.join("\n"));
}

/// The definite of "scenario" has one form in Norwegian, scenarioet (scenarioer,
/// scenarioene): the glossary says so, and no Norwegian text of the lesson, the app, the
/// scenarios, the labs or the example pack has another (scenariet, scenarier, …).
#[test]
fn the_norwegian_texts_say_the_scenario_one_way() {
    let forbidden = glossary();
    let scenario: Vec<&Forbidden> = forbidden.iter().filter(|f| f.en == "the scenario").collect();
    for form in [
        "scenariet",
        "scenariets",
        "scenarier",
        "scenariene",
        "Klokkescenariene",
    ] {
        let lines = vec![(1, form.to_string())];
        let found = hits(&lines, &forbidden);
        assert!(
            found.iter().any(|(_, _, f)| f.en == "the scenario"),
            "the glossary does not forbid «{form}»"
        );
    }
    assert!(
        scenario.iter().all(|f| f.nb.starts_with("scenarioet")),
        "the chosen form"
    );
    let mut other = Vec::new();
    let mut chosen = 0;
    for region in norwegian_regions().into_iter().chain(norwegian_lab_regions()) {
        for (n, line) in &region.lines {
            for word in line.split(|c: char| !c.is_alphanumeric() && c != '-') {
                let w = word.to_lowercase();
                if w.contains("scenariet") || w.contains("scenarier") {
                    other.push(format!("{}:{n}: «{word}»", region.file));
                } else if w.contains("scenarioet") || w.contains("scenarioer") {
                    chosen += 1;
                }
            }
        }
    }
    assert!(chosen > 20, "scenarioet is used {chosen} times");
    assert!(
        other.is_empty(),
        "another definite of «scenario»:\n{}",
        other.join("\n")
    );
}
