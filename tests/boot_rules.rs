//! The first page's scripts (`static/boot-head.js`, `static/boot.js`) run before the
//! app's WebAssembly has loaded, so they carry a copy of the rules they share with the
//! app as one line of JSON. This holds each copy to its one definition in
//! `lockstep::lesson::boot_rules`, and holds the scripts to using their copy rather than
//! spelling a rule out again.

use lockstep::lesson::boot_rules::{boot_rules, head_rules, PROGRESS_LAST, STORAGE_PREFIX};
use lockstep::lesson::lang::Lang;
use lockstep::lesson::progress::{Progress, LANG_KEY, PROGRESS_KEY};
use serde_json::Value;

fn script(name: &str) -> String {
    let path = format!("{}/static/{name}", env!("CARGO_MANIFEST_DIR"));
    std::fs::read_to_string(&path).unwrap_or_else(|e| panic!("{path}: {e}"))
}

/// The JSON after `prefix` on the line that starts with it.
fn rules_line(src: &str, prefix: &str, file: &str) -> Value {
    let lines: Vec<&str> = src.lines().filter(|l| l.starts_with(prefix)).collect();
    assert_eq!(
        lines.len(),
        1,
        "{file}: expected one line starting with `{prefix}`"
    );
    let json = lines[0]
        .trim_start_matches(prefix)
        .trim_end()
        .trim_end_matches(';');
    serde_json::from_str(json).unwrap_or_else(|e| panic!("{file}: the RULES line is not JSON: {e}"))
}

fn assert_same(file: &str, prefix: &str, want: Value) {
    let got = rules_line(&script(file), prefix, file);
    assert_eq!(
        got, want,
        "static/{file} has other rules than the app; replace its RULES line with:\n{prefix}{want};"
    );
}

#[test]
fn boot_head_carries_the_apps_rules() {
    assert_same("boot-head.js", "  var RULES = ", head_rules());
}

#[test]
fn boot_carries_the_apps_rules() {
    assert_same("boot.js", "const RULES = ", boot_rules());
}

#[test]
fn the_scripts_spell_no_rule_out_again() {
    let head = script("boot-head.js");
    for literal in [LANG_KEY, PROGRESS_KEY, "'nob'", "\"nob\""] {
        let n = head.matches(literal).count();
        assert!(
            n <= 1,
            "boot-head.js spells {literal} {n} times: read it from RULES"
        );
    }
    let boot = script("boot.js");
    for literal in ["'ArrowLeft'", "\"ArrowLeft\"", "']'", "\"]\""] {
        let outside = boot
            .lines()
            .filter(|l| !l.starts_with("const RULES = "))
            .any(|l| l.contains(literal));
        assert!(!outside, "boot.js spells {literal} outside RULES");
    }
}

#[test]
fn the_progress_path_finds_what_the_app_stores() {
    // What the app writes for a learner last on section 7 …
    let mut p = Progress::new();
    p.visit("distributed-locks", "redlock", 7);
    let stored: Value = serde_json::from_str(&p.to_json()).unwrap_or_else(|e| panic!("{e}"));
    // … is where boot-head.js looks for it.
    let mut at = &stored;
    for step in PROGRESS_LAST {
        let step = if *step == "<lesson>" {
            "distributed-locks"
        } else {
            step
        };
        at = &at[step];
    }
    assert_eq!(at, &Value::from(7));
    assert!(PROGRESS_KEY.starts_with(STORAGE_PREFIX) && LANG_KEY.starts_with(STORAGE_PREFIX));
}

#[test]
fn the_aliases_are_the_ones_the_app_reads() {
    let rules = head_rules();
    let Some(aliases) = rules["langAliases"].as_object() else {
        panic!("no langAliases in {rules}");
    };
    let mut codes = 0;
    for (lang, list) in aliases {
        for code in list.as_array().into_iter().flatten().filter_map(Value::as_str) {
            codes += 1;
            assert_eq!(
                Lang::from_code(code).map(Lang::code),
                Some(lang.as_str()),
                "{code}"
            );
            assert_eq!(
                Lang::from_code(&format!("{}-XX", code.to_uppercase())).map(Lang::code),
                Some(lang.as_str())
            );
        }
    }
    assert_eq!(codes, 6);
    assert_eq!(Lang::from_code("de"), None);
}
