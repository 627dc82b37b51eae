//! A pack's limits: how many files, sections, questions, scenarios and labs it may have,
//! and how large each may be; a pack past one is refused with an error naming it.

use crate::sim::scenario::{self as scenario};

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
