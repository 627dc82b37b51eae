//! The built-in scenarios (`scenarios/*.toml`, in syllabus order): the table of their
//! files, and each one as the app reads it (its validated wire form in
//! `src/builtins.wire`) or as a file is read ([`builtin_checked`]).

use super::definition::Scenario;
use super::parse::{parse, ScenarioError};

/// One built-in scenario: its name and its file's TOML text.
pub struct Builtin {
    pub name: &'static str,
    pub source: &'static str,
}

macro_rules! builtins {
    ($($name:literal),* $(,)?) => {
        /// The built-in scenarios, in syllabus order.
        pub const BUILTINS: &[Builtin] = &[
            $(Builtin { name: $name, source: include_str!(concat!("../../../scenarios/", $name, ".toml")) }),*
        ];
        /// Their names alone, for code that needs no TOML: naming [`BUILTINS`] would
        /// put every file's text into the module that calls it (60 KB in the engine's).
        pub const BUILTIN_NAMES: &[&str] = &[$($name),*];
    };
}

builtins!(
    "double-charge-no-lock",
    "double-charge-redis-lock",
    "unsafe-del",
    "safe-release",
    "get-then-del",
    "ttl-too-short",
    "ttl-workers",
    "watchdog-pause",
    "watchdog-crash",
    "failover",
    "failover-wait",
    "failover-replica-clock",
    "redlock-baseline",
    "redlock-contention",
    "redlock-clock-jump",
    "redlock-crash-restart",
    "redlock-delayed-restart",
    "redlock-drift-2pct",
    "redlock-drift-1pct",
    "redlock-pause-acquire",
    "redlock-pause-acquire-unchecked",
    "using-abort-latency",
    "redlock-even-split",
    "fencing",
    "no-fencing",
    "fencing-counter-failover",
    "idempotency-key",
    "idempotency-crash",
);

/// The built-in scenarios and labs in the wire's form (`src/builtins.wire`, by `build.rs`).
pub(crate) mod compiled {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/builtin_wire.rs"));
}

/// The built-in `name` as `make builtins` wrote it from its TOML file, validated
/// (`src/builtins.wire`): no TOML parser and no validation at run time (the page has
/// neither). `tests` hold every built-in valid ([`builtin_checked`]) and equal to this.
pub fn builtin(name: &str) -> Option<Result<Scenario, ScenarioError>> {
    let (_, text) = compiled::SCENARIOS.iter().find(|(n, _)| *n == name)?;
    Some(
        crate::wire::from_byte_text(text.get()).map_err(|e| ScenarioError {
            file: format!("scenarios/{name}.toml"),
            line: None,
            field: String::new(),
            message: format!(
                "its compiled form in src/builtins.wire does not read ({e}): run `make builtins`"
            ),
        }),
    )
}

/// The built-in `name` read from its TOML file and validated, as any scenario file is.
pub fn builtin_checked(name: &str) -> Option<Result<Scenario, ScenarioError>> {
    BUILTINS
        .iter()
        .find(|b| b.name == name)
        .map(|b| parse(&format!("scenarios/{}.toml", b.name), b.source))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_builtin_parses() {
        assert_eq!(BUILTINS.len(), 28);
        assert_eq!(
            compiled::SCENARIOS.len(),
            BUILTINS.len(),
            "every file of scenarios/ is a built-in, and in src/builtins.wire (`make builtins`)"
        );
        for b in BUILTINS {
            // Valid as a scenario file, and what the app reads of its compiled form is
            // the same scenario.
            let checked = builtin_checked(b.name).map(|r| r.map_err(|e| e.to_string()));
            let compiled = builtin(b.name).map(|r| r.map_err(|e| e.to_string()));
            assert_eq!(
                compiled, checked,
                "{}: src/builtins.wire and the TOML differ: run `make builtins`",
                b.name
            );
            let s = checked;
            match s {
                Some(Ok(s)) => {
                    assert_eq!(s.name, b.name);
                    assert!(!s.description.is_empty(), "{} has no description", b.name);
                    // The learner reads a title, not the id (#40 item 7).
                    assert!(!s.title.trim().is_empty(), "{} has no title", b.name);
                    assert!(
                        s.titles.get("nb").is_some_and(|t| !t.trim().is_empty()),
                        "{} has no Norwegian title",
                        b.name
                    );
                    assert!(
                        !s.description_in("nb").is_empty() && s.description_in("nb") != s.description,
                        "{} has no Norwegian description",
                        b.name
                    );
                }
                other => panic!("{}: {other:?}", b.name),
            }
        }
    }
}
