//! `lockstep lab run <lab> <file> --redis URL[,URL…]`: the lab against real redis-server
//! instances, with real node-redis v4 and real time (docs/labs.md, "Live mode").
//!
//! The same sandboxed Node host runs the same harness, driver and learner file; in live
//! mode it may also read `live/` (its trial runner and the pinned `redis` package)
//! and it carries out each trial itself, on the servers. This side starts each trial,
//! answers the resource (the one [`Resource`](crate::sim::world::Resource) the simulator
//! uses) and grades what happened ([`crate::sim::lab::live`]).

use super::node::NodeHost;
use crate::sim::lab::live::{LiveStep, LiveTrial};
use crate::sim::lab::{FromHarness, Host, Lab, LabAttack, ToHarness, TrialResult};
use std::path::PathBuf;

/// The folder of the live runner and its npm packages: `LOCKSTEP_LIVE_DIR`, else this
/// repository's `live/`.
pub fn live_dir() -> PathBuf {
    std::env::var_os("LOCKSTEP_LIVE_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/live")))
}

/// The URLs of `--redis`: comma-separated `redis://host:port` (a plain `host:port` is
/// taken as one), at least one.
pub fn parse_urls(text: &str) -> Result<Vec<String>, String> {
    let urls: Vec<String> = text
        .split(',')
        .map(str::trim)
        .filter(|u| !u.is_empty())
        .map(|u| {
            if u.contains("://") {
                u.to_string()
            } else {
                format!("redis://{u}")
            }
        })
        .collect();
    if urls.is_empty() {
        return Err("--redis: no URL (redis://127.0.0.1:6379, comma-separated for several)".into());
    }
    if let Some(bad) = urls
        .iter()
        .find(|u| !(u.starts_with("redis://") || u.starts_with("rediss://")))
    {
        return Err(format!("--redis: {bad} is not a redis:// URL"));
    }
    Ok(urls)
}

/// A host in live mode, once the runner's packages are there.
pub fn start_host() -> Result<NodeHost, String> {
    let dir = live_dir();
    let redis = dir.join("node_modules").join("redis").join("package.json");
    if !redis.is_file() {
        return Err(format!(
            "a live run needs node-redis in {}: run `bash scripts/setup.sh` (or `npm ci` in that folder)",
            dir.display()
        ));
    }
    let dir = dir
        .canonicalize()
        .map_err(|e| format!("{}: {e}", dir.display()))?;
    // Node reads `--allow-fs-read` as a comma-separated list.
    if dir.to_string_lossy().contains(',') {
        return Err(format!(
            "{}: a live run cannot start from a folder whose path has a comma",
            dir.display()
        ));
    }
    NodeHost::start_live(&dir)
}

/// One live trial of `lab` (the host has answered `init`): the workers, seeds and
/// attacks of the simulator's trial `seed`, carried out on the servers at `urls`.
pub fn run_once(
    lab: &Lab,
    host: &mut NodeHost,
    urls: &[String],
    seed: u64,
    attacks: Vec<LabAttack>,
) -> Result<TrialResult, String> {
    let mut trial = LiveTrial::new(lab, seed, attacks, urls.len())?;
    let run_message = ToHarness::Run { watch: false }.text();
    let ready = host.exchange(&run_message).map_err(|e| e.message)?;
    FromHarness::read(&ready).ready().map_err(|e| e.message)?;
    host.send_line(&trial.message(urls)).map_err(|e| e.message)?;
    loop {
        let line = host.next_line().map_err(|e| e.message)?;
        match trial.on_line(&line)? {
            LiveStep::Reply(answer) => host.send_line(&answer).map_err(|e| e.message)?,
            LiveStep::Done(done) => {
                // What the host saw, for a look at a surprising verdict.
                if let Some(path) = std::env::var_os("LOCKSTEP_LIVE_RECORD") {
                    std::fs::write(&path, &line).map_err(|e| format!("LOCKSTEP_LIVE_RECORD: {e}"))?;
                }
                return trial.finish(lab, &done);
            }
        }
    }
}
