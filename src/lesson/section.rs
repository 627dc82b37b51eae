//! A lesson section's file: a Markdown body after a small TOML front matter.
//!
//! ```text
//! +++
//! id = "safe-release"
//! title = "Safe release: check and delete in Lua"
//! order = 3
//! +++
//! Markdown body…
//! ```
//!
//! Self-contained (it uses only `super::lang`): `build.rs` includes it to compile the
//! built-in lesson, so the build and the app read section files with the same parser.

use serde::Deserialize;
use std::fmt;

pub use super::lang::Lang;

/// One section of a lesson.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Section {
    /// Stable id, the same in every language.
    pub id: String,
    pub title: String,
    /// 1-based position; also the number in the section's route.
    pub order: u32,
    /// The Markdown body (after the front matter).
    pub body: String,
    /// Where it came from, for error messages.
    pub file: String,
}

/// A whole lesson in one language, sections sorted by `order`.
#[derive(Clone, Debug, PartialEq, Eq, serde::Serialize, serde::Deserialize)]
pub struct Lesson {
    pub id: String,
    pub lang: Lang,
    pub sections: Vec<Section>,
}

impl Lesson {
    pub fn section(&self, order: u32) -> Option<&Section> {
        self.sections.iter().find(|s| s.order == order)
    }

    pub fn first_order(&self) -> u32 {
        self.sections.first().map_or(1, |s| s.order)
    }

    /// The order of the section after `order`, if any.
    pub fn next_order(&self, order: u32) -> Option<u32> {
        self.sections.iter().map(|s| s.order).find(|&o| o > order)
    }

    /// The order of the section before `order`, if any.
    pub fn prev_order(&self, order: u32) -> Option<u32> {
        self.sections.iter().rev().map(|s| s.order).find(|&o| o < order)
    }
}

/// A mistake in a content file: names the file, the line and the field.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ContentError {
    pub file: String,
    /// 1-based line in the file.
    pub line: usize,
    /// The front-matter field at fault, or `"front matter"` / `"body"`.
    pub field: String,
    pub message: String,
}

impl fmt::Display for ContentError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.file, self.line, self.field, self.message)
    }
}

impl std::error::Error for ContentError {}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct FrontMatter {
    id: String,
    title: String,
    order: u32,
}

const FENCE: &str = "+++";

/// Parses one section file. `file` is only used in error messages.
pub fn parse_section(file: &str, text: &str) -> Result<Section, ContentError> {
    let err = |line: usize, field: &str, message: String| ContentError {
        file: file.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    let text = text.strip_prefix('\u{feff}').unwrap_or(text);
    let mut lines = text.split_inclusive('\n');
    let first = lines.next().unwrap_or("");
    if first.trim_end() != FENCE {
        return Err(err(
            1,
            "front matter",
            format!("the file must start with a `{FENCE}` line"),
        ));
    }
    // Find the closing fence; `offset` counts bytes consumed so far.
    let mut offset = first.len();
    let mut close = None;
    for (i, line) in lines.enumerate() {
        if line.trim_end() == FENCE {
            close = Some((offset, offset + line.len(), i + 2));
            break;
        }
        offset += line.len();
    }
    let Some((fm_end, body_start, close_line)) = close else {
        return Err(err(1, "front matter", format!("no closing `{FENCE}` line")));
    };
    let fm_text = &text[first.len()..fm_end];
    let fm: FrontMatter = toml::from_str(fm_text).map_err(|e| {
        // The span is relative to the front matter, which starts on line 2.
        let line = e
            .span()
            .map(|s| 2 + fm_text[..s.start.min(fm_text.len())].matches('\n').count())
            .unwrap_or(2);
        let field = field_from_toml_message(e.message()).unwrap_or_else(|| "front matter".into());
        err(line, &field, e.message().trim().to_string())
    })?;
    let field_line = |name: &str| {
        fm_text
            .lines()
            .position(|l| l.trim_start().starts_with(name))
            .map_or(2, |i| i + 2)
    };
    if !is_slug(&fm.id) {
        return Err(err(
            field_line("id"),
            "id",
            format!(
                "`{}` is not a valid id: use lowercase letters, digits and dashes",
                fm.id
            ),
        ));
    }
    if fm.title.trim().is_empty() {
        return Err(err(field_line("title"), "title", "must not be empty".into()));
    }
    if fm.order == 0 {
        return Err(err(field_line("order"), "order", "must be 1 or more".into()));
    }
    let body = &text[body_start..];
    if body.trim().is_empty() {
        return Err(err(close_line + 1, "body", "the section has no text".into()));
    }
    Ok(Section {
        id: fm.id,
        title: fm.title,
        order: fm.order,
        body: body.to_string(),
        file: file.to_string(),
    })
}

/// toml's messages name a missing or unknown field in backquotes.
fn field_from_toml_message(message: &str) -> Option<String> {
    let start = message.find('`')? + 1;
    let len = message[start..].find('`')?;
    Some(message[start..start + len].to_string())
}

/// An id as sections, packs and scenarios use them: lowercase letters, digits and inner
/// dashes.
pub fn is_slug(s: &str) -> bool {
    !s.is_empty()
        && !s.starts_with('-')
        && !s.ends_with('-')
        && s.chars()
            .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
}

/// Builds a lesson from `(file, text)` pairs of one language, reporting every mistake,
/// not only the first: bad files, duplicate ids, duplicate orders.
pub fn build_lesson<'a>(
    id: &str,
    lang: Lang,
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Lesson, Vec<ContentError>> {
    let mut errors = Vec::new();
    let mut sections: Vec<Section> = Vec::new();
    for (file, text) in files {
        match parse_section(file, text) {
            Ok(section) => {
                if let Some(other) = sections.iter().find(|s| s.id == section.id) {
                    errors.push(ContentError {
                        file: section.file.clone(),
                        line: 2,
                        field: "id".into(),
                        message: format!("`{}` is already used by {}", section.id, other.file),
                    });
                } else if let Some(other) = sections.iter().find(|s| s.order == section.order) {
                    errors.push(ContentError {
                        file: section.file.clone(),
                        line: 2,
                        field: "order".into(),
                        message: format!("{} is already used by {}", section.order, other.file),
                    });
                } else {
                    sections.push(section);
                }
            }
            Err(e) => errors.push(e),
        }
    }
    if !errors.is_empty() {
        return Err(errors);
    }
    crate::sorting::sort_by_key(&mut sections, |s| s.order);
    Ok(Lesson {
        id: id.to_string(),
        lang,
        sections,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    const GOOD: &str = "+++\nid = \"a-b\"\ntitle = \"A b\"\norder = 2\n+++\nHello **world**.\n";

    #[test]
    fn parses_front_matter_and_body() {
        let s = parse_section("x.md", GOOD).expect("valid");
        assert_eq!((s.id.as_str(), s.title.as_str(), s.order), ("a-b", "A b", 2));
        assert_eq!(s.body, "Hello **world**.\n");
    }

    #[test]
    fn missing_field_names_the_field() {
        let e = parse_section("x.md", "+++\nid = \"a\"\norder = 1\n+++\nText\n").unwrap_err();
        assert_eq!(e.field, "title");
        assert_eq!(e.file, "x.md");
    }

    #[test]
    fn wrong_type_names_file_line_and_field() {
        let e = parse_section(
            "y.md",
            "+++\nid = \"a\"\ntitle = \"T\"\norder = \"three\"\n+++\nText\n",
        )
        .unwrap_err();
        assert_eq!((e.line, e.file.as_str()), (4, "y.md"));
        assert!(e.to_string().starts_with("y.md:4: "), "{e}");
    }

    #[test]
    fn unknown_field_is_rejected() {
        let e = parse_section(
            "z.md",
            "+++\nid = \"a\"\ntitle = \"T\"\norder = 1\ncolour = 3\n+++\nT\n",
        )
        .unwrap_err();
        assert_eq!(e.field, "colour");
        assert_eq!(e.line, 5);
    }

    #[test]
    fn bad_id_zero_order_and_empty_body() {
        let bad_id = parse_section("a.md", "+++\nid = \"Bad Id\"\ntitle = \"T\"\norder = 1\n+++\nT\n");
        assert_eq!(bad_id.unwrap_err().field, "id");
        let zero = parse_section("a.md", "+++\nid = \"a\"\ntitle = \"T\"\norder = 0\n+++\nT\n");
        assert_eq!(zero.unwrap_err().line, 4);
        let empty = parse_section("a.md", "+++\nid = \"a\"\ntitle = \"T\"\norder = 1\n+++\n\n");
        assert_eq!(empty.unwrap_err().field, "body");
    }

    #[test]
    fn missing_fences() {
        assert_eq!(parse_section("a.md", "no front matter").unwrap_err().line, 1);
        let e = parse_section("a.md", "+++\nid = \"a\"\n").unwrap_err();
        assert!(e.message.contains("closing"));
    }

    #[test]
    fn lesson_reports_every_error_and_duplicates() {
        let files = [
            ("1.md", GOOD),
            ("2.md", GOOD),
            ("3.md", "+++\nid = \"c\"\n+++\nT\n"),
        ];
        let errors = build_lesson("l", Lang::En, files).unwrap_err();
        assert_eq!(errors.len(), 2);
        assert!(errors.iter().any(|e| e.file == "2.md" && e.field == "id"));
        assert!(errors.iter().any(|e| e.file == "3.md"));
    }

    #[test]
    fn navigation_orders() {
        let a = GOOD;
        let b = GOOD.replace("a-b", "c").replace("order = 2", "order = 5");
        let lesson = build_lesson("l", Lang::En, [("b.md", b.as_str()), ("a.md", a)]).unwrap();
        assert_eq!(lesson.sections[0].order, 2);
        assert_eq!(lesson.next_order(2), Some(5));
        assert_eq!(lesson.next_order(5), None);
        assert_eq!(lesson.prev_order(5), Some(2));
        assert_eq!(lesson.prev_order(2), None);
    }

    #[test]
    fn language_codes() {
        assert_eq!(Lang::from_code("NB-no"), Some(Lang::Nb));
        assert_eq!(Lang::from_code("no"), Some(Lang::Nb));
        assert_eq!(Lang::from_code("en-GB"), Some(Lang::En));
        assert_eq!(Lang::from_code("de"), None);
        for l in Lang::ALL {
            assert_eq!(Lang::from_code(l.code()), Some(l));
        }
    }
}
