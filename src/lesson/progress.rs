//! The learner's progress, as stored in the browser (localStorage) under a versioned key.
//!
//! Loading never fails: unreadable data is discarded and the caller is told why, so the
//! page can say so instead of crashing.

use serde::{Deserialize, Serialize};
use std::collections::{BTreeMap, BTreeSet};

/// The storage key. Bump the version when the format changes incompatibly, and migrate.
pub const PROGRESS_KEY: &str = "lockstep.progress.v1";
/// The remembered language choice.
pub const LANG_KEY: &str = "lockstep.lang";
/// The format version written inside the stored value.
pub const FORMAT_VERSION: u32 = 1;

/// Progress in one lesson.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonProgress {
    /// Ids of the sections the learner has opened.
    #[serde(default)]
    pub visited: BTreeSet<String>,
    /// The order of the section the learner was last on, to resume there.
    #[serde(default)]
    pub last: Option<u32>,
}

/// Everything stored, keyed by lesson id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub v: u32,
    #[serde(default)]
    pub lessons: BTreeMap<String, LessonProgress>,
}

/// Why stored progress was not used.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Discarded {
    /// Not JSON, or not our shape.
    Corrupt,
    /// Written by a newer version of Lockstep than this one.
    NewerVersion(u32),
}

impl Progress {
    pub fn new() -> Progress {
        Progress {
            v: FORMAT_VERSION,
            lessons: BTreeMap::new(),
        }
    }

    /// Reads the stored value. `None` (nothing stored) is a fresh start, not an error.
    pub fn load(raw: Option<&str>) -> (Progress, Option<Discarded>) {
        let Some(raw) = raw else {
            return (Progress::new(), None);
        };
        match serde_json::from_str::<Progress>(raw) {
            Ok(p) if p.v == FORMAT_VERSION => (p, None),
            Ok(p) if p.v > FORMAT_VERSION => (Progress::new(), Some(Discarded::NewerVersion(p.v))),
            _ => (Progress::new(), Some(Discarded::Corrupt)),
        }
    }

    pub fn to_json(&self) -> String {
        // Serialising maps of strings cannot fail; fall back to a fresh record just in case.
        serde_json::to_string(self).unwrap_or_else(|_| format!("{{\"v\":{FORMAT_VERSION}}}"))
    }

    pub fn lesson(&self, lesson: &str) -> Option<&LessonProgress> {
        self.lessons.get(lesson)
    }

    pub fn is_visited(&self, lesson: &str, section_id: &str) -> bool {
        self.lesson(lesson)
            .is_some_and(|l| l.visited.contains(section_id))
    }

    /// Marks a section as read and remembers it as the place to resume.
    pub fn visit(&mut self, lesson: &str, section_id: &str, order: u32) {
        let entry = self.lessons.entry(lesson.to_string()).or_default();
        entry.visited.insert(section_id.to_string());
        entry.last = Some(order);
    }

    pub fn visited_count(&self, lesson: &str) -> usize {
        self.lesson(lesson).map_or(0, |l| l.visited.len())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn round_trip() {
        let mut p = Progress::new();
        p.visit("distributed-locks", "ttl", 4);
        p.visit("distributed-locks", "redlock", 7);
        let (q, why) = Progress::load(Some(&p.to_json()));
        assert_eq!(why, None);
        assert_eq!(q, p);
        assert!(q.is_visited("distributed-locks", "ttl"));
        assert_eq!(q.lesson("distributed-locks").and_then(|l| l.last), Some(7));
        assert_eq!(q.visited_count("distributed-locks"), 2);
    }

    #[test]
    fn nothing_stored_is_a_fresh_start() {
        assert_eq!(Progress::load(None), (Progress::new(), None));
    }

    #[test]
    fn corrupt_data_is_discarded_and_reported() {
        for raw in [
            "{",
            "null",
            "[]",
            "{\"v\":\"one\"}",
            "{\"v\":1,\"lessons\":{\"x\":{\"visited\":5}}}",
            "\u{0}",
        ] {
            let (p, why) = Progress::load(Some(raw));
            assert_eq!(p, Progress::new(), "{raw}");
            assert_eq!(why, Some(Discarded::Corrupt), "{raw}");
        }
    }

    #[test]
    fn newer_format_is_discarded_with_its_version() {
        let (_, why) = Progress::load(Some("{\"v\":9,\"lessons\":{}}"));
        assert_eq!(why, Some(Discarded::NewerVersion(9)));
    }
}
