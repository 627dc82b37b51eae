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
use crate::toml_error::{key_line, line_of};
use crate::vecmap::VecMap;
use serde::Deserialize;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;
use std::ops::Range;
use toml::Spanned;

mod assemble;
mod dir;
mod fetch;
mod file;
mod gather;
mod labs;
mod load;

pub use assemble::*;
pub use dir::*;
pub use fetch::unfetchable;
pub use file::*;
use gather::*;
pub use load::*;

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
            pack_title: (self.id != BUILTIN_LESSON_ID)
                .then(|| [self.title(Lang::En).to_string(), self.title(Lang::Nb).to_string()]),
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
    fn an_embed_of_one_lab_shows_the_one_it_names_or_the_sections_first() {
        let builtin = builtin().unwrap_or_else(|e| panic!("{e:?}"));
        let lesson = builtin.lesson(Lang::En).expect("English");
        // Named and in the lesson: that one, whatever the section.
        assert_eq!(
            embedded_lab(lesson, 2, Some("safe-release")).as_deref(),
            Some("safe-release")
        );
        // Not a lab of this lesson, or none named: the section's own.
        assert_eq!(
            embedded_lab(lesson, 2, Some("no-such-lab")).as_deref(),
            Some("set-nx")
        );
        assert_eq!(embedded_lab(lesson, 3, None).as_deref(), Some("safe-release"));
        // A section without a lab, and none named: nothing (the embed shows the section).
        assert_eq!(embedded_lab(lesson, 1, None), None);
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
        assert_eq!(lessons.pack_title(Lang::Nb), Some(pack.title(Lang::En)));
        let both = builtin.reader_lessons().unwrap_or_else(|| panic!("no lessons"));
        assert_eq!(both.pack_title(Lang::En), None, "the app's own name presents it");
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
