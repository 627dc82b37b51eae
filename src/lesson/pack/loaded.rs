//! A pack as it was loaded and checked ([`Pack`]): its lessons per language, questions,
//! scenarios and labs, and what the reader asks of it.

use crate::lesson::content::{Lesson, BUILTIN_LESSON_ID};
use crate::lesson::lang::Lang;
use crate::lesson::quiz::Question;
use crate::lesson::state::Lessons;
use crate::sim::scenario::Scenario;
use crate::vecmap::VecMap;

use crate::lesson::docs::question_texts;

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

    /// The texts the page shows as Markdown: its sections, questions and labs' goals.
    pub fn markdown_texts(&self) -> Vec<String> {
        let mut out: Vec<String> = self
            .lessons
            .values()
            .flat_map(|l| l.sections.iter().map(|s| s.body.clone()))
            .collect();
        out.extend(self.questions.iter().flat_map(question_texts));
        out.extend(self.labs.iter().flat_map(|l| l.lab.goal.values().cloned()));
        out
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
