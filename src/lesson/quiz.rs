//! Quizzes: question files (`content/quiz/NN-section.toml`), their validation with
//! errors that name the file, line and field, and answer checking.
//!
//! Both languages live in one file so the answer key is shared. Generated questions
//! carry no answer here: `generate` computes it by running the store or the simulator.

use super::lang::Lang;
use crate::vecmap::VecSet;
use serde::{Deserialize, Serialize};
use std::fmt;
use toml::Spanned;

/// A mistake in a quiz file.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct QuizError {
    pub file: String,
    pub line: usize,
    pub field: String,
    pub message: String,
}

impl fmt::Display for QuizError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}:{}: {}: {}", self.file, self.line, self.field, self.message)
    }
}

/// The generators a `generated` question can name.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord, Serialize, Deserialize)]
pub enum Generator {
    RedlockValidity,
    Quorum,
    PttlAfterSleep,
    SetNxReply,
    ReleaseResult,
}

impl Generator {
    pub const ALL: [Generator; 5] = [
        Generator::RedlockValidity,
        Generator::Quorum,
        Generator::PttlAfterSleep,
        Generator::SetNxReply,
        Generator::ReleaseResult,
    ];

    pub fn name(self) -> &'static str {
        match self {
            Generator::RedlockValidity => "redlock-validity",
            Generator::Quorum => "quorum",
            Generator::PttlAfterSleep => "pttl-after-sleep",
            Generator::SetNxReply => "set-nx-reply",
            Generator::ReleaseResult => "release-result",
        }
    }

    pub fn from_name(name: &str) -> Option<Generator> {
        Generator::ALL.into_iter().find(|g| g.name() == name)
    }

    /// The `{placeholders}` its texts may use (`answer` is always available).
    pub fn placeholders(self) -> &'static [&'static str] {
        match self {
            Generator::RedlockValidity => &["ttl", "elapsed", "drift_factor", "drift", "answer"],
            Generator::Quorum => &["n", "answer"],
            Generator::PttlAfterSleep => &["ttl", "sleep", "answer"],
            Generator::SetNxReply => &["session", "answer"],
            Generator::ReleaseResult => &["holder", "caller", "answer"],
        }
    }
}

/// What kind of question, with its language-independent answer key.
#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub enum Kind {
    /// "What happens next?": the scenario's timeline stops at `pause_at_ms`; the answer
    /// (overlap, rejected write, or nothing wrong) is computed by running it.
    Predict {
        scenario: String,
        pause_at_ms: u64,
    },
    Single {
        correct: usize,
    },
    Multiple {
        correct: VecSet<usize>,
    },
    Numeric {
        answer: f64,
        tolerance: f64,
    },
    /// Items are written in the right order.
    Order,
    Bug {
        code: String,
        code_lang: String,
        bug_line: usize,
    },
    Generated(Generator),
}

/// The texts of a question in one language.
#[derive(Clone, Debug, PartialEq, Eq, Default, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Texts {
    pub prompt: String,
    #[serde(default)]
    pub options: Vec<String>,
    #[serde(default)]
    pub explanations: Vec<String>,
    #[serde(default)]
    pub explanation: String,
    #[serde(default)]
    pub unit: Option<String>,
    #[serde(default)]
    pub items: Vec<String>,
}

#[derive(Clone, Debug, PartialEq, Serialize, Deserialize)]
pub struct Question {
    pub id: String,
    /// The id of the section whose check this belongs to.
    pub section: String,
    pub kind: Kind,
    pub en: Texts,
    pub nb: Texts,
}

impl Question {
    pub fn texts(&self, lang: Lang) -> &Texts {
        match lang {
            Lang::En => &self.en,
            Lang::Nb => &self.nb,
        }
    }
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawFile {
    section: String,
    #[serde(default)]
    question: Vec<Spanned<RawQuestion>>,
}

#[derive(Deserialize)]
#[serde(deny_unknown_fields)]
struct RawQuestion {
    id: String,
    kind: String,
    correct: Option<Vec<usize>>,
    answer: Option<f64>,
    tolerance: Option<f64>,
    code: Option<String>,
    code_lang: Option<String>,
    bug_line: Option<usize>,
    generator: Option<String>,
    scenario: Option<String>,
    pause_at_ms: Option<u64>,
    en: Option<Texts>,
    nb: Option<Texts>,
}

fn line_of(text: &str, offset: usize) -> usize {
    1 + text.as_bytes()[..offset.min(text.len())]
        .iter()
        .filter(|&&b| b == b'\n')
        .count()
}

/// The line of `field = …` inside the question that starts at `span` (the question's
/// own keys and its `[question.en]`/`[question.nb]` tables, up to the next `[[question]]`),
/// or the question's line if the field is absent.
fn field_line(text: &str, span: std::ops::Range<usize>, field: &str) -> usize {
    let start = span.start.min(text.len());
    let after_header = text[start..].find('\n').map_or(text.len(), |i| start + i + 1);
    let end = text[after_header..]
        .find("[[")
        .map_or(text.len(), |i| after_header + i);
    let mut offset = start;
    for line in text[start..end].split_inclusive('\n') {
        let t = line.trim_start();
        let key = t.split(['=', ' ', '.', ']']).next().unwrap_or("");
        if key == field || t.starts_with(&format!("[question.{field}]")) {
            return line_of(text, offset);
        }
        offset += line.len();
    }
    line_of(text, start)
}

/// The `{name}` placeholders in a text (names of letters, digits and `_` only).
fn placeholders_in(text: &str) -> Vec<String> {
    let mut out = Vec::new();
    let mut rest = text;
    while let Some(open) = rest.find('{') {
        rest = &rest[open + 1..];
        if let Some(close) = rest.find('}') {
            let name = &rest[..close];
            if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric() || c == '_') {
                out.push(name.to_string());
            }
        }
    }
    out
}

/// Parses and validates one quiz file of the built-in lesson (every question in every
/// language), reporting every mistake it finds.
pub fn parse_file(file: &str, text: &str) -> Result<Vec<Question>, Vec<QuizError>> {
    parse_file_for(file, text, &Lang::ALL)
}

/// Like [`parse_file`], for a lesson pack in `langs` (its languages, the first the
/// reference): each question needs the texts of those languages only. Where a question
/// has no texts in a language the pack does not list, it shows the texts it has (the
/// reader then sees that pack's text in its own language).
pub fn parse_file_for(file: &str, text: &str, langs: &[Lang]) -> Result<Vec<Question>, Vec<QuizError>> {
    let err = |line: usize, field: &str, message: String| QuizError {
        file: file.to_string(),
        line,
        field: field.to_string(),
        message,
    };
    let raw: RawFile = toml::from_str(text).map_err(|e| {
        let line = e.span().map(|s| line_of(text, s.start)).unwrap_or(1);
        let field = e
            .message()
            .split('`')
            .nth(1)
            .map(str::to_string)
            .unwrap_or_else(|| "toml".into());
        vec![err(line, &field, e.message().trim().to_string())]
    })?;
    let mut errors = Vec::new();
    let mut out = Vec::new();
    if raw.question.is_empty() {
        errors.push(err(1, "question", "the file has no questions".into()));
    }
    for spanned in raw.question {
        let span = spanned.span();
        let mut q = spanned.into_inner();
        let at = |field: &str| field_line(text, span.clone(), field);
        let mut bad = |field: &str, message: String| errors.push(err(at(field), field, message));
        if q.id.is_empty()
            || !q
                .id
                .chars()
                .all(|c| c.is_ascii_lowercase() || c.is_ascii_digit() || c == '-')
        {
            bad(
                "id",
                format!(
                    "`{}` is not a valid id: use lowercase letters, digits and dashes",
                    q.id
                ),
            );
        }
        let missing: Vec<Lang> = langs
            .iter()
            .copied()
            .filter(|l| match l {
                Lang::En => q.en.is_none(),
                Lang::Nb => q.nb.is_none(),
            })
            .collect();
        if let Some(first) = missing.first() {
            let tables: Vec<String> = missing
                .iter()
                .map(|l| format!("[question.{}]", l.code()))
                .collect();
            let listed: Vec<&str> = langs.iter().map(|l| l.code()).collect();
            bad(
                first.code(),
                format!(
                    "question `{}` needs {} (one table per language: {})",
                    q.id,
                    tables.join(" and "),
                    listed.join(", ")
                ),
            );
            continue;
        }
        let (en, nb) = match (q.en.take(), q.nb.take()) {
            (Some(en), Some(nb)) => (en, nb),
            (Some(en), None) => (en.clone(), en),
            (None, Some(nb)) => (nb.clone(), nb),
            (None, None) => {
                bad(
                    "en",
                    format!("question `{}` has no texts: add [question.en]", q.id),
                );
                continue;
            }
        };
        for (lang, t) in [("en", &en), ("nb", &nb)] {
            if t.prompt.trim().is_empty() {
                bad(
                    "prompt",
                    format!("question `{}` has an empty {lang} prompt", q.id),
                );
            }
        }
        let Some(kind) = question_kind(&q, &en, &nb, &mut bad) else {
            continue;
        };
        out.push(Question {
            id: q.id,
            section: raw.section.clone(),
            kind,
            en,
            nb,
        });
    }
    if errors.is_empty() {
        Ok(out)
    } else {
        Err(errors)
    }
}

/// A question's kind from its raw table, checked against its texts; `None` after a
/// mistake is reported through `bad`.
fn question_kind(q: &RawQuestion, en: &Texts, nb: &Texts, bad: &mut dyn FnMut(&str, String)) -> Option<Kind> {
    let explained = matches!(
        q.kind.as_str(),
        "numeric" | "order" | "bug" | "predict" | "generated"
    );
    if explained {
        needs_explanation(q, en, nb, bad);
    }
    match q.kind.as_str() {
        "single" | "multiple" => choice_kind(q, en, nb, bad),
        "numeric" => numeric_kind(q, bad),
        "order" => order_kind(q, en, nb, bad),
        "bug" => bug_kind(q, bad),
        "predict" => predict_kind(q, bad),
        "generated" => generated_kind(q, en, nb, bad),
        other => {
            bad(
                "kind",
                format!("question `{}`: unknown kind `{other}` (single, multiple, numeric, order, bug, predict, generated)", q.id),
            );
            None
        }
    }
}

/// The number of options, the same in both languages with an explanation each.
fn options_count(
    q: &RawQuestion,
    en: &Texts,
    nb: &Texts,
    bad: &mut dyn FnMut(&str, String),
) -> Option<usize> {
    let n = en.options.len();
    if n < 2 {
        bad(
            "options",
            format!("question `{}` needs at least two options", q.id),
        );
        return None;
    }
    for (lang, t) in [("en", en), ("nb", nb)] {
        if t.options.len() != n {
            bad(
                "options",
                format!(
                    "question `{}`: {lang} has {} options, en has {n}",
                    q.id,
                    t.options.len()
                ),
            );
            return None;
        }
        if t.explanations.len() != n {
            bad(
                "explanations",
                format!(
                    "question `{}`: {lang} has {} explanations for {n} options",
                    q.id,
                    t.explanations.len()
                ),
            );
            return None;
        }
    }
    Some(n)
}

/// A question without options explains its answer in both languages.
fn needs_explanation(q: &RawQuestion, en: &Texts, nb: &Texts, bad: &mut dyn FnMut(&str, String)) {
    for (lang, t) in [("en", en), ("nb", nb)] {
        if t.explanation.trim().is_empty() {
            bad(
                "explanation",
                format!("question `{}` needs an {lang} explanation", q.id),
            );
        }
    }
}

/// Single or multiple choice: the right options exist, one for single choice.
fn choice_kind(q: &RawQuestion, en: &Texts, nb: &Texts, bad: &mut dyn FnMut(&str, String)) -> Option<Kind> {
    let n = options_count(q, en, nb, bad)?;
    let correct: VecSet<usize> = q.correct.clone().unwrap_or_default().into_iter().collect();
    if let Some(&i) = correct.iter().find(|&&i| i >= n) {
        bad(
            "correct",
            format!("question `{}`: option {i} does not exist (0 to {})", q.id, n - 1),
        );
        return None;
    }
    Some(if q.kind == "single" {
        if correct.len() != 1 {
            bad(
                "correct",
                format!("question `{}` is single choice: exactly one right option", q.id),
            );
            return None;
        }
        Kind::Single {
            correct: *correct.iter().next().unwrap_or(&0),
        }
    } else {
        if correct.is_empty() {
            bad(
                "correct",
                format!("question `{}` needs at least one right option", q.id),
            );
            return None;
        }
        Kind::Multiple { correct }
    })
}

/// A number, with a tolerance.
fn numeric_kind(q: &RawQuestion, bad: &mut dyn FnMut(&str, String)) -> Option<Kind> {
    let (Some(answer), tolerance) = (q.answer, q.tolerance.unwrap_or(0.0)) else {
        bad("answer", format!("question `{}` is numeric: give `answer`", q.id));
        return None;
    };
    if !answer.is_finite() || !tolerance.is_finite() || tolerance < 0.0 {
        bad(
            "tolerance",
            format!(
                "question `{}`: answer and tolerance must be finite, tolerance ≥ 0",
                q.id
            ),
        );
        return None;
    }
    Some(Kind::Numeric { answer, tolerance })
}

/// Items to put in order, the same number in both languages.
fn order_kind(q: &RawQuestion, en: &Texts, nb: &Texts, bad: &mut dyn FnMut(&str, String)) -> Option<Kind> {
    let n = en.items.len();
    if n < 3 {
        bad(
            "items",
            format!("question `{}` needs at least three items to order", q.id),
        );
        return None;
    }
    if nb.items.len() != n {
        bad(
            "items",
            format!("question `{}`: nb has {} items, en has {n}", q.id, nb.items.len()),
        );
        return None;
    }
    Some(Kind::Order)
}

/// Spot the bug: the line is inside the code.
fn bug_kind(q: &RawQuestion, bad: &mut dyn FnMut(&str, String)) -> Option<Kind> {
    let (Some(code), Some(line)) = (q.code.clone(), q.bug_line) else {
        bad(
            "code",
            format!("question `{}` is a bug hunt: give `code` and `bug_line`", q.id),
        );
        return None;
    };
    let lines = code.lines().count();
    if line == 0 || line > lines {
        bad(
            "bug_line",
            format!(
                "question `{}`: line {line} is outside the code (1 to {lines})",
                q.id
            ),
        );
        return None;
    }
    Some(Kind::Bug {
        code,
        code_lang: q.code_lang.clone().unwrap_or_else(|| "text".into()),
        bug_line: line,
    })
}

/// Predict what a run does next.
fn predict_kind(q: &RawQuestion, bad: &mut dyn FnMut(&str, String)) -> Option<Kind> {
    let (Some(scenario), Some(pause_at_ms)) = (q.scenario.clone(), q.pause_at_ms) else {
        bad(
            "scenario",
            format!(
                "question `{}` predicts a run: give `scenario` and `pause_at_ms`",
                q.id
            ),
        );
        return None;
    };
    Some(Kind::Predict {
        scenario,
        pause_at_ms,
    })
}

/// Fresh numbers from a generator, whose placeholders the texts use.
fn generated_kind(
    q: &RawQuestion,
    en: &Texts,
    nb: &Texts,
    bad: &mut dyn FnMut(&str, String),
) -> Option<Kind> {
    let name = q.generator.clone().unwrap_or_default();
    let Some(g) = Generator::from_name(&name) else {
        let known: Vec<&str> = Generator::ALL.iter().map(|g| g.name()).collect();
        bad(
            "generator",
            format!(
                "question `{}`: unknown generator `{name}` (known: {})",
                q.id,
                known.join(", ")
            ),
        );
        return None;
    };
    for (lang, t) in [("en", en), ("nb", nb)] {
        for (field, text) in [("prompt", &t.prompt), ("explanation", &t.explanation)] {
            for name in placeholders_in(text) {
                if !g.placeholders().contains(&name.as_str()) {
                    bad(
                        field,
                        format!(
                            "question `{}`: {lang} {field} uses {{{name}}}, which `{}` does not fill (it fills: {})",
                            q.id,
                            g.name(),
                            g.placeholders().join(", ")
                        ),
                    );
                }
            }
        }
    }
    Some(Kind::Generated(g))
}

/// Parses every file and checks ids are unique across them; every mistake is reported.
pub fn parse_all<'a>(
    files: impl IntoIterator<Item = (&'a str, &'a str)>,
) -> Result<Vec<Question>, Vec<QuizError>> {
    let mut errors = Vec::new();
    let mut all: Vec<(String, Question)> = Vec::new();
    for (file, text) in files {
        match parse_file(file, text) {
            Ok(qs) => {
                for q in qs {
                    if let Some((other, _)) = all.iter().find(|(_, o)| o.id == q.id) {
                        let line = text
                            .find(&format!("\"{}\"", q.id))
                            .map(|o| line_of(text, o))
                            .unwrap_or(1);
                        errors.push(QuizError {
                            file: file.to_string(),
                            line,
                            field: "id".into(),
                            message: format!("`{}` is already used in {other}", q.id),
                        });
                    } else {
                        all.push((file.to_string(), q));
                    }
                }
            }
            Err(e) => errors.extend(e),
        }
    }
    if errors.is_empty() {
        Ok(all.into_iter().map(|(_, q)| q).collect())
    } else {
        Err(errors)
    }
}

/// A learner's answer.
#[derive(Clone, Debug, PartialEq)]
pub enum Answer {
    /// Indices of the chosen options (one for single choice).
    Choice(VecSet<usize>),
    Number(f64),
    /// Item indices (into the items as written) in the order the learner put them.
    Order(Vec<usize>),
    /// A 1-based line of the code.
    Line(usize),
}

/// Is `answer` right for a question whose key is `kind`? Generated questions are
/// checked on their [`crate::lesson::generate::Instance`] instead.
pub fn check(kind: &Kind, answer: &Answer) -> bool {
    match (kind, answer) {
        (Kind::Single { correct }, Answer::Choice(chosen)) => chosen.len() == 1 && chosen.contains(correct),
        (Kind::Multiple { correct }, Answer::Choice(chosen)) => chosen == correct,
        (Kind::Numeric { answer, tolerance }, Answer::Number(x)) => {
            x.is_finite() && (x - answer).abs() <= *tolerance
        }
        (Kind::Order, Answer::Order(order)) => order.iter().copied().eq(0..order.len()) && !order.is_empty(),
        (Kind::Bug { bug_line, .. }, Answer::Line(l)) => l == bug_line,
        // Its key comes from a run: see `generate::instance`.
        (Kind::Predict { .. }, _) => false,
        _ => false,
    }
}

/// Parses a number as a learner types it (see [`read_number`]), reading a comma before
/// exactly three digits as a thousands separator.
pub fn parse_number(input: &str) -> Option<f64> {
    read_number(input, true, None).ok()
}

/// Why what the learner gave cannot be checked. Such a Check does not count as a try:
/// the page says why and asks again.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NotAnswered {
    /// No option chosen (single or multiple choice, "what happens next?").
    NothingChosen,
    /// No line chosen in a bug hunt.
    NoLine,
    /// The number field cannot be read as a number.
    Number(NumberProblem),
}

/// Why a typed number cannot be read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum NumberProblem {
    /// Nothing written.
    Empty,
    /// Letters or signs that are no part of a number (`abc`, `1e4`, `9 - 2`).
    NotANumber,
    /// Digits grouped, but not in threes (`97 78`, `9,77,8`).
    OddGrouping,
    /// `9,778` where the answer has decimals: a thousands separator (9778) and a decimal
    /// comma (9.778) are both possible readings, so the learner is asked to choose.
    AmbiguousComma,
}

/// The longest input [`read_number`] looks at: anything longer is not a number a learner means.
const MAX_NUMBER_CHARS: usize = 64;

/// Spaces a learner or a keyboard layout may group digits with: space, no-break space,
/// narrow no-break space, thin space, and `_`.
fn is_group_space(c: char) -> bool {
    matches!(c, ' ' | '\u{a0}' | '\u{202f}' | '\u{2009}' | '_')
}

/// Reads a number as a learner types it, in either language.
///
/// - Thousands may be grouped with spaces (also no-break and narrow no-break ones) or
///   `_`, and with commas or points when more than one of them groups: `9 778`, `1,234,567`.
/// - When both a comma and a point appear, the last one is the decimal separator:
///   `9,778.5` and `9.778,5` are both 9778.5.
/// - A single point is a decimal point. A single comma is a decimal comma (`0,5`),
///   except before exactly three final digits (`9,778`): then, when the answer is a
///   whole number (`whole`), it groups thousands and reads as 9778, in both languages;
///   when the answer has decimals, it is [`NumberProblem::AmbiguousComma`].
/// - A leading `-`, `−` or `+`; a trailing `ms` or the question's `unit`.
/// - Groups after the first hold exactly three digits, or it is [`NumberProblem::OddGrouping`].
pub fn read_number(input: &str, whole: bool, unit: Option<&str>) -> Result<f64, NumberProblem> {
    let mut s = input.trim_matches(|c: char| c.is_whitespace() || is_group_space(c));
    if s.is_empty() {
        return Err(NumberProblem::Empty);
    }
    if s.chars().count() > MAX_NUMBER_CHARS {
        return Err(NumberProblem::NotANumber);
    }
    for u in unit.into_iter().chain(["ms"]) {
        let u = u.trim();
        if !u.is_empty() && s.len() > u.len() && s.is_char_boundary(s.len() - u.len()) {
            let (head, tail) = s.split_at(s.len() - u.len());
            if tail.eq_ignore_ascii_case(u) {
                s = head.trim_end_matches(|c: char| c.is_whitespace() || is_group_space(c));
                break;
            }
        }
    }
    let (negative, body) = match s.chars().next() {
        Some(c @ ('-' | '\u{2212}' | '+')) => (c != '+', &s[c.len_utf8()..]),
        _ => (false, s),
    };
    // Digit runs and the one separator before each (None before the first).
    let mut groups: Vec<(Option<char>, String)> = Vec::new();
    let mut pending: Option<char> = None;
    for c in body.chars() {
        if c.is_ascii_digit() {
            match groups.last_mut() {
                Some((_, digits)) if pending.is_none() => digits.push(c),
                _ => groups.push((pending.take(), c.to_string())),
            }
        } else if c == ',' || c == '.' || is_group_space(c) {
            if pending.is_some() {
                return Err(NumberProblem::NotANumber);
            }
            pending = Some(if is_group_space(c) { ' ' } else { c });
        } else {
            return Err(NumberProblem::NotANumber);
        }
    }
    if groups.is_empty() {
        return Err(NumberProblem::NotANumber);
    }
    // A trailing `.` or `,` ("9778.") ends the number with no decimals; a leading one
    // (",5") starts its decimals.
    let leading = body.starts_with([',', '.']);
    let seps: Vec<char> = groups.iter().filter_map(|(s, _)| *s).collect();
    let count = |k: char| seps.iter().filter(|&&c| c == k).count();
    let (points, commas) = (count('.'), count(','));
    let decimal: Option<char> = match (points, commas) {
        (0, 0) => None,
        (_, 0) if points > 1 => None,
        (1, 0) => Some('.'),
        (0, 1) => {
            let last = groups.last().map(|(s, d)| (*s, d.len()));
            if last == Some((Some(','), 3)) && !leading {
                if whole {
                    None
                } else {
                    return Err(NumberProblem::AmbiguousComma);
                }
            } else {
                Some(',')
            }
        }
        (0, _) => None,
        _ => seps.iter().rev().copied().find(|&c| c == '.' || c == ','),
    };
    if let Some(d) = decimal {
        // The decimal separator occurs once, last; the other kind only groups.
        if count(d) != 1 || seps.last() != Some(&d) {
            return Err(NumberProblem::OddGrouping);
        }
    }
    let (int_groups, frac) = match decimal {
        Some(_) if leading && groups.len() == 1 => (&groups[..0], groups.first().map(|(_, d)| d.as_str())),
        Some(_) => (
            &groups[..groups.len() - 1],
            groups.last().map(|(_, d)| d.as_str()),
        ),
        None => (&groups[..], None),
    };
    if int_groups.len() > 1 {
        let first_ok = int_groups
            .first()
            .is_some_and(|(_, d)| (1..=3).contains(&d.len()));
        if !first_ok || int_groups.iter().skip(1).any(|(_, d)| d.len() != 3) {
            return Err(NumberProblem::OddGrouping);
        }
    }
    let int: String = int_groups.iter().map(|(_, d)| d.as_str()).collect();
    let text = format!(
        "{}{}.{}",
        if negative { "-" } else { "" },
        if int.is_empty() { "0" } else { &int },
        frac.unwrap_or("0")
    );
    crate::decimal::parse(&text).ok_or(NumberProblem::NotANumber)
}

/// The words an explanation may open with that only repeat the verdict the page marks
/// on the option itself ("✓ Right:", "✗ Wrong:").
const VERDICT_WORDS: &[&str] = &[
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

/// An option's explanation without a leading verdict word and colon (`No: it …` reads
/// `It …`): the page already says right or wrong, so it would say it twice.
pub fn without_verdict(text: &str) -> std::borrow::Cow<'_, str> {
    let t = text.trim_start();
    for w in VERDICT_WORDS {
        let Some(rest) = t
            .get(..w.len())
            .filter(|h| h.eq_ignore_ascii_case(w))
            .map(|_| &t[w.len()..])
        else {
            continue;
        };
        let Some(rest) = rest.strip_prefix(':') else {
            continue;
        };
        let rest = rest.trim_start();
        let mut chars = rest.chars();
        return match chars.next().and_then(latin_upper) {
            Some(up) => format!("{up}{}", chars.as_str()).into(),
            None => rest.into(),
        };
    }
    text.into()
}

/// `c` as a capital, for a lower-case letter of Latin-1 (every letter English and
/// Norwegian write: a-z, æ, ø, å, é, ...); `None` for anything else, left as it is. Not
/// `char::to_uppercase`, whose Unicode tables cost the page's module about 7 KB gzip for
/// this one use.
fn latin_upper(c: char) -> Option<char> {
    match c {
        'a'..='z' => Some(c.to_ascii_uppercase()),
        'à'..='þ' if c != '÷' => char::from_u32(c as u32 - 0x20),
        _ => None,
    }
}

/// What the learner has given so far, as the page's controls hold it.
#[derive(Clone, Debug, Default, PartialEq)]
pub struct Response {
    pub chosen: VecSet<usize>,
    pub number: String,
    /// Indices into the shown items, in the learner's order.
    pub order: Vec<usize>,
    pub line: Option<usize>,
}

/// The kind of control a question is answered with.
#[derive(Clone, Debug, PartialEq)]
pub enum Form<'a> {
    Choice,
    /// A number; `whole` when the answer is a whole number.
    Number {
        whole: bool,
        unit: Option<&'a str>,
    },
    Order,
    Line,
}

/// Reads a response as an answer to check, or says why it cannot be checked (which does
/// not count as a try).
pub fn read_response(form: &Form<'_>, r: &Response) -> Result<Answer, NotAnswered> {
    match form {
        Form::Choice if r.chosen.is_empty() => Err(NotAnswered::NothingChosen),
        Form::Choice => Ok(Answer::Choice(r.chosen.clone())),
        Form::Number { whole, unit } => read_number(&r.number, *whole, *unit)
            .map(Answer::Number)
            .map_err(NotAnswered::Number),
        Form::Order => Ok(Answer::Order(r.order.clone())),
        Form::Line => r.line.map(Answer::Line).ok_or(NotAnswered::NoLine),
    }
}

/// A question on the page during one visit: what its last Check said, and whether the
/// learner has seen the answer. Pure, so the rules are tested without a browser.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct Attempts {
    /// The last Check: right, wrong, or not read.
    pub last: Option<Result<bool, NotAnswered>>,
    /// A counted Check was right in this visit.
    pub solved: bool,
    /// The learner asked to see the explanations before solving it.
    pub revealed: bool,
}

impl Attempts {
    /// A Check whose response read as `read` (`Ok(right)` or why it could not be read).
    /// Returns what to record as a try, if anything: an unread response is no try, and
    /// once the learner has asked for the answer, choosing it is practice, not a try.
    pub fn check(&mut self, read: Result<bool, NotAnswered>) -> Option<bool> {
        self.last = Some(read);
        let right = read.ok()?;
        if self.revealed && !self.solved {
            return None;
        }
        self.solved |= right;
        Some(right)
    }

    /// The learner asks for the explanations (and the answer).
    pub fn reveal(&mut self) {
        self.revealed = true;
    }

    /// Whether the explanations and the answer are shown: once solved, or when asked.
    pub fn shows_answer(&self) -> bool {
        self.solved || self.revealed
    }

    /// Whether the last Check was a right answer given after the answer was shown
    /// (said, so the learner knows why it is not counted).
    pub fn right_after_reveal(&self) -> bool {
        self.revealed && !self.solved && self.last == Some(Ok(true))
    }
}

// A path of its own: build.rs includes this file by path, where `mod tests;` would
// be looked for beside it.
#[cfg(test)]
#[path = "quiz/tests.rs"]
mod tests;
