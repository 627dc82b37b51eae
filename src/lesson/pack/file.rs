//! The pack file itself: pack.toml's tables, the lines where each starts, and which
//! files a pack names (what the page must fetch).

use super::error::*;
use super::limits::*;
use crate::lesson::lang::Lang;
use crate::lesson::section::is_slug;
use crate::toml_error::{key_line, line_of};
use serde::Deserialize;
use std::collections::BTreeMap;
use std::ops::Range;
use toml::Spanned;

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawPack {
    pub(super) id: Spanned<String>,
    pub(super) title: Spanned<BTreeMap<String, String>>,
    pub(super) languages: Spanned<Vec<String>>,
    #[serde(default)]
    pub(super) files: Vec<Spanned<String>>,
    #[serde(default)]
    pub(super) section: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    pub(super) question: Vec<Spanned<toml::Table>>,
    #[serde(default)]
    pub(super) scenario: Vec<Spanned<toml::Table>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInlineSection {
    pub(super) lang: Spanned<String>,
    pub(super) id: Spanned<String>,
    pub(super) title: Spanned<String>,
    pub(super) order: Spanned<u32>,
    pub(super) body: Spanned<String>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
pub(super) struct RawInlineScenario {
    pub(super) source: Spanned<String>,
}

/// A toml error as a pack error: line from its span, field from its message or the key
/// written on that line.
pub(super) fn toml_error(file: &str, src: &str, e: &toml::de::Error) -> PackError {
    let p = crate::toml_error::explain(src, e);
    PackError::new(file, p.line.unwrap_or(1), &p.field, p.message)
}

/// Where each line of a text starts, so many line lookups cost one pass over the text
/// (`line_of` scans from the start every time).
pub(super) struct LineIndex(Vec<usize>);

impl LineIndex {
    pub(super) fn new(text: &str) -> LineIndex {
        LineIndex(
            text.bytes()
                .enumerate()
                .filter(|(_, b)| *b == b'\n')
                .map(|(i, _)| i)
                .collect(),
        )
    }

    /// 1-based line of byte `offset`, as [`line_of`] gives it.
    pub(super) fn line(&self, offset: usize) -> usize {
        self.0.partition_point(|&n| n < offset) + 1
    }
}

/// Where each table header (`[name]` or `[[name]]` at the start of a line, outside any
/// value) of TOML `text` starts, in order: toml's own lexer tells strings, comments and
/// multi-line arrays apart from headers. One pass over the text.
pub(super) fn table_headers(text: &str) -> Vec<usize> {
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
pub(super) fn sub_document(
    text: &str,
    header: &Range<usize>,
    headers: &[usize],
    lines: &LineIndex,
) -> (String, usize) {
    let start = header.start;
    let next = headers.partition_point(|&h| h <= start);
    let end = headers.get(next).copied().unwrap_or(text.len()).max(start);
    let slice = text.get(start..end).unwrap_or("");
    let doc = slice.find('\n').map_or("", |i| &slice[i..]).to_string();
    (doc, lines.line(start) - 1)
}

/// The line a string value's content starts on (a multi-line string's first newline is
/// not part of it).
pub(super) fn string_first_line(text: &str, span: &Range<usize>) -> usize {
    let line = line_of(text, span.start);
    let rest = text.get(span.start..).unwrap_or("");
    let after = rest.strip_prefix("'''").or_else(|| rest.strip_prefix("\"\"\""));
    match after {
        Some(a) if a.starts_with('\n') || a.starts_with("\r\n") => line + 1,
        _ => line,
    }
}

/// A TOML basic string holding `s`.
pub(super) fn toml_quote(s: &str) -> String {
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
pub(super) fn lang_of_code(code: &str) -> Option<Lang> {
    Lang::ALL.into_iter().find(|l| l.code() == code)
}

/// The value of the first `key = "value"` line of `text`, read leniently (for a file
/// that did not parse: its id or name still counts, so one mistake does not cascade).
pub(super) fn lenient_value(text: &str, key: &str) -> Option<String> {
    let line = key_line(text, 1, key)?;
    let (_, v) = text.lines().nth(line - 1)?.split_once('=')?;
    let v = v.trim().trim_matches(|c| c == '"' || c == '\'');
    (!v.is_empty()).then(|| v.to_string())
}

/// What a file in a pack's folder is, by its path relative to the folder.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum FileKind {
    Section(Lang),
    Quiz,
    Scenario,
    /// One of the five files of a lab's folder, `labs/<id>/<file>` ([`LAB_FILES`]).
    Lab,
}

/// A plain relative path inside a pack folder: parts of letters, digits, `-`, `_` and
/// `.`, none empty or starting with `.` (so no `..`, no absolute path, no URL).
pub(super) fn is_plain_path(rel: &str) -> bool {
    rel.split('/').all(|p| {
        !p.is_empty()
            && !p.starts_with('.')
            && p.chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'))
    })
}

pub(super) fn classify(rel: &str, langs: &[Lang]) -> Result<FileKind, String> {
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
