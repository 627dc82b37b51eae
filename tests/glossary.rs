//! The Norwegian texts keep the glossary's terms: no form that `content/glossary.toml`
//! forbids appears in content/nb/*.md, the Norwegian tables of content/quiz/*.toml and
//! content/ui.toml, the Norwegian texts of scenarios/*.toml, or the example pack
//! (packs/example) that pack authors start from. A hit names file and line.

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
