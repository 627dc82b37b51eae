//! Which scenario a name means (a pack's own, then the built-ins), what the reader calls
//! it, and the broken and fixed scenarios the lesson pairs.

use crate::lesson::content::Lang;
use crate::sim::scenario::builtin;
use std::rc::Rc;

/// Scenarios a lesson pack brings, looked up before the built-ins.
#[derive(Clone, PartialEq, Default)]
pub struct PackScenarios(pub Rc<Vec<crate::sim::scenario::Scenario>>);

/// A scenario by name: the pack's first, then the built-ins.
pub(super) fn find(
    name: &str,
    pack: &Option<PackScenarios>,
) -> Option<Result<crate::sim::scenario::Scenario, String>> {
    if let Some(s) = pack.as_ref().and_then(|p| p.0.iter().find(|s| s.name == name)) {
        return Some(Ok(s.clone()));
    }
    builtin(name).map(|r| r.map_err(|e| e.to_string()))
}

/// What the reader calls scenario `name` (its title in `lang`), found as [`find`] does;
/// its name if there is no such scenario.
pub(crate) fn title_of(name: &str, pack: Option<&PackScenarios>, lang: Lang) -> String {
    match find(name, &pack.cloned()) {
        Some(Ok(s)) => s.title_in(lang.code()).to_string(),
        _ => name.to_string(),
    }
}

/// Broken and fixed versions the lesson pairs; either can be compared with the other.
const PAIRS: [(&str, &str); 5] = [
    ("unsafe-del", "safe-release"),
    ("no-fencing", "fencing"),
    ("failover", "failover-wait"),
    ("redlock-pause-acquire-unchecked", "redlock-pause-acquire"),
    ("double-charge-no-lock", "double-charge-redis-lock"),
];

/// The scenario paired with `name`, if any.
pub fn pair_of(name: &str) -> Option<&'static str> {
    PAIRS.iter().find_map(|(a, b)| {
        if *a == name {
            Some(*b)
        } else if *b == name {
            Some(*a)
        } else {
            None
        }
    })
}
