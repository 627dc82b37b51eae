//! Concrete questions to show: texts in one language, options shuffled where order
//! must not give the answer away, and, for generated questions, fresh parameters whose
//! answer is computed by running the real store or the simulator's lock arithmetic.
//!
//! Everything is a pure function of (question, language, seed): the same seed shows the
//! same variant, and "try another" is simply a new seed.

use super::content::Lang;
use super::quiz::{check, read_response, Answer, Form, Generator, Kind, NotAnswered, Question, Response};
use crate::lesson::i18n::k;
use crate::store::Store;
use crate::vecmap::VecSet;
use rand::seq::SliceRandom;
use rand::{Rng, SeedableRng};
use rand_chacha::ChaCha8Rng;

/// The release script the `release-result` generator runs (and the app shows).
pub const RELEASE_SCRIPT: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then\n  return redis.call('del', KEYS[1])\nelse\n  return 0\nend";

/// A question ready to show and check.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Instance {
    pub question_id: String,
    pub seed: u64,
    pub prompt: String,
    /// Shown after answering: why the answer is what it is.
    pub explanation: String,
    /// Code shown with the prompt (bug hunts, generated sessions), as (language, code).
    pub code: Option<(String, String)>,
    /// A scenario to show, stopped at a true time (ms), for "what happens next?".
    pub scenario: Option<(String, u64)>,
    pub body: Body,
    /// (text, encoded tree) of those of its texts the page is not given trees for: filled
    /// from a template (a generated question's prompt and explanation: the template's
    /// tree, filled, `docs::filled_tree`), or plain (`docs::instance_trees`). The page
    /// learns them, so it asks no parser.
    #[serde(default)]
    pub trees: Vec<(String, String)>,
}

#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub enum Body {
    Choice {
        options: Vec<String>,
        /// One per option: why it is right or wrong.
        explanations: Vec<String>,
        correct: VecSet<usize>,
        multiple: bool,
    },
    Numeric {
        answer: f64,
        tolerance: f64,
        unit: Option<String>,
    },
    /// `items` in the order shown; `rank[i]` is item i's place in the right order.
    Order { items: Vec<String>, rank: Vec<usize> },
    /// Pick the faulty line (1-based) of `code`.
    Bug { lines: Vec<String>, bug_line: usize },
}

impl Instance {
    /// The texts the page shows as Markdown: the prompt and explanation, and the options
    /// and their explanations (each also without its verdict), or the items to order.
    pub fn texts(&self) -> Vec<String> {
        let mut out = vec![self.prompt.clone(), self.explanation.clone()];
        match &self.body {
            Body::Choice {
                options,
                explanations,
                ..
            } => {
                out.extend(options.iter().cloned());
                out.extend(super::docs::explained(explanations));
            }
            Body::Order { items, .. } => out.extend(items.iter().cloned()),
            _ => {}
        }
        out
    }

    /// Is `answer` right? For `Order`, the answer lists indices into the *shown* items.
    pub fn check(&self, answer: &Answer) -> bool {
        match (&self.body, answer) {
            (
                Body::Choice {
                    correct,
                    multiple: false,
                    ..
                },
                a,
            ) => check(
                &Kind::Single {
                    correct: *correct.iter().next().unwrap_or(&usize::MAX),
                },
                a,
            ),
            (
                Body::Choice {
                    correct,
                    multiple: true,
                    ..
                },
                a,
            ) => check(
                &Kind::Multiple {
                    correct: correct.clone(),
                },
                a,
            ),
            (
                Body::Numeric {
                    answer: x, tolerance, ..
                },
                a,
            ) => check(
                &Kind::Numeric {
                    answer: *x,
                    tolerance: *tolerance,
                },
                a,
            ),
            (Body::Order { rank, .. }, Answer::Order(shown_order)) => {
                let ranks: Option<Vec<usize>> = shown_order.iter().map(|&i| rank.get(i).copied()).collect();
                ranks.is_some_and(|r| r.len() == rank.len() && check(&Kind::Order, &Answer::Order(r)))
            }
            (Body::Bug { bug_line, .. }, Answer::Line(l)) => l == bug_line,
            _ => false,
        }
    }

    /// The control the question is answered with, for [`read_response`].
    pub fn form(&self) -> Form<'_> {
        match &self.body {
            Body::Choice { .. } => Form::Choice,
            Body::Numeric {
                answer,
                tolerance,
                unit,
                ..
            } => Form::Number {
                whole: answer.fract() == 0.0 && tolerance.fract() == 0.0,
                unit: unit.as_deref(),
            },
            Body::Order { .. } => Form::Order,
            Body::Bug { .. } => Form::Line,
        }
    }

    /// Reads the learner's response and checks it: `Ok(right)`, or why it cannot be
    /// checked (which is no try).
    pub fn judge(&self, response: &Response) -> Result<bool, NotAnswered> {
        read_response(&self.form(), response).map(|a| self.check(&a))
    }

    /// The right answer in words, for the feedback after a wrong attempt.
    pub fn solution(&self) -> String {
        match &self.body {
            Body::Choice { options, correct, .. } => correct
                .iter()
                .filter_map(|&i| options.get(i).cloned())
                .collect::<Vec<_>>()
                .join("; "),
            Body::Numeric { answer, unit, .. } => {
                format!(
                    "{}{}",
                    format_number(*answer),
                    unit.as_ref().map(|u| format!(" {u}")).unwrap_or_default()
                )
            }
            Body::Order { items, rank } => {
                let mut by_rank: Vec<(usize, &String)> = rank.iter().copied().zip(items).collect();
                crate::sorting::sort(&mut by_rank);
                by_rank
                    .iter()
                    .map(|(_, s)| s.as_str())
                    .collect::<Vec<_>>()
                    .join(" → ")
            }
            Body::Bug { bug_line, lines } => {
                format!(
                    "{bug_line}: {}",
                    lines
                        .get(bug_line.wrapping_sub(1))
                        .map(|s| s.trim())
                        .unwrap_or("")
                )
            }
        }
    }
}

/// Formats a number without a fractional part when it has none.
pub fn format_number(x: f64) -> String {
    if x.fract() == 0.0 && x.abs() < 1e15 {
        format!("{}", x as i64)
    } else {
        format!("{x}")
    }
}

fn fill(template: &str, params: &[(&str, String)]) -> String {
    params.iter().fold(template.to_string(), |s, (k, v)| {
        s.replace(&format!("{{{k}}}"), v)
    })
}

/// Builds the instance of `q` to show in `lang` for `seed`.
pub fn instance(q: &Question, lang: Lang, seed: u64) -> Instance {
    instance_in(q, lang, seed, &[])
}

/// Like [`instance`], for a lesson pack: `scenarios` (the pack's own) are looked up
/// before the built-ins by "what happens next?" questions.
pub fn instance_in(
    q: &Question,
    lang: Lang,
    seed: u64,
    scenarios: &[crate::sim::scenario::Scenario],
) -> Instance {
    if let Some(inst) = fixed(q, lang, seed) {
        return inst;
    }
    let t = q.texts(lang);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ fnv(&q.id));
    let base = |body: Body| Instance {
        question_id: q.id.clone(),
        seed,
        prompt: t.prompt.clone(),
        explanation: t.explanation.clone(),
        code: None,
        scenario: None,
        body,
        trees: Vec::new(),
    };
    let mut inst = match &q.kind {
        Kind::Generated(g) => generated(q, *g, lang, seed, &mut rng),
        Kind::Predict {
            scenario,
            pause_at_ms,
        } => {
            let (options, correct) = predict_in(scenario, *pause_at_ms, lang, scenarios);
            let texts = super::i18n::Texts::new(lang);
            let explanations = (0..options.len())
                .map(|i| {
                    if Some(i) == correct {
                        texts.t(k::PREDICT_RIGHT)
                    } else {
                        texts.t(k::PREDICT_WRONG)
                    }
                })
                .collect();
            let mut inst = base(Body::Choice {
                options,
                explanations,
                correct: VecSet::from_iter(correct),
                multiple: false,
            });
            inst.scenario = Some((scenario.clone(), *pause_at_ms));
            inst
        }
        // `fixed` made the others.
        _ => base(Body::Order {
            items: Vec::new(),
            rank: Vec::new(),
        }),
    };
    // The page has no Markdown parser, and neither has the engine's module: the trees of
    // the texts the page is not given are made here, without one.
    let made = std::mem::take(&mut inst.trees);
    inst.trees = super::docs::instance_trees(inst.texts(), made);
    inst
}

/// Does an instance of `q` need the engine (the store or the simulator)? Generated
/// questions run the store or the lock arithmetic, "what happens next?" the simulator;
/// the page asks the engine's worker for those (`InstanceJob`) and makes the rest itself.
pub fn needs_engine(q: &Question) -> bool {
    matches!(q.kind, Kind::Generated(_) | Kind::Predict { .. })
}

/// A question whose instance needs the engine, as the page hands it to the engine's
/// worker: the instance is `instance_in(question, lang, seed, scenarios)`.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct InstanceJob {
    pub question: Question,
    pub lang: Lang,
    pub seed: u64,
    /// A lesson pack's own scenarios, for its "what happens next?" questions.
    #[serde(default)]
    pub scenarios: Vec<crate::sim::scenario::Scenario>,
}

impl InstanceJob {
    pub fn make(&self) -> Instance {
        instance_in(&self.question, self.lang, self.seed, &self.scenarios)
    }
}

/// The instance of a question that needs no engine (every kind but generated and "what
/// happens next?"): its texts in `lang`, the items of an ordering question shuffled by
/// `seed`. `None` for the others ([`needs_engine`]).
pub fn fixed(q: &Question, lang: Lang, seed: u64) -> Option<Instance> {
    let t = q.texts(lang);
    let mut rng = ChaCha8Rng::seed_from_u64(seed ^ fnv(&q.id));
    let base = |body: Body, code: Option<(String, String)>| Instance {
        question_id: q.id.clone(),
        seed,
        prompt: t.prompt.clone(),
        explanation: t.explanation.clone(),
        code,
        scenario: None,
        body,
        trees: Vec::new(),
    };
    Some(match &q.kind {
        Kind::Single { correct } => base(
            Body::Choice {
                options: t.options.clone(),
                explanations: t.explanations.clone(),
                correct: VecSet::from_iter([*correct]),
                multiple: false,
            },
            None,
        ),
        Kind::Multiple { correct } => base(
            Body::Choice {
                options: t.options.clone(),
                explanations: t.explanations.clone(),
                correct: correct.clone(),
                multiple: true,
            },
            None,
        ),
        Kind::Numeric { answer, tolerance } => base(
            Body::Numeric {
                answer: *answer,
                tolerance: *tolerance,
                unit: t.unit.clone(),
            },
            None,
        ),
        Kind::Order => {
            let n = t.items.len();
            let mut rank: Vec<usize> = (0..n).collect();
            // Never show the items already in the right order.
            for _ in 0..8 {
                rank.shuffle(&mut rng);
                if n < 2 || rank.iter().copied().ne(0..n) {
                    break;
                }
            }
            let items = rank.iter().filter_map(|&r| t.items.get(r).cloned()).collect();
            base(Body::Order { items, rank }, None)
        }
        Kind::Bug {
            code,
            code_lang,
            bug_line,
        } => base(
            Body::Bug {
                lines: code.lines().map(str::to_string).collect(),
                bug_line: *bug_line,
            },
            Some((code_lang.clone(), code.clone())),
        ),
        Kind::Generated(_) | Kind::Predict { .. } => return None,
    })
}

/// The outcomes a "what happens next?" question offers, and which one the run shows
/// after `pause_at_ms`: a violation (two holders, a stale write accepted), a rejected
/// write, or nothing wrong. `None` if the scenario cannot run (a test rules that out).
pub fn predict(scenario: &str, pause_at_ms: u64, lang: Lang) -> (Vec<String>, Option<usize>) {
    predict_in(scenario, pause_at_ms, lang, &[])
}

/// Like [`predict`], looking the scenario up in `scenarios` (a pack's) first.
pub fn predict_in(
    scenario: &str,
    pause_at_ms: u64,
    lang: Lang,
    scenarios: &[crate::sim::scenario::Scenario],
) -> (Vec<String>, Option<usize>) {
    let texts = super::i18n::Texts::new(lang);
    let options = vec![
        texts.t(k::PREDICT_OVERLAP),
        texts.t(k::PREDICT_REJECTED),
        texts.t(k::PREDICT_SAFE),
    ];
    let found = scenarios.iter().find(|s| s.name == scenario).cloned();
    let run = found
        .or_else(|| crate::sim::scenario::builtin(scenario).and_then(Result::ok))
        .and_then(|s| crate::sim::run(&s, 1, crate::sim::TraceLevel::Semantic).ok());
    let Some(run) = run else { return (options, None) };
    let after = pause_at_ms as f64;
    let o = &run.outcome;
    let correct = if o.violations.iter().any(|v| v.to_ms > after) {
        0
    } else if o.rejected_writes.iter().any(|w| w.at_ms > after) {
        1
    } else {
        2
    };
    (options, Some(correct))
}

fn fnv(s: &str) -> u64 {
    s.bytes().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ b as u64).wrapping_mul(0x0100_0000_01b3)
    })
}

/// Runs redis-cli lines on a fresh store; returns each line with its rendered reply.
fn run_session(seed: u64, lines: &[String]) -> Vec<(String, String)> {
    let mut store = Store::new(seed);
    store.set_now_ms(1_700_000_000_000);
    lines
        .iter()
        .map(|line| (line.clone(), store.answer_line(line).unwrap_or_default()))
        .collect()
}

fn generated(q: &Question, g: Generator, lang: Lang, seed: u64, rng: &mut ChaCha8Rng) -> Instance {
    let t = q.texts(lang);
    let mut out = Instance {
        question_id: q.id.clone(),
        seed,
        prompt: String::new(),
        explanation: String::new(),
        code: None,
        scenario: None,
        body: Body::Numeric {
            answer: 0.0,
            tolerance: 0.0,
            unit: None,
        },
        trees: Vec::new(),
    };
    let params: Vec<(&str, String)> = match g {
        Generator::RedlockValidity => {
            let ttl = *[3_000u64, 5_000, 8_000, 10_000, 15_000, 30_000]
                .choose(rng)
                .unwrap_or(&10_000);
            let elapsed = rng.gen_range(1..=400u64);
            let df = *[0.005, 0.01, 0.02].choose(rng).unwrap_or(&0.01);
            let drift = crate::sim::drift_ms(ttl, df);
            let validity = crate::sim::validity_ms(ttl, elapsed, df);
            out.body = Body::Numeric {
                answer: validity as f64,
                tolerance: 0.0,
                unit: Some("ms".into()),
            };
            vec![
                ("ttl", ttl.to_string()),
                ("elapsed", elapsed.to_string()),
                ("drift_factor", df.to_string()),
                ("drift", drift.to_string()),
                ("answer", validity.to_string()),
            ]
        }
        Generator::Quorum => {
            let n = rng.gen_range(1..=9usize);
            let quorum = crate::sim::quorum(n);
            out.body = Body::Numeric {
                answer: quorum as f64,
                tolerance: 0.0,
                unit: None,
            };
            vec![("n", n.to_string()), ("answer", quorum.to_string())]
        }
        Generator::PttlAfterSleep => {
            let ttl = rng.gen_range(2..=60u64) * 500;
            let sleep = rng.gen_range(1..=(ttl * 13 / 10 / 100)) * 100;
            let lines = vec![
                format!("SET lock:report tok-1 NX PX {ttl}"),
                format!("DEBUG SLEEP {}", sleep as f64 / 1000.0),
                "PTTL lock:report".to_string(),
            ];
            let run = run_session(seed, &lines);
            let pttl = run
                .last()
                .and_then(|(_, r)| {
                    r.strip_prefix("(integer) ")
                        .and_then(|n| n.trim().parse::<f64>().ok())
                })
                .unwrap_or(f64::NAN);
            out.body = Body::Numeric {
                answer: pttl,
                tolerance: 0.0,
                unit: Some("ms".into()),
            };
            vec![
                ("ttl", ttl.to_string()),
                ("sleep", sleep.to_string()),
                ("answer", format_number(pttl)),
            ]
        }
        Generator::SetNxReply => {
            let ttl = rng.gen_range(2..=10u64) * 1000;
            let mut lines = vec![format!("SET lock tok-A NX PX {ttl}")];
            let middle = [
                format!("SET lock tok-B NX PX {ttl}"),
                format!("DEBUG SLEEP {}", (ttl / 2) as f64 / 1000.0),
                format!("DEBUG SLEEP {}", (ttl + ttl / 5) as f64 / 1000.0),
                "DEL lock".to_string(),
                "GET lock".to_string(),
            ];
            for _ in 0..rng.gen_range(1..=2) {
                if let Some(m) = middle.choose(rng) {
                    lines.push(m.clone());
                }
            }
            // The question is always about a second client's SET NX.
            lines.push(format!("SET lock tok-B NX PX {ttl}"));
            let run = run_session(seed, &lines);
            let reply = run.last().map(|(_, r)| r.clone()).unwrap_or_default();
            let options: Vec<String> = ["OK", "(nil)", "(integer) 1", "(integer) 0"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            let session = session_text(&run);
            out.code = Some(("redis".into(), session.clone()));
            choice_body(&mut out, options, &reply, lang);
            vec![("session", session), ("answer", reply)]
        }
        Generator::ReleaseResult => {
            let tokens = ["tok-7f3a", "tok-91c2", "tok-c04e"];
            let holder = tokens.choose(rng).copied().unwrap_or("tok-7f3a");
            let caller = if rng.gen_bool(0.5) {
                holder
            } else {
                tokens.choose(rng).copied().unwrap_or(holder)
            };
            let script = format!(
                "EVAL \"{}\" 1 lock:job {caller}",
                RELEASE_SCRIPT.replace('\n', " ")
            );
            let lines = vec![format!("SET lock:job {holder} NX PX 30000"), script];
            let run = run_session(seed, &lines);
            let reply = run.last().map(|(_, r)| r.clone()).unwrap_or_default();
            let options: Vec<String> = ["(integer) 1", "(integer) 0", "(nil)"]
                .iter()
                .map(|s| s.to_string())
                .collect();
            out.code = Some(("lua".into(), RELEASE_SCRIPT.to_string()));
            choice_body(&mut out, options, &reply, lang);
            vec![
                ("holder", holder.to_string()),
                ("caller", caller.to_string()),
                ("answer", reply),
            ]
        }
    };
    // A session is shown as a code block under the prompt, not inside it.
    let prompt_params: Vec<(&str, String)> = params
        .iter()
        .map(|(k, v)| (*k, if *k == "session" { String::new() } else { v.clone() }))
        .collect();
    out.prompt = fill(&t.prompt, &prompt_params).trim_end().to_string();
    out.explanation = fill(&t.explanation, &params);
    // Their trees, from the templates' (the page parses no Markdown, and neither does
    // the engine's module: only the authoring module, which a built-in lesson never loads;
    // [`instance_in`] adds the plain texts').
    out.trees = [
        (&t.prompt, &prompt_params, &out.prompt),
        (&t.explanation, &params, &out.explanation),
    ]
    .into_iter()
    .filter_map(|(template, params, text)| super::docs::filled_tree(template, params, text))
    .collect();
    out
}

/// The session as redis-cli shows it, with the last reply hidden.
fn session_text(run: &[(String, String)]) -> String {
    let mut s = String::new();
    for (i, (line, reply)) in run.iter().enumerate() {
        s.push_str("> ");
        s.push_str(line);
        s.push('\n');
        if i + 1 < run.len() {
            s.push_str(reply);
            s.push('\n');
        } else {
            s.push_str("?\n");
        }
    }
    s
}

fn choice_body(out: &mut Instance, options: Vec<String>, reply: &str, lang: Lang) {
    let texts = super::i18n::Texts::new(lang);
    let correct: VecSet<usize> = options.iter().position(|o| o == reply).into_iter().collect();
    let explanations = options
        .iter()
        .map(|o| {
            if o == reply {
                texts.t(k::GEN_OPTION_RIGHT)
            } else {
                texts.fmt(k::GEN_OPTION_WRONG, &[("reply", reply.to_string())])
            }
        })
        .collect();
    out.body = Body::Choice {
        options,
        explanations,
        correct,
        multiple: false,
    };
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::lesson::quiz::{parse_file, Texts};
    use std::collections::BTreeSet;

    /// What the page gets from the engine's worker: the job crosses as JSON, the
    /// instance comes back as JSON, and both read back to what the page would make.
    #[test]
    fn an_instance_made_elsewhere_is_the_one_made_here() {
        let questions = crate::lesson::content::compiled_questions();
        let engine: Vec<&Question> = questions.iter().filter(|q| needs_engine(q)).collect();
        assert!(engine.iter().any(|q| matches!(q.kind, Kind::Generated(_))));
        assert!(engine.iter().any(|q| matches!(q.kind, Kind::Predict { .. })));
        for q in engine {
            for lang in Lang::ALL {
                for seed in [1u64, u64::MAX - 6, 0x5eed_cafe_f00d] {
                    assert!(fixed(q, lang, seed).is_none(), "{}", q.id);
                    let job = InstanceJob {
                        question: q.clone(),
                        lang,
                        seed,
                        scenarios: Vec::new(),
                    };
                    let sent: InstanceJob =
                        serde_json::from_str(&serde_json::to_string(&job).unwrap()).unwrap();
                    assert_eq!(sent, job);
                    let back: Instance =
                        serde_json::from_str(&serde_json::to_string(&sent.make()).unwrap()).unwrap();
                    assert_eq!(back, instance_in(q, lang, seed, &[]), "{} {lang:?} {seed}", q.id);
                }
            }
        }
        for q in questions.iter().filter(|q| !needs_engine(q)) {
            assert_eq!(fixed(q, Lang::Nb, 3), Some(instance(q, Lang::Nb, 3)), "{}", q.id);
        }
    }

    fn q(kind: Kind) -> Question {
        let t = Texts {
            prompt:
                "TTL {ttl}, elapsed {elapsed}, D {drift}; n {n}; {session}; holder={holder} caller={caller};"
                    .into(),
            explanation: "answer {answer}".into(),
            items: vec!["a".into(), "b".into(), "c".into(), "d".into()],
            ..Texts::default()
        };
        Question {
            id: "g".into(),
            section: "s".into(),
            kind,
            en: t.clone(),
            nb: t,
        }
    }

    #[test]
    fn same_seed_same_variant_other_seed_other_variant() {
        let question = q(Kind::Generated(Generator::RedlockValidity));
        assert_eq!(instance(&question, Lang::En, 7), instance(&question, Lang::En, 7));
        let prompts: BTreeSet<String> = (0..20).map(|s| instance(&question, Lang::En, s).prompt).collect();
        assert!(prompts.len() > 10, "variants repeat too much: {prompts:?}");
    }

    #[test]
    fn validity_answer_matches_the_formula_and_fills_placeholders() {
        let question = q(Kind::Generated(Generator::RedlockValidity));
        for seed in 0..50 {
            let inst = instance(&question, Lang::En, seed);
            let nums: Vec<u64> = inst
                .prompt
                .split(|c: char| !c.is_ascii_digit())
                .filter_map(|s| s.parse().ok())
                .collect();
            let (ttl, elapsed, d) = (nums[0], nums[1], nums[2]);
            let Body::Numeric { answer, .. } = inst.body else {
                panic!()
            };
            assert_eq!(answer, ttl as f64 - elapsed as f64 - d as f64);
            assert!(inst.check(&Answer::Number(answer)));
            assert!(!inst.check(&Answer::Number(answer + 1.0)));
            for p in ["{ttl}", "{elapsed}", "{drift}"] {
                assert!(!inst.prompt.contains(p), "{p} filled in");
            }
        }
    }

    #[test]
    fn pttl_answer_comes_from_the_store() {
        let question = q(Kind::Generated(Generator::PttlAfterSleep));
        let mut expired = 0;
        for seed in 0..60 {
            let inst = instance(&question, Lang::En, seed);
            let Body::Numeric { answer, .. } = inst.body else {
                panic!()
            };
            // Redis keeps a key until its expiry time has passed, so 0 is a possible reply.
            assert!(answer == -2.0 || answer >= 0.0, "seed {seed}: {answer}");
            expired += usize::from(answer == -2.0);
        }
        assert!(expired > 0 && expired < 60, "both outcomes occur: {expired}");
    }

    #[test]
    fn set_nx_sessions_have_exactly_one_right_reply() {
        let question = q(Kind::Generated(Generator::SetNxReply));
        let mut seen = BTreeSet::new();
        for seed in 0..80 {
            let inst = instance(&question, Lang::Nb, seed);
            let Body::Choice {
                correct,
                options,
                explanations,
                ..
            } = &inst.body
            else {
                panic!()
            };
            assert_eq!(correct.len(), 1, "seed {seed}: {:?}", inst.code);
            assert_eq!(options.len(), explanations.len());
            seen.insert(options[*correct.iter().next().unwrap()].clone());
            assert!(inst.code.as_ref().is_some_and(|(_, c)| c.ends_with("?\n")));
        }
        assert_eq!(seen.len(), 2, "both OK and (nil) occur: {seen:?}");
    }

    #[test]
    fn release_result_runs_the_lua_script() {
        let question = q(Kind::Generated(Generator::ReleaseResult));
        for seed in 0..30 {
            let inst = instance(&question, Lang::En, seed);
            let Body::Choice { correct, options, .. } = &inst.body else {
                panic!()
            };
            let reply = &options[*correct.iter().next().expect("one right option")];
            let field = |name: &str| {
                let start = inst.prompt.find(name).expect("placeholder filled") + name.len();
                inst.prompt[start..]
                    .split([' ', ';'])
                    .next()
                    .unwrap_or("")
                    .to_string()
            };
            let (holder, caller) = (field("holder="), field("caller="));
            let expected = if holder == caller {
                "(integer) 1"
            } else {
                "(integer) 0"
            };
            assert_eq!(reply, expected, "seed {seed}: holder {holder}, caller {caller}");
        }
    }

    #[test]
    fn order_is_shuffled_and_checked_against_the_written_order() {
        let question = q(Kind::Order);
        let inst = instance(&question, Lang::En, 3);
        let Body::Order { items, rank } = &inst.body else {
            panic!()
        };
        assert_ne!(rank, &vec![0, 1, 2, 3]);
        // Put the shown items back in the written order.
        let mut right: Vec<usize> = (0..items.len()).collect();
        crate::sorting::sort_by_key(&mut right, |&i| rank[i]);
        assert!(inst.check(&Answer::Order(right.clone())));
        right.swap(0, 1);
        assert!(!inst.check(&Answer::Order(right)));
        assert!(!inst.check(&Answer::Order(vec![9, 9, 9, 9])));
        assert_eq!(inst.solution(), "a → b → c → d");
    }

    #[test]
    fn fixed_questions_round_trip_through_instances() {
        let file = "section = \"s\"\n[[question]]\nid = \"b\"\nkind = \"bug\"\ncode = '''\nlocal v = redis.call('get', KEYS[1])\nif v == ARGV[1] then\nend'''\nbug_line = 2\n[question.en]\nprompt = \"p\"\nexplanation = \"e\"\n[question.nb]\nprompt = \"p\"\nexplanation = \"e\"\n";
        let qs = parse_file("f.toml", file).expect("valid");
        let inst = instance(&qs[0], Lang::En, 1);
        assert!(inst.check(&Answer::Line(2)));
        assert!(!inst.check(&Answer::Line(1)));
        assert!(inst.solution().starts_with("2: if v"));
    }
}
