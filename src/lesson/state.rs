//! The reader's state and every transition of it, as one pure `reduce` (no browser).
//!
//! `ui::app` wraps this in yew's `Reducible`; the tests here drive it directly.

use super::content::{Lang, Lesson};
use super::progress::{Discarded, Progress, Score};
use super::quiz::Question;
use super::route::Route;
use std::rc::Rc;

/// Both languages of the lesson and its questions, loaded once.
#[derive(Clone, Debug, PartialEq)]
pub struct Lessons {
    pub en: Lesson,
    pub nb: Lesson,
    pub questions: Vec<Question>,
    /// An instructor's pack's title in English and in Norwegian (its own language where it
    /// has one); `None` for the built-in lesson, which the app's own name and tagline
    /// present.
    pub pack_title: Option<[String; 2]>,
}

impl Lessons {
    /// The pack's title in `lang`, if this is a pack.
    pub fn pack_title(&self, lang: Lang) -> Option<&str> {
        let [en, nb] = self.pack_title.as_ref()?;
        Some(if lang == Lang::Nb { nb } else { en })
    }

    pub fn get(&self, lang: Lang) -> &Lesson {
        match lang {
            Lang::En => &self.en,
            Lang::Nb => &self.nb,
        }
    }

    /// The languages the lesson is written in. A one-language pack fills both slots with
    /// the same lesson, so it has one.
    pub fn languages(&self) -> Vec<Lang> {
        Lang::ALL.into_iter().filter(|&l| self.get(l).lang == l).collect()
    }

    /// The language a reader who asks for `lang` reads: `lang` if the lesson has it, else
    /// the one it is written in (so the app's own texts match the lesson's).
    pub fn offered(&self, lang: Lang) -> Lang {
        self.get(lang).lang
    }

    /// The questions that end the section with this id, in file order.
    pub fn questions_for<'a>(&'a self, section_id: &'a str) -> impl Iterator<Item = &'a Question> + 'a {
        self.questions.iter().filter(move |q| q.section == section_id)
    }
}

/// Something the page tells the learner until dismissed.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Notice {
    ProgressDiscarded(Discarded),
    StorageUnavailable,
    /// An imported progress file was used.
    Imported,
    /// An imported file was not a Lockstep progress file.
    ImportFailed,
    /// Progress was reset on request.
    ProgressReset,
    /// The words of the language the learner chose could not be fetched: the page stays
    /// in its language.
    LanguageUnavailable(Lang),
}

impl Notice {
    /// The outcome of something the learner did on the progress page (import, reset):
    /// shown next to those controls, and replaced by the next one.
    pub fn is_outcome(&self) -> bool {
        matches!(
            self,
            Notice::Imported | Notice::ImportFailed | Notice::ProgressReset
        )
    }
}

/// What the main area shows.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum View {
    /// The section with this order.
    Section(u32),
    /// The progress page.
    Progress,
    /// The URL named no section we have.
    NotFound(String),
}

#[derive(Clone, Debug, PartialEq)]
pub struct ReaderState {
    pub lessons: Rc<Lessons>,
    pub lang: Lang,
    pub view: View,
    pub progress: Progress,
    /// Page-wide notices (stored progress unreadable, storage blocked), until dismissed.
    pub notices: Vec<Notice>,
    /// The outcome of the last progress action (import, reset), shown by its controls;
    /// the next action replaces it, and leaving the page clears it.
    pub outcome: Option<Notice>,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Action {
    /// The URL changed (load, link, back button).
    Route(Route),
    Next,
    Prev,
    SetLang(Lang),
    /// The built-in lesson made again, once a language's words have come (`crate::text`
    /// fetches them per language, and a lesson made before holds that language's texts
    /// empty): it replaces the built-in lesson, never a pack's.
    Builtin(Rc<Lessons>),
    Notify(Notice),
    Dismiss(usize),
    /// A question was checked.
    Answered {
        question: String,
        correct: bool,
    },
    /// The final quick check was completed with this score.
    QuickCheckDone(Score),
    /// The learner's code in a lab's editor changed.
    LabCode {
        lab: String,
        code: String,
    },
    /// A lab graded the learner's code, on the learner's local date `today`
    /// (`YYYY-MM-DD`).
    LabRun {
        lab: String,
        outcome: crate::lesson::progress::LabOutcome,
        today: String,
    },
    /// Progress from an exported file (already parsed); merged into the current one.
    Import(Progress),
    /// Forget all progress (the UI asks for confirmation first).
    ResetProgress,
    /// The learner scrolled to the end of the section with this order: it is read.
    ReadToEnd(u32),
    /// An embedding page asked for this section; one the lesson does not have is ignored.
    Goto(u32),
}

impl ReaderState {
    /// The state at start-up: `route` from the URL, progress as loaded.
    pub fn new(lessons: Rc<Lessons>, lang: Lang, route: Route, progress: Progress) -> ReaderState {
        let lang = lessons.offered(lang);
        let state = ReaderState {
            lessons,
            lang,
            // Nothing shown yet: opening the first page reads nothing.
            view: View::NotFound(String::new()),
            progress,
            notices: Vec::new(),
            outcome: None,
        };
        state.reduce(Action::Route(route))
    }

    pub fn lesson(&self) -> &Lesson {
        self.lessons.get(self.lang)
    }

    /// The current section's order, if a section is shown.
    pub fn current(&self) -> Option<u32> {
        match self.view {
            View::Section(o) => Some(o),
            View::Progress | View::NotFound(_) => None,
        }
    }

    /// The hash the URL should show for this state.
    pub fn hash(&self) -> Option<String> {
        match self.view {
            View::Section(o) => Some(Route::section_hash(&self.lesson().id, o)),
            View::Progress => Some(Route::progress_hash(&self.lesson().id)),
            View::NotFound(_) => None,
        }
    }

    /// Every transition of the reader. Pure: same state and action, same result.
    pub fn reduce(&self, action: Action) -> ReaderState {
        let mut next = self.clone();
        match action {
            Action::Route(route) => {
                let lesson = self.lesson();
                next.view = match route {
                    Route::Home => {
                        let resume = self.progress.lesson(&lesson.id).and_then(|l| l.last);
                        View::Section(
                            resume
                                .filter(|&o| lesson.section(o).is_some())
                                .unwrap_or(lesson.first_order()),
                        )
                    }
                    Route::Section { lesson: id, order }
                        if id == lesson.id && lesson.section(order).is_some() =>
                    {
                        View::Section(order)
                    }
                    Route::Section { lesson: id, order } => View::NotFound(Route::section_hash(&id, order)),
                    Route::Progress { lesson: id } if id == lesson.id => View::Progress,
                    Route::Progress { lesson: id } => View::NotFound(Route::progress_hash(&id)),
                    Route::NotFound(hash) => View::NotFound(hash),
                };
            }
            Action::Next => {
                if let Some(o) = self.current().and_then(|o| self.lesson().next_order(o)) {
                    next.view = View::Section(o);
                }
            }
            Action::Prev => {
                if let Some(o) = self.current().and_then(|o| self.lesson().prev_order(o)) {
                    next.view = View::Section(o);
                }
            }
            Action::SetLang(lang) => {
                next.lang = self.lessons.offered(lang);
                // A language that could not come earlier has come now.
                next.notices
                    .retain(|n| !matches!(n, Notice::LanguageUnavailable(_)));
                // Sections share ids and orders across languages; fall back to the first.
                if let Some(o) = self.current() {
                    if next.lesson().section(o).is_none() {
                        next.view = View::Section(next.lesson().first_order());
                    }
                }
            }
            Action::Notify(n) if n.is_outcome() => next.outcome = Some(n),
            Action::Notify(n) => {
                if !next.notices.contains(&n) {
                    next.notices.push(n);
                }
            }
            Action::Dismiss(i) => {
                if i < next.notices.len() {
                    next.notices.remove(i);
                }
            }
            Action::Answered { question, correct } => {
                let id = next.lesson().id.clone();
                next.progress.record_answer(&id, &question, correct);
            }
            Action::QuickCheckDone(score) => {
                let id = next.lesson().id.clone();
                next.progress.set_quick_check(&id, score);
            }
            Action::LabCode { lab, code } => {
                let id = next.lesson().id.clone();
                next.progress.save_lab_code(&id, &lab, &code);
            }
            Action::LabRun { lab, outcome, today } => {
                let id = next.lesson().id.clone();
                next.progress.record_lab_run(&id, &lab, outcome, &today);
            }
            Action::Builtin(lessons) => {
                if self.lessons.pack_title.is_none() && lessons.pack_title.is_none() {
                    next.lessons = lessons;
                }
            }
            Action::Import(p) => {
                // Only what can be true of this lesson is taken (ids it has, counts
                // within its questions).
                next.progress
                    .merge(&p.fit_to(self.lesson(), &self.lessons.questions));
                next.outcome = Some(Notice::Imported);
            }
            Action::ResetProgress => {
                next.progress = Progress::new();
                next.outcome = Some(Notice::ProgressReset);
                return next;
            }
            Action::ReadToEnd(order) => {
                if self.current() == Some(order) {
                    next.mark_read(order);
                }
                return next;
            }
            Action::Goto(order) => {
                if self.lesson().section(order).is_some() {
                    next.view = View::Section(order);
                }
            }
        }
        if next.view != self.view {
            // A section counts as read once the learner leaves it (or scrolls to its
            // end, above), not merely because it was opened: a first visitor has read
            // nothing.
            if let Some(o) = self.current() {
                next.mark_read(o);
            }
            next.outcome = None;
        }
        if let Some(o) = next.current() {
            // Where the home page resumes.
            let id = next.lesson().id.clone();
            next.progress.lessons.entry(id).or_default().last = Some(o);
        }
        next
    }

    /// Marks the section with this order as read in the current lesson.
    fn mark_read(&mut self, order: u32) {
        let lesson_id = self.lesson().id.clone();
        if let Some(section) = self.lesson().section(order) {
            let id = section.id.clone();
            self.progress.visit(&lesson_id, &id, order);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::content::build_lesson;

    fn lessons() -> Rc<Lessons> {
        let f = |id: &str, title: &str, order: u32| {
            format!("+++\nid = \"{id}\"\ntitle = \"{title}\"\norder = {order}\n+++\nBody of {id}.\n")
        };
        let en = [f("a", "Alpha", 1), f("b", "Beta", 2), f("c", "Gamma", 3)];
        let nb = [f("a", "Alfa", 1), f("b", "Beta", 2), f("c", "Gamma", 3)];
        let mk = |lang, files: &[String; 3]| {
            build_lesson("l", lang, files.iter().map(|s| ("x.md", s.as_str()))).expect("valid test lesson")
        };
        Rc::new(Lessons {
            en: mk(Lang::En, &en),
            nb: mk(Lang::Nb, &nb),
            questions: Vec::new(),
            pack_title: None,
        })
    }

    fn start(route: &str) -> ReaderState {
        ReaderState::new(lessons(), Lang::En, Route::parse(route), Progress::new())
    }

    #[test]
    fn the_built_in_lesson_is_made_again_but_a_pack_is_kept() {
        let s = start("#/l/2");
        let mut again = (*lessons()).clone();
        again.nb.sections[1].title = "Beta, på norsk".to_string();
        let again = Rc::new(again);
        let s = s.reduce(Action::Notify(Notice::LanguageUnavailable(Lang::Nb)));
        assert_eq!(s.notices, [Notice::LanguageUnavailable(Lang::Nb)]);
        let s = s
            .reduce(Action::Builtin(again.clone()))
            .reduce(Action::SetLang(Lang::Nb));
        assert!(s.notices.is_empty(), "the language came: its notice goes");
        assert_eq!(
            s.lesson().section(2).map(|x| x.title.as_str()),
            Some("Beta, på norsk")
        );
        assert_eq!(s.current(), Some(2));
        let pack = Rc::new(Lessons {
            pack_title: Some(["A pack".to_string(), "En pakke".to_string()]),
            ..(*lessons()).clone()
        });
        let p = ReaderState::new(pack.clone(), Lang::En, Route::parse("#/l/2"), Progress::new());
        assert_eq!(p.reduce(Action::Builtin(again)).lessons, pack);
    }

    #[test]
    fn a_one_language_lesson_is_read_in_its_language_whatever_is_asked() {
        let both = lessons();
        assert_eq!(both.languages(), vec![Lang::En, Lang::Nb]);
        let en_only = Rc::new(Lessons {
            en: both.en.clone(),
            nb: both.en.clone(),
            questions: Vec::new(),
            pack_title: None,
        });
        assert_eq!(en_only.languages(), vec![Lang::En]);
        let s = ReaderState::new(en_only, Lang::Nb, Route::parse("#/l/2"), Progress::new());
        assert_eq!((s.lang, s.current()), (Lang::En, Some(2)));
        let s = s.reduce(Action::SetLang(Lang::Nb));
        assert_eq!((s.lang, s.current()), (Lang::En, Some(2)));
        // With both, the switch works as asked.
        let s = start("#/l/2").reduce(Action::SetLang(Lang::Nb));
        assert_eq!(s.lang, Lang::Nb);
    }

    #[test]
    fn starts_at_the_route_with_nothing_read() {
        let s = start("#/l/2");
        assert_eq!(s.view, View::Section(2));
        assert_eq!(
            s.progress.visited_count("l"),
            0,
            "a first visitor has read nothing"
        );
        assert_eq!(s.progress.lesson("l").and_then(|l| l.last), Some(2));
        assert_eq!(s.hash().as_deref(), Some("#/l/2"));
        assert_eq!(start("").progress.visited_count("l"), 0);
    }

    #[test]
    fn a_section_is_read_once_left_or_scrolled_to_its_end() {
        let s = start("#/l/1").reduce(Action::Next);
        assert!(s.progress.is_visited("l", "a"), "left for the next one");
        assert!(!s.progress.is_visited("l", "b"), "only just opened");
        // Scrolled to its end: read. A stale report for another section is not.
        let s = s.reduce(Action::ReadToEnd(3));
        assert!(!s.progress.is_visited("l", "c"));
        let s = s.reduce(Action::ReadToEnd(2));
        assert!(s.progress.is_visited("l", "b"));
        // Leaving for the progress page reads it too; the language switch does not.
        let s = start("#/l/3").reduce(Action::SetLang(Lang::Nb));
        assert_eq!(s.progress.visited_count("l"), 0);
        let s = s.reduce(Action::Route(Route::parse("#/l/progress")));
        assert!(s.progress.is_visited("l", "c"));
        assert_eq!(s.progress.lesson("l").and_then(|l| l.last), Some(3));
    }

    #[test]
    fn a_host_goto_to_a_section_the_lesson_lacks_is_ignored() {
        let s = start("#/l/2");
        assert_eq!(s.reduce(Action::Goto(99)).view, View::Section(2));
        assert_eq!(s.reduce(Action::Goto(0)).view, View::Section(2));
        assert_eq!(s.reduce(Action::Goto(3)).view, View::Section(3));
    }

    #[test]
    fn each_progress_action_replaces_the_last_outcome() {
        let s = start("#/l/progress").reduce(Action::Import(Progress::new()));
        assert_eq!(s.outcome, Some(Notice::Imported));
        let s = s.reduce(Action::Notify(Notice::ImportFailed));
        assert_eq!(s.outcome, Some(Notice::ImportFailed), "not next to 'imported'");
        let s = s.reduce(Action::ResetProgress);
        assert_eq!(
            s.outcome,
            Some(Notice::ProgressReset),
            "no stale 'imported' after a reset"
        );
        assert!(s.notices.is_empty(), "outcomes are not page-wide notices");
        // A page-wide notice stays; leaving the page clears the outcome.
        let s = s.reduce(Action::Notify(Notice::StorageUnavailable));
        assert_eq!(s.outcome, Some(Notice::ProgressReset));
        let s = s.reduce(Action::Route(Route::parse("#/l/1")));
        assert_eq!((s.outcome, s.notices.len()), (None, 1));
    }

    #[test]
    fn next_and_prev_stop_at_the_ends() {
        let s = start("#/l/1");
        let s = s.reduce(Action::Prev);
        assert_eq!(s.current(), Some(1));
        let s = s.reduce(Action::Next).reduce(Action::Next).reduce(Action::Next);
        assert_eq!(s.current(), Some(3));
        assert_eq!(s.progress.visited_count("l"), 2, "the last one is open, not read");
        assert_eq!(s.reduce(Action::Prev).current(), Some(2));
    }

    #[test]
    fn unknown_routes_show_not_found_and_next_does_nothing() {
        for r in ["#/l/9", "#/other/1", "#/l/x"] {
            let s = start(r);
            assert!(matches!(s.view, View::NotFound(_)), "{r}");
            assert_eq!(s.reduce(Action::Next).view, s.view);
            assert_eq!(s.hash(), None);
        }
    }

    #[test]
    fn home_resumes_where_the_learner_was() {
        let mut p = Progress::new();
        p.visit("l", "c", 3);
        let s = ReaderState::new(lessons(), Lang::En, Route::Home, p);
        assert_eq!(s.current(), Some(3));
        assert_eq!(start("").current(), Some(1));
    }

    #[test]
    fn language_switch_keeps_the_section() {
        let s = start("#/l/2").reduce(Action::SetLang(Lang::Nb));
        assert_eq!((s.lang, s.current()), (Lang::Nb, Some(2)));
        assert_eq!(s.lesson().section(1).map(|x| x.title.as_str()), Some("Alfa"));
    }

    #[test]
    fn progress_page_answers_import_and_reset() {
        let s = start("#/l/progress");
        assert_eq!(s.view, View::Progress);
        assert_eq!(s.hash().as_deref(), Some("#/l/progress"));
        assert_eq!(s.progress.visited_count("l"), 0);
        let s = s.reduce(Action::Answered {
            question: "q".into(),
            correct: true,
        });
        assert!(s.progress.question("l", "q").is_some_and(|q| q.solved));
        let mut other = Progress::new();
        other.visit("l", "c", 3);
        let s = s.reduce(Action::Import(other));
        assert!(s.progress.is_visited("l", "c"));
        assert_eq!(s.outcome, Some(Notice::Imported));
        let s = s.reduce(Action::ResetProgress);
        assert_eq!(s.progress, Progress::new());
        assert_eq!(s.outcome, Some(Notice::ProgressReset));
        assert!(matches!(start("#/other/progress").view, View::NotFound(_)));
    }

    #[test]
    fn notices_are_unique_and_dismissable() {
        let s = start("#/l/1")
            .reduce(Action::Notify(Notice::StorageUnavailable))
            .reduce(Action::Notify(Notice::StorageUnavailable))
            .reduce(Action::Notify(Notice::ProgressDiscarded(Discarded::Corrupt)));
        assert_eq!(s.notices.len(), 2);
        let s = s.reduce(Action::Dismiss(0)).reduce(Action::Dismiss(7));
        assert_eq!(s.notices, vec![Notice::ProgressDiscarded(Discarded::Corrupt)]);
    }
}
