//! Lesson packs: sections, quizzes and scenarios an instructor writes without
//! recompiling, validated with every mistake reported at once (`file:line: field: message`).
//!
//! A pack is a **pack file** (usually `pack.toml`) plus, in the folder form, the files it
//! lists. The full format is in `docs/authoring.md`; in short:
//!
//! ```toml
//! id = "leases"                                  # lowercase letters, digits, dashes
//! languages = ["en", "nb"]                       # the first is the reference language
//! title = { en = "Lock leases", nb = "Låseleie" }
//! files = [                                      # folder form: every other file, relative
//!   "sections/en/01-lease.md",                   # Markdown with `+++` front matter
//!   "quiz/01-lease.toml",                        # the `content/quiz` format
//!   "scenarios/lease-short.toml",                # the simulator's scenario format
//!   "labs/team-lock/lab.toml",                   # a lab of its own: its folder's five
//!   # files (lab.toml, scenario.toml, driver.js, starter.js, solution.js; `pack/labs.rs`)
//! ]
//!
//! # Single-file form (may be mixed with `files`):
//! [[section]]
//! lang = "en"
//! id = "lease"
//! title = "What a lease is"
//! order = 1
//! body = '''
//! Markdown…
//! '''
//!
//! [[question]]                                   # a quiz file's question, plus `section`
//! id = "lease-expiry"
//! section = "lease"
//! kind = "single"
//! # …, one [question.<lang>] per pack language, as in a quiz file
//!
//! [[scenario]]
//! source = '''
//! name = "lease-short"
//! # … a scenario file
//! '''
//! ```
//!
//! Everything here is pure: [`load_files`] takes `(path, text)` pairs, so the browser can
//! call it with fetched files ([`files_to_fetch`] says which), and [`load_dir`] reads a
//! folder or a single file for the native `lockstep check-pack`.
//!
//! Safety: nothing in a pack is ever injected as HTML. Markdown (sections and question
//! texts) goes through [`super::markdown::parse`], which keeps only allowlisted elements
//! and `http(s)://` / `#/…` links; every other string (titles, names, descriptions) is
//! rendered as text. Ids and scenario names are slugs, and the files a pack lists are
//! plain relative paths inside its folder, so a pack cannot point the app at another URL.

use super::content::{parse_section, ContentError, Lesson, Section, BUILTIN_LESSON_ID};
use super::lang::Lang;
use super::markdown::{self, Node};
use super::quiz::{self, Kind, Question, QuizError};
use super::route::Route;
use super::section::is_slug;
use super::state::Lessons;
use crate::sim::scenario::{self as scenario, Scenario, ScenarioError, BUILTIN_NAMES};
use crate::vecmap::VecMap;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;
use toml::Spanned;

mod fetch;
mod labs;
pub use fetch::unfetchable;

/// The usual name of a pack file in the folder form.
pub const PACK_FILE: &str = "pack.toml";

/// The `code_lang` values a bug-hunt question may use in a pack.
pub const CODE_LANGS: [&str; 4] = ["lua", "redis", "js", "text"];

/// The largest file a pack may have (the pack file, a section, a quiz or a scenario
/// file): far above any real lesson, low enough that loading stays well under a second.
pub const MAX_FILE_BYTES: usize = 2 * 1024 * 1024;
/// The most a whole pack (every file together) may weigh.
pub const MAX_PACK_BYTES: usize = 8 * 1024 * 1024;
/// The most files a pack file may list.
pub const MAX_FILES: usize = 1_000;
/// The most sections per language.
pub const MAX_SECTIONS: usize = 200;
/// The most questions in a pack.
pub const MAX_QUESTIONS: usize = 1_000;
/// The most scenarios in a pack.
pub const MAX_SCENARIOS: usize = 100;
/// The largest scenario (its file or its `source`).
pub const MAX_SCENARIO_BYTES: usize = scenario::MAX_SOURCE_BYTES;
/// The longest title (the pack's or a section's), in characters.
pub const MAX_TITLE_CHARS: usize = 200;
/// The most errors reported for one pack; the rest are counted in one last line.
pub const MAX_ERRORS: usize = 200;
/// The most labs (folders `labs/<id>/`) in a pack.
pub const MAX_LABS: usize = 20;
/// The files of a pack's lab folder `labs/<id>/`, all required, as a built-in lab's.
pub const LAB_FILES: [&str; 5] = [
    "lab.toml",
    "scenario.toml",
    "driver.js",
    "starter.js",
    "solution.js",
];
/// The largest file of a lab (its lab.toml, driver, starter or solution; its scenario
/// has the scenarios' limit).
pub const MAX_LAB_FILE_BYTES: usize = crate::sim::lab::MAX_SOURCE_BYTES;

/// A mistake in a pack: the file, the 1-based line, the field, what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PackError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl PackError {
    fn new(file: &str, line: usize, field: &str, message: impl Into<String>) -> PackError {
        PackError {
            file: file.to_string(),
            line: line.max(1),
            field: if field.is_empty() {
                "toml".into()
            } else {
                field.to_string()
            },
            message: message.into(),
        }
    }

    /// A file that could not be read or fetched (`reason` says why).
    pub fn unreadable(file: &str, reason: &str) -> PackError {
        PackError::new(file, 1, "file", format!("cannot read: {reason}"))
    }
}

impl fmt::Display for PackError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.file, self.line, self.field, self.message)
    }
}

impl std::error::Error for PackError {}

impl From<ContentError> for PackError {
    fn from(e: ContentError) -> Self {
        PackError::new(&e.file, e.line, &e.field, e.message)
    }
}

impl From<QuizError> for PackError {
    fn from(e: QuizError) -> Self {
        PackError::new(&e.file, e.line, &e.field, e.message)
    }
}

impl From<ScenarioError> for PackError {
    fn from(e: ScenarioError) -> Self {
        PackError::new(&e.file, e.line.unwrap_or(1), &e.field, e.message)
    }
}

/// A validated lesson pack.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Pack {
    /// The pack's id: a slug, also the first part of its routes (`#/<id>/<order>`).
    pub id: String,
    /// The pack's title in each of its languages.
    pub titles: VecMap<Lang, String>,
    /// Its languages; the first is the reference the others are checked against.
    pub langs: Vec<Lang>,
    /// One lesson per language (same section ids and orders in each), with `id` = pack id.
    pub lessons: VecMap<Lang, Lesson>,
    /// Every question, in file order (folder files first, then the pack file's own).
    pub questions: Vec<Question>,
    /// The pack's own scenarios (built-ins are not repeated here).
    pub scenarios: Vec<Scenario>,
    /// The pack's own labs (`labs/<id>/`), in id order (built-ins are not repeated here).
    pub labs: Vec<PackLab>,
}

/// A lab of a pack: its folder as the pack was read (`my-pack/labs/<id>`, what errors
/// name), and the lab with all five files (driver and solution included).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct PackLab {
    pub dir: String,
    pub lab: crate::sim::lab::Lab,
}

impl Pack {
    /// What the reader shows: the lesson in English and in Norwegian (a language the pack
    /// lacks falls back to its first one) and every question; `None` without sections.
    pub fn reader_lessons(&self) -> Option<Lessons> {
        Some(Lessons {
            en: self.lesson(Lang::En)?.clone(),
            nb: self.lesson(Lang::Nb)?.clone(),
            questions: self.questions.clone(),
        })
    }

    /// The lesson in `lang`, or in the pack's first language if it lacks `lang`.
    pub fn lesson(&self, lang: Lang) -> Option<&Lesson> {
        self.lessons
            .get(&lang)
            .or_else(|| self.langs.first().and_then(|l| self.lessons.get(l)))
    }

    /// The title in `lang`, or in the pack's first language.
    pub fn title(&self, lang: Lang) -> &str {
        self.titles
            .get(&lang)
            .or_else(|| self.langs.first().and_then(|l| self.titles.get(l)))
            .map_or(self.id.as_str(), String::as_str)
    }

    /// A scenario of the pack by name (built-ins are found with `sim::scenario::builtin`).
    pub fn scenario(&self, name: &str) -> Option<&Scenario> {
        self.scenarios.iter().find(|s| s.name == name)
    }

    /// A lab of the pack by id (built-ins are found with `crate::labs::shown`).
    pub fn lab(&self, id: &str) -> Option<&crate::sim::lab::Lab> {
        self.labs.iter().map(|l| &l.lab).find(|l| l.id == id)
    }

    /// The questions of section `section_id`, in order.
    pub fn questions_for<'a>(&'a self, section_id: &'a str) -> impl Iterator<Item = &'a Question> + 'a {
        self.questions.iter().filter(move |q| q.section == section_id)
    }

    /// One line: sections per language, questions, scenarios (and labs, if any).
    pub fn summary(&self) -> String {
        let sections: Vec<String> = self
            .langs
            .iter()
            .map(|l| {
                let n = self.lessons.get(l).map_or(0, |x| x.sections.len());
                format!("{} {n} {}", l.code(), plural(n, "section", "sections"))
            })
            .collect();
        let q = self.questions.len();
        let s = self.scenarios.len();
        let labs = match self.labs.len() {
            0 => String::new(),
            n => format!("; {n} {}", plural(n, "lab", "labs")),
        };
        format!(
            "pack {} ({}): {}; {q} {}; {s} {}{labs}",
            self.id,
            self.title(self.langs.first().copied().unwrap_or(Lang::En)),
            sections.join(", "),
            plural(q, "question", "questions"),
            plural(s, "scenario", "scenarios"),
        )
    }
}

fn plural<'a>(n: usize, one: &'a str, many: &'a str) -> &'a str {
    if n == 1 {
        one
    } else {
        many
    }
}

// ---------------------------------------------------------------------------------------
// The pack file

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawPack {
    id: Spanned<String>,
    title: Spanned<BTreeMap<String, String>>,
    languages: Spanned<Vec<String>>,
    #[serde(default)]
    files: Vec<Spanned<String>>,
    #[serde(default)]
    section: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    question: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    scenario: Vec<Spanned<toml::Table>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInlineSection {
    lang: Spanned<String>,
    id: Spanned<String>,
    title: Spanned<String>,
    order: Spanned<u32>,
    body: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawInlineScenario {
    source: Spanned<String>,
}

use crate::toml_error::{key_line, line_of};

/// A toml error as a pack error: line from its span, field from its message or the key
/// written on that line.
fn toml_error(file: &str, src: &str, e: &toml::de::Error) -> PackError {
    let p = crate::toml_error::explain(src, e);
    PackError::new(file, p.line.unwrap_or(1), &p.field, p.message)
}

/// Where each line of a text starts, so many line lookups cost one pass over the text
/// (`line_of` scans from the start every time).
struct LineIndex(Vec<usize>);

impl LineIndex {
    fn new(text: &str) -> LineIndex {
        LineIndex(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// 1-based line of byte `offset`, as [`line_of`] gives it.
    fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&n| n < offset) + 1
    }
}

/// Where each table header (`[name]` or `[[name]]` at the start of a line, outside any
/// value) of TOML `text` starts, in order: toml's own lexer tells strings, comments and
/// multi-line arrays apart from headers. One pass over the text.
fn table_headers(text: &str) -> Vec<usize> {
    use toml_parser::lexer::TokenKind as K;
    let (mut out, mut depth, mut line_start, mut in_header) = (Vec::new(), 0usize, true, false);
    for t in toml_parser::Source::new(text).lex() {
        match t.kind() {
            K::Newline => {
                line_start = true;
                in_header = false;
            }
            K::Whitespace | K::Comment => {}
            K::LeftSquareBracket if depth == 0 && line_start => {
                out.push(t.span().start());
                in_header = true;
                line_start = false;
            }
            K::LeftSquareBracket | K::LeftCurlyBracket if !in_header => {
                depth += 1;
                line_start = false;
            }
            K::RightSquareBracket | K::RightCurlyBracket if !in_header => {
                depth = depth.saturating_sub(1);
                line_start = false;
            }
            _ => line_start = false,
        }
    }
    out
}

/// The table whose header starts at `header.start`, as its own TOML document (its
/// header line blanked; it runs to the next header or the end of `text`), and the number
/// of lines to add to a line of it to get the line in `text`. Only the slice is copied,
/// so cutting every table out of a pack file is linear in its size.
fn sub_document(text: &str, header: &Range<usize>, headers: &[usize], lines: &LineIndex) -> (String, usize) {
    let start = header.start;
    let next = headers.partition_point(|&h| h <= start);
    let end = headers.get(next).copied().unwrap_or(text.len()).max(start);
    let slice = text.get(start..end).unwrap_or("");
    let doc = slice.find('\n').map_or("", |i| &slice[i..]).to_string();
    (doc, lines.line(start) - 1)
}

/// The line a string value's content starts on (a multi-line string's first newline is
/// not part of it).
fn string_first_line(text: &str, span: &Range<usize>) -> usize {
    let line = line_of(text, span.start);
    let rest = text.get(span.start..).unwrap_or("");
    let after = rest.strip_prefix("'''").or_else(|| rest.strip_prefix("\"\"\""));
    match after {
        Some(a) if a.starts_with('\n') || a.starts_with("\r\n") => line + 1,
        _ => line,
    }
}

/// A TOML basic string holding `s`.
fn toml_quote(s: &str) -> String {
    let mut out = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => out.push_str("\\\""),
            '\\' => out.push_str("\\\\"),
            c if c.is_control() => out.push_str(&format!("\\u{:04X}", c as u32)),
            c => out.push(c),
        }
    }
    out.push('"');
    out
}

/// The pack's language for a folder name or `lang` value: exactly `en` or `nb`.
fn lang_of_code(code: &str) -> Option<Lang> {
    Lang::ALL.into_iter().find(|l| l.code() == code)
}

/// The value of the first `key = "value"` line of `text`, read leniently (for a file
/// that did not parse: its id or name still counts, so one mistake does not cascade).
fn lenient_value(text: &str, key: &str) -> Option<String> {
    let line = key_line(text, 1, key)?;
    let (_, v) = text.lines().nth(line - 1)?.split_once('=')?;
    let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
    (!v.is_empty()).then(|| v.to_string())
}

/// What a file in a pack's folder is, by its path relative to the folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum FileKind {
    Section(Lang),
    Quiz,
    Scenario,
    /// One of the five files of a lab's folder, `labs/<id>/<file>` ([`LAB_FILES`]).
    Lab,
}

/// A plain relative path inside a pack folder: parts of letters, digits, `-`, `_` and
/// `.`, none empty or starting with `.` (so no `..`, no absolute path, no URL).
fn is_plain_path(rel: &str) -> bool {
    rel.split('/').all(|p| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    })
}

fn classify(rel: &str, langs: &[Lang]) -> Result<FileKind, String> {
    let expected =
        "expected sections/<lang>/NN-id.md, quiz/NN-id.toml, scenarios/<name>.toml or labs/<id>/<file>";
    let parts: Vec<&str> = rel.split('/').collect();
    if !is_plain_path(rel) {
        return Err(format!(
            "`{rel}` is not a plain relative path inside the pack folder (letters, digits, `-`, `_`, `.`; no `..`, no URL); {expected}"
        ));
    }
    let stem_ok = |name: &str, ext: &str| name.len() > ext.len() && name.ends_with(ext);
    match parts.as_slice() {
        ["sections", lang, name] if stem_ok(name, ".md") => match lang_of_code(lang) {
            Some(l) if langs.contains(&l) => Ok(FileKind::Section(l)),
            _ => Err(format!(
                "`{lang}` is not one of the pack's languages ({})",
                langs.iter().map(|l| l.code()).collect::<Vec<_>>().join(", ")
            )),
        },
        ["quiz", name] if stem_ok(name, ".toml") => Ok(FileKind::Quiz),
        ["scenarios", name] if stem_ok(name, ".toml") => Ok(FileKind::Scenario),
        ["labs", id, _] if !is_slug(id) => Err(format!(
            "`{id}` in `{rel}` is not a valid lab id: use lowercase letters, digits and dashes"
        )),
        ["labs", _, name] if LAB_FILES.contains(name) => Ok(FileKind::Lab),
        ["labs", ..] => Err(format!(
            "`{rel}` is not a lab file: a lab's folder labs/<id>/ holds {}",
            LAB_FILES.join(", ")
        )),
        _ => Err(format!("`{rel}` is not a pack file: {expected}")),
    }
}

/// The files a pack file lists (`files = [...]`), relative to its folder, in order: what
/// the browser must fetch next (next to the pack file's URL). Empty for a single-file pack.
pub fn files_to_fetch(pack_file: &str, text: &str) -> Result<Vec<String>, Vec<PackError>> {
    if let Some(e) = too_big(pack_file, text.len(), MAX_FILE_BYTES, "the pack file") {
        return Err(vec![e]);
    }
    let raw: RawPack = toml::from_str(text).map_err(|e| vec![toml_error(pack_file, text, &e)])?;
    let langs: Vec<Lang> = raw
        .languages
        .get_ref()
        .iter()
        .filter_map(|c| lang_of_code(c))
        .collect();
    let mut errors = Vec::new();
    let mut out = Vec::new();
    if let Some(f) = raw.files.get(MAX_FILES) {
        errors.push(PackError::new(
            pack_file,
            line_of(text, f.span().start),
            "files",
            format!("more than {MAX_FILES} files are listed"),
        ));
    }
    for f in raw.files.iter().take(MAX_FILES) {
        match classify(f.get_ref(), &langs) {
            Ok(_) => out.push(f.get_ref().clone()),
            Err(m) => errors.push(PackError::new(
                pack_file,
                line_of(text, f.span().start),
                "files",
                m,
            )),
        }
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

// ---------------------------------------------------------------------------------------
// Loading

/// Where a parsed section came from, for the cross-checks.
struct SectionSrc {
    lang: Lang,
    section: Section,
    /// The line of the file where the body starts.
    body_line: usize,
    /// The lines of its `id` and `order`.
    id_line: usize,
    order_line: usize,
}

/// A parsed quiz source: the file name, the text lines are counted in, and the shift to
/// add to a line of `text` to get the line in the file.
struct QuizSrc {
    file: String,
    text: String,
    shift: isize,
    /// The line of the `section` key in the file.
    section_line: usize,
}

impl QuizSrc {
    fn line(&self, l: usize) -> usize {
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
    let content = super::content::builtin_files()
        .iter()
        .chain(super::content::builtin_quiz_files());
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
const BUILTIN_TITLES: [(Lang, &str); 2] = [
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
                let sections = super::content::compiled_sections(lang);
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
        questions: super::content::compiled_questions(),
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

fn load(
    files: &[(String, String)],
    unreadable: &[(String, String)],
    allow_builtin_id: bool,
) -> Result<Pack, Vec<PackError>> {
    let mut parsed = 0;
    load_counted(files, unreadable, allow_builtin_id, &mut parsed).map_err(cap_errors)
}

/// At most [`MAX_ERRORS`] errors, the last one saying how many more there were.
fn cap_errors(mut errors: Vec<PackError>) -> Vec<PackError> {
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
fn file_limit_error(
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
fn pack_size_error(pack_path: &str, pack_text: &str, files: &[(String, String)]) -> Option<PackError> {
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
fn too_big(file: &str, len: usize, limit: usize, what: &str) -> Option<PackError> {
    (len > limit).then(|| {
        PackError::new(
            file,
            1,
            "file",
            format!("{what} is {len} bytes; at most {limit} are allowed"),
        )
    })
}

fn load_counted(
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
struct Gathered {
    errors: Vec<PackError>,
    parsed: usize,
    sections: Vec<SectionSrc>,
    /// Sections that did not parse and whose id could not even be read: then checks that
    /// need every section id (translations) are skipped rather than piling up.
    section_failures: usize,
    recovered_ids: BTreeSet<String>,
    recovered_names: BTreeSet<String>,
    quiz_srcs: Vec<QuizSrc>,
    scenarios: Vec<(Scenario, String, usize)>,
    /// Sections and scenarios seen so far (parsed or not), against their limits.
    section_count: usize,
    scenario_count: usize,
    /// Each lab folder's files, by lab id: the index in `files` of each of [`LAB_FILES`].
    lab_files: BTreeMap<String, [Option<usize>; LAB_FILES.len()]>,
    /// The ids of lab folders that did not load (a file missing, unreadable or broken),
    /// so a `lab` block naming one does not cascade into a second error.
    recovered_labs: BTreeSet<String>,
    labs: Vec<PackLab>,
}

/// The pack file being loaded, parsed, with its line index and languages.
struct PackFile<'a> {
    path: &'a str,
    text: &'a str,
    lines: LineIndex,
    /// Where its table headers start ([`table_headers`]).
    headers: Vec<usize>,
    raw: RawPack,
    langs: Vec<Lang>,
}

impl PackFile<'_> {
    fn err_at(&self, offset: usize, field: &str, message: String) -> PackError {
        PackError::new(self.path, self.lines.line(offset), field, message)
    }
}

/// A path relative to the pack file's folder `root` (`packs/x/sections/…` → `sections/…`).
fn rel_of(root: &str, path: &str) -> String {
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
fn stem(rel: &str) -> String {
    let name = rel.rsplit('/').next().unwrap_or(rel);
    let name = name.rsplit_once('.').map_or(name, |(n, _)| n);
    let digits = name.find(|c: char| !c.is_ascii_digit()).unwrap_or(0);
    name[digits..].trim_start_matches('-').to_string()
}

fn load_gathered(
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
/// The pack's id, languages and titles, each checked.
fn read_metadata(
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
fn listed_files(
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
fn read_files(
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
fn inline_sections(p: &PackFile<'_>, room: usize, g: &mut Gathered) {
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
fn inline_questions(p: &PackFile<'_>, g: &mut Gathered) {
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
    starts.sort_unstable();
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
fn inline_scenarios(p: &PackFile<'_>, room: usize, g: &mut Gathered) {
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
fn check_scenario_names(g: &mut Gathered) -> BTreeMap<String, String> {
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

/// Sections by language, with unique ids and orders per language and the same sections
/// in every language.
fn group_sections<'s>(
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
fn read_questions(
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
        .map_or_else(Vec::new, |s| scenario_blocks(&super::docs::doc(&s.body)))
}

/// The scenario names a document's `scenario` blocks offer, in order.
pub fn scenario_blocks(doc: &[Node]) -> Vec<String> {
    markdown::walk(doc)
        .into_iter()
        .filter_map(|n| match n {
            Node::CodeBlock { lang: Some(l), code } if l == "scenario" => Some(code),
            _ => None,
        })
        .flat_map(|code| code.split_whitespace().map(str::to_string))
        .collect()
}

/// The lab ids a document's `lab` blocks name, in order.
pub fn lab_blocks(doc: &[Node]) -> Vec<String> {
    markdown::walk(doc)
        .into_iter()
        .filter_map(|n| match n {
            Node::CodeBlock { lang: Some(l), code } if l == "lab" => Some(code.trim().to_string()),
            _ => None,
        })
        .collect()
}

/// The checks of section bodies: nesting depth, `scenario` blocks naming known scenarios,
/// `guide` blocks that parse, in-pack links that reach a section.
fn check_bodies(
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
        for code in super::guide::guide_blocks(&doc) {
            if let Err(errs) = super::guide::parse(&code).map_err(|e| e.into_iter().take(BODY_ERRORS)) {
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
fn question_depth_error(
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
fn table_limit_errors(
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
const BODY_ERRORS: usize = 20;

/// The 0-based line of the body where `needle` first occurs (0 if nowhere).
fn line_in_body(body: &str, needle: &str) -> usize {
    body.find(needle).map_or(0, |o| line_of(body, o) - 1)
}

// ---------------------------------------------------------------------------------------
// Native: reading a folder or a file

/// Reads a pack folder (its `pack.toml` and the files in `sections/`, `quiz/`,
/// `scenarios/` and `labs/<id>/`, listed or not, so unlisted ones are reported), or a single-file pack,
/// and validates it. A file that cannot be read is an error naming it, never a panic.
///
/// Nothing outside the pack is touched: a listed path is checked (plain, relative, no
/// `..`) before the file system is asked about it, only regular files are opened (never
/// a device or a FIFO), a symbolic link must stay inside the pack's folder, and no file
/// is read past [`MAX_FILE_BYTES`].
pub fn load_dir(path: impl AsRef<std::path::Path>) -> Result<Pack, Vec<PackError>> {
    use std::fs;
    use std::path::Path;
    let path = path.as_ref();
    let shown = |p: &Path| p.to_string_lossy().replace('\\', "/");
    let dir = if path.is_dir() {
        path.to_path_buf()
    } else if path.file_name().is_some_and(|n| n == PACK_FILE) {
        path.parent().map(|p| p.to_path_buf()).unwrap_or_default()
    } else {
        // A single-file pack.
        let name = shown(path);
        return match read_regular(path, None) {
            Ok(text) => load(&[(name, text)], &[], false),
            Err(reason) => Err(vec![PackError::unreadable(&name, &reason)]),
        };
    };
    let root = shown(&dir);
    let root = root.trim_end_matches('/');
    let join = |rel: &str| {
        if root.is_empty() {
            rel.to_string()
        } else {
            format!("{root}/{rel}")
        }
    };
    let pack_name = join(PACK_FILE);
    let folder = if root.is_empty() {
        Path::new(".")
    } else {
        dir.as_path()
    };
    let inside = match fs::canonicalize(folder) {
        Ok(p) => p,
        Err(e) => return Err(vec![PackError::unreadable(&pack_name, &e.to_string())]),
    };
    let pack_text = match read_regular(&dir.join(PACK_FILE), Some(&inside)) {
        Ok(t) => t,
        Err(reason) => return Err(vec![PackError::unreadable(&pack_name, &reason)]),
    };
    // The listed files, and whatever sits in the pack's folders (to report unlisted ones).
    let mut rels: BTreeSet<String> = BTreeSet::new();
    if pack_text.len() <= MAX_FILE_BYTES {
        if let Ok(listed) = toml::from_str::<RawPack>(&pack_text) {
            rels.extend(listed.files.iter().take(MAX_FILES).map(|f| f.get_ref().clone()));
        }
    }
    let listed = rels.clone();
    let names_in = |sub: &Path| -> Vec<String> {
        let mut out: Vec<String> = fs::read_dir(sub)
            .into_iter()
            .flatten()
            .flatten()
            .take(MAX_FILES)
            .filter_map(|e| e.file_name().to_str().map(str::to_string))
            .collect();
        out.sort();
        out
    };
    for lang in names_in(&dir.join("sections")) {
        if dir.join("sections").join(&lang).is_dir() {
            for name in names_in(&dir.join("sections").join(&lang)) {
                rels.insert(format!("sections/{lang}/{name}"));
            }
        }
    }
    for sub in ["quiz", "scenarios"] {
        for name in names_in(&dir.join(sub)) {
            rels.insert(format!("{sub}/{name}"));
        }
    }
    for lab in names_in(&dir.join("labs")) {
        if dir.join("labs").join(&lab).is_dir() {
            for name in names_in(&dir.join("labs").join(&lab)) {
                rels.insert(format!("labs/{lab}/{name}"));
            }
        }
    }
    let mut files = vec![(pack_name, pack_text)];
    let mut unreadable = Vec::new();
    let mut total = files[0].1.len();
    for rel in rels {
        // The path's shape is checked before the file system sees it: a path that is not
        // plain (absolute, `..`, a URL) is reported by `load` and never opened.
        if !is_plain_path(&rel) {
            if !listed.contains(&rel) {
                // A stray file in the folders (`.swp`…): named, not read.
                files.push((join(&rel), String::new()));
            }
            continue;
        }
        let file = dir.join(&rel);
        if fs::symlink_metadata(&file).is_err() {
            continue; // reported as "listed but not found"
        }
        if total > MAX_PACK_BYTES {
            unreadable.push((
                join(&rel),
                "not read: the pack is already over its size limit".into(),
            ));
            continue;
        }
        match read_regular(&file, Some(&inside)) {
            Ok(text) => {
                total += text.len();
                files.push((join(&rel), text));
            }
            Err(reason) => unreadable.push((join(&rel), reason)),
        }
    }
    load(&files, &unreadable, false)
}

/// Reads a pack's file if it is a regular file (not a device, FIFO or folder), inside
/// `inside` when given (a symbolic link may not lead out of the pack), and at most
/// [`MAX_FILE_BYTES`] long; otherwise says why not. Never reads more than the limit.
fn read_regular(file: &std::path::Path, inside: Option<&std::path::Path>) -> Result<String, String> {
    use std::io::Read;
    let real = std::fs::canonicalize(file).map_err(|e| e.to_string())?;
    if inside.is_some_and(|dir| !real.starts_with(dir)) {
        return Err("it leads outside the pack's folder (a symbolic link?); it was not opened".into());
    }
    let meta = std::fs::metadata(&real).map_err(|e| e.to_string())?;
    if !meta.is_file() {
        return Err("not a regular file (a folder, device or pipe); it was not opened".into());
    }
    if meta.len() > MAX_FILE_BYTES as u64 {
        return Err(format!(
            "it is {} bytes; at most {MAX_FILE_BYTES} are allowed",
            meta.len()
        ));
    }
    let mut text = String::new();
    std::fs::File::open(&real)
        .and_then(|f| f.take(MAX_FILE_BYTES as u64 + 1).read_to_string(&mut text))
        .map_err(|e| e.to_string())?;
    if text.len() > MAX_FILE_BYTES {
        return Err(format!(
            "it is more than {MAX_FILE_BYTES} bytes; at most {MAX_FILE_BYTES} are allowed"
        ));
    }
    Ok(text)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn table_headers_are_found_by_toml_s_lexer_not_by_a_leading_bracket() {
        let text = "id = \"p\"\nlist = [\n  [1, 2],\n  [3],\n]\n\n[[section]]\nbody = '''\n[not] a header\n[[nor]] this\n'''\n# [a] comment\n  [[scenario]] # indented\nt = { a = [1] }\n[x.y]\nq = \"[z]\"\n";
        let at: Vec<&str> = table_headers(text)
            .into_iter()
            .map(|i| text[i..].lines().next().unwrap_or(""))
            .collect();
        assert_eq!(at, ["[[section]]", "[[scenario]] # indented", "[x.y]"]);
        // A table runs to the next header: the section keeps its body's bracketed lines.
        let headers = table_headers(text);
        let lines = LineIndex::new(text);
        let start = headers[0];
        let (doc, shift) = sub_document(text, &(start..start + 11), &headers, &lines);
        assert!(
            doc.contains("[not] a header\n[[nor]] this") && !doc.contains("scenario"),
            "{doc}"
        );
        assert_eq!(shift, 6);
    }

    #[test]
    fn quoted_strings_survive_a_round_trip() {
        for s in [
            "plain",
            "a \"quoted\" \\ back",
            "tab\tnew\nline\u{7f}",
            "<script>'x'</script>",
            "ø æ å",
        ] {
            let doc = format!("v = {}", toml_quote(s));
            let parsed: BTreeMap<String, String> = toml::from_str(&doc).unwrap_or_default();
            assert_eq!(parsed.get("v").map(String::as_str), Some(s), "{doc}");
        }
    }

    #[test]
    fn paths_are_classified_by_folder() {
        let langs = [Lang::En];
        assert_eq!(
            classify("sections/en/01-a.md", &langs),
            Ok(FileKind::Section(Lang::En))
        );
        assert_eq!(classify("quiz/01-a.toml", &langs), Ok(FileKind::Quiz));
        assert_eq!(classify("scenarios/x.toml", &langs), Ok(FileKind::Scenario));
        for bad in [
            "sections/nb/01-a.md",
            "quiz/.toml",
            "quiz/a.md",
            "x.toml",
            "scenarios/../x.toml",
            "",
        ] {
            assert!(classify(bad, &langs).is_err(), "{bad}");
        }
    }

    #[test]
    fn ids_and_names_are_read_from_broken_files() {
        assert_eq!(
            lenient_value("+++\nid = \"a-b\"\norder = x\n", "id").as_deref(),
            Some("a-b")
        );
        assert_eq!(lenient_value("name = 'n'\n", "name").as_deref(), Some("n"));
        assert_eq!(lenient_value("nothing here", "id"), None);
    }

    /// A one-file pack in English only: one section, its body `body`, and no questions.
    fn english_pack(body: &str) -> Pack {
        let text = format!(
            "id = \"p\"\nlanguages = [\"en\"]\ntitle = {{ en = \"P\" }}\n\n[[section]]\nlang = \"en\"\nid = \"s\"\ntitle = \"S\"\norder = 1\nbody = '''\n{body}\n'''\n"
        );
        match load_files(&[("p.toml".to_string(), text)]) {
            Ok(p) => p,
            Err(e) => panic!("{e:?}"),
        }
    }

    #[test]
    fn a_pack_in_one_language_is_read_in_both() {
        let pack = english_pack("Text.");
        let lessons = pack.reader_lessons().unwrap_or_else(|| panic!("no lessons"));
        assert_eq!(lessons.en.sections[0].title, "S");
        assert_eq!(
            lessons.nb, lessons.en,
            "Norwegian readers get the pack's own language"
        );
        let builtin = builtin().unwrap_or_else(|e| panic!("{e:?}"));
        let both = builtin.reader_lessons().unwrap_or_else(|| panic!("no lessons"));
        assert_ne!(both.en.sections[0].title, both.nb.sections[0].title);
        assert_eq!(both.questions.len(), builtin.questions.len());
        assert!(!both.questions.is_empty());
    }

    #[test]
    fn a_sections_scenarios_include_blocks_in_lists_and_quotes() {
        let body = "```scenario\nfencing\n```\n\n- first\n\n  ```scenario\n  no-fencing unsafe-del\n  ```\n\n> ```scenario\n> safe-release\n> ```\n";
        let pack = english_pack(body);
        let lesson = pack.lesson(Lang::En).unwrap_or_else(|| panic!("no lesson"));
        assert_eq!(
            section_scenarios(lesson, 1),
            ["fencing", "no-fencing", "unsafe-del", "safe-release"]
        );
        assert!(section_scenarios(lesson, 2).is_empty(), "no section 2");
    }

    #[test]
    fn multi_line_strings_start_on_the_next_line() {
        let text = "a = 1\nbody = '''\nx\n'''\n";
        let start = text.find("'''").unwrap_or(0);
        assert_eq!(string_first_line(text, &(start..text.len())), 3);
        let text = "body = \"x\"\n";
        assert_eq!(string_first_line(text, &(7..10)), 1);
    }
}
