//! `src/builtins.wire`: every built-in scenario and lab, read from its files
//! (`scenarios/`, `labs/`) and validated, in the wire's form (`crate::wire`). `build.rs`
//! puts the file into the lesson's text; this module makes it, for `make builtins` and
//! for the test that fails while the file is not current. Native only: the app reads
//! the file, it never makes it.

/// `src/builtins.wire` as it must be: every built-in scenario and lab, read from its
/// files and validated, in the wire's form, one per line (`scenario <name> <text>`, `lab
/// <id> <text>`). `build.rs` puts them in the lesson's text for `sim::scenario::builtin`
/// and `labs::shown` (`wire::from_byte_text`); `make builtins` writes the file, and a
/// test fails while it differs.
pub fn builtins_file() -> Result<String, String> {
    use crate::sim::scenario::{builtin_checked, BUILTIN_NAMES};
    let mut out = String::from(
        "# Generated from scenarios/*.toml and labs/*/ by `make builtins`: the built-in scenarios\n\
         # and labs, validated, in the form the page reads (src/wire.rs). Do not edit.\n",
    );
    for name in BUILTIN_NAMES {
        let scenario = builtin_checked(name)
            .ok_or_else(|| format!("no built-in scenario `{name}`"))?
            .map_err(|e| e.to_string())?;
        out.push_str(&format!("scenario {name} {}\n", crate::wire::to_text(&scenario)?));
    }
    for id in crate::labs::IDS {
        let mut lab = crate::labs::shown_checked(id).ok_or_else(|| format!("no built-in lab `{id}`"))??;
        // Its starters are in the lesson's text already (`labs::shown` puts them back).
        lab.starter.clear();
        lab.starters = Default::default();
        out.push_str(&format!("lab {id} {}\n", crate::wire::to_text(&lab)?));
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The file the app reads its built-ins from is what their files make now; with
    /// `LOCKSTEP_WRITE_BUILTINS` set (`make builtins`) it is written instead.
    #[test]
    fn the_builtins_file_is_current() {
        let made = builtins_file().unwrap_or_else(|e| panic!("{e}"));
        let path = concat!(env!("CARGO_MANIFEST_DIR"), "/src/builtins.wire");
        if std::env::var_os("LOCKSTEP_WRITE_BUILTINS").is_some() {
            std::fs::write(path, &made).unwrap_or_else(|e| panic!("{path}: {e}"));
            return;
        }
        let have = std::fs::read_to_string(path).unwrap_or_default();
        assert!(
            have == made,
            "src/builtins.wire is not what scenarios/ and labs/ make now: run `make builtins`"
        );
    }

    /// Every built-in scenario, lab and the built-in pack cross the wire unchanged.
    #[test]
    fn every_builtin_crosses_the_wire_unchanged() {
        use crate::sim::scenario::{builtin_checked, BUILTIN_NAMES};
        for name in BUILTIN_NAMES {
            let s = builtin_checked(name).unwrap().unwrap();
            assert_eq!(
                crate::wire::from_text(&crate::wire::to_text(&s).unwrap()),
                Ok(s),
                "{name}"
            );
        }
        for id in crate::labs::IDS {
            let mut lab = crate::labs::find(id).unwrap();
            assert_eq!(
                crate::wire::from_text(&crate::wire::to_text(&lab).unwrap()),
                Ok(lab.clone()),
                "{id}"
            );
            lab.params = serde_json::json!({"n": [1, 2.5, null, {"x": "y"}], "ok": true});
            assert_eq!(
                crate::wire::from_text(&crate::wire::to_text(&lab).unwrap()),
                Ok(lab),
                "{id}"
            );
        }
        let pack = crate::lesson::pack::builtin_compiled();
        assert_eq!(
            crate::wire::from_text(&crate::wire::to_text(&pack).unwrap()),
            Ok(pack)
        );
    }
}
