//! A learner's variant of a built-in scenario: knobs (TTL, drift factor, per-node
//! timeout) and replaced Lua scripts. Applied to a copy of the scenario before a run, so
//! the run itself stays a pure function of (scenario, seed, faults).

use crate::sim::scenario::Scenario;
use crate::store::{Reply, Store};

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Variant {
    pub ttl_ms: Option<f64>,
    pub drift_factor: Option<f64>,
    pub timeout_ms: Option<f64>,
    pub release_script: Option<String>,
    pub extend_script: Option<String>,
}

impl Variant {
    pub fn is_empty(&self) -> bool {
        *self == Variant::default()
    }

    /// The scenario with this variant's changes, for every client.
    pub fn apply(&self, scenario: &Scenario) -> Scenario {
        let mut s = scenario.clone();
        for c in &mut s.clients {
            if let Some(t) = self.ttl_ms {
                c.ttl_ms = t;
            }
            if let Some(d) = self.drift_factor {
                c.drift_factor = d;
            }
            if let Some(t) = self.timeout_ms {
                c.timeout_ms = Some(t);
            }
        }
        if let Some(r) = &self.release_script {
            s.scripts.release = r.clone();
        }
        if let Some(e) = &self.extend_script {
            s.scripts.extend = e.clone();
        }
        s
    }
}

/// A script error with the line it points at (1-based), if the message names one.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    pub line: Option<usize>,
    pub message: String,
}

/// Compiles `source` the way the nodes will (SCRIPT LOAD on a real store).
pub fn check_script(source: &str) -> Result<(), ScriptError> {
    let mut store = Store::new(1);
    match store.execute(&[b"SCRIPT".to_vec(), b"LOAD".to_vec(), source.as_bytes().to_vec()]) {
        Reply::Error(message) => Err(ScriptError {
            line: line_in(&message),
            message,
        }),
        _ => Ok(()),
    }
}

/// The first runtime error a script gave during a run (a node's reply to EVAL).
pub fn first_script_error(trace: &[crate::sim::TraceEvent]) -> Option<ScriptError> {
    trace.iter().find_map(|e| match &e.kind {
        crate::sim::TraceKind::Command {
            reply, script: true, ..
        } if reply.starts_with("(error)") || reply.starts_with("ERR") => Some(ScriptError {
            line: line_in(reply),
            message: reply.clone(),
        }),
        _ => None,
    })
}

/// Finds `user_script:N` (Redis's way of naming a script line) in a message.
fn line_in(message: &str) -> Option<usize> {
    let at = message.find("user_script:")? + "user_script:".len();
    let digits: String = message[at..].chars().take_while(char::is_ascii_digit).collect();
    digits.parse().ok()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::sim::scenario::builtin;
    use crate::timeline::build;

    #[test]
    fn a_release_script_without_the_token_check_brings_the_overlap_back() {
        let s = builtin("safe-release").expect("built-in").expect("valid");
        let safe = build(&s, 1).expect("runs");
        let broken = Variant {
            release_script: Some("return redis.call('del', KEYS[1])".into()),
            ..Variant::default()
        };
        let unsafe_run = build(&broken.apply(&s), 1).expect("runs");
        assert!(
            unsafe_run.bands.len() > safe.bands.len(),
            "{} bands with the check, {} without",
            safe.bands.len(),
            unsafe_run.bands.len()
        );
    }

    #[test]
    fn knobs_change_the_run_and_nothing_else() {
        let s = builtin("unsafe-del").expect("built-in").expect("valid");
        assert_eq!(Variant::default().apply(&s), s);
        let long = Variant {
            ttl_ms: Some(30_000.0),
            ..Variant::default()
        }
        .apply(&s);
        assert!(long.clients.iter().all(|c| c.ttl_ms == 30_000.0));
        // With a TTL longer than A's pause, A's key never expires under it: no overlap.
        assert!(build(&long, 1).expect("runs").bands.is_empty());
    }

    #[test]
    fn compile_errors_name_their_line() {
        assert!(check_script("return 1").is_ok());
        let e = check_script("local x = 1\nif x then\nreturn (\nend").unwrap_err();
        assert!(e.line.is_some(), "{e:?}");
        assert!(!e.message.is_empty());
    }
}
