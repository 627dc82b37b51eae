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

mod assemble;
mod dir;
mod error;
mod fetch;
mod file;
mod gather;
mod labs;
mod limits;
mod load;
mod loaded;
mod sources;

pub use assemble::*;
pub use dir::*;
pub use error::PackError;
pub use fetch::unfetchable;
pub use file::*;
pub use limits::*;
pub use load::*;
pub use loaded::{Pack, PackLab};

#[cfg(test)]
mod tests {
    use super::file::*;

    use super::*;

    use crate::lesson::lang::Lang;

    use std::collections::BTreeMap;

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
