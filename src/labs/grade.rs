//! `lockstep lab grade`: a class's lab files, each run as `lockstep lab run` runs one
//! (its own Node host, no authority, the same seed for every file), in parallel on the
//! machine's cores, reported as a table, CSV, JSON or JUnit XML.
//!
//! A file that does not compile, loops, or attacks its sandbox is a failed file: the
//! grader goes on with the others.

use super::node::NodeHost;
use crate::sim::lab::{self, Lab, LabReport, MAX_SOURCE_BYTES};
use serde::Serialize;
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::Mutex;

/// How `lockstep lab grade` prints its rows.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Format {
    Table,
    Csv,
    Json,
    Junit,
}

impl Format {
    pub fn from_name(s: &str) -> Option<Format> {
        match s {
            "table" => Some(Format::Table),
            "csv" => Some(Format::Csv),
            "json" => Some(Format::Json),
            "junit" => Some(Format::Junit),
            _ => None,
        }
    }
}

/// What `lockstep lab grade` asks for.
pub struct GradeRequest<'a> {
    /// The lab (a built-in one, or a pack's: `lesson::pack_cli::find_lab`).
    pub lab: &'a Lab,
    /// Files, or folders whose `.js`, `.mjs` and `.cjs` files are graded (not recursively).
    pub paths: &'a [String],
    pub seed: u64,
    /// None: the lab's own number of trials.
    pub trials: Option<u32>,
    pub format: Format,
    pub pack: Option<&'a str>,
    /// How many files run at once (each in its own Node host).
    pub jobs: usize,
}

/// One graded file.
#[derive(Clone, Debug, Serialize)]
pub struct Row {
    pub file: String,
    /// `passed`, `failed` (a check broke) or `error` (the code could not be graded).
    pub verdict: &'static str,
    /// The checks that broke.
    pub broken: Vec<String>,
    /// The trial seed that breaks it, and the command that replays it.
    pub trial: Option<u64>,
    pub replay: Option<String>,
    /// Why the code could not be graded (a syntax error, a loop, a stopped host).
    pub error: Option<String>,
    pub trials: u32,
}

/// The files `paths` names, in a stable order: each file as given, each folder's lab
/// files sorted by name.
pub fn files_of(paths: &[String]) -> Result<Vec<PathBuf>, String> {
    let mut out = Vec::new();
    for p in paths {
        let path = Path::new(p);
        if path.is_dir() {
            let mut inside: Vec<PathBuf> = std::fs::read_dir(path)
                .map_err(|e| format!("{p}: {e}"))?
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|f| {
                    f.is_file()
                        && f.extension()
                            .is_some_and(|x| x == "js" || x == "mjs" || x == "cjs")
                })
                .collect();
            crate::sorting::sort(&mut inside);
            out.extend(inside);
        } else if path.is_file() {
            out.push(path.to_path_buf());
        } else {
            return Err(format!("{p}: no such file or folder"));
        }
    }
    if out.is_empty() {
        return Err("no lab files (.js, .mjs, .cjs) to grade".into());
    }
    Ok(out)
}

/// Grades one file: never fails, whatever the file does.
fn grade_file(lab: &Lab, file: &Path, seed: u64, trials: u32, pack: Option<&str>) -> Row {
    let name = file.display().to_string();
    let row = |verdict, error: Option<String>| Row {
        file: name.clone(),
        verdict,
        broken: Vec::new(),
        trial: None,
        replay: None,
        error,
        trials: 0,
    };
    let source = match std::fs::metadata(file) {
        Ok(m) if m.len() > MAX_SOURCE_BYTES as u64 => {
            return row(
                "error",
                Some(format!(
                    "{} bytes; a lab takes at most {MAX_SOURCE_BYTES}",
                    m.len()
                )),
            )
        }
        _ => match std::fs::read_to_string(file) {
            Ok(s) => s,
            Err(e) => return row("error", Some(e.to_string())),
        },
    };
    let report = NodeHost::start()
        .map_err(lab::CodeError::new)
        .and_then(|mut host| {
            lab::init(lab, &mut host, &source)?;
            lab::run_trials(lab, &mut host, seed, trials, |_| {}).map_err(lab::CodeError::new)
        });
    let report = match report {
        Ok(r) => r,
        Err(e) => return row("error", Some(e.to_string())),
    };
    row_of(lab, &name, &report, pack)
}

fn row_of(lab: &Lab, file: &str, r: &LabReport, pack: Option<&str>) -> Row {
    let trial = r.counterexample.as_ref().map(|t| t.seed);
    let pack = pack.map(|p| format!(" --pack {p}")).unwrap_or_default();
    Row {
        file: file.to_string(),
        verdict: match r.exit_code() {
            0 => "passed",
            1 => "failed",
            _ => "error",
        },
        broken: r
            .checks
            .iter()
            .filter(|c| !c.passed)
            .map(|c| c.name.clone())
            .collect(),
        trial,
        replay: trial.map(|t| format!("lockstep lab run{pack} {} {file} --trial {t}", lab.id)),
        error: r.code_error.as_ref().map(ToString::to_string),
        trials: r.trials,
    }
}

/// `lockstep lab grade`: the report and the exit code (0 every file passed, 1 a file
/// failed, 2 the grader could not start: no such lab, no files).
pub fn grade_command(r: &GradeRequest) -> (String, u8) {
    let lab = r.lab;
    let files = match files_of(r.paths) {
        Ok(f) => f,
        Err(e) => return (format!("lockstep lab grade: {e}\n"), 2),
    };
    let trials = r.trials.unwrap_or(lab.trials);
    let rows = grade_all(lab, &files, r.seed, trials, r.pack, r.jobs);
    let code = u8::from(rows.iter().any(|row| row.verdict != "passed"));
    let text = match r.format {
        Format::Table => table(lab, r.seed, trials, &rows),
        Format::Csv => csv(&rows),
        Format::Json => json(lab, r.seed, trials, &rows),
        Format::Junit => junit(lab, r.seed, &rows),
    };
    (text, code)
}

/// Every file graded, `jobs` at a time; rows in the files' order.
fn grade_all(
    lab: &Lab,
    files: &[PathBuf],
    seed: u64,
    trials: u32,
    pack: Option<&str>,
    jobs: usize,
) -> Vec<Row> {
    let next = AtomicUsize::new(0);
    let rows: Mutex<Vec<Option<Row>>> = Mutex::new(vec![None; files.len()]);
    std::thread::scope(|s| {
        for _ in 0..jobs.clamp(1, files.len().max(1)) {
            s.spawn(|| loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(file) = files.get(i) else { break };
                let row = grade_file(lab, file, seed, trials, pack);
                if let Ok(mut all) = rows.lock() {
                    if let Some(slot) = all.get_mut(i) {
                        *slot = Some(row);
                    }
                }
            });
        }
    });
    rows.into_inner()
        .unwrap_or_default()
        .into_iter()
        .flatten()
        .collect()
}

fn table(lab: &Lab, seed: u64, trials: u32, rows: &[Row]) -> String {
    use std::fmt::Write as _;
    let width = rows
        .iter()
        .map(|r| r.file.chars().count())
        .max()
        .unwrap_or(4)
        .max(4);
    let mut s = String::new();
    let _ = writeln!(s, "lab {} · seed {seed} · {trials} trials per file", lab.id);
    let _ = writeln!(s, "{:<width$}  {:<7}  WHAT", "FILE", "VERDICT");
    for r in rows {
        let what = match (r.verdict, &r.error) {
            ("passed", _) => "every check held".to_string(),
            (_, Some(e)) => format!("code failed: {}", one_line(e, 160)),
            _ => format!(
                "broke {}{}",
                r.broken.join(", "),
                r.replay
                    .as_ref()
                    .map(|c| format!(" · replay: {c}"))
                    .unwrap_or_default()
            ),
        };
        let _ = writeln!(s, "{:<width$}  {:<7}  {what}", r.file, r.verdict.to_uppercase());
    }
    let passed = rows.iter().filter(|r| r.verdict == "passed").count();
    let _ = writeln!(s, "{passed} passed, {} failed", rows.len() - passed);
    s
}

/// One line of at most `max` characters (an error text can be long and multi-line).
fn one_line(s: &str, max: usize) -> String {
    let flat: String = s.split_whitespace().collect::<Vec<_>>().join(" ");
    if flat.chars().count() > max {
        format!("{}…", flat.chars().take(max - 1).collect::<String>())
    } else {
        flat
    }
}

/// A CSV field (RFC 4180): quoted when it holds a comma, a quote or a line break.
fn csv_field(s: &str) -> String {
    if s.contains([',', '"', '\n', '\r']) {
        format!("\"{}\"", s.replace('"', "\"\""))
    } else {
        s.to_string()
    }
}

fn csv(rows: &[Row]) -> String {
    let mut s = String::from("file,verdict,broken,trial,replay,error\n");
    for r in rows {
        let fields = [
            r.file.clone(),
            r.verdict.to_string(),
            r.broken.join(" "),
            r.trial.map(|t| t.to_string()).unwrap_or_default(),
            r.replay.clone().unwrap_or_default(),
            r.error.as_deref().map(|e| one_line(e, 2000)).unwrap_or_default(),
        ];
        let line: Vec<String> = fields.iter().map(|f| csv_field(f)).collect();
        s.push_str(&line.join(","));
        s.push('\n');
    }
    s
}

fn json(lab: &Lab, seed: u64, trials: u32, rows: &[Row]) -> String {
    let v = serde_json::json!({ "lab": lab.id, "seed": seed, "trials": trials, "files": rows });
    serde_json::to_string_pretty(&v).unwrap_or_default() + "\n"
}

fn junit(lab: &Lab, seed: u64, rows: &[Row]) -> String {
    use crate::xml::escape as xml;
    use std::fmt::Write as _;
    let failures = rows.iter().filter(|r| r.verdict == "failed").count();
    let errors = rows.iter().filter(|r| r.verdict == "error").count();
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n");
    let _ = writeln!(
        s,
        "<testsuite name=\"lockstep lab {}\" tests=\"{}\" failures=\"{failures}\" errors=\"{errors}\">",
        xml(&lab.id),
        rows.len()
    );
    let _ = writeln!(
        s,
        "  <properties><property name=\"seed\" value=\"{seed}\"/></properties>"
    );
    for r in rows {
        let _ = write!(
            s,
            "  <testcase classname=\"{}\" name=\"{}\"",
            xml(&lab.id),
            xml(&r.file)
        );
        match r.verdict {
            "passed" => s.push_str("/>\n"),
            "failed" => {
                let message = format!("broke {}", r.broken.join(", "));
                let _ = writeln!(
                    s,
                    ">\n    <failure message=\"{}\">{}</failure>\n  </testcase>",
                    xml(&message),
                    xml(r.replay.as_deref().unwrap_or(""))
                );
            }
            _ => {
                let e = r.error.as_deref().unwrap_or("the code could not be graded");
                let _ = writeln!(
                    s,
                    ">\n    <error message=\"{}\">{}</error>\n  </testcase>",
                    xml(&one_line(e, 300)),
                    xml(e)
                );
            }
        }
    }
    s.push_str("</testsuite>\n");
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn csv_quotes_what_needs_it_and_xml_escapes_and_drops_control_characters() {
        assert_eq!(csv_field("plain"), "plain");
        assert_eq!(csv_field("a,b"), "\"a,b\"");
        assert_eq!(csv_field("say \"hi\"\n"), "\"say \"\"hi\"\"\n\"");
        assert_eq!(
            crate::xml::escape("<a href='x'>&\u{1b}[31m</a>"),
            "&lt;a href=&apos;x&apos;&gt;&amp;[31m&lt;/a&gt;"
        );
    }

    #[test]
    fn one_line_flattens_and_cuts() {
        assert_eq!(one_line("a\n  b\tc", 10), "a b c");
        assert_eq!(one_line("abcdefghij", 5), "abcd…");
    }
}
