//! Live mode (#36): `lockstep lab run <lab> <file> --redis URL,…` runs the lab's driver and
//! the learner's file on real redis-servers (started here, on free loopback ports), with
//! real node-redis v4 and real time, and grades what really happened with the
//! simulator's checks. Side by side with the simulator, trial by trial (the same seed
//! draws the same attacks and the same workers' seeds):
//!
//! - every lab's reference solution, and every file under `tests/labs/<lab>/pass/`,
//!   passes live in the lab's fixed run and in attacked trials;
//! - every file under `tests/labs/<lab>/fail/` fails live in a trial where it fails in
//!   the simulator, breaking the check its first line names (`// expect: <check>`).
//!
//! Live runs are not deterministic: real latency is not the simulator's (loopback
//! answers in well under a millisecond, the lab's network in 1 to 12), so a race that
//! one simulated trial loses may be won live. A wrong file is therefore tried live in
//! up to [`LIVE_TRIES`] of the trials the simulator breaks it in, and must fail in one.
//! Every try is printed (`cargo test --test lab_live -- --nocapture`).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Simulated trials that break a wrong file, tried live until one breaks it there too.
const LIVE_TRIES: usize = 3;
/// The session seed the simulator's failing trials are drawn from.
const SEED: &str = "2026";

/// redis-servers of our own, stopped when dropped.
struct Servers {
    children: Vec<Child>,
    urls: Vec<String>,
}

impl Servers {
    fn start(n: usize) -> Servers {
        let mut s = Servers {
            children: Vec::new(),
            urls: Vec::new(),
        };
        for _ in 0..n {
            let port = TcpListener::bind("127.0.0.1:0")
                .and_then(|l| l.local_addr())
                .map(|a| a.port())
                .unwrap_or_else(|e| panic!("no free port: {e}"));
            let child = Command::new("redis-server")
                .args(["--port", &port.to_string(), "--bind", "127.0.0.1", "--save", "", "--appendonly", "no"])
                .stdout(Stdio::null())
                .stderr(Stdio::null())
                .spawn()
                .unwrap_or_else(|e| panic!("redis-server (scripts/setup.sh installs it): {e}"));
            s.children.push(child);
            wait_for(port);
            s.urls.push(format!("redis://127.0.0.1:{port}"));
        }
        s
    }

    fn arg(&self, n: usize) -> String {
        self.urls.iter().take(n).cloned().collect::<Vec<_>>().join(",")
    }
}

impl Drop for Servers {
    fn drop(&mut self) {
        for c in &mut self.children {
            let _ = c.kill();
            let _ = c.wait();
        }
    }
}

/// Until the server at `port` answers PING (a bound, not a timing assertion).
fn wait_for(port: u16) {
    let started = Instant::now();
    while started.elapsed() < Duration::from_secs(20) {
        if let Ok(mut c) = TcpStream::connect(("127.0.0.1", port)) {
            let _ = c.set_read_timeout(Some(Duration::from_secs(2)));
            if c.write_all(b"PING\r\n").is_ok() {
                let mut line = String::new();
                if BufReader::new(&c).read_line(&mut line).is_ok() && line.starts_with("+PONG") {
                    return;
                }
            }
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    panic!("redis-server on port {port} did not start");
}

fn root() -> &'static Path {
    Path::new(env!("CARGO_MANIFEST_DIR"))
}

fn files(lab: &str, kind: &str) -> Vec<PathBuf> {
    let dir = root().join("tests/labs").join(lab).join(kind);
    let mut v: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|d| d.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    v.retain(|p| p.extension().is_some_and(|x| x == "js"));
    v.sort();
    v
}

/// Nodes of each lab (its scenario's).
fn nodes(lab: &str) -> usize {
    if lab == "redlock" {
        5
    } else {
        1
    }
}

/// `lockstep lab run … --json`: (exit code, report).
fn run(lab: &str, file: &Path, extra: &[&str]) -> (i32, serde_json::Value) {
    let out = Command::new(env!("CARGO_BIN_EXE_lockstep"))
        .args(["lab", "run", lab])
        .arg(file)
        .args(extra)
        .arg("--json")
        .output()
        .unwrap_or_else(|e| panic!("{e}"));
    let v = serde_json::from_slice(&out.stdout).unwrap_or_else(|e| {
        panic!(
            "{lab} {}: not JSON ({e}): {}{}",
            file.display(),
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        )
    });
    (out.status.code().unwrap_or(-1), v)
}

fn broken(v: &serde_json::Value) -> Vec<String> {
    v["checks"]
        .as_array()
        .map(|cs| {
            cs.iter()
                .filter(|c| c["passed"] == false)
                .filter_map(|c| c["name"].as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default()
}

/// What a report says, in one line.
fn verdict(code: i32, v: &serde_json::Value) -> String {
    match code {
        0 => "passed".into(),
        1 => format!("broken: {}", broken(v).join(", ")),
        _ => format!(
            "not graded: {}",
            v["code_error"]["message"].as_str().unwrap_or("?").chars().take(80).collect::<String>()
        ),
    }
}

/// Trials (seeds) the simulator breaks `file` in: the first of a session from [`SEED`],
/// then the first of a session seeded just past it, and so on.
fn simulated_failures(lab: &str, file: &Path, want: usize) -> Vec<(u64, i32, serde_json::Value)> {
    let mut out = Vec::new();
    let mut seed = SEED.to_string();
    for _ in 0..want {
        let (code, v) = run(lab, file, &["--seed", &seed, "--trials", "200"]);
        let Some(t) = v["counterexample"]["seed"].as_u64() else { break };
        out.push((t, code, v));
        // A session's first trial is its own seed: start the next one past this trial.
        seed = t.wrapping_add(1).to_string();
    }
    out
}

#[test]
fn every_right_file_passes_live_as_in_the_simulator() {
    let servers = Servers::start(5);
    let mut rows = Vec::new();
    for lab in lockstep::labs::IDS {
        let mut sources = vec![root().join("labs").join(lab).join("solution.js")];
        sources.extend(files(lab, "pass"));
        for file in sources {
            let live = servers.arg(nodes(lab));
            // The lab's fixed run, then two attacked trials.
            let trial = lockstep::sim::lab::trial_seed(2026, 1).to_string();
            for extra in [vec![], vec!["--trial", trial.as_str()]] {
                let (sim_code, sim) = run(lab, &file, &extra);
                let mut live_args = extra.clone();
                live_args.extend(["--redis", live.as_str()]);
                let (code, v) = run(lab, &file, &live_args);
                let row = format!(
                    "{lab:<13} {:<44} {:<22} simulated: {:<10} live: {}",
                    file.strip_prefix(root()).unwrap_or(&file).display(),
                    if extra.is_empty() { "fixed run".to_string() } else { format!("trial {trial}") },
                    verdict(sim_code, &sim),
                    verdict(code, &v)
                );
                println!("{row}");
                assert_eq!((sim_code, code), (0, 0), "{row}\n{v}");
                rows.push(row);
            }
        }
    }
    assert!(rows.len() >= 2 * 6, "{rows:?}");
}

#[test]
fn every_wrong_file_fails_live_as_in_the_simulator() {
    let servers = Servers::start(5);
    for lab in lockstep::labs::IDS {
        for file in files(lab, "fail") {
            let text = std::fs::read_to_string(&file).unwrap_or_default();
            let expect = text
                .lines()
                .next()
                .and_then(|l| l.strip_prefix("// expect:"))
                .map(|s| s.trim().to_string())
                .unwrap_or_else(|| panic!("{}: no `// expect:` line", file.display()));
            let shown = file.strip_prefix(root()).unwrap_or(&file).display().to_string();
            let simulated = simulated_failures(lab, &file, LIVE_TRIES);
            assert!(!simulated.is_empty(), "{shown}: the simulator did not break it");
            let mut caught = false;
            for (trial, sim_code, sim) in &simulated {
                let t = trial.to_string();
                let (code, v) = run(lab, &file, &["--trial", &t, "--redis", &servers.arg(nodes(lab))]);
                println!(
                    "{lab:<13} {shown:<52} trial {t:<20} simulated: {:<40} live: {}",
                    verdict(*sim_code, sim),
                    verdict(code, &v)
                );
                let named = if expect == "code_error" {
                    code == 2
                } else {
                    code == 1 && broken(&v).contains(&expect)
                };
                if named {
                    caught = true;
                    break;
                }
            }
            assert!(caught, "{shown}: live, none of {} trials the simulator breaks broke `{expect}`", simulated.len());
        }
    }
}
