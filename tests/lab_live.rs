//! Live mode (#36): `lockstep lab run <lab> <file> --redis URL,…` runs the lab's driver and
//! the learner's file on real redis-servers (started here, on free loopback ports), with
//! real node-redis v4 and real time, and grades what really happened with the
//! simulator's checks. Side by side with the simulator, trial by trial (the same seed
//! draws the same attacks and the same workers' seeds):
//!
//! - every lab's reference solution, and every file under `tests/labs/<lab>/pass/`,
//!   passes live in the lab's fixed run and in attacked trials;
//! - every file under `tests/labs/<lab>/fail/` fails live in a run where it fails in
//!   the simulator, breaking the check its first line names (`// expect: <check>`): the
//!   lab's fixed run when the simulator breaks that check there, else attacked trials.
//!
//! Live runs are not deterministic: real latency is not the simulator's (loopback
//! answers in well under a millisecond, the lab's network in 1 to 12), so a race that
//! one simulated trial loses may be won live (the host adds the lab's network latency,
//! but not its exact draws). A wrong file is therefore tried live in up to
//! [`LIVE_TRIES`] of the trials the simulator breaks it in, and must fail in one.
//! Every try is printed (`cargo test --test lab_live -- --nocapture`).

use std::io::{BufRead, BufReader, Write};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

/// Simulated trials that break a wrong file the way it names, tried live until one breaks
/// it there too.
/// `incr-after-set.js` once passed 6 such trials live on a busy machine (its stall raced
/// real time by 16 ms); its lab's fixed run, tried first, wins by about 170 ms.
const LIVE_TRIES: usize = 6;
/// How many of the simulator's failing trials a wrong file's live check looks through for
/// those that break the check it names.
const MAX_SIMULATED: usize = 40;
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
                .args([
                    "--port",
                    &port.to_string(),
                    "--bind",
                    "127.0.0.1",
                    "--save",
                    "",
                    "--appendonly",
                    "no",
                ])
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
    // (`kind` "" lists the folder itself: the attacks.)
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
            v["code_error"]["message"]
                .as_str()
                .unwrap_or("?")
                .chars()
                .take(80)
                .collect::<String>()
        ),
    }
}

/// The next trial the simulator breaks `file` in, after a session from `seed`: its seed
/// (`None`: the file cannot be graded at all, so no trial runs), exit code and report.
/// The next session starts from this trial's seed, and so draws other trials.
fn simulated_failure(lab: &str, file: &Path, seed: &str) -> Option<(Option<u64>, i32, serde_json::Value)> {
    let (code, v) = run(lab, file, &["--seed", seed, "--trials", "200"]);
    match v["counterexample"]["seed"].as_u64() {
        Some(t) => Some((Some(t), code, v)),
        None if code == 2 => Some((None, code, v)),
        None => None,
    }
}

/// Threads, each with five servers of its own, that share the files to check.
const THREADS: usize = 6;

/// Runs `check(lab, file, servers)` for each (lab, file), [`THREADS`] at a time, each
/// thread on servers of its own: a live trial mostly waits (real time), so the files
/// share the machine well. The rows, in the order of `work`.
fn for_each_file(
    work: Vec<(&'static str, PathBuf)>,
    check: fn(&str, &Path, &Servers) -> Vec<String>,
) -> Vec<String> {
    let queue = std::sync::Mutex::new(work.into_iter().enumerate().collect::<Vec<_>>());
    let done = std::sync::Mutex::new(Vec::new());
    let failures = std::sync::Mutex::new(Vec::new());
    std::thread::scope(|scope| {
        for _ in 0..THREADS {
            scope.spawn(|| {
                let servers = Servers::start(5);
                loop {
                    let next = queue.lock().map(|mut q| q.pop()).unwrap_or(None);
                    let Some((i, (lab, file))) = next else { break };
                    let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                        check(lab, &file, &servers)
                    }));
                    match result {
                        Ok(rows) => done.lock().map(|mut d| d.push((i, rows))).unwrap_or(()),
                        Err(e) => failures
                            .lock()
                            .map(|mut f| {
                                f.push(
                                    e.downcast_ref::<String>()
                                        .cloned()
                                        .or_else(|| e.downcast_ref::<&str>().map(|s| s.to_string()))
                                        .unwrap_or_default(),
                                )
                            })
                            .unwrap_or(()),
                    }
                }
            });
        }
    });
    let mut done = done.into_inner().unwrap_or_default();
    done.sort_by_key(|(i, _)| *i);
    let rows: Vec<String> = done.into_iter().flat_map(|(_, r)| r).collect();
    for r in &rows {
        println!("{r}");
    }
    let failures = failures.into_inner().unwrap_or_default();
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    rows
}

fn shown(file: &Path) -> String {
    file.strip_prefix(root()).unwrap_or(file).display().to_string()
}

#[test]
fn every_right_file_passes_live_as_in_the_simulator() {
    let mut work = Vec::new();
    for lab in lockstep::labs::IDS {
        work.push((lab, root().join("labs").join(lab).join("solution.js")));
        work.extend(files(lab, "pass").into_iter().map(|f| (lab, f)));
    }
    let rows = for_each_file(work, |lab, file, servers| {
        let live = servers.arg(nodes(lab));
        let trial = lockstep::sim::lab::trial_seed(2026, 1).to_string();
        let mut rows = Vec::new();
        // The lab's fixed run, then an attacked trial.
        for extra in [vec![], vec!["--trial", trial.as_str()]] {
            let (sim_code, sim) = run(lab, file, &extra);
            let mut live_args = extra.clone();
            live_args.extend(["--redis", live.as_str()]);
            let (code, v) = run(lab, file, &live_args);
            let row = format!(
                "{lab:<13} {:<50} {:<26} simulated: {:<8} live: {}",
                shown(file),
                if extra.is_empty() {
                    "fixed run".to_string()
                } else {
                    format!("trial {trial}")
                },
                verdict(sim_code, &sim),
                verdict(code, &v)
            );
            assert_eq!((sim_code, code), (0, 0), "{row}\n{v}");
            rows.push(row);
        }
        rows
    });
    // Six solutions and the pass/ files, each twice.
    assert!(rows.len() >= 2 * (6 + 10), "{rows:?}");
}

#[test]
fn every_wrong_file_fails_live_as_in_the_simulator() {
    let mut work = Vec::new();
    for lab in lockstep::labs::IDS {
        work.extend(files(lab, "fail").into_iter().map(|f| (lab, f)));
    }
    let rows = for_each_file(work, |lab, file, servers| {
        let text = std::fs::read_to_string(file).unwrap_or_default();
        let expect = text
            .lines()
            .next()
            .and_then(|l| l.strip_prefix("// expect:"))
            .map(|s| s.trim().to_string())
            .unwrap_or_else(|| panic!("{}: no `// expect:` line", file.display()));
        let mut rows = Vec::new();
        let caught = |code: i32, v: &serde_json::Value| {
            if expect == "code_error" {
                code == 2
            } else {
                code == 1 && broken(v).contains(&expect)
            }
        };
        let live = servers.arg(nodes(lab));
        // One line per run tried: the simulator's verdict and the live one.
        let row = |label: &str,
                   (sim_code, sim): (i32, &serde_json::Value),
                   (code, v): (i32, &serde_json::Value)| {
            format!(
                "{lab:<13} {:<50} {label:<26} simulated: {:<40} live: {}",
                shown(file),
                verdict(sim_code, sim),
                verdict(code, v)
            )
        };
        // First the lab's fixed run, when the simulator breaks the named check there: its
        // author set it to show the failure with a wide margin (fencing's 700 ms stall
        // before the second command), so real time on a busy machine wins the same race.
        let (sim_code, sim) = run(lab, file, &[]);
        if caught(sim_code, &sim) {
            let (code, v) = run(lab, file, &["--redis", live.as_str()]);
            rows.push(row("fixed run", (sim_code, &sim), (code, &v)));
            if caught(code, &v) {
                return rows;
            }
        }
        let mut seed = SEED.to_string();
        let mut tried = 0;
        for _ in 0..MAX_SIMULATED {
            let Some((trial, sim_code, sim)) = simulated_failure(lab, file, &seed) else {
                panic!(
                    "{}: the simulator did not break it in 200 trials from seed {seed}",
                    shown(file)
                );
            };
            let t = trial.map(|t| t.to_string());
            // Only a trial the simulator breaks the way the file names is tried live: one
            // where only another check broke says nothing of this one.
            let named = expect == "code_error" || broken(&sim).contains(&expect);
            match (&t, named) {
                (_, true) => tried += 1,
                (Some(t), false) => {
                    seed = t.clone();
                    continue;
                }
                (None, false) => break,
            }
            let mut args = vec!["--redis".to_string(), live.clone()];
            if let Some(t) = &t {
                args.extend(["--trial".to_string(), t.clone()]);
            }
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            let (code, v) = run(lab, file, &args);
            let label = t
                .as_ref()
                .map_or("fixed run".to_string(), |t| format!("trial {t}"));
            rows.push(row(&label, (sim_code, &sim), (code, &v)));
            match (caught(code, &v), t) {
                (true, _) => return rows,
                (false, Some(t)) if tried < LIVE_TRIES => seed = t,
                _ => break,
            }
        }
        panic!(
            "{}: live, none of {tried} trials the simulator breaks `{expect}` in broke it:\n{}",
            shown(file),
            rows.join("\n")
        );
    });
    assert!(rows.len() >= 28, "{rows:?}");
}

/// The attack suite (`tests/labs/attacks/`) in live mode, where the host also reads
/// `live/` and talks to real servers: no attack writes its canary file, every report is
/// a grade, and no faked grade passes. (A trick that fails leaves a plain-DEL solution,
/// which a live run, unlike the simulator's, may not catch in one run: a faked grade is
/// tried in up to [`LIVE_TRIES`] of the trials the simulator breaks it in, as a wrong
/// file is.)
#[test]
fn no_attack_escapes_its_lab_in_live_mode() {
    let dir = std::env::temp_dir().join(format!("lockstep-live-attacks-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap_or_else(|e| panic!("{}: {e}", dir.display()));
    let mut work = Vec::new();
    for f in files("attacks", "") {
        let text = std::fs::read_to_string(&f).unwrap_or_default();
        let lab = text
            .lines()
            .find_map(|l| l.strip_prefix("// lab:"))
            .map(|l| l.trim().to_string())
            .unwrap_or_else(|| panic!("{}: no `// lab:` line", f.display()));
        let name = f
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let canary = dir.join(format!("{name}.canary"));
        let file = dir.join(format!("{name}.js"));
        std::fs::write(&file, text.replace("__CANARY__", &canary.to_string_lossy()))
            .unwrap_or_else(|e| panic!("{}: {e}", file.display()));
        let lab: &'static str = lockstep::labs::IDS
            .iter()
            .find(|id| **id == lab)
            .unwrap_or_else(|| panic!("{name}: no lab `{lab}`"));
        work.push((lab, file));
    }
    assert!(work.len() >= 15, "the suite has {} attacks", work.len());
    let rows = for_each_file(work, |lab, file, servers| {
        let name = file
            .file_stem()
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default();
        let canary = file.with_extension("canary");
        let live = servers.arg(nodes(lab));
        // A faked grade fails by the checks once its trick fails, which leaves a plain-DEL
        // release: a live run catches that by real timing. As for the wrong files, it is
        // tried in up to LIVE_TRIES of the trials the simulator breaks it in.
        // The lab's fixed run first: its failure has the widest margin.
        let mut tries: Vec<Vec<String>> = vec![Vec::new()];
        if name.starts_with("fake-") {
            let mut seed = SEED.to_string();
            for _ in 0..LIVE_TRIES {
                match simulated_failure(lab, file, &seed) {
                    Some((Some(t), ..)) => {
                        tries.push(vec!["--trial".into(), t.to_string()]);
                        seed = t.to_string();
                    }
                    _ => break,
                }
            }
        }
        let mut rows = Vec::new();
        for extra in tries {
            let mut args: Vec<&str> = extra.iter().map(String::as_str).collect();
            args.extend(["--redis", live.as_str()]);
            let (code, v) = run(lab, file, &args);
            assert!(
                !canary.exists(),
                "{name}: live, the attack wrote {}",
                canary.display()
            );
            assert!(matches!(code, 0..=2) && v.is_object(), "{name}: not graded: {v}");
            rows.push(format!("{lab:<13} {name:<28} live: {}", verdict(code, &v)));
            if code != 0 || !name.starts_with("fake-") {
                return rows;
            }
        }
        panic!(
            "{name}: a faked grade passed {} live runs:\n{}",
            rows.len(),
            rows.join("\n")
        );
    });
    let _ = std::fs::remove_dir_all(&dir);
    assert!(rows.len() >= 15, "{rows:?}");
}
