//! What the pack loader works on between its phases: the sources parsed so far
//! ([`SectionSrc`], [`QuizSrc`]), what it has gathered ([`Gathered`]), the pack file being
//! read ([`PackFile`]), where a listed file sits in the pack ([`rel_of`], [`stem`]), and
//! the errors of a pack past its limits ([`file_limit_error`], [`pack_size_error`]).

use super::error::{too_big, PackError};
use super::file::*;
use super::limits::*;
use super::loaded::PackLab;
use crate::lesson::content::Section;
use crate::lesson::lang::Lang;
use crate::sim::scenario::Scenario;
use std::collections::{BTreeMap, BTreeSet};

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
