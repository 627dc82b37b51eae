//! A pack's parts gathered from its files: the metadata, the files it lists, and the
//! sections, questions and scenarios written inline in pack.toml.

use super::error::*;
use super::file::*;
use super::labs;
use super::limits::*;
use super::sources::*;
use crate::lesson::content::{parse_section, BUILTIN_LESSON_ID};
use crate::lesson::lang::Lang;
use crate::lesson::section::is_slug;
use crate::sim::scenario::{self as scenario, BUILTIN_NAMES};
use crate::toml_error::{key_line, line_of};
use std::collections::{BTreeMap, BTreeSet};
use std::ops::Range;

/// The pack's id, languages and titles, each checked.
pub(super) fn read_metadata(
    p: &PackFile<'_>,
    allow_builtin_id: bool,
    g: &mut Gathered,
) -> (String, Vec<Lang>, BTreeMap<Lang, String>) {
    let id = p.raw.id.get_ref().clone();
    if !is_slug(&id) {
        g.errors.push(p.err_at(
            p.raw.id.span().start,
            "id",
            format!("`{id}` is not a valid id: use lowercase letters, digits and dashes"),
        ));
    } else if id == BUILTIN_LESSON_ID && !allow_builtin_id {
        g.errors.push(p.err_at(
            p.raw.id.span().start,
            "id",
            format!("`{id}` is the built-in lesson's id; choose another"),
        ));
    }
    let mut langs: Vec<Lang> = Vec::new();
    for code in p.raw.languages.get_ref() {
        match lang_of_code(code) {
            Some(l) if langs.contains(&l) => g.errors.push(p.err_at(
                p.raw.languages.span().start,
                "languages",
                format!("`{code}` is listed twice"),
            )),
            Some(l) => langs.push(l),
            None => g.errors.push(p.err_at(
                p.raw.languages.span().start,
                "languages",
                format!(
                    "`{code}` is not a supported language (supported: {})",
                    Lang::ALL.map(|l| l.code()).join(", ")
                ),
            )),
        }
    }
    if p.raw.languages.get_ref().is_empty() {
        g.errors.push(p.err_at(
            p.raw.languages.span().start,
            "languages",
            "list at least one language".into(),
        ));
    }
    let mut titles = BTreeMap::new();
    for (code, title) in p.raw.title.get_ref() {
        match lang_of_code(code).filter(|l| langs.contains(l)) {
            Some(_) if title.trim().is_empty() => g.errors.push(p.err_at(
                p.raw.title.span().start,
                "title",
                format!("the {code} title is empty"),
            )),
            Some(_) if title.chars().count() > MAX_TITLE_CHARS => g.errors.push(p.err_at(
                p.raw.title.span().start,
                "title",
                format!("the {code} title is longer than {MAX_TITLE_CHARS} characters"),
            )),
            Some(l) => {
                titles.insert(l, title.clone());
            }
            None => g.errors.push(p.err_at(
                p.raw.title.span().start,
                "title",
                format!("`{code}` is not one of the pack's languages"),
            )),
        }
    }
    for l in &langs {
        if !p.raw.title.get_ref().contains_key(l.code()) {
            g.errors.push(p.err_at(
                p.raw.title.span().start,
                "title",
                format!("no {} title", l.code()),
            ));
        }
    }

    (id, langs, titles)
}

/// Which files the pack file lists (each path with its line), each checked; those listed
/// but missing or unreadable lend their id or name to `g` so nothing cascades.
pub(super) fn listed_files(
    p: &PackFile<'_>,
    root: &str,
    files: &[(String, String)],
    unreadable: &[(String, String)],
    g: &mut Gathered,
) -> BTreeMap<String, usize> {
    let mut listed: BTreeMap<String, usize> = BTreeMap::new();
    if let Some(f) = p.raw.files.get(MAX_FILES) {
        g.errors.push(p.err_at(
            f.span().start,
            "files",
            format!("more than {MAX_FILES} files are listed"),
        ));
    }
    for f in p.raw.files.iter().take(MAX_FILES) {
        let line = p.lines.line(f.span().start);
        if let Err(m) = classify(f.get_ref(), &p.langs) {
            g.errors.push(PackError::new(p.path, line, "files", m));
        } else if listed.insert(f.get_ref().clone(), line).is_some() {
            g.errors.push(PackError::new(
                p.path,
                line,
                "files",
                format!("`{}` is listed twice", f.get_ref()),
            ));
        }
    }
    let given: BTreeSet<String> = files
        .iter()
        .skip(1)
        .map(|(p, _)| rel_of(root, p))
        .chain(unreadable.iter().map(|(p, _)| rel_of(root, p)))
        .collect();
    // Sections that did not parse and whose id could not even be read: then checks that
    // need every section id (translations) are skipped rather than piling up.
    // Ids and names read from files that did not parse.
    // A listed file that is missing or unreadable counts as a failed one: its id or name
    // is taken from its file name (`01-lease.md` → `lease`) so nothing cascades.
    for rel in listed.keys().chain(unreadable.iter().map(|(p, _)| p)) {
        let rel = rel_of(root, rel);
        if listed.contains_key(&rel)
            && (!given.contains(&rel) || unreadable.iter().any(|(p, _)| rel_of(root, p) == rel))
        {
            match classify(&rel, &p.langs) {
                Ok(FileKind::Section(_)) => {
                    g.recovered_ids.insert(stem(&rel));
                }
                Ok(FileKind::Scenario) => {
                    g.recovered_names.insert(stem(&rel));
                }
                Ok(FileKind::Lab) => {
                    g.recovered_labs.insert(labs::id_of(&rel));
                }
                _ => {}
            }
        }
    }
    for (rel, line) in &listed {
        if !given.contains(rel) {
            g.errors.push(PackError::new(
                p.path,
                *line,
                "files",
                format!("`{rel}` is listed but was not found"),
            ));
        }
    }
    listed
}

/// Reads every given file other than the pack file: sections, quizzes and scenarios, each
/// against its limits.
pub(super) fn read_files(
    p: &PackFile<'_>,
    root: &str,
    files: &[(String, String)],
    listed: &BTreeMap<String, usize>,
    max_sections: usize,
    g: &mut Gathered,
) {
    for (index, (path, text)) in files.iter().enumerate().skip(1).take(MAX_FILES) {
        let rel = rel_of(root, path);
        let kind = match classify(&rel, &p.langs) {
            Ok(k) => k,
            Err(m) => {
                g.errors.push(PackError::new(path, 1, "file", m));
                continue;
            }
        };
        let counts = (&mut g.section_count, &mut g.scenario_count, max_sections);
        if let Some(e) = file_limit_error(path, text.len(), kind, counts) {
            match kind {
                FileKind::Section(_) => drop(g.recovered_ids.insert(stem(&rel))),
                FileKind::Scenario => drop(g.recovered_names.insert(stem(&rel))),
                FileKind::Lab => drop(g.recovered_labs.insert(labs::id_of(&rel))),
                FileKind::Quiz => {}
            }
            g.errors.push(e);
            continue;
        }
        g.parsed += text.len();
        if !listed.contains_key(&rel) {
            g.errors.push(PackError::new(
                path,
                1,
                "file",
                format!("`{rel}` is not listed in the pack file's `files` (the app loads only listed files)"),
            ));
        }
        match kind {
            FileKind::Section(lang) => match parse_section(path, text) {
                Ok(section) => {
                    let body_line = line_of(text, text.len() - section.body.len());
                    g.sections.push(SectionSrc {
                        lang,
                        section,
                        body_line,
                        id_line: key_line(text, 1, "id").unwrap_or(2),
                        order_line: key_line(text, 1, "order").unwrap_or(2),
                    });
                }
                Err(e) => {
                    match lenient_value(text, "id") {
                        Some(id) => drop(g.recovered_ids.insert(id)),
                        None => g.section_failures += 1,
                    }
                    g.errors.push(e.into());
                }
            },
            FileKind::Quiz => g.quiz_srcs.push(QuizSrc {
                file: path.clone(),
                text: text.clone(),
                shift: 0,
                section_line: key_line(text, 1, "section").unwrap_or(1),
            }),
            FileKind::Scenario => match scenario::parse(path, text) {
                Ok(s) => {
                    let line = key_line(text, 1, "name").unwrap_or(1);
                    g.scenarios.push((s, path.clone(), line));
                }
                Err(e) => {
                    g.recovered_names.extend(lenient_value(text, "name"));
                    g.errors.push(e.into());
                }
            },
            FileKind::Lab => labs::gather(&rel, path, index, g),
        }
    }
}

/// The pack file's own `[[section]]` tables, up to `room` of them.
pub(super) fn inline_sections(p: &PackFile<'_>, room: usize, g: &mut Gathered) {
    for t in p.raw.section.iter().take(room) {
        let span = t.span();
        let header = p.lines.line(span.start);
        let (doc, shift) = sub_document(p.text, &span, &p.headers, &p.lines);
        g.parsed += doc.len();
        let s: RawInlineSection = match toml::from_str(&doc) {
            Ok(s) => s,
            Err(e) => {
                match lenient_value(&doc, "id") {
                    Some(id) => drop(g.recovered_ids.insert(id)),
                    None => g.section_failures += 1,
                }
                let mut e = toml_error(p.path, &doc, &e);
                e.line += shift;
                g.errors.push(e);
                continue;
            }
        };
        let line = |sp: Range<usize>| line_of(&doc, sp.start) + shift;
        let Some(lang) = lang_of_code(s.lang.get_ref()).filter(|l| p.langs.contains(l)) else {
            g.recovered_ids.insert(s.id.get_ref().clone());
            g.errors.push(PackError::new(
                p.path,
                line(s.lang.span()),
                "lang",
                format!("`{}` is not one of the pack's languages", s.lang.get_ref()),
            ));
            continue;
        };
        let synthetic = format!(
            "+++\nid = {}\ntitle = {}\norder = {}\n+++\n{}",
            toml_quote(s.id.get_ref()),
            toml_quote(s.title.get_ref()),
            s.order.get_ref(),
            s.body.get_ref()
        );
        let body_line = string_first_line(&doc, &s.body.span()) + shift;
        g.parsed += synthetic.len();
        match parse_section(p.path, &synthetic) {
            Ok(section) => g.sections.push(SectionSrc {
                lang,
                section,
                body_line,
                id_line: line(s.id.span()),
                order_line: line(s.order.span()),
            }),
            Err(e) => {
                g.recovered_ids.insert(s.id.get_ref().clone());
                let l = match e.field.as_str() {
                    "id" => line(s.id.span()),
                    "title" => line(s.title.span()),
                    "order" => line(s.order.span()),
                    "body" => body_line,
                    _ => header,
                };
                g.errors.push(PackError::new(p.path, l, &e.field, e.message));
            }
        }
    }
}

/// The pack file's own `[[question]]` tables, each made a quiz file of one question.
pub(super) fn inline_questions(p: &PackFile<'_>, g: &mut Gathered) {
    // Where each table starts: a question's text ends where the next table begins.
    let mut starts: Vec<usize> = p
        .raw
        .section
        .iter()
        .chain(&p.raw.question)
        .chain(&p.raw.scenario)
        .map(|t| t.span().start)
        .collect();
    starts.push(p.raw.title.span().start);
    crate::sorting::sort(&mut starts);
    for t in p.raw.question.iter().take(MAX_QUESTIONS) {
        let span = t.span();
        let end = starts
            .get(starts.partition_point(|&s| s <= span.start))
            .copied()
            .unwrap_or(p.text.len());
        let header = p.lines.line(span.start);
        let Some(section) = t.get_ref().get("section").and_then(|v| v.as_str()) else {
            g.errors.push(PackError::new(
                p.path,
                header,
                "section",
                "a [[question]] needs `section = \"<section id>\"`",
            ));
            continue;
        };
        // The question's text, with its `section` line blanked: a quiz file of one question.
        let region = p.text.get(span.start..end).unwrap_or("");
        let mut body = String::new();
        let mut in_own_keys = true;
        let mut section_line = header;
        for (i, l) in region.split_inclusive('\n').enumerate() {
            if i > 0 && l.trim_start().starts_with('[') {
                in_own_keys = false;
            }
            let is_section = in_own_keys && l.split_once('=').is_some_and(|(k, _)| k.trim() == "section");
            if is_section {
                section_line = header + i;
                body.push('\n');
            } else {
                body.push_str(l);
            }
        }
        // Line 1 is `section`, line 2 the `[[question]]` header, which is `header` in the file.
        g.quiz_srcs.push(QuizSrc {
            file: p.path.to_string(),
            text: format!("section = {}\n{body}", toml_quote(section)),
            shift: header as isize - 2,
            section_line,
        });
    }
}

/// The pack file's own `[[scenario]]` tables, up to `room` of them.
pub(super) fn inline_scenarios(p: &PackFile<'_>, room: usize, g: &mut Gathered) {
    for t in p.raw.scenario.iter().take(room) {
        let span = t.span();
        let (doc, shift) = sub_document(p.text, &span, &p.headers, &p.lines);
        g.parsed += doc.len();
        let s: RawInlineScenario = match toml::from_str(&doc) {
            Ok(s) => s,
            Err(e) => {
                let mut e = toml_error(p.path, &doc, &e);
                e.line += shift;
                if !t.get_ref().contains_key("source") {
                    e.message
                        .push_str("; a [[scenario]] holds a scenario file as source = '''…'''");
                }
                g.errors.push(e);
                continue;
            }
        };
        let first = string_first_line(&doc, &s.source.span()) + shift;
        if s.source.get_ref().len() > MAX_SCENARIO_BYTES {
            g.recovered_names
                .extend(lenient_value(s.source.get_ref(), "name"));
            g.errors.push(PackError::new(
                p.path,
                first,
                "source",
                format!(
                    "the scenario is {} bytes; at most {MAX_SCENARIO_BYTES} are allowed",
                    s.source.get_ref().len()
                ),
            ));
            continue;
        }
        g.parsed += s.source.get_ref().len();
        match scenario::parse(p.path, s.source.get_ref()) {
            Ok(sc) => {
                let line = key_line(s.source.get_ref(), 1, "name").map_or(first, |l| first + l - 1);
                g.scenarios.push((sc, p.path.to_string(), line));
            }
            Err(e) => {
                g.recovered_names
                    .extend(lenient_value(s.source.get_ref(), "name"));
                let mut e = PackError::from(e);
                e.line = first + e.line - 1;
                g.errors.push(e);
            }
        }
    }
}

/// Scenario names: slugs, unique, none a built-in's. Returns name → file.
pub(super) fn check_scenario_names(g: &mut Gathered) -> BTreeMap<String, String> {
    let mut scenario_names: BTreeMap<String, String> = BTreeMap::new();
    for (s, file, line) in &g.scenarios {
        if !is_slug(&s.name) {
            g.errors.push(PackError::new(
                file,
                *line,
                "name",
                format!(
                    "`{}` is not a valid scenario name: use lowercase letters, digits and dashes",
                    s.name
                ),
            ));
        } else if BUILTIN_NAMES.contains(&s.name.as_str()) {
            g.errors.push(PackError::new(
                file,
                *line,
                "name",
                format!("`{}` is the name of a built-in scenario; choose another", s.name),
            ));
        } else if let Some(other) = scenario_names.get(&s.name) {
            g.errors.push(PackError::new(
                file,
                *line,
                "name",
                format!("`{}` is already used by {other}", s.name),
            ));
        } else {
            scenario_names.insert(s.name.clone(), file.clone());
        }
    }
    scenario_names
}
