//! A pack's own labs: a folder `labs/<id>/` holding the five files of a built-in lab
//! ([`LAB_FILES`]), read with the built-in labs' own parser ([`Lab::parse`], whose errors
//! name file, line and field). Its id is the folder's name and no built-in lab's.

use super::error::PackError;
use super::limits::{LAB_FILES, MAX_LABS};
use super::loaded::PackLab;
use super::sources::Gathered;
use crate::sim::lab::{Lab, LabError, LabSources};
use crate::toml_error::key_line;
use std::collections::BTreeMap;

impl From<LabError> for PackError {
    fn from(e: LabError) -> Self {
        PackError::new(&e.file, e.line.unwrap_or(1), &e.field, e.message)
    }
}

/// The lab id in a lab file's path (`labs/<id>/lab.toml` → `<id>`).
pub(super) fn id_of(rel: &str) -> String {
    rel.split('/').nth(1).unwrap_or_default().to_string()
}

/// Notes lab file `rel` (relative to the pack's folder; `path` as given, at `index` in the
/// pack's files) for [`read`]; a lab past [`MAX_LABS`] is an error and is not read.
pub(super) fn gather(rel: &str, path: &str, index: usize, g: &mut Gathered) {
    let id = id_of(rel);
    let name = rel.rsplit('/').next().unwrap_or_default();
    let Some(slot) = LAB_FILES.iter().position(|f| *f == name) else {
        return; // `classify` lets only the five names through
    };
    if !g.lab_files.contains_key(&id) && g.lab_files.len() >= MAX_LABS {
        if g.recovered_labs.insert(id.clone()) {
            g.errors.push(PackError::new(
                path,
                1,
                "file",
                format!("more than {MAX_LABS} labs in the pack: labs/{id}/ is one too many"),
            ));
        }
        return;
    }
    if let Some(s) = g.lab_files.entry(id).or_default().get_mut(slot) {
        *s = Some(index);
    }
}

/// Parses every lab folder gathered: all five files present, an id of its own that is its
/// folder's name, and `lab.toml` and `scenario.toml` valid. A lab that does not load
/// lends its id to `g.recovered_labs`, so a `lab` block naming it is not a second error.
pub(super) fn read(files: &[(String, String)], listed: &BTreeMap<String, usize>, g: &mut Gathered) {
    let lab_files = std::mem::take(&mut g.lab_files);
    for (id, slots) in &lab_files {
        if g.recovered_labs.contains(id) {
            continue; // one of its files is already reported (missing, unreadable, too big)
        }
        let file = |i: usize| slots.get(i).copied().flatten().and_then(|k| files.get(k));
        let Some(dir) = (0..LAB_FILES.len())
            .find_map(file)
            .and_then(|(path, _)| path.rsplit_once('/'))
            .map(|(dir, _)| dir.to_string())
        else {
            continue;
        };
        if crate::labs::IDS.contains(&id.as_str()) {
            let text = file(0).map_or("", |(_, t)| t.as_str());
            g.errors.push(PackError::new(
                &format!("{dir}/lab.toml"),
                key_line(text, 1, "id").unwrap_or(1),
                "id",
                format!(
                    "`{id}` is a built-in lab's id; a pack's lab needs one of its own (its folder's name; the built-in labs are {}). A `lab` block may show the built-in `{id}` without a copy",
                    crate::labs::IDS.join(", ")
                ),
            ));
            continue;
        }
        let mut texts = [""; LAB_FILES.len()];
        let mut missing = false;
        for (i, name) in LAB_FILES.iter().enumerate() {
            match (file(i), texts.get_mut(i)) {
                (Some((_, text)), Some(t)) => *t = text.as_str(),
                _ => {
                    missing = true;
                    // A listed file that is missing is already reported by the pack file.
                    if !listed.contains_key(&format!("labs/{id}/{name}")) {
                        g.errors.push(PackError::new(
                            &format!("{dir}/{name}"),
                            1,
                            "file",
                            format!(
                                "lab `{id}` has no {name}: a lab's folder holds {}",
                                LAB_FILES.join(", ")
                            ),
                        ));
                    }
                }
            }
        }
        let missing_before = missing;
        // The driver and the solution are code the lab runs: an empty one is a mistake.
        for (i, name) in [(2, "driver.js"), (4, "solution.js")] {
            if !missing_before && texts.get(i).is_some_and(|t| t.trim().is_empty()) {
                missing = true;
                g.errors.push(PackError::new(
                    &format!("{dir}/{name}"),
                    1,
                    "file",
                    format!("lab `{id}`: {name} is empty"),
                ));
            }
        }
        if missing {
            g.recovered_labs.insert(id.clone());
            continue;
        }
        let [lab_toml, scenario_toml, driver, starter, solution] = texts;
        g.parsed += texts.iter().map(|t| t.len()).sum::<usize>();
        let parsed = Lab::parse(&LabSources {
            dir: &dir,
            lab_toml,
            scenario_toml,
            driver,
            starter,
            starters: &[],
            solution,
        });
        match parsed {
            Ok(lab) if lab.id != *id => {
                g.recovered_labs.insert(id.clone());
                g.errors.push(PackError::new(
                    &format!("{dir}/lab.toml"),
                    key_line(lab_toml, 1, "id").unwrap_or(1),
                    "id",
                    format!(
                        "`{}` is not the name of its folder, labs/{id}/: a lab's id is its folder's name",
                        lab.id
                    ),
                ));
            }
            Ok(lab) => g.labs.push(PackLab { dir, lab }),
            Err(e) => {
                g.recovered_labs.insert(id.clone());
                g.errors.push(e.into());
            }
        }
    }
}
