//! The built-in labs, and (natively) the Node.js host that runs a learner's file
//! (`lockstep lab run`, the native tests). The browser runs the same harness in a
//! sandboxed worker (`ui::lab`); the simulator side of both is [`crate::sim::lab`].
//!
//! The page carries each lab compiled (`src/builtins.wire`) and its starters, in the
//! lesson's text; the harness, the driver and the reference solution are fetched from
//! `labs/` when the learner first runs something or asks for the solution.
//!
//! The Node host is the one place a lab touches the clock of the machine: a watchdog
//! that stops an answer working longer than [`ANSWER_LIMIT`] of CPU time (an infinite
//! loop). It never feeds a simulated figure.

use crate::sim::lab::Lab;

/// The built-in labs' ids, in lesson order.
pub const IDS: [&str; 6] = [
    "set-nx",
    "safe-release",
    "watchdog",
    "redlock",
    "fencing",
    "idempotency",
];

/// What a section shows of each lab: (id, starter.js, starter.nb.js or ""), each in its
/// language's part of the lesson's text (`build.rs`, `crate::text`): on the page, the
/// other language's starter reads "" until that language is read.
mod files {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/lab_files.rs"));
}

/// The starters of lab `id`: starter.js, starter.nb.js ("").
fn starters(id: &str) -> Option<(&'static str, &'static str)> {
    let (_, starter, starter_nb) = files::SHOWN.iter().find(|s| s.0 == id)?;
    Some((starter.get(), starter_nb.get()))
}

/// A built-in lab as the page knows it: without its driver and solution (see
/// [`Lab::driver`]; the browser fetches them). Read from its compiled form, which `make
/// builtins` wrote from [`shown_checked`] (`src/builtins.wire`: no TOML parser, no
/// validation at run time); tests hold the two equal.
pub fn shown(id: &str) -> Option<Result<Lab, String>> {
    let (_, text) = crate::sim::scenario::compiled::LABS
        .iter()
        .find(|(n, _)| *n == id)?;
    let (starter, starter_nb) = starters(id)?;
    Some(
        crate::wire::from_byte_text::<Lab>(text.get())
            .map(|mut lab| {
                // Compiled without its starters, which the lesson's text holds once.
                lab.starter = starter.to_string();
                if !starter_nb.trim().is_empty() {
                    lab.starters.insert("nb".to_string(), starter_nb.to_string());
                }
                lab
            })
            .map_err(|e| {
                format!("labs/{id}: its compiled form in src/builtins.wire does not read ({e}): run `make builtins`")
            }),
    )
}

/// Like [`shown`], reading and validating the lab's files as any lab's are (natively:
/// `make builtins` writes what `shown` reads from this).
#[cfg(not(target_arch = "wasm32"))]
pub fn shown_checked(id: &str) -> Option<Result<Lab, String>> {
    let src = builtin_sources()
        .into_iter()
        .find(|s| s.dir.strip_prefix("labs/") == Some(id))?;
    Some(
        Lab::parse(&crate::sim::lab::LabSources {
            driver: "",
            solution: "",
            ..src
        })
        .map_err(|e| e.to_string()),
    )
}

#[cfg(not(target_arch = "wasm32"))]
pub use cli::*;
#[cfg(not(target_arch = "wasm32"))]
pub use node::*;

/// `lockstep lab grade`: a class's files, graded in parallel.
#[cfg(not(target_arch = "wasm32"))]
pub mod grade;
#[cfg(not(target_arch = "wasm32"))]
pub mod live;

#[cfg(not(target_arch = "wasm32"))]
mod cli;
#[cfg(not(target_arch = "wasm32"))]
mod node;

#[cfg(test)]
mod tests {
    use super::*;

    /// What the page reads of each built-in lab (its compiled form) is the lab its TOML
    /// files make, validated.
    #[test]
    fn every_built_in_lab_compiled_is_the_one_its_files_make() {
        assert_eq!(
            crate::sim::scenario::compiled::LABS.len(),
            IDS.len(),
            "every lab is in src/builtins.wire (`make builtins`)"
        );
        let mut shown_ids: Vec<&str> = files::SHOWN.iter().map(|s| s.0).collect();
        let mut ids = IDS.to_vec();
        shown_ids.sort();
        ids.sort();
        assert_eq!(shown_ids, ids, "every lab directory is a built-in lab");
        for id in IDS {
            let checked = shown_checked(id).expect("a built-in");
            assert!(checked.is_ok(), "{id}: {checked:?}");
            assert_eq!(
                shown(id),
                Some(checked),
                "{id}: src/builtins.wire differs: run `make builtins`"
            );
        }
    }

    /// A date among a lab's parameters reaches the driver as its text, read from TOML and
    /// after the lab crossed the wire.
    #[test]
    fn a_date_parameter_is_its_text() {
        let set_nx = builtin_sources()
            .into_iter()
            .find(|s| s.dir == "labs/set-nx")
            .expect("a built-in");
        let lab_toml = set_nx
            .lab_toml
            .replace("[params]\n", "[params]\nwhen = 1979-05-27T07:32:00Z\n");
        assert!(lab_toml.contains("when ="), "the lab has a [params] table");
        let src = crate::sim::lab::LabSources {
            dir: "labs/x",
            lab_toml: &lab_toml,
            driver: "",
            starters: &[],
            solution: "",
            ..set_nx
        };
        let lab = Lab::parse(&src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lab.params["when"], serde_json::json!("1979-05-27T07:32:00Z"));
        let text = crate::wire::to_text(&lab).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(crate::wire::from_text::<Lab>(&text), Ok(lab));
    }
}
