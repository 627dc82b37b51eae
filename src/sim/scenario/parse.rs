//! Reading a scenario file: its TOML into a [`Scenario`], then checked by the world's
//! rules (`world::validate`), by what the world does not look at (the trade-off TTLs,
//! the `[scripts]`) and by the captions' rules. Every error says where: file, line (found
//! again from the field's path, [`locate`]) and field, as `f.toml:8: clients[0].nodes: …`.

use super::definition::{Scenario, MAX_SCRIPT_BYTES, MAX_SOURCE_BYTES, MAX_SWEEP_TTLS, MAX_TIME_MS};
use std::fmt;

/// A scenario problem a user can act on: where, which field, what is wrong.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScenarioError {
    pub file: String,
    pub line: Option<usize>,
    pub field: String,
    pub message: String,
}

impl fmt::Display for ScenarioError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}", self.file)?;
        if let Some(line) = self.line {
            write!(f, ":{line}")?;
        }
        if !self.field.is_empty() {
            write!(f, ": {}", self.field)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for ScenarioError {}

/// Parse a scenario file. `file` only labels errors.
pub fn parse(file: &str, src: &str) -> Result<Scenario, ScenarioError> {
    if src.len() > MAX_SOURCE_BYTES {
        return Err(ScenarioError {
            file: file.to_string(),
            line: Some(1),
            field: "file".into(),
            message: format!(
                "the scenario is {} bytes; at most {MAX_SOURCE_BYTES} are allowed",
                src.len()
            ),
        });
    }
    let scenario: Scenario = toml::from_str(src).map_err(|e| {
        let p = crate::toml_error::explain(src, &e);
        ScenarioError {
            file: file.to_string(),
            line: p.line,
            field: p.field,
            message: p.message,
        }
    })?;
    let located = |field: String, message: String| ScenarioError {
        line: locate(src, &field),
        file: file.to_string(),
        field,
        message,
    };
    crate::sim::world::validate(&scenario).map_err(|(field, message)| located(field, message))?;
    validate_extras(&scenario).map_err(|(field, message)| located(field, message))?;
    crate::sim::caption::validate(&scenario.captions, &process_names(&scenario))
        .map_err(|(field, message)| located(field, message))?;
    Ok(scenario)
}

/// Every process the scenario names: nodes, clients and the resource.
fn process_names(s: &Scenario) -> Vec<&str> {
    let nodes = s.nodes.iter().map(|n| n.name.as_str());
    let clients = s.clients.iter().map(|c| c.name.as_str());
    nodes
        .chain(clients)
        .chain(std::iter::once(s.resource.name.as_str()))
        .collect()
}

/// What the world does not look at when it is built, checked at load time all the same:
/// the trade-off TTLs (the UI reruns the scenario with each) and the `[scripts]` (each
/// must compile, as `SCRIPT LOAD` would say, and be of a sane size).
fn validate_extras(s: &Scenario) -> Result<(), (String, String)> {
    if s.sweep_ttl_ms.len() > MAX_SWEEP_TTLS {
        return Err((
            "sweep_ttl_ms".into(),
            format!("at most {MAX_SWEEP_TTLS} TTLs (the table reruns the scenario for each)"),
        ));
    }
    if let Some(t) = s
        .sweep_ttl_ms
        .iter()
        .find(|t| !t.is_finite() || **t <= 0.0 || **t > MAX_TIME_MS)
    {
        return Err((
            "sweep_ttl_ms".into(),
            format!("{t} is not a TTL: each must be more than 0 and at most {MAX_TIME_MS} ms"),
        ));
    }
    let defaults = crate::sim::scripts::Scripts::default();
    let sc = &s.scripts;
    for (name, script, default) in [
        ("release", &sc.release, &defaults.release),
        ("extend", &sc.extend, &defaults.extend),
        ("acquire_fenced", &sc.acquire_fenced, &defaults.acquire_fenced),
        ("lib_acquire", &sc.lib_acquire, &defaults.lib_acquire),
        ("lib_extend", &sc.lib_extend, &defaults.lib_extend),
        ("lib_release", &sc.lib_release, &defaults.lib_release),
    ] {
        if script == default {
            continue;
        }
        let field = format!("scripts.{name}");
        if script.trim().is_empty() {
            return Err((field, "the script is empty".into()));
        }
        if script.len() > MAX_SCRIPT_BYTES {
            return Err((
                field,
                format!(
                    "the script is {} bytes; at most {MAX_SCRIPT_BYTES} are allowed",
                    script.len()
                ),
            ));
        }
        let mut store = crate::store::Store::new(0);
        let reply = store.execute(&[b"SCRIPT".to_vec(), b"LOAD".to_vec(), script.as_bytes().to_vec()]);
        if let crate::store::Reply::Error(e) = reply {
            return Err((field, format!("the script does not compile: {e}")));
        }
    }
    Ok(())
}

/// Best-effort line of a field path such as `clients[1].ttl_ms` or `faults[0]`:
/// the n-th `[[clients]]` header, then the first line after it naming the field.
fn locate(src: &str, path: &str) -> Option<usize> {
    let head_end = path.find(['[', '.']).unwrap_or(path.len());
    let (head, rest) = path.split_at(head_end);
    let (index, field) = if let Some(r) = rest.strip_prefix('[') {
        match r.split_once(']') {
            Some((i, f)) => (i.parse::<usize>().ok(), f.trim_start_matches('.')),
            None => (None, ""),
        }
    } else {
        (None, rest.trim_start_matches('.'))
    };
    let field = field.split(['[', '.']).next().unwrap_or("");
    let lines: Vec<&str> = src.lines().collect();
    let mut start = 0;
    if let Some(index) = index {
        let header = format!("[[{head}]]");
        let mut seen = 0;
        let mut found = None;
        for (i, l) in lines.iter().enumerate() {
            if l.trim() == header {
                if seen == index {
                    found = Some(i);
                    break;
                }
                seen += 1;
            }
        }
        start = found?;
    } else if !head.is_empty() {
        let header = format!("[{head}]");
        if let Some(i) = lines.iter().position(|l| l.trim() == header) {
            start = i;
        } else if let Some(i) = lines.iter().position(|l| {
            l.trim_start().starts_with(&format!("{head} ")) || l.trim_start().starts_with(&format!("{head}="))
        }) {
            return Some(i + 1);
        }
    }
    if field.is_empty() {
        return Some(start + 1);
    }
    for (i, l) in lines.iter().enumerate().skip(start + 1) {
        let t = l.trim_start();
        if t.starts_with("[") {
            break;
        }
        if t.starts_with(&format!("{field} ")) || t.starts_with(&format!("{field}=")) {
            return Some(i + 1);
        }
    }
    Some(start + 1)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn syntax_error_names_line() {
        let src = "name = \"x\"\n\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nttl_ms = \"ten\"\n";
        let err = parse("bad.toml", src).err();
        let err = err.map(|e| e.to_string()).unwrap_or_default();
        assert!(err.starts_with("bad.toml:6"), "{err}");
    }

    #[test]
    fn unknown_field_is_named() {
        let src = "name = \"x\"\n[[clients]]\nname = \"A\"\nalgorithm = \"none\"\nttl = 5\n";
        let err = parse("f.toml", src)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.contains("f.toml:5") && err.contains("ttl"), "{err}");
    }

    #[test]
    fn semantic_error_names_line_and_field() {
        let src = "name = \"x\"\n[[nodes]]\nname = \"n1\"\n\n[[clients]]\nname = \"A\"\nalgorithm = \"set-nx\"\nnodes = [\"nope\"]\n";
        let err = parse("f.toml", src)
            .err()
            .map(|e| e.to_string())
            .unwrap_or_default();
        assert!(err.starts_with("f.toml:8: clients[0].nodes"), "{err}");
        assert!(err.contains("nope"), "{err}");
    }
}
