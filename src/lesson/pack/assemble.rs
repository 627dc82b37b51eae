//! A pack's pieces put together: sections grouped by language, questions read and
//! checked against their sections, and each body's blocks (scenarios, labs, tables)
//! checked against the limits.

use super::error::*;
use super::file::*;
use super::limits::*;
use super::sources::*;
use crate::lesson::content::Lesson;
use crate::lesson::lang::Lang;
use crate::lesson::markdown::{self, lab_blocks, scenario_blocks};
use crate::lesson::quiz::{self, Kind, Question};
use crate::lesson::route::Route;
use crate::sim::scenario::{self as scenario};
use crate::toml_error::{key_line, line_of};
use std::collections::{BTreeMap, BTreeSet};

/// Sections by language, with unique ids and orders per language and the same sections
/// in every language.
pub(super) fn group_sections<'s>(
    p: &PackFile<'_>,
    sections: &'s [SectionSrc],
    g: &mut Gathered,
) -> BTreeMap<Lang, Vec<&'s SectionSrc>> {
    let mut lessons: BTreeMap<Lang, Vec<&SectionSrc>> = BTreeMap::new();
    // Per language: section id → section, order → section (one lookup each, not a scan).
    let mut by_id: BTreeMap<(Lang, &str), &SectionSrc> = BTreeMap::new();
    let mut by_order: BTreeMap<(Lang, u32), &SectionSrc> = BTreeMap::new();
    for src in sections {
        let list = lessons.entry(src.lang).or_default();
        let s = &src.section;
        if s.title.chars().count() > MAX_TITLE_CHARS {
            g.errors.push(PackError::new(
                &s.file,
                src.id_line,
                "title",
                format!(
                    "the title of `{}` is longer than {MAX_TITLE_CHARS} characters",
                    s.id
                ),
            ));
        }
        if let Some(other) = by_id.get(&(src.lang, s.id.as_str())) {
            g.errors.push(PackError::new(
                &s.file,
                src.id_line,
                "id",
                format!("`{}` is already used by {}", s.id, other.section.file),
            ));
        } else if let Some(other) = by_order.get(&(src.lang, s.order)) {
            g.errors.push(PackError::new(
                &s.file,
                src.order_line,
                "order",
                format!("{} is already used by {}", s.order, other.section.file),
            ));
        } else {
            by_id.insert((src.lang, s.id.as_str()), src);
            by_order.insert((src.lang, s.order), src);
            list.push(src);
        }
    }
    if sections.is_empty() && g.section_failures == 0 && g.recovered_ids.is_empty() {
        g.errors
            .push(PackError::new(p.path, 1, "section", "the pack has no sections"));
    }
    if let Some(&reference) = p.langs.first().filter(|_| g.section_failures == 0) {
        let empty = Vec::new();
        let ref_list = lessons.get(&reference).unwrap_or(&empty);
        for &lang in p.langs.iter().skip(1) {
            let list = lessons.get(&lang).unwrap_or(&empty);
            for r in ref_list {
                match by_id.get(&(lang, r.section.id.as_str())) {
                    None if g.recovered_ids.contains(&r.section.id) => {}
                    None => g.errors.push(PackError::new(
                        &r.section.file,
                        r.id_line,
                        "id",
                        format!(
                            "section `{}` has no {} version (every language needs the same sections)",
                            r.section.id,
                            lang.code()
                        ),
                    )),
                    Some(o) if o.section.order != r.section.order => g.errors.push(PackError::new(
                        &o.section.file,
                        o.order_line,
                        "order",
                        format!(
                            "section `{}` has order {} in {} but {} in {}",
                            o.section.id,
                            r.section.order,
                            reference.code(),
                            o.section.order,
                            lang.code()
                        ),
                    )),
                    Some(_) => {}
                }
            }
            for o in list {
                if !ref_list.iter().any(|r| r.section.id == o.section.id)
                    && !g.recovered_ids.contains(&o.section.id)
                {
                    g.errors.push(PackError::new(
                        &o.section.file,
                        o.id_line,
                        "id",
                        format!(
                            "section `{}` is in {} but not in {}, the pack's first language",
                            o.section.id,
                            lang.code(),
                            reference.code()
                        ),
                    ));
                }
            }
        }
    }
    lessons
}

/// Every question of the quiz files and the pack file: parsed, unique ids, and the
/// sections and scenarios they name exist.
pub(super) fn read_questions(
    p: &PackFile<'_>,
    quiz_srcs: &[QuizSrc],
    section_ids: &BTreeSet<&str>,
    scenario_known: &dyn Fn(&str) -> bool,
    g: &mut Gathered,
) -> Vec<Question> {
    let mut questions: Vec<Question> = Vec::new();
    let mut question_files: BTreeMap<String, String> = BTreeMap::new();
    let mut questions_full = false;
    for src in quiz_srcs {
        if questions_full {
            break;
        }
        g.parsed += src.text.len();
        let file_questions = match quiz::parse_file_for(&src.file, &src.text, &p.langs) {
            Ok(qs) => qs,
            Err(es) => {
                g.errors.extend(es.into_iter().map(|e| {
                    let mut p = PackError::from(e);
                    p.line = src.line(p.line);
                    p
                }));
                continue;
            }
        };
        // The line of each `id = "…"` of the file, found in one pass.
        let mut id_lines: BTreeMap<&str, usize> = BTreeMap::new();
        for (i, l) in src.text.lines().enumerate() {
            if let Some((k, v)) = l.split_once('=').filter(|(k, _)| k.trim() == "id") {
                let _ = k;
                id_lines.entry(v.trim().trim_matches('"')).or_insert(i + 1);
            }
        }
        for q in file_questions {
            if questions.len() >= MAX_QUESTIONS {
                questions_full = true;
                g.errors.push(PackError::new(
                    &src.file,
                    src.line(id_lines.get(q.id.as_str()).copied().unwrap_or(1)),
                    "question",
                    format!("more than {MAX_QUESTIONS} questions in the pack; the rest are not read"),
                ));
                break;
            }
            let id_line = id_lines.get(q.id.as_str()).copied().unwrap_or(1);
            let at = |l: usize| src.line(l);
            if let Some(other) = question_files.get(&q.id) {
                g.errors.push(PackError::new(
                    &src.file,
                    at(id_line),
                    "id",
                    format!("`{}` is already used in {other}", q.id),
                ));
                continue;
            }
            question_files.insert(q.id.clone(), src.file.clone());
            let reported = g
                .errors
                .iter()
                .any(|e| e.file == src.file && e.line == src.section_line && e.field == "section");
            let known = section_ids.contains(q.section.as_str()) || g.recovered_ids.contains(&q.section);
            if !known && !reported {
                g.errors.push(PackError::new(
                    &src.file,
                    src.section_line,
                    "section",
                    format!(
                        "`{}` is not a section of this pack (its g.sections: {})",
                        q.section,
                        section_ids
                            .iter()
                            .copied()
                            .chain(g.recovered_ids.iter().map(String::as_str))
                            .collect::<BTreeSet<_>>()
                            .into_iter()
                            .collect::<Vec<_>>()
                            .join(", ")
                    ),
                ));
            }
            match &q.kind {
                Kind::Predict {
                    scenario: name,
                    pause_at_ms,
                } => {
                    let line = key_line(&src.text, id_line, "scenario").unwrap_or(id_line);
                    if !scenario_known(name) {
                        g.errors.push(PackError::new(
                            &src.file,
                            at(line),
                            "scenario",
                            format!("question `{}`: `{name}` is neither a scenario of this pack nor a built-in one", q.id),
                        ));
                    } else {
                        let end = g
                            .scenarios
                            .iter()
                            .find(|(s, _, _)| &s.name == name)
                            .map(|(s, _, _)| s.end_ms)
                            .or_else(|| scenario::builtin(name).and_then(Result::ok).map(|s| s.end_ms));
                        if let Some(end) = end.filter(|&end| *pause_at_ms as f64 >= end) {
                            let line = key_line(&src.text, id_line, "pause_at_ms").unwrap_or(id_line);
                            g.errors.push(PackError::new(
                                &src.file,
                                at(line),
                                "pause_at_ms",
                                format!(
                                    "question `{}`: {pause_at_ms} is not before the end of `{name}` ({end} ms)",
                                    q.id
                                ),
                            ));
                        }
                    }
                }
                Kind::Bug { code_lang, .. } if !CODE_LANGS.contains(&code_lang.as_str()) => {
                    let line = key_line(&src.text, id_line, "code_lang").unwrap_or(id_line);
                    g.errors.push(PackError::new(
                        &src.file,
                        at(line),
                        "code_lang",
                        format!(
                            "question `{}`: `{code_lang}` is not one of {}",
                            q.id,
                            CODE_LANGS.join(", ")
                        ),
                    ));
                }
                _ => {}
            }
            g.errors
                .extend(question_depth_error(&q, src, id_line, &mut g.parsed));
            questions.push(q);
        }
    }

    questions
}

/// The scenario names the `scenario` blocks of section `order` of `lesson` offer, in
/// order, wherever in the section they stand (a list item or a quote holds one too).
pub fn section_scenarios(lesson: &Lesson, order: u32) -> Vec<String> {
    lesson
        .section(order)
        .map_or_else(Vec::new, |s| scenario_blocks(&crate::lesson::docs::doc(&s.body)))
}

/// The lab ids section `order` shows (its `lab` blocks), in order.
pub fn section_labs(lesson: &Lesson, order: u32) -> Vec<String> {
    lesson
        .section(order)
        .map_or_else(Vec::new, |s| lab_blocks(&crate::lesson::docs::doc(&s.body)))
}

/// The lab an embed of one lab shows (`show=lab`): the one it names, if the lesson has
/// it, else the first of section `order`.
pub fn embedded_lab(lesson: &Lesson, order: u32, named: Option<&str>) -> Option<String> {
    let mut all = lesson.sections.iter().flat_map(|s| section_labs(lesson, s.order));
    match named.filter(|id| all.any(|l| l == *id)) {
        Some(id) => Some(id.to_string()),
        None => section_labs(lesson, order).into_iter().next(),
    }
}

/// The checks of section bodies: nesting depth, `scenario` blocks naming known scenarios,
/// `guide` blocks that parse, in-pack links that reach a section.
pub(super) fn check_bodies(
    sections: &[SectionSrc],
    scenario_known: &dyn Fn(&str) -> bool,
    lab_known: &dyn Fn(&str) -> bool,
    id: &str,
    orders: &BTreeSet<u32>,
    errors: &mut Vec<PackError>,
    parsed: &mut usize,
) {
    for src in sections {
        let body = &src.section.body;
        if let Some((offset, depth)) = markdown::too_deep(body) {
            errors.push(PackError::new(
                &src.section.file,
                src.body_line + line_of(body, offset) - 1,
                "body",
                format!(
                    "Markdown nested {depth} levels deep (quotes, lists, emphasis…); at most {} are allowed",
                    markdown::MAX_DEPTH
                ),
            ));
            continue;
        }
        *parsed += 2 * body.len(); // the depth check and the parse
        let doc = markdown::parse(body);
        // Finding an error's line scans the body: at most BODY_ERRORS of them per body.
        let before = errors.len();
        let room = |errors: &Vec<PackError>| errors.len() - before < BODY_ERRORS;
        for name in scenario_blocks(&doc) {
            if !scenario_known(&name) && room(errors) {
                let line = src.body_line + line_in_body(body, &name);
                errors.push(PackError::new(
                    &src.section.file,
                    line,
                    "scenario",
                    format!("`{name}` is neither a scenario of this pack nor a built-in one"),
                ));
            }
        }
        for id in lab_blocks(&doc) {
            if !lab_known(&id) && room(errors) {
                let line = src.body_line + line_in_body(body, &id);
                errors.push(PackError::new(
                    &src.section.file,
                    line,
                    "lab",
                    format!(
                        "`{id}` is neither a lab of this pack (a folder labs/{id}/) nor a built-in one ({})",
                        crate::labs::IDS.join(", ")
                    ),
                ));
            }
        }
        for code in crate::lesson::guide::guide_blocks(&doc) {
            if let Err(errs) = crate::lesson::guide::parse(&code).map_err(|e| e.into_iter().take(BODY_ERRORS))
            {
                if !room(errors) {
                    break;
                }
                let first = code.lines().find(|l| !l.trim().is_empty()).unwrap_or("");
                let start = src.body_line + line_in_body(body, first);
                for e in errs {
                    errors.push(PackError::new(
                        &src.section.file,
                        start + e.line - 1,
                        "guide",
                        e.message,
                    ));
                }
            }
        }
        for href in markdown::links(&doc) {
            if let Route::Section { lesson, order } = Route::parse(&href) {
                if lesson == id && !orders.contains(&order) && room(errors) {
                    errors.push(PackError::new(
                        &src.section.file,
                        src.body_line + line_in_body(body, &href),
                        "body",
                        format!("the link `{href}` points to section {order}, which the pack does not have"),
                    ));
                }
            }
        }
    }
}

/// The error for a question text (Markdown too) nested deeper than section bodies may be.
pub(super) fn question_depth_error(
    q: &Question,
    src: &QuizSrc,
    id_line: usize,
    parsed: &mut usize,
) -> Option<PackError> {
    let texts = [&q.en, &q.nb].into_iter().flat_map(|t| {
        [("prompt", &t.prompt), ("explanation", &t.explanation)]
            .into_iter()
            .chain(t.options.iter().map(|o| ("options", o)))
            .chain(t.explanations.iter().map(|o| ("explanations", o)))
            .chain(t.items.iter().map(|o| ("items", o)))
    });
    for (field, text) in texts {
        *parsed += text.len();
        if let Some((_, depth)) = markdown::too_deep(text) {
            let line = key_line(&src.text, id_line, field).unwrap_or(id_line);
            return Some(PackError::new(
                &src.file,
                src.line(line),
                field,
                format!(
                    "question `{}`: Markdown nested {depth} levels deep; at most {} are allowed",
                    q.id,
                    markdown::MAX_DEPTH
                ),
            ));
        }
    }
    None
}

/// An error at the first `[[section]]`, `[[question]]` or `[[scenario]]` of the pack file
/// past its limit (`sections` and `scenarios` already found in the folder count too).
pub(super) fn table_limit_errors(
    raw: &RawPack,
    max_sections: usize,
    sections: usize,
    scenarios: usize,
    err_at: &dyn Fn(usize, &str, String) -> PackError,
) -> Vec<PackError> {
    [
        (&raw.section, max_sections, sections, "section"),
        (&raw.question, MAX_QUESTIONS, 0, "question"),
        (&raw.scenario, MAX_SCENARIOS, scenarios, "scenario"),
    ]
    .into_iter()
    .filter_map(|(table, max, already, what)| {
        let room = max.saturating_sub(already);
        table.get(room).map(|t| {
            err_at(
                t.span().start,
                what,
                format!(
                    "more than {max} {what}s in the pack; this one and the {} after it are not read",
                    table.len() - room - 1
                ),
            )
        })
    })
    .collect()
}

/// The most errors reported for one section's body (each costs a scan for its line).
pub(super) const BODY_ERRORS: usize = 20;

/// The 0-based line of the body where `needle` first occurs (0 if nowhere).
pub(super) fn line_in_body(body: &str, needle: &str) -> usize {
    body.find(needle).map_or(0, |o| line_of(body, o) - 1)
}
