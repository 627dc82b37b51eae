//! The differential corpus: command files recorded against a real Redis, replayed through
//! the store's REPL in-process and compared reply by reply (a test with its own `main`,
//! `harness = false`, so the same rules also serve scripts/oracle.sh against a live server).
//!
//! Cases: `tests/oracle/*.txt` (ours) and `tests/oracle/shared/*.txt` (the course's shared
//! sample, recorded from Redis 7.0.15), one command per line in redis-cli syntax (blank
//! lines and `#` comments are not sent), each beside its `.expected`: what
//! `redis-cli --no-raw` printed for the file in one session. Every `.txt` found is run.
//!
//! Rules: exact line for line, except that non-negative TTL/EXPIRETIME replies may differ
//! by 1 and PTTL/PEXPIRETIME by 5, KEYS replies compare as multisets, and redis-cli's
//! `(0.62s)` timing lines are dropped.
//!
//! ```text
//! cargo test --test oracle                         every case, in-process
//! cargo test --test oracle -- NAME...              only the files whose name contains NAME
//! cargo test --test oracle -- --live PORT          the .expected files against redis-cli -p PORT
//! cargo test --test oracle -- --record PORT        rewrite tests/oracle/*.expected from it
//! ```

use std::io::Write;
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode, Stdio};
use std::time::{SystemTime, UNIX_EPOCH};

use lockstep::store::repl::{self, ReplConfig};

/// Where the replies come from.
enum Source {
    /// The store's REPL, in this process, on a fresh store per file.
    InProcess,
    /// `redis-cli --no-raw` against a live server on 127.0.0.1.
    Live(u16),
}

fn main() -> ExitCode {
    if let Err(e) = rules_hold() {
        eprintln!("oracle: the comparison rules are broken: {e}");
        return ExitCode::FAILURE;
    }
    let args: Vec<String> = std::env::args().skip(1).collect();
    let mut source = Source::InProcess;
    let mut record = false;
    let mut filters = Vec::new();
    let mut it = args.iter();
    while let Some(a) = it.next() {
        match a.as_str() {
            "--live" | "--record" => {
                let Some(port) = it.next().and_then(|p| p.parse().ok()) else {
                    eprintln!("oracle: {a} needs a port");
                    return ExitCode::from(2);
                };
                source = Source::Live(port);
                record = a == "--record";
            }
            // libtest's options, which `cargo test` may pass to every test target.
            s if s.starts_with('-') => {}
            s => filters.push(s.to_string()),
        }
    }
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/oracle");
    // Recording rewrites our own cases only: the shared ones are kept as they were given.
    let dirs = if record {
        vec![root.clone()]
    } else {
        vec![root.clone(), root.join("shared")]
    };
    let mut files: Vec<PathBuf> = dirs.iter().flat_map(|d| case_files(d)).collect();
    files.retain(|f| filters.is_empty() || filters.iter().any(|n| f.to_string_lossy().contains(n.as_str())));
    if files.is_empty() && filters.is_empty() {
        eprintln!("oracle: no case files in {}", root.display());
        return ExitCode::FAILURE;
    }
    let (mut passed, mut failed, mut all_ok) = (0usize, 0usize, true);
    for file in &files {
        let name = file.strip_prefix(&root).unwrap_or(file).display().to_string();
        let cmds = match load_commands(file) {
            Ok(c) => c,
            Err(e) => {
                println!("FAIL {name}: {e}");
                all_ok = false;
                continue;
            }
        };
        let input: String = cmds.iter().map(|(_, c)| format!("{c}\n")).collect();
        let output = match &source {
            Source::InProcess => Ok(in_process(&input)),
            Source::Live(port) => redis_cli(*port, &input),
        };
        let output = match output {
            Ok(o) => o,
            Err(e) => {
                println!("FAIL {name}: {e}");
                all_ok = false;
                continue;
            }
        };
        if record {
            all_ok &= write_expected(file, &name, &cmds, &output);
            continue;
        }
        let outcome = check(&name, file, &cmds, &output);
        passed += outcome.0;
        failed += outcome.1;
        all_ok &= outcome.1 == 0;
    }
    if !record {
        println!(
            "oracle: {passed} replies matched, {failed} differed, in {} files",
            files.len()
        );
    }
    if all_ok {
        ExitCode::SUCCESS
    } else {
        ExitCode::FAILURE
    }
}

/// The `.txt` files in `dir`, sorted.
fn case_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .map(|entries| {
            entries
                .filter_map(|e| e.ok().map(|e| e.path()))
                .filter(|p| p.extension().is_some_and(|x| x == "txt"))
                .collect()
        })
        .unwrap_or_default();
    files.sort();
    files
}

/// `(line number, command)` for the lines that are sent.
fn load_commands(path: &Path) -> Result<Vec<(usize, String)>, String> {
    let text = std::fs::read_to_string(path).map_err(|e| format!("cannot read it: {e}"))?;
    Ok(text
        .split('\n')
        .enumerate()
        .map(|(i, l)| (i + 1, l.strip_suffix('\r').unwrap_or(l)))
        .filter(|(_, l)| !l.trim().is_empty() && !l.trim().starts_with('#'))
        .map(|(n, l)| (n, l.to_string()))
        .collect())
}

fn expected_path(case: &Path) -> PathBuf {
    case.with_extension("expected")
}

/// The REPL's output for `input`, its clock starting now (some cases use EXAT/PXAT), as
/// `lockstep repl` does.
fn in_process(input: &str) -> String {
    let start_ms = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map(|d| u64::try_from(d.as_millis()).unwrap_or(u64::MAX))
        .unwrap_or(0);
    let config = ReplConfig {
        interactive: false,
        start_ms,
        seed: 0,
    };
    let mut out = Vec::new();
    repl::run(input.as_bytes(), &mut out, config).expect("writing to a Vec cannot fail");
    String::from_utf8_lossy(&out).into_owned()
}

/// `redis-cli --no-raw` against 127.0.0.1:`port`, `input` on its stdin.
fn redis_cli(port: u16, input: &str) -> Result<String, String> {
    let mut child = Command::new("redis-cli")
        .args(["-h", "127.0.0.1", "-p", &port.to_string(), "--no-raw"])
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .map_err(|e| format!("could not run redis-cli: {e}"))?;
    if let Some(mut stdin) = child.stdin.take() {
        stdin
            .write_all(input.as_bytes())
            .map_err(|e| format!("redis-cli's stdin: {e}"))?;
    }
    let out = child.wait_with_output().map_err(|e| format!("redis-cli: {e}"))?;
    if !out.status.success() {
        return Err(format!("redis-cli exited with {}", out.status));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

/// redis-cli's `(0.62s)` line after a command that took half a second or more.
fn is_timing(line: &str) -> bool {
    line.strip_prefix('(')
        .and_then(|l| l.strip_suffix("s)"))
        .and_then(|l| l.split_once('.'))
        .is_some_and(|(a, b)| {
            !a.is_empty()
                && a.bytes().all(|c| c.is_ascii_digit())
                && b.len() == 2
                && b.bytes().all(|c| c.is_ascii_digit())
        })
}

/// Output lines, without the newline that ends the last reply.
fn lines(text: &str) -> Vec<&str> {
    let mut lines: Vec<&str> = text.split('\n').collect();
    if lines.last() == Some(&"") {
        lines.pop();
    }
    lines
}

/// An array element line `N) ...` (N > 0, possibly indented): the text after the prefix.
fn element(line: &str) -> Option<&str> {
    let trimmed = line.trim_start_matches(' ');
    let digits = trimmed.bytes().take_while(u8::is_ascii_digit).count();
    if digits == 0 {
        return None;
    }
    trimmed.get(digits..)?.strip_prefix(") ")
}

/// Splits redis-cli output into replies (lists of lines). A line starts a new reply unless
/// it continues an array: an indented line, or an `N) ` line with N > 1. The first element
/// of any array (`1) `, padded when it has 10 or more) always starts a reply, since a nested
/// array prints its first element on its parent's line.
fn split_replies(text: &str) -> Vec<Vec<String>> {
    let mut replies: Vec<Vec<String>> = Vec::new();
    for line in lines(text) {
        if is_timing(line) {
            continue;
        }
        let first_element = line.trim_start_matches(' ').starts_with("1) ");
        let continues = !first_element && (line.starts_with(' ') || element(line).is_some());
        match replies.last_mut() {
            Some(reply) if continues => reply.push(line.to_string()),
            _ => replies.push(vec![line.to_string()]),
        }
    }
    replies
}

fn command_name(cmd: &str) -> String {
    cmd.split_whitespace()
        .next()
        .unwrap_or("")
        .trim_matches(|c| c == '"' || c == '\'')
        .to_ascii_uppercase()
}

fn integer(reply: &[String]) -> Option<i64> {
    match reply {
        [line] => line.strip_prefix("(integer) ")?.parse().ok(),
        _ => None,
    }
}

/// A KEYS reply's elements, sorted (`None` if it is not an array of elements).
fn sorted_elements(reply: &[String]) -> Option<Vec<&str>> {
    if reply == ["(empty array)"] {
        return Some(Vec::new());
    }
    let mut out: Vec<&str> = reply.iter().map(|l| element(l)).collect::<Option<_>>()?;
    out.sort_unstable();
    Some(out)
}

fn replies_match(cmd: &str, expected: &[String], got: &[String]) -> bool {
    if expected == got {
        return true;
    }
    let name = command_name(cmd);
    let tolerance = match name.as_str() {
        "TTL" | "EXPIRETIME" => Some(1),
        "PTTL" | "PEXPIRETIME" => Some(5),
        _ => None,
    };
    if let Some(tolerance) = tolerance {
        // -1 (no expiry) and -2 (no key) must match exactly.
        return match (integer(expected), integer(got)) {
            (Some(e), Some(g)) => e >= 0 && g >= 0 && e.abs_diff(g) <= tolerance,
            _ => false,
        };
    }
    if name == "KEYS" {
        return sorted_elements(expected).is_some_and(|e| Some(e) == sorted_elements(got));
    }
    false
}

fn show(reply: Option<&Vec<String>>) -> String {
    match reply {
        None => "    <no reply>".to_string(),
        Some(r) => r
            .iter()
            .map(|l| format!("    |{l}|"))
            .collect::<Vec<_>>()
            .join("\n"),
    }
}

/// Compares `output` with the file's `.expected`; prints PASS/FAIL and every difference.
/// Returns (replies matched, replies differing).
fn check(name: &str, case: &Path, cmds: &[(usize, String)], output: &str) -> (usize, usize) {
    let expected = match std::fs::read_to_string(expected_path(case)) {
        Ok(e) => split_replies(&e),
        Err(e) => {
            println!("FAIL {name}: cannot read its .expected: {e}");
            return (0, cmds.len().max(1));
        }
    };
    if expected.len() != cmds.len() {
        println!(
            "FAIL {name}: .expected has {} replies for {} commands (corrupt case?)",
            expected.len(),
            cmds.len()
        );
        return (0, cmds.len().max(1));
    }
    let got = split_replies(output);
    let (mut passed, mut failed) = (0, 0);
    let mut report = String::new();
    for (i, ((line, cmd), exp)) in cmds.iter().zip(&expected).enumerate() {
        let g = got.get(i);
        if g.is_some_and(|g| replies_match(cmd, exp, g)) {
            passed += 1;
        } else {
            failed += 1;
            report.push_str(&format!(
                "  {name} line {line}: {cmd}\n  expected:\n{}\n  got:\n{}\n",
                show(Some(exp)),
                show(g)
            ));
        }
    }
    if let Some(extra) = got.get(cmds.len()..).filter(|e| !e.is_empty()) {
        failed += 1;
        report.push_str(&format!(
            "  unexpected output after the last reply:\n{}\n",
            show(extra.first())
        ));
    }
    let status = if failed == 0 { "PASS" } else { "FAIL" };
    println!("{status} {name} ({passed}/{})", cmds.len());
    print!("{report}");
    (passed, failed)
}

/// Writes `output` (timing lines dropped) as the case's `.expected`, if it holds one reply
/// per command.
fn write_expected(case: &Path, name: &str, cmds: &[(usize, String)], output: &str) -> bool {
    let text: String = lines(output)
        .into_iter()
        .filter(|l| !is_timing(l))
        .map(|l| format!("{l}\n"))
        .collect();
    let n = split_replies(&text).len();
    if n != cmds.len() {
        println!(
            "ERROR {name}: {n} replies for {} commands; not written",
            cmds.len()
        );
        return false;
    }
    match std::fs::write(expected_path(case), text) {
        Ok(()) => {
            println!("wrote {name} .expected ({} commands)", cmds.len());
            true
        }
        Err(e) => {
            println!("ERROR {name}: {e}");
            false
        }
    }
}

/// The comparison rules on replies they must accept and refuse (run before the cases, so a
/// broken rule cannot pass everything).
fn rules_hold() -> Result<(), String> {
    let r = |lines: &[&str]| lines.iter().map(|l| l.to_string()).collect::<Vec<_>>();
    let cases: &[(&str, &[&str], &[&str], bool)] = &[
        ("TTL k", &["(integer) 10"], &["(integer) 9"], true),
        ("TTL k", &["(integer) 10"], &["(integer) 8"], false),
        ("TTL k", &["(integer) -1"], &["(integer) 0"], false),
        ("pttl k", &["(integer) 1000"], &["(integer) 995"], true),
        ("PTTL k", &["(integer) 1000"], &["(integer) 994"], false),
        ("GET k", &["(integer) 10"], &["(integer) 9"], false),
        (
            "KEYS *",
            &["1) \"a\"", "2) \"b\""],
            &["1) \"b\"", "2) \"a\""],
            true,
        ),
        (
            "KEYS *",
            &["1) \"a\"", "2) \"b\""],
            &["1) \"a\"", "2) \"a\""],
            false,
        ),
        (
            "LRANGE l 0 -1",
            &["1) \"a\"", "2) \"b\""],
            &["1) \"b\"", "2) \"a\""],
            false,
        ),
    ];
    for (cmd, e, g, want) in cases {
        if replies_match(cmd, &r(e), &r(g)) != *want {
            return Err(format!("{cmd}: {e:?} vs {g:?} should match: {want}"));
        }
    }
    let split =
        split_replies("OK\n(0.62s)\n1) \"a\"\n2) 1) \"b\"\n   2) \"c\"\n(nil)\n 1) \"x\"\n 2) \"y\"\n");
    let want = vec![
        r(&["OK"]),
        r(&["1) \"a\"", "2) 1) \"b\"", "   2) \"c\""]),
        r(&["(nil)"]),
        r(&[" 1) \"x\"", " 2) \"y\""]),
    ];
    if split != want {
        return Err(format!("split_replies gave {split:?}"));
    }
    Ok(())
}
