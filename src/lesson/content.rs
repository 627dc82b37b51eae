//! The built-in lesson's files, embedded at build time, and the lesson compiled from
//! them by `build.rs` (sections and questions as Rust values: the app parses no TOML
//! and validates nothing to show the built-in lesson). Section files are read by
//! [`super::section`].

mod generated {
    include!(concat!(env!("OUT_DIR"), "/content_files.rs"));
}

mod generated_quiz {
    include!(concat!(env!("OUT_DIR"), "/quiz_files.rs"));
}

/// The built-in lesson as `build.rs` compiled it: static tables of these plain types.
mod compiled {
    use super::super::quiz::{Generator, Kind, Question, Texts};
    use super::{Lang, Section};
    use crate::text::Txt;

    pub struct S {
        pub lang: Lang,
        pub id: &'static str,
        pub title: Txt,
        pub order: u32,
        pub body: Txt,
        pub file: &'static str,
    }

    pub struct T {
        pub prompt: Txt,
        pub options: &'static [Txt],
        pub explanations: &'static [Txt],
        pub explanation: Txt,
        pub unit: Option<Txt>,
        pub items: &'static [Txt],
    }

    pub enum K {
        Predict(&'static str, u64),
        Single(usize),
        Multiple(&'static [usize]),
        /// The answer and the tolerance, as `f64` bits.
        Numeric(u64, u64),
        Order,
        Bug(Txt, &'static str, usize),
        Generated(Generator),
    }

    pub struct Q {
        pub id: &'static str,
        pub section: &'static str,
        pub kind: K,
        pub en: T,
        pub nb: T,
    }

    include!(concat!(env!("OUT_DIR"), "/builtin_pack.rs"));

    impl S {
        pub fn section(&self) -> Section {
            Section {
                id: self.id.into(),
                title: self.title.get().into(),
                order: self.order,
                body: self.body.get().into(),
                file: self.file.into(),
            }
        }
    }

    fn strings(v: &[Txt]) -> Vec<String> {
        v.iter().map(|s| s.get().to_string()).collect()
    }

    impl T {
        fn texts(&self) -> Texts {
            Texts {
                prompt: self.prompt.get().into(),
                options: strings(self.options),
                explanations: strings(self.explanations),
                explanation: self.explanation.get().into(),
                unit: self.unit.map(|u| u.get().to_string()),
                items: strings(self.items),
            }
        }
    }

    impl Q {
        pub fn question(&self) -> Question {
            let kind = match self.kind {
                K::Predict(scenario, pause_at_ms) => Kind::Predict {
                    scenario: scenario.into(),
                    pause_at_ms,
                },
                K::Single(correct) => Kind::Single { correct },
                K::Multiple(correct) => Kind::Multiple {
                    correct: correct.iter().copied().collect(),
                },
                K::Numeric(answer, tolerance) => Kind::Numeric {
                    answer: f64::from_bits(answer),
                    tolerance: f64::from_bits(tolerance),
                },
                K::Order => Kind::Order,
                K::Bug(code, code_lang, bug_line) => Kind::Bug {
                    code: code.get().into(),
                    code_lang: code_lang.into(),
                    bug_line,
                },
                K::Generated(g) => Kind::Generated(g),
            };
            Question {
                id: self.id.into(),
                section: self.section.into(),
                kind,
                en: self.en.texts(),
                nb: self.nb.texts(),
            }
        }
    }
}

/// The built-in lesson's sections in `lang`, sorted by order, as `build.rs` compiled
/// them (named `sections/<lang>/<file>`, as the pack loader names them).
pub fn compiled_sections(lang: Lang) -> Vec<Section> {
    compiled::SECTIONS
        .iter()
        .filter(|s| s.lang == lang)
        .map(compiled::S::section)
        .collect()
}

/// The built-in questions, in file order, as `build.rs` compiled them.
pub fn compiled_questions() -> Vec<super::quiz::Question> {
    compiled::QUESTIONS.iter().map(compiled::Q::question).collect()
}

/// The id of the built-in lesson; it is the first part of every route.
pub const BUILTIN_LESSON_ID: &str = "distributed-locks";

pub use super::section::{build_lesson, parse_section, ContentError, Lang, Lesson, Section};

/// Every embedded content file, as (path, text).
pub fn builtin_files() -> &'static [(&'static str, &'static str)] {
    generated::FILES
}

/// The built-in quiz files, as (path, text); `build.rs` has validated them.
pub fn builtin_quiz_files() -> &'static [(&'static str, &'static str)] {
    generated_quiz::FILES
}

/// Every built-in question. The build already refused invalid files, so this only
/// fails if the build script and the app disagree, which a test rules out.
pub fn builtin_questions() -> Result<Vec<super::quiz::Question>, Vec<super::quiz::QuizError>> {
    super::quiz::parse_all(builtin_quiz_files().iter().copied())
}

/// The built-in lesson in `lang`, from the files embedded at build time.
pub fn builtin(lang: Lang) -> Result<Lesson, Vec<ContentError>> {
    let prefix = format!("content/{}/", lang.code());
    build_lesson(
        BUILTIN_LESSON_ID,
        lang,
        builtin_files()
            .iter()
            .filter(|(path, _)| path.starts_with(&prefix))
            .copied(),
    )
}

#[cfg(test)]
mod tests {
    use super::compiled::{QUESTIONS, SECTIONS, T};
    use super::Lang;

    fn part_of(lang: Lang) -> usize {
        1 + Lang::ALL.iter().position(|&l| l == lang).unwrap_or(0)
    }

    /// A section's and a question's words are in their language's part of the lesson's
    /// text (`crate::text`), so a reader downloads only their language's.
    #[test]
    fn each_language_s_words_are_in_its_own_part() {
        for s in SECTIONS {
            assert_eq!(s.title.part(), part_of(s.lang), "{:?} {}", s.lang, s.id);
            assert_eq!(s.body.part(), part_of(s.lang), "{:?} {}", s.lang, s.id);
        }
        let texts = |t: &T| {
            [t.prompt, t.explanation]
                .into_iter()
                .chain(t.options.iter().chain(t.explanations).chain(t.items).copied())
                .chain(t.unit)
                .collect::<Vec<_>>()
        };
        for q in QUESTIONS {
            for (lang, t) in [(Lang::En, &q.en), (Lang::Nb, &q.nb)] {
                for txt in texts(t) {
                    assert_eq!(txt.part(), part_of(lang), "{:?} {}: {:?}", lang, q.id, txt.get());
                }
            }
        }
    }
}
