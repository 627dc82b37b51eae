//! Decision guides: a fenced ` ```guide ` block in a section is a short series of
//! questions the reader answers one at a time, each answer leading to a later question
//! or to a recommendation (§11's "Do you need Redlock?").
//!
//! ```text
//! ? Would two workers at once give a wrong result, or only a wasteful one?
//! - Only wasteful => Use a single node with SET NX PX and a token-checked release.
//! - Wrong => 2 | It is a correctness lock.
//! ? Can the resource check fencing tokens?
//! - Yes => Use fencing, with a counter that survives failover.
//! - No => Redlock may be worth its costs.
//! ```
//!
//! `? text` starts a question (they are numbered from 1 in order). `- answer => N` leads to
//! question N, optionally with a note said on the way (`=> N | note`); `- answer => text`
//! ends the guide with that recommendation. Answers may only lead forward, so every walk
//! ends. Text between backticks is shown as code. Mistakes are reported with their line.

use super::markdown::Node;

#[derive(Clone, Debug, PartialEq)]
pub struct Guide {
    pub questions: Vec<Question>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Question {
    pub text: String,
    pub answers: Vec<Answer>,
}

#[derive(Clone, Debug, PartialEq)]
pub struct Answer {
    pub text: String,
    pub then: Then,
}

#[derive(Clone, Debug, PartialEq)]
pub enum Then {
    /// Go on to this question (0-based), saying the note first if there is one.
    Question { index: usize, note: Option<String> },
    /// The guide ends with this recommendation.
    Outcome(String),
}

/// A mistake in a guide block: its line within the block (1-based) and what is wrong.
#[derive(Clone, Debug, PartialEq)]
pub struct GuideError {
    pub line: usize,
    pub message: String,
}

/// Reads a guide block; every mistake at once.
pub fn parse(code: &str) -> Result<Guide, Vec<GuideError>> {
    let mut questions: Vec<Question> = Vec::new();
    // (line, question index, target) of every `=> N`, checked once all are known.
    let mut jumps: Vec<(usize, usize, usize)> = Vec::new();
    let mut errors: Vec<GuideError> = Vec::new();
    macro_rules! err {
        ($line:expr, $msg:expr $(,)?) => {
            errors.push(GuideError {
                line: $line,
                message: $msg,
            })
        };
    }
    let mut question_lines = Vec::new();
    for (i, raw) in code.lines().enumerate() {
        let line = i + 1;
        let t = raw.trim();
        if t.is_empty() {
            continue;
        }
        if let Some(q) = t.strip_prefix('?') {
            let q = q.trim();
            if q.is_empty() {
                err!(line, "the question has no text".into());
            }
            questions.push(Question {
                text: q.to_string(),
                answers: Vec::new(),
            });
            question_lines.push(line);
        } else if let Some(a) = t.strip_prefix('-') {
            let Some(current) = questions.len().checked_sub(1) else {
                err!(line, "an answer comes before the first `? question`".into());
                continue;
            };
            let Some((text, target)) = a.split_once("=>") else {
                err!(
                    line,
                    "the answer has no `=> question number` or `=> recommendation`".into()
                );
                continue;
            };
            let (text, target) = (text.trim(), target.trim());
            if text.is_empty() || target.is_empty() {
                err!(line, "an answer needs text on both sides of `=>`".into());
                continue;
            }
            let (head, note) = match target.split_once('|') {
                Some((h, n)) => (h.trim(), Some(n.trim().to_string()).filter(|n| !n.is_empty())),
                None => (target, None),
            };
            let then = match head.parse::<usize>() {
                Ok(n) => {
                    jumps.push((line, current, n));
                    Then::Question {
                        index: n.saturating_sub(1),
                        note,
                    }
                }
                Err(_) => Then::Outcome(target.to_string()),
            };
            if let Some(q) = questions.last_mut() {
                q.answers.push(Answer {
                    text: text.to_string(),
                    then,
                });
            }
        } else {
            err!(
                line,
                format!("expected `? question` or `- answer => …`, found `{t}`"),
            );
        }
    }
    if questions.is_empty() && errors.is_empty() {
        err!(1, "the guide has no `? question`".into());
    }
    for (q, line) in questions.iter().zip(&question_lines) {
        if q.answers.len() < 2 {
            err!(*line, "a question needs at least two answers".into());
        }
    }
    for (line, from, to) in jumps {
        if to == 0 || to > questions.len() {
            err!(
                line,
                format!("there is no question {to} (the guide has {})", questions.len()),
            );
        } else if to <= from + 1 {
            err!(
                line,
                format!(
                    "answers may only lead forward, and this one leads from question {} to {to}",
                    from + 1
                ),
            );
        }
    }
    if errors.is_empty() {
        Ok(Guide { questions })
    } else {
        crate::sorting::sort_by_key(&mut errors, |e| e.line);
        Err(errors)
    }
}

/// The code of every ` ```guide ` block in a document, in order.
pub fn guide_blocks(doc: &[Node]) -> Vec<String> {
    crate::lesson::markdown::walk(doc)
        .into_iter()
        .filter_map(|n| match n {
            Node::CodeBlock { lang: Some(l), code } if l == "guide" => Some(code.clone()),
            _ => None,
        })
        .collect()
}

/// Text with `code` spans: (is code, text) pieces.
pub fn spans(text: &str) -> Vec<(bool, &str)> {
    text.split('`')
        .enumerate()
        .filter(|(_, s)| !s.is_empty())
        .map(|(i, s)| (i % 2 == 1, s))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    const OK: &str = "? Wrong or wasteful?\n- Wasteful => Use one node.\n- Wrong => 2 | A correctness lock.\n\n? Fencing possible?\n- Yes => Fence.\n- No => Consider Redlock.\n";

    #[test]
    fn a_guide_reads_into_questions_answers_and_outcomes() {
        let g = parse(OK).expect("valid");
        assert_eq!(g.questions.len(), 2);
        assert_eq!(
            g.questions[0].answers[1].then,
            Then::Question {
                index: 1,
                note: Some("A correctness lock.".into())
            }
        );
        assert_eq!(g.questions[1].answers[0].then, Then::Outcome("Fence.".into()));
        assert_eq!(
            spans("use `SET NX PX` now"),
            [(false, "use "), (true, "SET NX PX"), (false, " now")]
        );
    }

    #[test]
    fn mistakes_are_reported_with_their_lines() {
        let errs =
            parse("- early => 2\n? Q\n- only => 1\nnonsense\n? Q2\n- a => 9\n- b\n").expect_err("broken");
        let lines: Vec<(usize, &str)> = errs.iter().map(|e| (e.line, e.message.as_str())).collect();
        assert!(
            lines
                .iter()
                .any(|(l, m)| *l == 1 && m.contains("before the first")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|(l, m)| *l == 2 && m.contains("at least two answers")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|(l, m)| *l == 3 && m.contains("only lead forward")),
            "{lines:?}"
        );
        assert!(
            lines
                .iter()
                .any(|(l, m)| *l == 4 && m.contains("found `nonsense`")),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|(l, m)| *l == 6 && m.contains("no question 9")),
            "{lines:?}"
        );
        assert!(
            lines.iter().any(|(l, m)| *l == 7 && m.contains("no `=>")),
            "{lines:?}"
        );
        assert!(parse("").is_err());
        assert!(parse("?\n- a => x\n- b => y").is_err());
    }

    #[test]
    fn the_lessons_guides_are_valid_and_alike_in_both_languages() {
        use crate::lesson::content::Lang;
        let lesson = crate::lesson::pack::builtin().expect("the built-in lesson loads");
        let mut shapes = Vec::new();
        for lang in Lang::ALL {
            let mut found = Vec::new();
            for s in &lesson.lessons[&lang].sections {
                for code in guide_blocks(&crate::lesson::markdown::parse(&s.body)) {
                    let g = parse(&code).expect("valid");
                    found.push(g.questions.iter().map(|q| q.answers.len()).collect::<Vec<_>>());
                }
            }
            assert!(!found.is_empty(), "{lang:?} has a guide");
            shapes.push(found);
        }
        assert_eq!(
            shapes[0], shapes[1],
            "the same questions and answers in every language"
        );
    }
}
