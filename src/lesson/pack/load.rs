//! Loading a pack from its files (the page's fetched files, a folder's, or the built-in
//! lesson's): size limits first, then each part, every error collected with its file
//! and line.

use super::error::*;
use super::labs;
use super::limits::*;
use super::loaded::Pack;
use super::sources::*;
use super::{assemble::*, file::*, gather::*};
use crate::lesson::content::{Lesson, Section, BUILTIN_LESSON_ID};
use crate::lesson::lang::Lang;
use crate::sim::scenario::BUILTIN_NAMES;
use std::collections::BTreeSet;

/// Loads and validates a pack from `(path, text)` pairs, without touching a filesystem.
///
/// The first pair is the pack file (`…/pack.toml`, or the one file of a single-file
/// pack); the others are the files it lists, with paths relative to the pack file's
/// folder (`sections/en/01-x.md`) or prefixed with that folder (`packs/x/sections/…`).
/// Every mistake is reported, each with its file, line and field.
pub fn load_files(files: &[(String, String)]) -> Result<Pack, Vec<PackError>> {
    load(files, &[], false)
}

/// Like [`load_files`], with the files that could not be read (path, reason), such as a
/// file the browser stopped downloading at the size limit: each is reported, and what
/// depends on it (its section id, its scenario's name) does not cascade into more errors.
pub fn load_with_unreadable(
    files: &[(String, String)],
    unreadable: &[(String, String)],
) -> Result<Pack, Vec<PackError>> {
    load(files, unreadable, false)
}

/// The built-in lesson, loaded as a pack through the same checks (its scenarios are the
/// built-ins, so `scenarios` is empty).
pub fn builtin() -> Result<Pack, Vec<PackError>> {
    let mut listed = Vec::new();
    let mut files = vec![(PACK_FILE.to_string(), String::new())];
    let content = crate::lesson::content::builtin_files()
        .iter()
        .chain(crate::lesson::content::builtin_quiz_files());
    for (path, text) in content {
        let rel = path.strip_prefix("content/").unwrap_or(path);
        let rel = if rel.starts_with("quiz/") {
            rel.to_string()
        } else {
            format!("sections/{rel}")
        };
        listed.push(toml_quote(&rel));
        files.push((rel, text.to_string()));
    }
    let titles: Vec<String> = BUILTIN_TITLES
        .iter()
        .map(|(lang, title)| format!("{} = {}", lang.code(), toml_quote(title)))
        .collect();
    files[0].1 = format!(
        "id = {}\nlanguages = [\"en\", \"nb\"]\ntitle = {{ {} }}\nfiles = [{}]\n",
        toml_quote(BUILTIN_LESSON_ID),
        titles.join(", "),
        listed.join(", ")
    );
    load(&files, &[], true)
}

/// The built-in lesson's title in each of its languages.
pub(super) const BUILTIN_TITLES: [(Lang, &str); 2] = [
    (Lang::En, "Distributed locks with Redis"),
    (Lang::Nb, "Distribuerte låser med Redis"),
];

/// The built-in lesson as [`builtin`] loads it, from what `build.rs` compiled: no TOML
/// or Markdown is parsed and nothing is validated (the build and [`builtin`] did that;
/// `tests/pack.rs` checks the two are equal). This is what the app starts with: the
/// loader's checks cost about 50 ms of a first click in the browser.
pub fn builtin_compiled() -> Pack {
    Pack {
        id: BUILTIN_LESSON_ID.to_string(),
        titles: BUILTIN_TITLES.iter().map(|&(l, t)| (l, t.to_string())).collect(),
        langs: BUILTIN_TITLES.iter().map(|&(l, _)| l).collect(),
        lessons: BUILTIN_TITLES
            .iter()
            .map(|&(lang, _)| {
                let sections = crate::lesson::content::compiled_sections(lang);
                (
                    lang,
                    Lesson {
                        id: BUILTIN_LESSON_ID.to_string(),
                        lang,
                        sections,
                    },
                )
            })
            .collect(),
        questions: crate::lesson::content::compiled_questions(),
        scenarios: Vec::new(),
        labs: Vec::new(),
    }
}

/// Like [`load_files`], and how many bytes the loader handed to its parsers (TOML,
/// Markdown, quiz and scenario files): the measure of its work, which grows linearly
/// with the pack (the resource tests check it; time itself goes to the report).
pub fn load_files_counted(files: &[(String, String)]) -> (Result<Pack, Vec<PackError>>, usize) {
    let mut parsed = 0;
    let result = load_counted(files, &[], false, &mut parsed);
    (result, parsed)
}

pub(super) fn load(
    files: &[(String, String)],
    unreadable: &[(String, String)],
    allow_builtin_id: bool,
) -> Result<Pack, Vec<PackError>> {
    let mut parsed = 0;
    load_counted(files, unreadable, allow_builtin_id, &mut parsed).map_err(cap_errors)
}

pub(super) fn load_counted(
    files: &[(String, String)],
    unreadable: &[(String, String)],
    allow_builtin_id: bool,
    parsed: &mut usize,
) -> Result<Pack, Vec<PackError>> {
    let mut g = Gathered {
        errors: unreadable
            .iter()
            .map(|(f, reason)| PackError::unreadable(f, reason))
            .collect(),
        ..Gathered::default()
    };
    let result = load_gathered(files, unreadable, allow_builtin_id, &mut g);
    *parsed += g.parsed;
    result
}

pub(super) fn load_gathered(
    files: &[(String, String)],
    unreadable: &[(String, String)],
    allow_builtin_id: bool,
    g: &mut Gathered,
) -> Result<Pack, Vec<PackError>> {
    let Some((pack_path, pack_text)) = files.first() else {
        return Err(vec![PackError::new(
            PACK_FILE,
            1,
            "file",
            "no pack file was given",
        )]);
    };
    let pack_text = pack_text.strip_prefix('\u{feff}').unwrap_or(pack_text);
    // Sizes first: nothing is parsed that could take long or much memory.
    if let Some(e) = pack_size_error(pack_path, pack_text, files) {
        g.errors.push(e);
        return Err(std::mem::take(&mut g.errors));
    }
    g.parsed += pack_text.len();
    let raw: RawPack = match toml::from_str(pack_text) {
        Ok(r) => r,
        Err(e) => {
            g.errors.push(toml_error(pack_path, pack_text, &e));
            return Err(std::mem::take(&mut g.errors));
        }
    };
    let mut p = PackFile {
        path: pack_path,
        text: pack_text,
        lines: LineIndex::new(pack_text),
        headers: table_headers(pack_text),
        raw,
        langs: Vec::new(),
    };
    let (id, langs, titles) = read_metadata(&p, allow_builtin_id, g);
    p.langs = langs;

    // The files: those listed, then those given.
    let root = pack_path.rsplit_once('/').map_or("", |(dir, _)| dir);
    let listed = listed_files(&p, root, files, unreadable, g);
    let max_sections = MAX_SECTIONS * p.langs.len().max(1);
    read_files(&p, root, files, &listed, max_sections, g);
    labs::read(files, &listed, g);

    // The pack file's own sections, questions and scenarios.
    let limits = table_limit_errors(
        &p.raw,
        max_sections,
        g.section_count,
        g.scenario_count,
        &|o, f, m| p.err_at(o, f, m),
    );
    g.errors.extend(limits);
    inline_sections(&p, max_sections.saturating_sub(g.section_count), g);
    inline_questions(&p, g);
    inline_scenarios(&p, MAX_SCENARIOS.saturating_sub(g.scenario_count), g);

    let scenario_names = check_scenario_names(g);
    let sections = std::mem::take(&mut g.sections);
    let quiz_srcs = std::mem::take(&mut g.quiz_srcs);
    let lessons = group_sections(&p, &sections, g);
    let section_ids: BTreeSet<&str> = sections.iter().map(|s| s.section.id.as_str()).collect();
    let orders: BTreeSet<u32> = sections.iter().map(|s| s.section.order).collect();
    let recovered_names = std::mem::take(&mut g.recovered_names);
    let scenario_known = |name: &str| {
        scenario_names.contains_key(name) || recovered_names.contains(name) || BUILTIN_NAMES.contains(&name)
    };
    let lab_ids: BTreeSet<String> = g.labs.iter().map(|l| l.lab.id.clone()).collect();
    let recovered_labs = std::mem::take(&mut g.recovered_labs);
    let lab_known =
        |lab: &str| crate::labs::IDS.contains(&lab) || lab_ids.contains(lab) || recovered_labs.contains(lab);
    // Section bodies: scenario and lab blocks name known ones; in-pack links go somewhere.
    check_bodies(
        &sections,
        &scenario_known,
        &lab_known,
        &id,
        &orders,
        &mut g.errors,
        &mut g.parsed,
    );
    let questions = read_questions(&p, &quiz_srcs, &section_ids, &scenario_known, g);

    if !g.errors.is_empty() {
        // By file, then line; g.errors of one line keep the order they were found in.
        crate::sorting::sort_by(&mut g.errors, |a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
        return Err(std::mem::take(&mut g.errors));
    }
    let lessons = p
        .langs
        .iter()
        .map(|&lang| {
            let mut list: Vec<Section> = lessons
                .get(&lang)
                .map(|l| l.iter().map(|s| s.section.clone()).collect())
                .unwrap_or_default();
            crate::sorting::sort_by_key(&mut list, |s| s.order);
            (
                lang,
                Lesson {
                    id: id.clone(),
                    lang,
                    sections: list,
                },
            )
        })
        .collect();
    Ok(Pack {
        id,
        titles: titles.into_iter().collect(),
        langs: p.langs,
        lessons,
        questions,
        scenarios: std::mem::take(&mut g.scenarios)
            .into_iter()
            .map(|(s, _, _)| s)
            .collect(),
        labs: std::mem::take(&mut g.labs),
    })
}
