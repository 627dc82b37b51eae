//! The Node.js host that runs a learner's file natively (`lockstep lab run`, `lab grade`,
//! the native tests): a `node` process with no authority around the harness, its
//! watchdog ([`ANSWER_LIMIT`] of CPU time), memory caps and answer-size bound, and the
//! sources of the built-in labs for it.

use crate::sim::lab::{CodeError, Host};
use crate::sim::lab::{Lab, LabSources};
use std::io::{BufRead, BufReader, Read as _, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{channel, Receiver, RecvTimeoutError, Sender};
use std::time::{Duration, Instant};

/// The harness every host runs.
pub const HARNESS: &str = include_str!("../../labs/harness.js");
/// The Node.js host around it.
pub const NODE_HOST: &str = include_str!("../../labs/node-host.mjs");
/// The browser host (the sandboxed iframe's document).
pub const SANDBOX_HTML: &str = include_str!("../../labs/sandbox.html");

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
            lab_toml: include_str!(concat!("../../labs/", $id, "/lab.toml")),
            scenario_toml: include_str!(concat!("../../labs/", $id, "/scenario.toml")),
            driver: include_str!(concat!("../../labs/", $id, "/driver.js")),
            starter: include_str!(concat!("../../labs/", $id, "/starter.js")),
            starters: &[("nb", include_str!(concat!("../../labs/", $id, "/starter.nb.js")))],
            solution: include_str!(concat!("../../labs/", $id, "/solution.js")),
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
