//! The check at the end of a section, and the final quick check with its score.

use super::question::QuestionView;
use crate::lesson::content::Lang;
use crate::lesson::i18n::{k, Texts};
use crate::lesson::progress::{Progress, Score};
use crate::lesson::state::Lessons;
use crate::vecmap::VecMap;
use std::rc::Rc;
use yew::prelude::*;

#[derive(Properties, PartialEq)]
pub struct QuizProps {
    pub lessons: Rc<Lessons>,
    pub lang: Lang,
    pub section_id: String,
    pub progress: Progress,
    pub on_answer: Callback<(String, bool)>,
    /// Set for the final quick check: show a running score and report it when complete.
    #[prop_or_default]
    pub on_complete: Option<Callback<Score>>,
}

#[function_component(Quiz)]
pub fn quiz(props: &QuizProps) -> Html {
    let t = Texts::new(props.lang);
    let questions: Vec<Rc<crate::lesson::quiz::Question>> = props
        .lessons
        .questions_for(&props.section_id)
        .cloned()
        .map(Rc::new)
        .collect();
    // Latest result per question in this visit (for the quick-check score).
    let results = use_state(VecMap::<String, bool>::new);
    if questions.is_empty() {
        return html! {};
    }
    let total = questions.len();
    let lesson_id = props.lessons.get(props.lang).id.clone();
    // Reports the score once every question has a result. Called after the result that
    // completes it has been reported, so a host hears that `answer` before `complete`.
    let report_if_complete = {
        let on_complete = props.on_complete.clone();
        move |r: &VecMap<String, bool>| {
            if let Some(done) = &on_complete {
                if r.len() == total {
                    let correct = r.values().filter(|&&v| v).count() as u32;
                    done.emit(Score {
                        correct,
                        total: total as u32,
                    });
                }
            }
        }
    };
    let on_result = {
        let results = results.clone();
        let on_answer = props.on_answer.clone();
        let report = report_if_complete.clone();
        Callback::from(move |(id, ok): (String, bool)| {
            let mut r = (*results).clone();
            r.insert(id.clone(), ok);
            on_answer.emit((id, ok));
            report(&r);
            results.set(r);
        })
    };
    // Shown before it was solved: it counts as not solved in the score.
    let on_reveal = {
        let results = results.clone();
        Callback::from(move |id: String| {
            let mut r = (*results).clone();
            if !r.contains_key(&id) {
                r.insert(id, false);
                report_if_complete(&r);
                results.set(r);
            }
        })
    };
    let quick = props.on_complete.is_some();
    let correct = results.values().filter(|&&v| v).count();
    html! {
        <section class="quiz" aria-labelledby="quiz-title">
            <h2 id="quiz-title">{ if quick { t.t(k::QUICK_CHECK_TITLE) } else { t.t(k::QUIZ_TITLE) } }</h2>
            if quick {
                <p class="quiz-score" role="status">
                    { t.fmt(k::QUICK_CHECK_SCORE, &[("correct", correct.to_string()), ("answered", results.len().to_string()), ("total", total.to_string())]) }
                </p>
            }
            { for questions.iter().map(|q| {
                let attempts = props.progress.question(&lesson_id, &q.id).map_or(0, |p| p.attempts);
                // Each question in a task of its own (see `Deferred`): the section above
                // is drawn and usable first.
                html! {
                    <super::Deferred key={q.id.clone()}>
                        <QuestionView question={q.clone()} lang={props.lang} on_result={on_result.clone()} on_reveal={on_reveal.clone()} {attempts} />
                    </super::Deferred>
                }
            }) }
        </section>
    }
}
