//! Loading a pack from its files (the page's fetched files, a folder's, or the built-in
//! lesson's): size limits first, then each part, every error collected with its file
//! and line.

use super::*;

/// Where a parsed section came from, for the cross-checks.
pub(super) struct SectionSrc {
    pub(super) lang: Lang,
    pub(super) section: Section,
    /// The line of the file where the body starts.
    pub(super) body_line: usize,
    /// The lines of its `id` and `order`.
    pub(super) id_line: usize,
    pub(super) order_line: usize,
}

/// A parsed quiz source: the file name, the text lines are counted in, and the shift to
/// add to a line of `text` to get the line in the file.
pub(super) struct QuizSrc {
    pub(super) file: String,
    pub(super) text: String,
    pub(super) shift: isize,
    /// The line of the `section` key in the file.
    pub(super) section_line: usize,
}

impl QuizSrc {
    pub(super) fn line(&self, l: usize) -> usize {
        (l as isize + self.shift).max(1) as usize
    }
}

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

/// At most [`MAX_ERRORS`] errors, the last one saying how many more there were.
pub(super) fn cap_errors(mut errors: Vec<PackError>) -> Vec<PackError> {
    if errors.len() > MAX_ERRORS {
        let more = errors.len() - (MAX_ERRORS - 1);
        errors.truncate(MAX_ERRORS - 1);
        let file = errors.last().map(|e| e.file.clone()).unwrap_or_default();
        errors.push(PackError::new(
            &file,
            1,
            "file",
            format!(
                "… and {more} more errors (only the first {} are shown)",
                MAX_ERRORS - 1
            ),
        ));
    }
    errors
}

/// The error for a pack's file over its size limit, or one section or scenario too many
/// (`counts`: sections and scenarios so far, counted here, and the section limit).
pub(super) fn file_limit_error(
    path: &str,
    len: usize,
    kind: FileKind,
    counts: (&mut usize, &mut usize, usize),
) -> Option<PackError> {
    let (sections, scenarios, max_sections) = counts;
    let (limit, what) = match kind {
        FileKind::Scenario => (MAX_SCENARIO_BYTES, "the scenario file"),
        FileKind::Lab if path.ends_with("/scenario.toml") => (MAX_SCENARIO_BYTES, "the lab's scenario"),
        FileKind::Lab => (MAX_LAB_FILE_BYTES, "the lab's file"),
        _ => (MAX_FILE_BYTES, "the file"),
    };
    let (n, max, plural) = match kind {
        FileKind::Section(_) => (sections, max_sections, "sections"),
        FileKind::Scenario => (scenarios, MAX_SCENARIOS, "scenarios"),
        FileKind::Quiz | FileKind::Lab => return too_big(path, len, limit, what),
    };
    *n += 1;
    too_big(path, len, limit, what).or_else(|| {
        (*n > max).then(|| {
            PackError::new(
                path,
                1,
                "file",
                format!("more than {max} {plural}: this one is one too many"),
            )
        })
    })
}

/// The error for a pack file over [`MAX_FILE_BYTES`], or files over [`MAX_PACK_BYTES`].
pub(super) fn pack_size_error(
    pack_path: &str,
    pack_text: &str,
    files: &[(String, String)],
) -> Option<PackError> {
    let total: usize = files.iter().map(|(_, t)| t.len()).sum();
    too_big(pack_path, pack_text.len(), MAX_FILE_BYTES, "the pack file").or_else(|| {
        (total > MAX_PACK_BYTES).then(|| {
            PackError::new(
                pack_path,
                1,
                "files",
                format!(
                    "the pack's files weigh {total} bytes together; at most {MAX_PACK_BYTES} are allowed"
                ),
            )
        })
    })
}

/// The error for a file over [`MAX_FILE_BYTES`] (or `limit`), if it is.
pub(super) fn too_big(file: &str, len: usize, limit: usize, what: &str) -> Option<PackError> {
    (len > limit).then(|| {
        PackError::new(
            file,
            1,
            "file",
            format!("{what} is {len} bytes; at most {limit} are allowed"),
        )
    })
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

/// What the loader gathers across its phases: the sources parsed so far, the ids and
/// names recovered from files that did not parse (so that nothing cascades), the errors,
/// and the bytes handed to parsers.
#[derive(Default)]
pub(super) struct Gathered {
    pub(super) errors: Vec<PackError>,
    pub(super) parsed: usize,
    pub(super) sections: Vec<SectionSrc>,
    /// Sections that did not parse and whose id could not even be read: then checks that
    /// need every section id (translations) are skipped rather than piling up.
    pub(super) section_failures: usize,
    pub(super) recovered_ids: BTreeSet<String>,
    pub(super) recovered_names: BTreeSet<String>,
    pub(super) quiz_srcs: Vec<QuizSrc>,
    pub(super) scenarios: Vec<(Scenario, String, usize)>,
    /// Sections and scenarios seen so far (parsed or not), against their limits.
    pub(super) section_count: usize,
    pub(super) scenario_count: usize,
    /// Each lab folder's files, by lab id: the index in `files` of each of [`LAB_FILES`].
    pub(super) lab_files: BTreeMap<String, [Option<usize>; LAB_FILES.len()]>,
    /// The ids of lab folders that did not load (a file missing, unreadable or broken),
    /// so a `lab` block naming one does not cascade into a second error.
    pub(super) recovered_labs: BTreeSet<String>,
    pub(super) labs: Vec<PackLab>,
}

/// The pack file being loaded, parsed, with its line index and languages.
pub(super) struct PackFile<'a> {
    pub(super) path: &'a str,
    pub(super) text: &'a str,
    pub(super) lines: LineIndex,
    /// Where its table headers start ([`table_headers`]).
    pub(super) headers: Vec<usize>,
    pub(super) raw: RawPack,
    pub(super) langs: Vec<Lang>,
}

impl PackFile<'_> {
    pub(super) fn err_at(&self, offset: usize, field: &str, message: String) -> PackError {
        PackError::new(self.path, self.lines.line(offset), field, message)
    }
}

/// A path relative to the pack file's folder `root` (`packs/x/sections/…` → `sections/…`).
pub(super) fn rel_of(root: &str, path: &str) -> String {
    if root.is_empty() {
        path.to_string()
    } else {
        path.strip_prefix(root)
            .and_then(|p| p.strip_prefix('/'))
            .unwrap_or(path)
            .to_string()
    }
}

/// A section id or scenario name from a file name (`01-lease.md` → `lease`), for a file
/// that is missing or did not parse.
pub(super) fn stem(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let name = name.rsplit_once('.').map_or(name, |(n, _)| n);
    let digits = name.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    name[digits..].trim_start_matches('-').to_string()
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
        g.errors.sort_by(|a, b| (&a.file, a.line).cmp(&(&b.file, b.line)));
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
            list.sort_by_key(|s| s.order);
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
