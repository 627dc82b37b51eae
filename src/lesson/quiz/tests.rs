//! Tests of `quiz`.

use super::*;

const FILE: &str = r#"
section = "safe-release"

[[question]]
id = "a"
kind = "single"
correct = [1]
[question.en]
prompt = "P"
options = ["x", "y"]
explanations = ["no", "yes"]
[question.nb]
prompt = "P"
options = ["x", "y"]
explanations = ["nei", "ja"]

[[question]]
id = "b"
kind = "numeric"
answer = 9778
tolerance = 1
[question.en]
prompt = "Validity?"
explanation = "10000 - 120 - 102"
[question.nb]
prompt = "Gyldighet?"
explanation = "10000 - 120 - 102"
"#;

#[test]
fn parses_and_checks() {
    let qs = parse_file("q.toml", FILE).expect("valid");
    assert_eq!(qs.len(), 2);
    assert_eq!(qs[0].section, "safe-release");
    let one = |i| Answer::Choice([i].into_iter().collect());
    assert!(check(&qs[0].kind, &one(1)));
    assert!(!check(&qs[0].kind, &one(0)));
    assert!(!check(&qs[0].kind, &Answer::Choice([0, 1].into_iter().collect())));
    assert!(check(&qs[1].kind, &Answer::Number(9779.0)));
    assert!(!check(&qs[1].kind, &Answer::Number(9780.0)));
    assert!(!check(&qs[1].kind, &Answer::Number(f64::NAN)));
}

#[test]
fn errors_name_file_line_and_field() {
    let broken = FILE.replace("correct = [1]", "correct = [5]");
    let errs = parse_file("q.toml", &broken).unwrap_err();
    assert_eq!(errs.len(), 1);
    assert_eq!(
        (errs[0].file.as_str(), errs[0].line, errs[0].field.as_str()),
        ("q.toml", 7, "correct")
    );
    assert!(
        errs[0].to_string().starts_with("q.toml:7: correct: "),
        "{}",
        errs[0]
    );
}

#[test]
fn every_error_is_reported_not_only_the_first() {
    let broken = FILE
        .replace("correct = [1]", "correct = []")
        .replace("answer = 9778\n", "");
    let errs = parse_file("q.toml", &broken).unwrap_err();
    let fields: Vec<&str> = errs.iter().map(|e| e.field.as_str()).collect();
    assert_eq!(fields, vec!["correct", "answer"]);
    // A missing field is reported at its question's `[[question]]` line.
    assert_eq!(errs[1].line, 17);
}

#[test]
fn toml_syntax_and_unknown_fields() {
    let errs = parse_file("q.toml", "section = \"x\"\n[[question]]\nid = \"a\"\nkind = \n").unwrap_err();
    assert_eq!(errs[0].line, 4);
    let errs = parse_file("q.toml", &FILE.replace("tolerance = 1", "tolerence = 1")).unwrap_err();
    assert_eq!(errs[0].field, "tolerence");
}

#[test]
fn mismatched_languages_and_bad_kinds() {
    let broken = FILE.replace(
        "options = [\"x\", \"y\"]\nexplanations = [\"nei\", \"ja\"]",
        "options = [\"x\"]\nexplanations = [\"nei\"]",
    );
    assert_eq!(parse_file("q.toml", &broken).unwrap_err()[0].field, "options");
    let broken = FILE.replace("kind = \"numeric\"", "kind = \"essay\"");
    assert_eq!(parse_file("q.toml", &broken).unwrap_err()[0].field, "kind");
    let broken = FILE.replace("kind = \"numeric\"", "kind = \"generated\"\ngenerator = \"nope\"");
    assert_eq!(parse_file("q.toml", &broken).unwrap_err()[0].field, "generator");
    let generated = FILE.replace(
        "kind = \"numeric\"",
        "kind = \"generated\"\ngenerator = \"quorum\"",
    );
    assert!(parse_file("q.toml", &generated.replace("Validity?", "Quorum of {n}?")).is_ok());
    let errs = parse_file("q.toml", &generated.replace("Validity?", "Quorum of {ttl}?")).unwrap_err();
    assert_eq!((errs[0].field.as_str(), errs[0].line), ("prompt", 24));
}

#[test]
fn duplicate_ids_across_files() {
    let errs = parse_all([("a.toml", FILE), ("b.toml", FILE)]).unwrap_err();
    assert_eq!(errs.len(), 2);
    assert!(errs.iter().all(|e| e.file == "b.toml" && e.field == "id"));
}

#[test]
fn order_and_bug_answers() {
    assert!(check(&Kind::Order, &Answer::Order(vec![0, 1, 2])));
    assert!(!check(&Kind::Order, &Answer::Order(vec![1, 0, 2])));
    let bug = Kind::Bug {
        code: "a\nb\nc".into(),
        code_lang: "lua".into(),
        bug_line: 2,
    };
    assert!(check(&bug, &Answer::Line(2)));
    assert!(!check(&bug, &Answer::Line(3)));
    assert!(!check(&bug, &Answer::Number(2.0)));
}

#[test]
fn numbers_as_learners_type_them() {
    assert_eq!(parse_number("9 778"), Some(9778.0));
    assert_eq!(parse_number("9778 ms"), Some(9778.0));
    assert_eq!(parse_number("0,5"), Some(0.5));
    assert_eq!(parse_number("−2"), Some(-2.0));
    assert_eq!(parse_number("abc"), None);
    assert_eq!(parse_number("inf"), None);
    assert_eq!(parse_number(""), None);
}

#[test]
fn thousands_separators_read_the_same_in_both_languages() {
    // A whole-number answer: a comma before exactly three digits groups thousands,
    // whether the learner writes English (9,778) or Norwegian (9 778, no-break spaces).
    for typed in [
        "9778",
        "9,778",
        "9 778",
        "9\u{a0}778",
        "9\u{202f}778",
        " 9 778 ms ",
        "9_778",
        "9778,0",
        "9.778,0",
        "9,778.0",
        "+9778",
    ] {
        assert_eq!(read_number(typed, true, Some("ms")), Ok(9778.0), "{typed:?}");
    }
    assert_eq!(read_number("1,234,567", true, None), Ok(1_234_567.0));
    assert_eq!(read_number("1.234.567", true, None), Ok(1_234_567.0));
    assert_eq!(read_number("1 234 567", true, None), Ok(1_234_567.0));
    assert_eq!(read_number("-2", true, None), Ok(-2.0));
    // Any other comma is a decimal comma; a single point a decimal point.
    assert_eq!(read_number("9,77", true, None), Ok(9.77));
    assert_eq!(read_number("9,7780", true, None), Ok(9.778));
    assert_eq!(read_number("9.778", true, None), Ok(9.778));
    assert_eq!(read_number(",5", false, None), Ok(0.5));
    assert_eq!(read_number("2,5", false, None), Ok(2.5));
    assert_eq!(read_number("1 234,5", false, None), Ok(1234.5));
    // An answer with decimals: `9,778` has two readings, so the learner is asked.
    assert_eq!(
        read_number("9,778", false, None),
        Err(NumberProblem::AmbiguousComma)
    );
    assert_eq!(read_number("9 778", false, None), Ok(9778.0));
}

#[test]
fn unreadable_numbers_say_why() {
    use NumberProblem::*;
    for (typed, why) in [
        ("", Empty),
        ("   ", Empty),
        ("\u{a0}", Empty),
        ("abc", NotANumber),
        ("ms", NotANumber),
        ("1e4", NotANumber),
        ("inf", NotANumber),
        ("NaN", NotANumber),
        ("9 - 2", NotANumber),
        ("9,,778", NotANumber),
        ("97 78", OddGrouping),
        ("9778 5", OddGrouping),
        ("9,77,8", OddGrouping),
        ("1.234.5,6.7", OddGrouping),
        ("1,5.3", OddGrouping),
    ] {
        assert_eq!(read_number(typed, true, None), Err(why), "{typed:?}");
    }
    // Long input is refused without being read further.
    assert_eq!(read_number(&"9".repeat(10_000), true, None), Err(NotANumber));
    // The question's own unit may follow, in any case.
    assert_eq!(read_number("3 Nodes", true, Some("nodes")), Ok(3.0));
    assert_eq!(read_number("3 nodær", true, Some("nodær")), Ok(3.0));
}

#[test]
fn only_a_readable_response_is_a_try() {
    let empty = Response::default();
    assert_eq!(
        read_response(&Form::Choice, &empty),
        Err(NotAnswered::NothingChosen)
    );
    assert_eq!(read_response(&Form::Line, &empty), Err(NotAnswered::NoLine));
    let number = Form::Number {
        whole: true,
        unit: None,
    };
    assert_eq!(
        read_response(&number, &empty),
        Err(NotAnswered::Number(NumberProblem::Empty))
    );
    let typed = |t: &str| Response {
        number: t.into(),
        ..Response::default()
    };
    assert_eq!(
        read_response(&number, &typed("abc")),
        Err(NotAnswered::Number(NumberProblem::NotANumber))
    );
    assert_eq!(
        read_response(&number, &typed("9,778")),
        Ok(Answer::Number(9778.0))
    );
    let chose = Response {
        chosen: [1].into_iter().collect(),
        ..Response::default()
    };
    assert_eq!(
        read_response(&Form::Choice, &chose),
        Ok(Answer::Choice([1].into_iter().collect()))
    );
}

#[test]
fn explanations_do_not_repeat_the_verdict() {
    assert_eq!(
        without_verdict("No: timing is not the problem."),
        "Timing is not the problem."
    );
    assert_eq!(without_verdict("Right: a routine runs on."), "A routine runs on.");
    assert_eq!(
        without_verdict("Feil: Ingenting avbryter."),
        "Ingenting avbryter."
    );
    assert_eq!(without_verdict("Riktig: `SET` svarer OK."), "`SET` svarer OK.");
    // Only a verdict word with its colon: prose that starts alike is kept.
    assert_eq!(without_verdict("Yes, but only once."), "Yes, but only once.");
    assert_eq!(without_verdict("Nobody crashes."), "Nobody crashes.");
    assert_eq!(without_verdict("Note: x"), "Note: x");
    assert_eq!(without_verdict("Æ: ø"), "Æ: ø");
    // A Norwegian letter is capitalised as an English one is; what has no capital stays.
    assert_eq!(without_verdict("Nei: ønsket tid er ute."), "Ønsket tid er ute.");
    assert_eq!(
        without_verdict("Feil: å vente hjelper ikke."),
        "Å vente hjelper ikke."
    );
    assert_eq!(without_verdict("No: 3 nodes answer."), "3 nodes answer.");
}

#[test]
fn an_unread_check_is_no_try_and_a_shown_answer_is_not_a_solve() {
    let mut a = Attempts::default();
    // Nothing chosen: no try, nothing shown.
    assert_eq!(a.check(Err(NotAnswered::NothingChosen)), None);
    assert!(!a.shows_answer());
    // A wrong try counts, and shows no explanations.
    assert_eq!(a.check(Ok(false)), Some(false));
    assert!(!a.shows_answer());
    // Asking shows them; choosing the answer afterwards is no try and no solve.
    a.reveal();
    assert!(a.shows_answer());
    assert_eq!(a.check(Ok(true)), None);
    assert!(a.right_after_reveal() && !a.solved);
    // Solved first: the explanations show, and later checks count as before.
    let mut b = Attempts::default();
    assert_eq!(b.check(Ok(true)), Some(true));
    assert!(b.shows_answer() && !b.right_after_reveal());
    b.reveal();
    assert_eq!(b.check(Ok(false)), Some(false));
    assert!(b.shows_answer());
}
