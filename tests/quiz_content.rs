//! The built-in quizzes: enough questions everywhere, consistent answer keys, and every
//! generated question's answer reproduced by a fresh run of the engine.

use lockstep::lesson::content::{builtin, builtin_questions, Lang};
use lockstep::lesson::generate::{instance, Body};
use lockstep::lesson::quiz::{Answer, Kind};
use std::collections::BTreeMap;

#[test]
fn every_section_from_2_to_11_has_three_questions_and_the_quick_check_twelve() {
    let lesson = builtin(Lang::En).expect("lesson");
    let questions = builtin_questions().unwrap_or_else(|e| panic!("{e:?}"));
    let mut per_section: BTreeMap<u32, usize> = BTreeMap::new();
    for q in &questions {
        let section = lesson.sections.iter().find(|s| s.id == q.section);
        let section =
            section.unwrap_or_else(|| panic!("question {} names unknown section {}", q.id, q.section));
        *per_section.entry(section.order).or_default() += 1;
    }
    for order in 2..=11 {
        assert!(
            per_section.get(&order).copied().unwrap_or(0) >= 3,
            "§{order} has fewer than 3 questions"
        );
    }
    assert!(
        per_section.get(&12).copied().unwrap_or(0) >= 12,
        "the quick check has fewer than 12 questions"
    );
}

#[test]
fn choice_questions_have_the_right_number_of_correct_options() {
    for q in builtin_questions().expect("valid") {
        let n = q.en.options.len();
        match &q.kind {
            Kind::Single { correct } => assert!(*correct < n, "{}", q.id),
            Kind::Multiple { correct } => {
                assert!(
                    !correct.is_empty() && correct.len() < n,
                    "{}: multiple choice with {} of {n} right",
                    q.id,
                    correct.len()
                );
                assert!(correct.iter().all(|&i| i < n), "{}", q.id);
            }
            _ => {}
        }
        for lang in Lang::ALL {
            let t = q.texts(lang);
            assert_eq!(
                t.options.len(),
                t.explanations.len(),
                "{} ({})",
                q.id,
                lang.code()
            );
        }
    }
}

#[test]
fn every_question_accepts_its_own_solution_and_rejects_another() {
    for q in builtin_questions().expect("valid") {
        for lang in Lang::ALL {
            for seed in 0..20u64 {
                let inst = instance(&q, lang, seed);
                let (right, wrong) = match &inst.body {
                    Body::Choice { correct, options, .. } => {
                        let other = (0..options.len())
                            .find(|i| !correct.contains(i))
                            .expect("a wrong option");
                        (
                            Answer::Choice(correct.clone()),
                            Answer::Choice([other].into_iter().collect()),
                        )
                    }
                    Body::Numeric {
                        answer, tolerance, ..
                    } => {
                        assert!(answer.is_finite(), "{}: the engine gave no number", q.id);
                        (Answer::Number(*answer), Answer::Number(answer + tolerance + 1.0))
                    }
                    Body::Order { rank, .. } => {
                        let mut right: Vec<usize> = (0..rank.len()).collect();
                        right.sort_by_key(|&i| rank[i]);
                        let mut wrong = right.clone();
                        wrong.swap(0, 1);
                        (Answer::Order(right), Answer::Order(wrong))
                    }
                    Body::Bug { bug_line, lines } => {
                        assert!(
                            !lines[bug_line - 1].trim().is_empty(),
                            "{}: the bug line is blank",
                            q.id
                        );
                        (
                            Answer::Line(*bug_line),
                            Answer::Line(if *bug_line == 1 { 2 } else { 1 }),
                        )
                    }
                };
                assert!(
                    inst.check(&right),
                    "{} ({}, seed {seed}) rejects its own solution",
                    q.id,
                    lang.code()
                );
                assert!(
                    !inst.check(&wrong),
                    "{} ({}, seed {seed}) accepts a wrong answer",
                    q.id,
                    lang.code()
                );
                if matches!(q.kind, Kind::Generated(_)) {
                    assert!(
                        !inst.prompt.contains('{'),
                        "{}: unfilled placeholder in {:?}",
                        q.id,
                        inst.prompt
                    );
                }
                if !matches!(q.kind, Kind::Generated(_)) {
                    break; // fixed questions do not depend on the seed
                }
            }
        }
    }
}

#[test]
fn generated_answers_match_a_fresh_engine_run_and_vary() {
    for q in builtin_questions()
        .expect("valid")
        .into_iter()
        .filter(|q| matches!(q.kind, Kind::Generated(_)))
    {
        let mut prompts = std::collections::BTreeSet::new();
        for seed in 0..30u64 {
            // A second, independent run (a new store, a new computation) gives the same key.
            let a = instance(&q, Lang::En, seed);
            let b = instance(&q, Lang::En, seed);
            assert_eq!(a, b, "{} is not reproducible for seed {seed}", q.id);
            prompts.insert(format!("{}{:?}", a.prompt, a.code));
            // Both languages share the answer key.
            let nb = instance(&q, Lang::Nb, seed);
            assert_eq!(
                a.solution(),
                nb.solution(),
                "{}: en and nb disagree (seed {seed})",
                q.id
            );
        }
        assert!(
            prompts.len() >= 5,
            "{} hardly varies: {} variants in 30",
            q.id,
            prompts.len()
        );
    }
}

#[test]
fn predict_questions_run_their_scenario_and_show_each_outcome() {
    use lockstep::lesson::generate::predict;
    let mut answers = std::collections::BTreeSet::new();
    for q in builtin_questions().expect("valid") {
        if let Kind::Predict {
            scenario,
            pause_at_ms,
        } = &q.kind
        {
            let (options, correct) = predict(scenario, *pause_at_ms, Lang::En);
            let correct = correct.unwrap_or_else(|| panic!("{}: scenario {scenario} does not run", q.id));
            assert_eq!(options.len(), 3);
            answers.insert(correct);
            // Both languages agree, and the panel stops before the answer happens.
            assert_eq!(predict(scenario, *pause_at_ms, Lang::Nb).1, Some(correct));
        }
    }
    assert_eq!(
        answers.len(),
        3,
        "predict questions cover overlap, rejection and safety: {answers:?}"
    );
}

/// The page marks every option "✓ Right:" or "✗ Wrong:" (and "Riktig:"/"Feil:"): an
/// explanation that opens with a verdict of its own says it twice ("✓ Right: Right: …").
#[test]
fn no_option_explanation_repeats_the_verdict() {
    const VERDICTS: &[&str] = &[
        "Right",
        "Wrong",
        "Correct",
        "Incorrect",
        "Yes",
        "No",
        "Riktig",
        "Feil",
        "Galt",
        "Korrekt",
        "Ja",
        "Nei",
    ];
    let root = env!("CARGO_MANIFEST_DIR");
    let mut sets = vec![("built-in".to_string(), builtin_questions().expect("valid"))];
    for pack in ["packs/example", "packs/single/lease-mini.toml"] {
        let p = lockstep::lesson::pack::load_dir(format!("{root}/{pack}"))
            .unwrap_or_else(|e| panic!("{pack}: {e:?}"));
        sets.push((pack.to_string(), p.questions));
    }
    let mut doubled = Vec::new();
    for (set, questions) in &sets {
        for q in questions {
            for lang in Lang::ALL {
                for e in &q.texts(lang).explanations {
                    let head = e.split(':').next().unwrap_or_default().trim();
                    if e.contains(':') && VERDICTS.iter().any(|v| v.eq_ignore_ascii_case(head)) {
                        doubled.push(format!("{set} {} ({}): {e}", q.id, lang.code()));
                    }
                }
            }
        }
    }
    assert!(
        doubled.is_empty(),
        "{} explanations open with a verdict:\n{}",
        doubled.len(),
        doubled.join("\n")
    );
}
