//! The learner's progress, as stored in the browser (localStorage) under a versioned key.
//!
//! Loading never fails: unreadable data is discarded and the caller is told why, so the
//! page can say so instead of crashing.

use super::content::Lesson;
use super::quiz::Question;
use crate::vecmap::{VecMap, VecSet};
use serde::{Deserialize, Serialize};
use std::cmp::Ordering;

/// The storage key. Its suffix follows [`FORMAT_VERSION`]. The prerendered first page
/// (`static/boot-head.js`) reads `lessons.<id>.last` under this key and `LANG_KEY`, to
/// show a returning learner the right snapshot: keep it in step when either changes.
pub const PROGRESS_KEY: &str = "lockstep.progress.v2";
/// Keys older versions wrote; read once, migrated, then removed.
pub const LEGACY_PROGRESS_KEYS: &[&str] = &["lockstep.progress.v1"];
/// The remembered language choice.
pub const LANG_KEY: &str = "lockstep.lang";
/// The format version written inside the stored value.
/// v1: sections read. v2: + question attempts and results, quick-check score.
pub const FORMAT_VERSION: u32 = 2;

/// Progress in one lesson.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LessonProgress {
    /// Ids of the sections the learner has opened.
    #[serde(default)]
    pub visited: VecSet<String>,
    /// The order of the section the learner was last on, to resume there.
    #[serde(default)]
    pub last: Option<u32>,
    /// Per question id: how often it was checked and the best result.
    #[serde(default)]
    pub questions: VecMap<String, QuestionProgress>,
    /// The last complete run of the final quick check.
    #[serde(default)]
    pub quick_check: Option<Score>,
    /// Per lab id: the learner's code and how its graded runs went.
    #[serde(default, skip_serializing_if = "VecMap::is_empty")]
    pub labs: VecMap<String, LabProgress>,
}

/// A lab: the code in its editor, and its graded runs.
///
/// An older version stored `passed: true` with no word of which code passed; it is read
/// and dropped (the lab then shows as tried), since the code there may not pass.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct LabProgress {
    #[serde(default)]
    pub code: String,
    /// Runs and "Try to break it" sessions that graded the code.
    #[serde(default)]
    pub runs: u32,
    /// The last "Try to break it" session that held every check, unless the same code
    /// broke since.
    /// As `<mark> <date>`: the [`code_mark`] of the code that held, and the learner's
    /// local date, `YYYY-MM-DD` (one string: the page's module is counted in bytes).
    #[serde(default)]
    pub pass: Option<String>,
}

/// A pass's mark and date, if it is one as this version writes it (an imported file may
/// hold anything).
fn pass_parts(pass: &str) -> Option<(&str, &str)> {
    let (mark, on) = pass.split_once(' ')?;
    let digits = |s: &str, n: usize| s.len() == n && s.bytes().all(|b| b.is_ascii_digit());
    let mut date = on.split('-');
    let ok = mark.len() == 16
        && mark.bytes().all(|b| b.is_ascii_hexdigit())
        && date.next().is_some_and(|y| digits(y, 4))
        && date.next().is_some_and(|m| digits(m, 2))
        && date.next().is_some_and(|d| digits(d, 2))
        && date.next().is_none();
    ok.then_some((mark, on))
}

/// How a graded run of a lab ended.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabOutcome {
    /// "Try to break it" held every check: the lab is passed, with this code.
    Passed,
    /// A single Run held (it passes nothing by itself).
    Held,
    /// A check broke: this code does not pass.
    Broken,
}

impl LabOutcome {
    /// The outcome's word, as the learning platform is told it (`ui::app`).
    pub fn word(self) -> &'static str {
        match self {
            LabOutcome::Passed => "passed",
            LabOutcome::Held => "held",
            LabOutcome::Broken => "broken",
        }
    }
}

/// Where a learner is with a lab, true to the code in its editor now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum LabStatus<'a> {
    NotStarted,
    /// Graded at least once, and the code there has not passed; `passed_before` is the
    /// day other code of theirs passed, if it did.
    Tried {
        passed_before: Option<&'a str>,
    },
    /// The code in the editor held a "Try to break it" session on this day.
    Passed {
        on: &'a str,
    },
}

/// What identifies a lab's code in a pass: its FNV-1a, in hex.
pub fn code_mark(code: &str) -> String {
    format!("{:016x}", crate::fnv::fnv1a(code.as_bytes()))
}

impl LabProgress {
    pub fn status(&self) -> LabStatus<'_> {
        match self.pass.as_deref().and_then(pass_parts) {
            Some((mark, on)) if mark == code_mark(&self.code) => LabStatus::Passed { on },
            pass if self.runs > 0 || pass.is_some() => LabStatus::Tried {
                passed_before: pass.map(|(_, on)| on),
            },
            _ => LabStatus::NotStarted,
        }
    }
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct QuestionProgress {
    pub attempts: u32,
    /// Whether any attempt was right.
    pub solved: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Score {
    pub correct: u32,
    pub total: u32,
}

impl Score {
    /// Compares the shares right (`correct / total`) exactly: the cross products are
    /// taken in `u64`, where two `u32` never overflow. An empty score counts as 0.
    pub fn cmp_share(&self, other: &Score) -> Ordering {
        let a = u64::from(self.correct) * u64::from(other.total.max(1));
        let b = u64::from(other.correct) * u64::from(self.total.max(1));
        a.cmp(&b)
    }
}

/// Everything stored, keyed by lesson id.
#[derive(Clone, Debug, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct Progress {
    pub v: u32,
    #[serde(default)]
    pub lessons: VecMap<String, LessonProgress>,
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
            lessons: VecMap::new(),
        }
    }

    /// Reads the stored value. `None` (nothing stored) is a fresh start, not an error.
    pub fn load(raw: Option<&str>) -> (Progress, Option<Discarded>) {
        let Some(raw) = raw else {
            return (Progress::new(), None);
        };
        match crate::json::from_str::<Progress>(raw) {
            Ok(p) if p.v == FORMAT_VERSION => (p, None),
            // v1 is v2 without the quiz fields, which default to empty.
            Ok(p) if p.v == 1 => (
                Progress {
                    v: FORMAT_VERSION,
                    ..p
                },
                None,
            ),
            Ok(p) if p.v > FORMAT_VERSION => (Progress::new(), Some(Discarded::NewerVersion(p.v))),
            _ => (Progress::new(), Some(Discarded::Corrupt)),
        }
    }

    pub fn to_json(&self) -> String {
        // Serialising maps of strings cannot fail; fall back to a fresh record just in case.
        crate::json::to_string(self).unwrap_or_else(|_| format!("{{\"v\":{FORMAT_VERSION}}}"))
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

    /// Records one checked answer.
    pub fn record_answer(&mut self, lesson: &str, question: &str, correct: bool) {
        let q = self
            .lessons
            .entry(lesson.to_string())
            .or_default()
            .questions
            .entry(question.to_string())
            .or_default();
        q.attempts = q.attempts.saturating_add(1);
        q.solved |= correct;
    }

    pub fn question(&self, lesson: &str, question: &str) -> Option<QuestionProgress> {
        self.lesson(lesson)
            .and_then(|l| l.questions.get(question))
            .copied()
    }

    pub fn set_quick_check(&mut self, lesson: &str, score: Score) {
        self.lessons.entry(lesson.to_string()).or_default().quick_check = Some(score);
    }

    /// The learner's code for `lab` changed.
    pub fn save_lab_code(&mut self, lesson: &str, lab: &str, code: &str) {
        let code: String = code.chars().take(crate::sim::lab::MAX_SOURCE_BYTES / 4).collect();
        self.lessons
            .entry(lesson.to_string())
            .or_default()
            .labs
            .entry(lab.to_string())
            .or_default()
            .code = code;
    }

    /// A graded run of `lab`'s saved code ended, on the learner's local date `today`
    /// (`YYYY-MM-DD`): a session that held passes that code; one that broke takes the
    /// pass back if it was that code's.
    pub fn record_lab_run(&mut self, lesson: &str, lab: &str, outcome: LabOutcome, today: &str) {
        let l = self
            .lessons
            .entry(lesson.to_string())
            .or_default()
            .labs
            .entry(lab.to_string())
            .or_default();
        l.runs = l.runs.saturating_add(1);
        let mark = code_mark(&l.code);
        match outcome {
            LabOutcome::Passed => {
                l.pass = Some(format!("{mark} {today}"));
            }
            LabOutcome::Broken
                if l.pass
                    .as_deref()
                    .and_then(pass_parts)
                    .is_some_and(|(m, _)| m == mark) =>
            {
                l.pass = None
            }
            LabOutcome::Broken | LabOutcome::Held => {}
        }
    }

    pub fn lab(&self, lesson: &str, lab: &str) -> Option<&LabProgress> {
        self.lessons.get(lesson).and_then(|l| l.labs.get(lab))
    }

    /// Adds `other` (e.g. an imported file) to this progress without losing either:
    /// read sections are united, attempts add up, a question solved in either stays solved,
    /// the better quick-check score is kept.
    pub fn merge(&mut self, other: &Progress) {
        for (id, theirs) in &other.lessons {
            let mine = self.lessons.entry(id.clone()).or_default();
            mine.visited.extend(theirs.visited.iter().cloned());
            mine.last = mine.last.or(theirs.last);
            for (q, t) in &theirs.questions {
                let m = mine.questions.entry(q.clone()).or_default();
                m.attempts = m.attempts.saturating_add(t.attempts);
                m.solved |= t.solved;
            }
            mine.quick_check = match (mine.quick_check, theirs.quick_check) {
                (Some(a), Some(b)) => Some(if b.cmp_share(&a) == Ordering::Greater {
                    b
                } else {
                    a
                }),
                (a, b) => a.or(b),
            };
            for (lab, t) in &theirs.labs {
                let m = mine.labs.entry(lab.clone()).or_default();
                // My code stays; an empty editor takes theirs.
                if m.code.trim().is_empty() {
                    m.code = t.code.clone();
                }
                m.runs = m.runs.saturating_add(t.runs);
                // Their pass counts if it was for the code kept, or if mine is none.
                let kept = code_mark(&m.code);
                let mark_of =
                    |p: &Option<String>| p.as_deref().and_then(pass_parts).map(|(m, _)| m.to_string());
                let (mine, theirs) = (mark_of(&m.pass), mark_of(&t.pass));
                if mine.as_ref() != Some(&kept) && theirs.is_some_and(|p| p == kept || mine.is_none()) {
                    m.pass = t.pass.clone();
                }
            }
        }
    }

    /// The part of `self` (an imported file) that can be true of `lesson`: only that
    /// lesson, only sections, questions and labs it has, a resume point it has, a quick-check
    /// score within its questions. Everything else is dropped, so an import can neither
    /// claim more than the lesson holds nor, merged, make progress worse.
    pub fn fit_to(&self, lesson: &Lesson, questions: &[Question]) -> Progress {
        let mut out = Progress::new();
        let Some(theirs) = self.lessons.get(&lesson.id) else {
            return out;
        };
        let section_ids: VecSet<&str> = VecSet::from_iter(lesson.sections.iter().map(|s| s.id.as_str()));
        let question_ids: VecSet<&str> = VecSet::from_iter(questions.iter().map(|q| q.id.as_str()));
        let count = u32::try_from(questions.len()).unwrap_or(u32::MAX);
        // The labs its sections show: built-in ones, and a pack's own.
        let lab_ids: VecSet<String> = VecSet::from_iter(
            lesson
                .sections
                .iter()
                .flat_map(|s| super::markdown::lab_blocks(&super::docs::doc(&s.body))),
        );
        let fitted = LessonProgress {
            visited: VecSet::from_iter(
                theirs
                    .visited
                    .iter()
                    .filter(|id| section_ids.contains(id.as_str()))
                    .cloned(),
            ),
            last: theirs.last.filter(|&o| lesson.section(o).is_some()),
            questions: VecMap::from_iter(
                theirs
                    .questions
                    .iter()
                    .filter(|(id, _)| question_ids.contains(id.as_str()))
                    .map(|(id, q)| (id.clone(), *q)),
            ),
            quick_check: theirs
                .quick_check
                .filter(|s| s.total >= 1 && s.total <= count && s.correct <= s.total),
            labs: VecMap::from_iter(
                theirs
                    .labs
                    .iter()
                    .filter(|(id, l)| {
                        (crate::labs::IDS.contains(&id.as_str()) || lab_ids.contains(id.as_str()))
                            && l.code.len() <= crate::sim::lab::MAX_SOURCE_BYTES
                    })
                    .map(|(id, l)| {
                        let mut l = l.clone();
                        l.pass = l.pass.filter(|p| pass_parts(p).is_some());
                        (id.clone(), l)
                    }),
            ),
        };
        out.lessons.insert(lesson.id.clone(), fitted);
        out
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
    fn a_lab_is_passed_only_with_the_code_that_held() {
        let (lesson, lab) = ("distributed-locks", "set-nx");
        fn status(p: &Progress) -> Option<LabStatus<'_>> {
            p.lab("distributed-locks", "set-nx").map(LabProgress::status)
        }
        let mut p = Progress::new();
        assert_eq!(status(&p), None);
        p.save_lab_code(lesson, lab, "v1");
        assert_eq!(status(&p), Some(LabStatus::NotStarted));
        p.record_lab_run(lesson, lab, LabOutcome::Held, "2026-12-05");
        assert_eq!(status(&p), Some(LabStatus::Tried { passed_before: None }));
        p.record_lab_run(lesson, lab, LabOutcome::Passed, "2026-12-06");
        assert_eq!(status(&p), Some(LabStatus::Passed { on: "2026-12-06" }));
        // A reload reads the same.
        let (q, _) = Progress::load(Some(&p.to_json()));
        assert_eq!(status(&q), Some(LabStatus::Passed { on: "2026-12-06" }));
        // Other code in the editor has not passed; back to the code that did, it has.
        p.save_lab_code(lesson, lab, "v2");
        assert_eq!(
            status(&p),
            Some(LabStatus::Tried {
                passed_before: Some("2026-12-06")
            })
        );
        // A break of other code does not take the pass of v1 back...
        p.record_lab_run(lesson, lab, LabOutcome::Broken, "2026-12-07");
        p.save_lab_code(lesson, lab, "v1");
        assert_eq!(status(&p), Some(LabStatus::Passed { on: "2026-12-06" }));
        // ...a break of v1 itself does (another seed found what the first missed).
        p.record_lab_run(lesson, lab, LabOutcome::Broken, "2026-12-08");
        assert_eq!(status(&p), Some(LabStatus::Tried { passed_before: None }));
    }

    #[test]
    fn saved_labs_read_back_from_the_wire_and_from_storage_with_and_without_a_pass() {
        let mut p = Progress::new();
        p.save_lab_code("l", "a", "// passed");
        p.record_lab_run("l", "a", LabOutcome::Passed, "2026-12-06");
        p.save_lab_code("l", "b", "// not yet");
        let labs = p.lesson("l").map(|l| l.labs.clone()).unwrap_or_default();
        let text = crate::wire::to_text(&labs).expect("written");
        let back: VecMap<String, LabProgress> = crate::wire::from_text(&text).expect("read");
        assert_eq!(back, labs);
        assert_eq!(crate::json::from_str::<Progress>(&p.to_json()), Ok(p));
    }

    #[test]
    fn an_older_pass_that_names_no_code_is_not_trusted() {
        let raw = r#"{"v":2,"lessons":{"distributed-locks":{"labs":{"set-nx":{"code":"x","runs":3,"passed":true}}}}}"#;
        let (p, why) = Progress::load(Some(raw));
        assert_eq!(why, None);
        let l = p.lab("distributed-locks", "set-nx").expect("kept");
        assert_eq!((l.code.as_str(), l.runs), ("x", 3));
        assert_eq!(l.status(), LabStatus::Tried { passed_before: None });
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
    fn version_1_is_migrated() {
        let v1 = "{\"v\":1,\"lessons\":{\"distributed-locks\":{\"visited\":[\"ttl\"],\"last\":4}}}";
        let (p, why) = Progress::load(Some(v1));
        assert_eq!(why, None);
        assert_eq!(p.v, FORMAT_VERSION);
        assert!(p.is_visited("distributed-locks", "ttl"));
        assert!(p.to_json().starts_with("{\"v\":2"));
    }

    #[test]
    fn answers_and_merge() {
        let mut a = Progress::new();
        a.visit("l", "x", 1);
        a.record_answer("l", "q1", false);
        a.record_answer("l", "q1", true);
        a.record_answer("l", "q1", false);
        assert_eq!(
            a.question("l", "q1"),
            Some(QuestionProgress {
                attempts: 3,
                solved: true
            })
        );
        a.set_quick_check(
            "l",
            Score {
                correct: 5,
                total: 12,
            },
        );
        let mut b = Progress::new();
        b.visit("l", "y", 2);
        b.record_answer("l", "q2", false);
        b.set_quick_check(
            "l",
            Score {
                correct: 9,
                total: 12,
            },
        );
        a.merge(&b);
        assert!(a.is_visited("l", "x") && a.is_visited("l", "y"));
        assert_eq!(
            a.question("l", "q2"),
            Some(QuestionProgress {
                attempts: 1,
                solved: false
            })
        );
        assert_eq!(
            a.lesson("l").and_then(|l| l.quick_check),
            Some(Score {
                correct: 9,
                total: 12
            })
        );
        let (c, why) = Progress::load(Some(&a.to_json()));
        assert_eq!((c, why), (a, None));
    }

    #[test]
    fn newer_format_is_discarded_with_its_version() {
        let (_, why) = Progress::load(Some("{\"v\":9,\"lessons\":{}}"));
        assert_eq!(why, Some(Discarded::NewerVersion(9)));
    }
}
