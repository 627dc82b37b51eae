//! The built-in labs, and (natively) the Node.js host that runs a learner's file
//! (`lockstep lab run`, the native tests). The browser runs the same harness in a
//! sandboxed worker (`ui::lab`); the simulator side of both is [`crate::sim::lab`].
//!
//! The page carries each lab's `lab.toml`, scenario and starter (they are what the
//! section shows); the harness, the driver and the reference solution are fetched from
//! `labs/` when the learner first runs something or asks for the solution.
//!
//! The Node host is the one place a lab touches the clock of the machine: a watchdog
//! that stops an answer working longer than [`ANSWER_LIMIT`] of CPU time (an infinite
//! loop). It never feeds a simulated figure.

use crate::sim::lab::{Lab, LabSources};

/// The built-in labs' ids, in lesson order.
pub const IDS: [&str; 6] = [
    "set-nx",
    "safe-release",
    "watchdog",
    "redlock",
    "fencing",
    "idempotency",
];

/// What a section shows of each lab: (id, lab.toml, scenario.toml, starter.js,
/// starter.nb.js or ""), in the lesson's text (`build.rs`, `crate::text`).
mod files {
    use crate::text::Txt;
    include!(concat!(env!("OUT_DIR"), "/lab_files.rs"));
}

/// The shown files of lab `id`: lab.toml, scenario.toml, starter.js, starter.nb.js ("").
fn shown_files(id: &str) -> Option<(&'static str, &'static str, &'static str, &'static str)> {
    let (_, lab, scenario, starter, starter_nb) = files::SHOWN.iter().find(|s| s.0 == id)?;
    Some((lab.get(), scenario.get(), starter.get(), starter_nb.get()))
}

/// A built-in lab as the page knows it: without its driver and solution (see
/// [`Lab::driver`]; the browser fetches them). Read from its compiled form, which `make
/// builtins` wrote from [`shown_checked`] (`src/builtins.wire`: no TOML parser, no
/// validation at run time); tests hold the two equal.
pub fn shown(id: &str) -> Option<Result<Lab, String>> {
    let (_, text) = crate::sim::scenario::compiled::LABS
        .iter()
        .find(|(n, _)| *n == id)?;
    let (lab_toml, scenario_toml, starter, starter_nb) = shown_files(id)?;
    Some(
        crate::wire::from_byte_text::<Lab>(text.get())
            .map(|mut lab| {
                // Compiled without its files' texts, which the lesson's text holds once.
                lab.texts.lab_toml = lab_toml.to_string();
                lab.texts.scenario_toml = scenario_toml.to_string();
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

/// Like [`shown`], reading and validating the lab's TOML files as any lab's are.
pub fn shown_checked(id: &str) -> Option<Result<Lab, String>> {
    with_sources(id, Lab::parse)
}

fn with_sources(
    id: &str,
    read: impl FnOnce(&LabSources) -> Result<Lab, crate::sim::lab::LabError>,
) -> Option<Result<Lab, String>> {
    let (lab_toml, scenario_toml, starter, starter_nb) = shown_files(id)?;
    let dir = format!("labs/{id}");
    Some(
        read(&LabSources {
            dir: &dir,
            lab_toml,
            scenario_toml,
            driver: "",
            starter,
            starters: &[("nb", starter_nb)],
            solution: "",
        })
        .map_err(|e| e.to_string()),
    )
}

#[cfg(not(target_arch = "wasm32"))]
pub use node::*;

/// `lockstep lab grade`: a class's files, graded in parallel.
#[cfg(not(target_arch = "wasm32"))]
pub mod grade;
#[cfg(not(target_arch = "wasm32"))]
pub mod live;

#[cfg(not(target_arch = "wasm32"))]
mod node {
    use super::*;
    use crate::sim::lab::{CodeError, Host};
    use std::io::{BufRead, BufReader, Read as _, Write};
    use std::process::{Child, ChildStdin, Command, Stdio};
    use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
    use std::time::{Duration, Instant};

    /// The harness every host runs.
    pub const HARNESS: &str = include_str!("../labs/harness.js");
    /// The Node.js host around it.
    pub const NODE_HOST: &str = include_str!("../labs/node-host.mjs");
    /// The browser host (the sandboxed iframe's document).
    pub const SANDBOX_HTML: &str = include_str!("../labs/sandbox.html");

    /// The learner's code may work this long (CPU time of the host's main thread) for one
    /// answer: past it the host is stopped as an infinite loop. CPU time, not wall time,
    /// so a busy machine never calls honest code a loop.
    pub const ANSWER_LIMIT: Duration = Duration::from_secs(5);
    /// A host that neither answers nor works for this long waits on something that never
    /// comes (`Atomics.wait`): it is stopped too.
    pub const ANSWER_WALL_LIMIT: Duration = Duration::from_secs(60);
    /// The longest answer line read from the host; past it the host is stopped.
    pub const MAX_ANSWER_BYTES: usize = 16 << 20;
    /// All the memory the host may map (`ulimit -d`, in KiB): V8's heap and the
    /// `ArrayBuffer`s outside it together.
    const MEMORY_LIMIT_KIB: u64 = 1 << 20;
    /// V8's own heap cap, inside [`MEMORY_LIMIT_KIB`].
    const HEAP_LIMIT_MIB: u32 = 384;

    macro_rules! lab_sources {
        ($id:literal) => {
            LabSources {
                dir: concat!("labs/", $id),
                lab_toml: include_str!(concat!("../labs/", $id, "/lab.toml")),
                scenario_toml: include_str!(concat!("../labs/", $id, "/scenario.toml")),
                driver: include_str!(concat!("../labs/", $id, "/driver.js")),
                starter: include_str!(concat!("../labs/", $id, "/starter.js")),
                starters: &[(
                    "nb",
                    include_str!(concat!("../labs/", $id, "/starter.nb.js")),
                )],
                solution: include_str!(concat!("../labs/", $id, "/solution.js")),
            }
        };
    }

    /// The built-in labs' sources, in lesson order (the same as [`IDS`]).
    pub fn builtin_sources() -> Vec<LabSources<'static>> {
        vec![
            lab_sources!("set-nx"),
            lab_sources!("safe-release"),
            lab_sources!("watchdog"),
            lab_sources!("redlock"),
            lab_sources!("fencing"),
            lab_sources!("idempotency"),
        ]
    }

    /// Every built-in lab, parsed (a mistake in one is an error naming its file).
    pub fn builtin() -> Result<Vec<Lab>, String> {
        builtin_sources()
            .iter()
            .map(|s| Lab::parse(s).map_err(|e| e.to_string()))
            .collect()
    }

    /// One built-in lab by id.
    pub fn find(id: &str) -> Result<Lab, String> {
        let labs = builtin()?;
        let ids: Vec<String> = labs.iter().map(|l| l.id.clone()).collect();
        labs.into_iter()
            .find(|l| l.id == id)
            .ok_or_else(|| format!("no lab is called `{id}`; the labs are: {}", ids.join(", ")))
    }

    /// The harness running in Node.js, spoken to in JSON lines.
    pub struct NodeHost {
        child: Child,
        stdin: Option<ChildStdin>,
        lines: Receiver<Result<String, String>>,
    }

    /// Node's flag for its permission model: `--permission` from 22.13 (and 23.5),
    /// `--experimental-permission` from 20; an older Node.js cannot hold a stranger's code.
    fn permission_flag() -> Result<&'static str, String> {
        static FLAG: std::sync::OnceLock<Result<&'static str, String>> = std::sync::OnceLock::new();
        FLAG.get_or_init(|| {
            let out = Command::new("node")
                .arg("--version")
                .output()
                .map_err(|e| format!("could not start Node.js (`node`): {e}. `make setup` installs it."))?;
            let version = String::from_utf8_lossy(&out.stdout).trim().to_string();
            let mut parts = version.trim_start_matches('v').split('.').map(|p| p.parse::<u32>().unwrap_or(0));
            let (major, minor) = (parts.next().unwrap_or(0), parts.next().unwrap_or(0));
            match (major, minor) {
                (m, _) if m >= 23 => Ok("--permission"),
                (22, n) if n >= 13 => Ok("--permission"),
                (m, _) if m >= 20 => Ok("--experimental-permission"),
                _ => Err(format!(
                    "Node.js {version} has no permission model, so a lab's code could reach this machine: labs need Node.js 20 or later"
                )),
            }
        })
        .clone()
    }

    /// Main-thread CPU time of process `pid` (Linux: /proc/PID/schedstat, in ns).
    fn cpu_time(pid: u32) -> Option<Duration> {
        let text = std::fs::read_to_string(format!("/proc/{pid}/schedstat")).ok()?;
        let ns: u64 = text.split_whitespace().next()?.parse().ok()?;
        Some(Duration::from_nanos(ns))
    }

    /// The host died (out of memory, or killed).
    fn host_stopped() -> CodeError {
        CodeError::coded(
            "the JavaScript host stopped (out of memory, or killed)",
            "host_stopped",
            &[],
        )
    }

    /// Reads answer lines of at most [`MAX_ANSWER_BYTES`]; a longer one is an error, and
    /// the last thing sent.
    fn read_lines(stdout: impl std::io::Read, tx: Sender<Result<String, String>>) {
        let mut reader = BufReader::new(stdout);
        loop {
            let mut buf = Vec::new();
            let limit = MAX_ANSWER_BYTES as u64 + 1;
            match (&mut reader).take(limit).read_until(b'\n', &mut buf) {
                Ok(0) | Err(_) => return,
                Ok(_) if buf.last() == Some(&b'\n') => {
                    buf.pop();
                    if tx.send(Ok(String::from_utf8_lossy(&buf).into_owned())).is_err() {
                        return;
                    }
                }
                Ok(_) if buf.len() > MAX_ANSWER_BYTES => {
                    let _ = tx.send(Err(format!(
                        "your code sent more than {} MiB in one go",
                        MAX_ANSWER_BYTES >> 20
                    )));
                    return;
                }
                Ok(_) => return, // the host ended mid-line
            }
        }
    }

    impl NodeHost {
        /// Start `node` on the harness (Node.js ≥ 20 must be on PATH; `make setup`
        /// installs it) as a process with no authority: Node's permission model grants
        /// it no file, child process, worker or addon; it compiles no code from strings
        /// outside the lab's realms; its memory, heap and `ArrayBuffer`s included, is
        /// capped; and it reads no file of ours (the host and the harness come as
        /// arguments), so nothing is written to a temporary folder.
        pub fn start() -> Result<NodeHost, String> {
            NodeHost::start_in(None)
        }

        /// The same host in live mode (`lockstep lab run … --redis`): it may also read
        /// `live_dir` (`live/`: its trial runner and node-redis, nothing else), and
        /// runs `live` messages against real servers (`live/live.mjs`).
        pub fn start_live(live_dir: &std::path::Path) -> Result<NodeHost, String> {
            NodeHost::start_in(Some(live_dir))
        }

        fn start_in(live_dir: Option<&std::path::Path>) -> Result<NodeHost, String> {
            let permission = permission_flag()?;
            let mut node_args: Vec<String> = vec![permission.to_string()];
            if let Some(dir) = live_dir {
                node_args.push(format!("--allow-fs-read={}/*", dir.display()));
            }
            let mut tail: Vec<String> = Vec::new();
            if let Some(dir) = live_dir {
                tail.push("live".into());
                tail.push(dir.display().to_string());
            }
            let mut child = Command::new("sh")
                .arg("-c")
                .arg(r#"ulimit -d "$1" && shift && exec "$@""#)
                .arg("sh")
                .arg(MEMORY_LIMIT_KIB.to_string())
                .arg("node")
                .args(&node_args)
                .arg("--disallow-code-generation-from-strings")
                .arg(format!("--max-old-space-size={HEAP_LIMIT_MIB}"))
                .arg("--no-warnings")
                .arg("--input-type=module")
                .arg("-e")
                .arg(NODE_HOST)
                .arg("--")
                .arg(HARNESS)
                .args(&tail)
                .stdin(Stdio::piped())
                .stdout(Stdio::piped())
                .stderr(Stdio::null())
                .spawn()
                .map_err(|e| format!("could not start Node.js (`node`): {e}. `make setup` installs it."))?;
            let stdout = child.stdout.take().ok_or("Node.js gave no stdout")?;
            let (tx, rx) = channel();
            std::thread::spawn(move || read_lines(stdout, tx));
            let stdin = child.stdin.take();
            Ok(NodeHost {
                child,
                stdin,
                lines: rx,
            })
        }

        fn stop(&mut self) {
            self.stdin = None;
            let _ = self.child.kill();
            let _ = self.child.wait();
        }

        /// Waits for the answer to what was just sent, stopping a host that works past
        /// [`ANSWER_LIMIT`] of CPU time (or, where that cannot be read, of wall time).
        fn wait_answer(&mut self) -> Result<String, CodeError> {
            let pid = self.child.id();
            let cpu_at_start = cpu_time(pid);
            let started = Instant::now();
            loop {
                match self.lines.recv_timeout(Duration::from_millis(100)) {
                    Ok(Ok(line)) => return Ok(line),
                    // The one error `read_lines` sends: a line too long.
                    Ok(Err(e)) => {
                        self.stop();
                        let mib = (MAX_ANSWER_BYTES >> 20).to_string();
                        return Err(CodeError::coded(e, "answer_too_big", &[("mib", mib)]));
                    }
                    Err(RecvTimeoutError::Disconnected) => {
                        self.stop();
                        return Err(host_stopped());
                    }
                    Err(RecvTimeoutError::Timeout) => {}
                }
                let worked = match (cpu_at_start, cpu_time(pid)) {
                    (Some(a), Some(b)) => b.saturating_sub(a),
                    _ => started.elapsed(),
                };
                if worked > ANSWER_LIMIT {
                    self.stop();
                    let s = ANSWER_LIMIT.as_secs();
                    return Err(CodeError::coded(
                        format!("your code did not return within {s} s: an infinite loop?"),
                        "endless_loop",
                        &[("s", s.to_string())],
                    ));
                }
                if started.elapsed() > ANSWER_WALL_LIMIT {
                    self.stop();
                    let s = ANSWER_WALL_LIMIT.as_secs();
                    return Err(CodeError::coded(
                        format!("your code did not return within {s} s, without working: it waits for something that never comes"),
                        "waits_forever",
                        &[("s", s.to_string())],
                    ));
                }
            }
        }
    }

    impl Drop for NodeHost {
        fn drop(&mut self) {
            self.stop();
        }
    }

    impl NodeHost {
        /// Sends one line without waiting for an answer (a live trial's resource answer).
        pub fn send_line(&mut self, message: &str) -> Result<(), CodeError> {
            let Some(stdin) = self.stdin.as_mut() else {
                return Err(CodeError::new("the JavaScript host has stopped"));
            };
            let sent = stdin
                .write_all(message.as_bytes())
                .and_then(|()| stdin.write_all(b"\n"))
                .and_then(|()| stdin.flush());
            if sent.is_err() {
                self.stop();
                return Err(host_stopped());
            }
            Ok(())
        }

        /// The next line from the host, under the same limits as an answer.
        pub fn next_line(&mut self) -> Result<String, CodeError> {
            self.wait_answer()
        }
    }

    impl Host for NodeHost {
        fn exchange(&mut self, message: &str) -> Result<String, CodeError> {
            self.send_line(message)?;
            self.wait_answer()
        }
    }

    /// `lockstep lab list`.
    pub fn list_text() -> Result<String, String> {
        let mut s = String::new();
        for l in builtin()? {
            let title = l.title.get("en").cloned().unwrap_or_default();
            s.push_str(&format!(
                "{:<14} §{:<2} {title}\n{:<18}writes: {}; checks: {}\n",
                l.id,
                l.section,
                "",
                l.functions.join(", "),
                l.checks.iter().map(|c| c.name()).collect::<Vec<_>>().join(", ")
            ));
        }
        Ok(s)
    }

    /// What `lockstep lab run` asks for.
    pub struct RunRequest<'a> {
        /// The lab (a built-in one, or a pack's: `lesson::pack_cli::find_lab`).
        pub lab: &'a Lab,
        pub file: &'a str,
        /// The session's seed (the Run's, or the first of many trials').
        pub seed: u64,
        /// 1: the lab's fixed run; more: "Try to break it".
        pub trials: u32,
        /// Replay this one trial seed, with the attacks it draws.
        pub trial: Option<u64>,
        pub json: bool,
        /// A lesson pack (`--pack`) whose own labs are found first.
        pub pack: Option<&'a str>,
        /// Live: the redis-servers to run on (`--redis`), one per node of the lab.
        pub redis: Option<Vec<String>>,
    }

    /// `lockstep lab run`: the text (or JSON) to print and the exit code (0 every check
    /// held, 1 a check broke, 2 the learner's code failed or could not be run).
    pub fn run_command(r: &RunRequest) -> (String, u8) {
        let lab = r.lab;
        let source = match std::fs::metadata(r.file) {
            Ok(m) if m.len() > crate::sim::lab::MAX_SOURCE_BYTES as u64 => {
                return (
                    format!(
                        "lockstep lab run: {}: {} bytes; a lab takes at most {}\n",
                        r.file,
                        m.len(),
                        crate::sim::lab::MAX_SOURCE_BYTES
                    ),
                    2,
                )
            }
            _ => match std::fs::read_to_string(r.file) {
                Ok(s) => s,
                Err(e) => return (format!("lockstep lab run: {}: {e}\n", r.file), 2),
            },
        };
        let started = match &r.redis {
            Some(_) => live::start_host(),
            None => NodeHost::start(),
        };
        let mut host = match started {
            Ok(h) => h,
            Err(e) => return (format!("lockstep lab run: {e}\n"), 2),
        };
        let report = match crate::sim::lab::init(lab, &mut host, &source) {
            Err(e) => crate::sim::lab::LabReport {
                lab: lab.id.clone(),
                seed: r.seed,
                trials: 0,
                checks: Vec::new(),
                counterexample: None,
                code_error: Some(e),
            },
            Ok(()) => {
                let mut one = |seed: u64, attacks| match &r.redis {
                    Some(urls) => live::run_once(lab, &mut host, urls, seed, attacks),
                    None => crate::sim::lab::run_once(lab, &mut host, seed, attacks),
                };
                let result = match r.trial {
                    Some(t) => {
                        let (t, attacks) = crate::sim::lab::Draw::Replay.trial(lab, t, 0);
                        one(t, attacks).map(|t| crate::sim::lab::report_of_one(lab, t))
                    }
                    None => crate::sim::lab::run_trials_with(lab, r.seed, r.trials, |_| {}, one),
                };
                match result {
                    Ok(rep) => rep,
                    Err(e) => return (format!("lockstep lab run: {e}\n"), 2),
                }
            }
        };
        let text = if r.json {
            report.json() + "\n"
        } else {
            report_text(lab, &report, r)
        };
        (text, report.exit_code())
    }

    fn report_text(lab: &Lab, rep: &crate::sim::lab::LabReport, r: &RunRequest) -> String {
        use std::fmt::Write as _;
        let mut s = String::new();
        let what = match (r.trial, r.trials) {
            (Some(t), _) => format!("trial seed {t}"),
            (None, 1) => format!("seed {} (the lab's run)", rep.seed),
            (None, _) => format!("seed {}, {} trials run", rep.seed, rep.trials),
        };
        let place = match &r.redis {
            Some(urls) => format!(" · live on {}", urls.join(", ")),
            None => String::new(),
        };
        let _ = writeln!(s, "lab {} · {} · {what}{place}", lab.id, r.file);
        if let Some(e) = &rep.code_error {
            let _ = writeln!(s, "YOUR CODE FAILED: {e}");
        }
        if let Some(t) = &rep.counterexample {
            let names = crate::sim::lab::lab_names(t);
            let verb = if rep.code_error.is_some() {
                "failed"
            } else {
                "broken"
            };
            let _ = writeln!(s, "{verb} in the run with seed {}", t.seed);
            for a in &t.attacks {
                let _ = writeln!(s, "  attack: {}", a.label(&names));
            }
            let _ = writeln!(s, "what happened:");
            for e in &t.trace {
                let shown = e.kind.is_semantic()
                    || matches!(
                        e.kind,
                        crate::sim::TraceKind::Note { .. } | crate::sim::TraceKind::WorkDone
                    );
                if shown && !matches!(e.kind, crate::sim::TraceKind::End) {
                    let _ = writeln!(s, "  {}", crate::sim::cli::event_line(e, &t.names));
                }
            }
            if rep.code_error.is_none() {
                for v in t.violations() {
                    let _ = writeln!(s, "VIOLATION {} at {} ms: {}", v.kind, v.from_ms, v.detail);
                }
            }
            if r.trials > 1 || r.trial.is_some() {
                let pack = r.pack.map(|p| format!(" --pack {p}")).unwrap_or_default();
                let live = match &r.redis {
                    Some(urls) => format!(" --redis {}", urls.join(",")),
                    None => String::new(),
                };
                let _ = writeln!(
                    s,
                    "replay it: lockstep lab run{pack} {} {} --trial {}{live}",
                    lab.id, r.file, t.seed
                );
            }
        }
        for c in rep.checks.iter().filter(|_| rep.code_error.is_none()) {
            let verdict = if c.passed { "held" } else { "BROKEN" };
            let _ = writeln!(s, "  {:<18} {verdict}", c.name);
        }
        let _ = writeln!(
            s,
            "{}",
            match rep.exit_code() {
                0 => "PASSED: every check held",
                1 => "FAILED: a check broke",
                _ => "NOT GRADED: your code failed",
            }
        );
        s
    }
}

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
        let (lab_toml, scenario_toml, starter, _) = shown_files("set-nx").expect("a built-in");
        let lab_toml = lab_toml.replace("[params]\n", "[params]\nwhen = 1979-05-27T07:32:00Z\n");
        assert!(lab_toml.contains("when ="), "the lab has a [params] table");
        let src = LabSources {
            dir: "labs/x",
            lab_toml: &lab_toml,
            scenario_toml,
            driver: "",
            starter,
            starters: &[],
            solution: "",
        };
        let lab = Lab::parse(&src).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(lab.params["when"], serde_json::json!("1979-05-27T07:32:00Z"));
        let text = crate::wire::to_text(&lab).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(crate::wire::from_text::<Lab>(&text), Ok(lab));
    }
}
