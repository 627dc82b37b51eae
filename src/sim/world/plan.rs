//! Building a world, phase one: a scenario checked and resolved into a [`Plan`].
//!
//! Every check a scenario must pass is made here, section by section in a fixed order
//! (limits, nodes, groups, the resource, clients, the network, faults), and the first
//! mistake is the error, as `(field path, message)`. What comes out is data: every name
//! turned into a pid, every time into µs, every work step parsed, each node's store
//! after its `init`. [`World::build`](super::World::build) then constructs the world
//! from a plan (processes, network, event queue) with no check left to fail, and
//! `scenario::parse` validates through [`validate`] without constructing one.
//!
//! Pids are handed out in the order the world's process table will hold them: the
//! nodes, then the resource, then the clients.
// This file reads input: it does not share world.rs's licence to index.
#![cfg_attr(not(test), deny(clippy::indexing_slicing))]

use super::parts::{
    ms_to_us, Fault, FieldErr, Group, Latency, Link, Node, Pid, MAX_CLIENTS_NODES, MAX_FAULTS, MAX_PROCESSES,
    MAX_WORK_STEPS,
};
use super::resource::Resource;
use crate::sim::client::{ClientCfg, Dest, LibCfg, Step};
use crate::sim::clock::Clock;
use crate::sim::rng::sub_seed;
use crate::sim::scenario::definition::{
    Algorithm, ClientSpec, DelaySpec, FaultOp, FaultSpec, LatencySpec, ReleaseKind, Scenario, MAX_TIME_MS,
};
use crate::store::{Reply, Store};
use crate::vecmap::VecMap;
use std::sync::Arc;

/// A node as the world will start it.
pub(super) struct NodePlan {
    pub name: String,
    pub clock: Clock,
    pub node: Node,
}

/// A client (or lab worker) as the world will start it.
pub(super) struct ClientPlan {
    pub name: String,
    pub clock: Clock,
    pub cfg: ClientCfg,
}

/// A scheduled fault, and the one that undoes it at `until_ms` if the scenario set one.
pub(super) struct FaultPlan {
    pub at_us: u64,
    pub fault: Fault,
    pub then: Option<(u64, Fault)>,
}

/// A scenario that passed every check, resolved: what the world is built from.
pub(super) struct Plan {
    pub end_us: u64,
    /// Pids `0..nodes.len()`.
    pub nodes: Vec<NodePlan>,
    pub groups: Vec<Group>,
    /// The next pid.
    pub resource: (String, Resource),
    /// The pids after the resource's.
    pub clients: Vec<ClientPlan>,
    /// The link of every ordered pair of processes, `from * n + to`.
    pub links: Vec<Link>,
    pub faults: Vec<FaultPlan>,
}

/// Check everything a build needs; errors are `(field path, message)`.
pub(crate) fn validate(s: &Scenario) -> Result<(), FieldErr> {
    plan(s, 0).map(|_| ())
}

/// Check `s` and resolve it. The seed only seeds the nodes' stores (their `init`
/// commands run here, since a refused one is a mistake in the scenario).
pub(super) fn plan(s: &Scenario, seed: u64) -> Result<Plan, FieldErr> {
    let end_us = check_limits(s)?;
    let mut names = Names::default();
    let mut nodes = plan_nodes(s, seed, &mut names)?;
    let groups = plan_groups(s, &mut names, &mut nodes)?;
    let resource = plan_resource(s, &mut names, nodes.len())?;
    let clients = plan_clients(s, &mut names)?;
    let n = nodes.len() + 1 + clients.len();
    if n > MAX_PROCESSES {
        return Err(("nodes".into(), format!("at most {MAX_PROCESSES} processes")));
    }
    let links = plan_links(s, &names, n)?;
    let faults = plan_faults(s, &names, &links, nodes.len(), n)?;
    Ok(Plan {
        end_us,
        nodes,
        groups,
        resource,
        clients,
        links,
        faults,
    })
}

/// The names handed out so far: processes to their pids, groups to their numbers.
#[derive(Default)]
struct Names {
    procs: VecMap<String, Pid>,
    groups: VecMap<String, usize>,
}

impl Names {
    /// Give `name` to process `pid`: a usable name no process has yet.
    fn claim(&mut self, name: &str, field: String, pid: Pid) -> Result<(), FieldErr> {
        if name.is_empty() || name == "*" {
            return Err((field, format!("`{name}` is not a usable name")));
        }
        if self.procs.insert(name.to_string(), pid).is_some() {
            return Err((field, format!("the name `{name}` is used twice")));
        }
        Ok(())
    }

    /// Like [`Names::claim`], and no group may have the name either.
    fn claim_ungrouped(&mut self, name: &str, field: String, pid: Pid) -> Result<(), FieldErr> {
        self.claim(name, field.clone(), pid)?;
        if self.groups.contains_key(name) {
            return Err((field, format!("the name `{name}` is used twice")));
        }
        Ok(())
    }

    /// The pid of node `name` (nodes hold the first `n_nodes` pids).
    fn node(&self, name: &str, n_nodes: usize, field: String) -> Result<Pid, FieldErr> {
        match self.procs.get(name) {
            Some(p) if *p < n_nodes => Ok(*p),
            _ => Err((field, format!("`{name}` is not a node"))),
        }
    }
}

/// The sizes every later phase relies on; the end of the run.
fn check_limits(s: &Scenario) -> Result<u64, FieldErr> {
    let end_us = ms_to_us(s.end_ms).map_err(|m| ("end_ms".to_string(), m))?;
    if s.nodes.len() + s.clients.len() > MAX_CLIENTS_NODES {
        return Err((
            "nodes".into(),
            format!("at most {MAX_CLIENTS_NODES} nodes and clients together"),
        ));
    }
    if s.faults.len() > MAX_FAULTS {
        return Err(("faults".into(), format!("at most {MAX_FAULTS} faults")));
    }
    Ok(end_us)
}

fn plan_nodes(s: &Scenario, seed: u64, names: &mut Names) -> Result<Vec<NodePlan>, FieldErr> {
    let mut nodes = Vec::with_capacity(s.nodes.len());
    for (i, n) in s.nodes.iter().enumerate() {
        let field = |x: &str| format!("nodes[{i}].{x}");
        names.claim(&n.name, field("name"), i)?;
        let offset = signed_ms_to_us(n.clock_offset_ms).map_err(|m| (field("clock_offset_ms"), m))?;
        let ppm = pct_to_ppm(n.drift_pct).map_err(|m| (field("drift_pct"), m))?;
        let service_us = ms_to_us(n.service_ms).map_err(|m| (field("service_ms"), m))?;
        let node_seed = sub_seed(seed, &format!("node:{}", n.name));
        let mut store = Store::new(node_seed);
        let clock = Clock::new(offset, ppm);
        store.set_now_ms(clock.local_ms(0));
        for (j, cmd) in n.init.iter().enumerate() {
            if cmd.is_empty() {
                return Err((format!("nodes[{i}].init[{j}]"), "an empty command".into()));
            }
            let args: Vec<Vec<u8>> = cmd.iter().map(|a| a.as_bytes().to_vec()).collect();
            if let Reply::Error(e) = store.execute(&args) {
                return Err((
                    format!("nodes[{i}].init[{j}]"),
                    format!("the node refused it: {e}"),
                ));
            }
        }
        let _ = store.take_effects();
        let disk = crate::sorting::collect(
            store
                .live_keys()
                .into_iter()
                .map(|k| (k.key, (k.value, k.expire_at_ms))),
        );
        nodes.push(NodePlan {
            name: n.name.clone(),
            clock,
            node: Node {
                disk,
                store,
                aof_pending: Vec::new(),
                persistence: n.persistence,
                service_us,
                seed: node_seed,
                group: None,
                replicas: Vec::new(),
                replica_of: None,
                lag_us: 0,
                offset: 0,
                acked: VecMap::new(),
                waits: Vec::new(),
                next_wait: 0,
            },
        });
    }
    Ok(nodes)
}

/// Replication groups: a master and its replicas, each node in one group at most.
/// A group's name then stands, for clients, for whichever node is its master.
fn plan_groups(s: &Scenario, names: &mut Names, nodes: &mut [NodePlan]) -> Result<Vec<Group>, FieldErr> {
    let mut groups = Vec::with_capacity(s.groups.len());
    for (gi, g) in s.groups.iter().enumerate() {
        let field = |x: &str| format!("groups[{gi}].{x}");
        if names.procs.contains_key(&g.name) || names.groups.insert(g.name.clone(), gi).is_some() {
            return Err((field("name"), format!("the name `{}` is used twice", g.name)));
        }
        let master = names.node(&g.master, nodes.len(), field("master"))?;
        let lag_us = ms_to_us(g.lag_ms).map_err(|m| (field("lag_ms"), m))?;
        let mut members = vec![master];
        for r in &g.replicas {
            let p = names.node(r, nodes.len(), field("replicas"))?;
            if members.contains(&p) {
                return Err((field("replicas"), format!("`{r}` is listed twice")));
            }
            members.push(p);
        }
        if let Some(taken) = members
            .iter()
            .filter_map(|&p| nodes.get(p))
            .find(|n| n.node.group.is_some())
        {
            return Err((
                field("replicas"),
                format!("`{}` is already in a group", taken.name),
            ));
        }
        for &p in &members {
            if let Some(n) = nodes.get_mut(p) {
                n.node.group = Some(gi);
                n.node.lag_us = lag_us;
                if p == master {
                    n.node.replicas = members.get(1..).unwrap_or_default().to_vec();
                } else {
                    n.node.replica_of = Some(master);
                }
            }
        }
        let failover = match &g.failover {
            Some(fo) => Some((
                ms_to_us(fo.detection_ms).map_err(|m| (field("failover.detection_ms"), m))?,
                ms_to_us(fo.promotion_ms).map_err(|m| (field("failover.promotion_ms"), m))?,
            )),
            None => None,
        };
        groups.push(Group {
            name: g.name.clone(),
            master,
            members,
            failover,
        });
    }
    Ok(groups)
}

/// The protected resource, pid `pid` (right after the nodes).
fn plan_resource(s: &Scenario, names: &mut Names, pid: Pid) -> Result<(String, Resource), FieldErr> {
    names.claim_ungrouped(&s.resource.name, "resource.name".into(), pid)?;
    let resource = Resource::new(&s.resource);
    Ok((s.resource.name.clone(), resource))
}

fn plan_clients(s: &Scenario, names: &mut Names) -> Result<Vec<ClientPlan>, FieldErr> {
    let scripts = Arc::new(s.scripts.clone());
    let first_pid = s.nodes.len() + 1;
    let mut clients = Vec::with_capacity(s.clients.len());
    for (i, c) in s.clients.iter().enumerate() {
        let field = |x: &str| format!("clients[{i}].{x}");
        names.claim_ungrouped(&c.name, field("name"), first_pid + i)?;
        let cfg = client_cfg(i, c, names, s.nodes.len(), &scripts)?;
        let offset = signed_ms_to_us(c.clock_offset_ms).map_err(|m| (field("clock_offset_ms"), m))?;
        let ppm = pct_to_ppm(c.drift_pct).map_err(|m| (field("drift_pct"), m))?;
        clients.push(ClientPlan {
            name: c.name.clone(),
            clock: Clock::new(offset, ppm),
            cfg,
        });
    }
    Ok(clients)
}

/// Client `i`'s configuration, each knob checked in the order the fields are listed.
fn client_cfg(
    i: usize,
    c: &ClientSpec,
    names: &Names,
    n_nodes: usize,
    scripts: &Arc<crate::sim::scripts::Scripts>,
) -> Result<ClientCfg, FieldErr> {
    let field = |x: &str| format!("clients[{i}].{x}");
    let dests = client_dests(i, c, names, n_nodes)?;
    let work = work_steps(i, c)?;
    let ttl_us = ms_to_us(c.ttl_ms).map_err(|m| (field("ttl_ms"), m))?;
    if ttl_us < 1000 || ttl_us % 1000 != 0 {
        return Err((
            field("ttl_ms"),
            "the TTL must be a whole number of ms, at least 1".into(),
        ));
    }
    let ttl_ms = ttl_us / 1000;
    if !(0.0..=1.0).contains(&c.drift_factor) {
        return Err((
            field("drift_factor"),
            format!("{} is not between 0 and 1", c.drift_factor),
        ));
    }
    let (retry_lo_us, retry_hi_us) = retry_range(i, c)?;
    let timeout_us = request_timeout(i, c)?;
    let wait = match &c.wait {
        Some(w) => {
            let t = ms_to_us(w.timeout_ms).map_err(|m| (field("wait.timeout_ms"), m))?;
            Some((w.replicas, t / 1000))
        }
        None => None,
    };
    let lib = lib_cfg(i, c, ttl_ms)?;
    let cfg = ClientCfg {
        algorithm: c.algorithm,
        dests,
        lock: c.lock.clone(),
        start_us: ms_to_us(c.start_ms).map_err(|m| (field("start_ms"), m))?,
        ttl_ms,
        timeout_us,
        drift_factor: c.drift_factor,
        retry_lo_us,
        retry_hi_us,
        max_attempts: c.max_attempts.clamp(1, 100_000),
        release: c.release.unwrap_or(ReleaseKind::Lua),
        check_validity: c.checks_validity(),
        watchdog: c.watchdog,
        wait,
        fencing: c.fencing,
        fence_key: c.fence_key.clone(),
        idempotency_key: c.idempotency_key.clone(),
        lib,
        work,
        scripts: scripts.clone(),
        repeat: c.repeat.clamp(1, 1_000_000),
    };
    if cfg.check_validity && c.algorithm == Algorithm::RedlockUnchecked {
        return Err((
            field("check_validity"),
            "redlock-unchecked never checks validity".into(),
        ));
    }
    Ok(cfg)
}

/// Where client `i` sends its commands (a group stands for its master), as many as its
/// algorithm takes, and the set-nx-only options only on set-nx.
fn client_dests(i: usize, c: &ClientSpec, names: &Names, n_nodes: usize) -> Result<Vec<Dest>, FieldErr> {
    let field = |x: &str| format!("clients[{i}].{x}");
    let mut dests = Vec::new();
    for d in &c.nodes {
        if let Some(g) = names.groups.get(d) {
            dests.push(Dest::Group(*g));
        } else {
            match names.procs.get(d) {
                Some(p) if *p < n_nodes => dests.push(Dest::Node(*p)),
                _ => return Err((field("nodes"), format!("`{d}` is not a node or group"))),
            }
        }
    }
    match c.algorithm {
        Algorithm::None => {}
        Algorithm::SetNx if dests.len() != 1 => {
            return Err((field("nodes"), "set-nx talks to exactly one node or group".into()))
        }
        _ if dests.is_empty() => return Err((field("nodes"), "needs at least one node".into())),
        _ => {}
    }
    if c.algorithm != Algorithm::SetNx {
        let only = |set: bool, name: &str| -> Result<(), FieldErr> {
            if set {
                Err((field(name), format!("`{name}` applies to set-nx clients only")))
            } else {
                Ok(())
            }
        };
        only(c.watchdog, "watchdog")?;
        only(c.wait.is_some(), "wait")?;
        only(c.fencing, "fencing")?;
    }
    Ok(dests)
}

/// Client `i`'s work steps, parsed; a claim needs the client's idempotency key.
fn work_steps(i: usize, c: &ClientSpec) -> Result<Vec<Step>, FieldErr> {
    if c.work.len() > MAX_WORK_STEPS {
        return Err((
            format!("clients[{i}].work"),
            format!("at most {MAX_WORK_STEPS} steps"),
        ));
    }
    let mut work = Vec::with_capacity(c.work.len());
    for (j, w) in c.work.iter().enumerate() {
        let step = parse_step(w).map_err(|m| (format!("clients[{i}].work[{j}]"), m))?;
        if matches!(step, Step::Claim { .. }) && c.idempotency_key.is_none() {
            return Err((
                format!("clients[{i}].work[{j}]"),
                format!("`{w}` claims the client's idempotency_key, which is not set"),
            ));
        }
        work.push(step);
    }
    Ok(work)
}

/// The delay between attempts, `[lo, hi]` µs (each algorithm has its default).
fn retry_range(i: usize, c: &ClientSpec) -> Result<(u64, u64), FieldErr> {
    let field = || format!("clients[{i}].retry_delay_ms");
    let default_retry = match c.algorithm {
        Algorithm::Library => DelaySpec::Fixed(200.0),
        Algorithm::SetNx => DelaySpec::Fixed(100.0),
        _ => DelaySpec::Range([100.0, 300.0]),
    };
    let (lo, hi) = match c.retry_delay_ms.as_ref().unwrap_or(&default_retry) {
        DelaySpec::Fixed(ms) => {
            let v = ms_to_us(*ms).map_err(|m| (field(), m))?;
            (v, v)
        }
        DelaySpec::Range([a, b]) => {
            let a = ms_to_us(*a).map_err(|m| (field(), m))?;
            let b = ms_to_us(*b).map_err(|m| (field(), m))?;
            if b < a {
                return Err((field(), "[lo, hi] needs lo ≤ hi".into()));
            }
            (a, b)
        }
    };
    // A (near) zero retry delay would spin at one instant until the event limit.
    if c.algorithm != Algorithm::Library && c.algorithm != Algorithm::None && hi < 100 {
        return Err((field(), "the retry delay must be at least 0.1 ms".into()));
    }
    Ok((lo, hi))
}

/// How long a request may wait for its reply (each algorithm has its default; the
/// library and plain clients wait as long as it takes).
fn request_timeout(i: usize, c: &ClientSpec) -> Result<Option<u64>, FieldErr> {
    let field = || format!("clients[{i}].timeout_ms");
    let default_timeout = match c.algorithm {
        Algorithm::Library | Algorithm::None => None,
        Algorithm::SetNx => Some(1000.0),
        _ => Some(50.0),
    };
    match c.timeout_ms.or(default_timeout) {
        Some(ms) => {
            let t = ms_to_us(ms).map_err(|m| (field(), m))?;
            if t == 0 {
                return Err((field(), "must be more than 0".into()));
            }
            Ok(Some(t))
        }
        None => Ok(None),
    }
}

/// The library's own settings (node-redlock's retry and automatic extension).
fn lib_cfg(i: usize, c: &ClientSpec, ttl_ms: u64) -> Result<LibCfg, FieldErr> {
    let field = |x: &str| format!("clients[{i}].{x}");
    let lib = LibCfg {
        retry_count: c.retry_count.min(10_000),
        retry_delay_ms: match c.retry_delay_ms.as_ref() {
            Some(DelaySpec::Fixed(ms)) => ms_to_us(*ms).map_err(|m| (field("retry_delay_ms"), m))? / 1000,
            Some(DelaySpec::Range(_)) if c.algorithm == Algorithm::Library => {
                return Err((
                    field("retry_delay_ms"),
                    "the library takes one delay plus retry_jitter_ms".into(),
                ))
            }
            _ => 200,
        },
        retry_jitter_ms: ms_to_us(c.retry_jitter_ms).map_err(|m| (field("retry_jitter_ms"), m))? / 1000,
        threshold_ms: ms_to_us(c.extension_threshold_ms).map_err(|m| (field("extension_threshold_ms"), m))?
            / 1000,
    };
    if c.algorithm == Algorithm::Library && lib.threshold_ms + 100 > ttl_ms {
        return Err((
            field("extension_threshold_ms"),
            "must be at least 100 ms shorter than the TTL (the library refuses otherwise)".into(),
        ));
    }
    Ok(lib)
}

/// Every link's latency and loss: the network's defaults, then each `[[links]]` entry.
fn plan_links(s: &Scenario, names: &Names, n: usize) -> Result<Vec<Link>, FieldErr> {
    let default = Link {
        latency: latency_of(&s.network.latency_ms).map_err(|m| ("network.latency_ms".to_string(), m))?,
        loss: probability(s.network.loss).map_err(|m| ("network.loss".to_string(), m))?,
    };
    let mut links = vec![default; n * n];
    for (i, l) in s.links.iter().enumerate() {
        let field = |x: &str| format!("links[{i}].{x}");
        let a = *names
            .procs
            .get(&l.from)
            .ok_or_else(|| (field("from"), format!("`{}` is not a process", l.from)))?;
        for b in resolve_peers(&names.procs, &l.to, a, n).map_err(|m| (field("to"), m))? {
            for (x, y) in [(a, b), (b, a)] {
                if l.oneway && (x, y) != (a, b) {
                    continue;
                }
                let Some(link) = links.get_mut(x * n + y) else {
                    continue;
                };
                if let Some(lat) = &l.latency_ms {
                    link.latency = latency_of(lat).map_err(|m| (field("latency_ms"), m))?;
                }
                if let Some(p) = l.loss {
                    link.loss = probability(p).map_err(|m| (field("loss"), m))?;
                }
            }
        }
    }
    Ok(links)
}

fn plan_faults(
    s: &Scenario,
    names: &Names,
    links: &[Link],
    n_nodes: usize,
    n: usize,
) -> Result<Vec<FaultPlan>, FieldErr> {
    s.faults
        .iter()
        .enumerate()
        .map(|(i, fs)| plan_fault(i, fs, names, links, n_nodes, n))
        .collect()
}

/// Fault `i`: when it strikes, whom, and (with `until_ms`) what undoes it.
fn plan_fault(
    i: usize,
    fs: &FaultSpec,
    names: &Names,
    links: &[Link],
    n_nodes: usize,
    n: usize,
) -> Result<FaultPlan, FieldErr> {
    let field = |x: &str| format!("faults[{i}].{x}");
    let at = ms_to_us(fs.at_ms).map_err(|m| (field("at_ms"), m))?;
    let target = *names
        .procs
        .get(&fs.target)
        .ok_or_else(|| (field("target"), format!("`{}` is not a process", fs.target)))?;
    let until = match fs.until_ms {
        Some(u) => {
            let u = ms_to_us(u).map_err(|m| (field("until_ms"), m))?;
            if u < at {
                return Err((field("until_ms"), "must not be before at_ms".into()));
            }
            Some(u)
        }
        None => None,
    };
    let peers = || -> Result<Vec<Pid>, FieldErr> {
        let p = fs
            .peer
            .as_deref()
            .ok_or_else(|| (field("peer"), "this fault needs a peer".into()))?;
        resolve_peers(&names.procs, p, target, n).map_err(|m| (field("peer"), m))
    };
    let (first, second) = match fs.op {
        FaultOp::Pause => (Fault::Pause(target), Some(Fault::Resume(target))),
        FaultOp::Resume => (Fault::Resume(target), None),
        FaultOp::Crash => (Fault::Crash(target), Some(Fault::Restart(target))),
        FaultOp::Restart => (Fault::Restart(target), None),
        FaultOp::ClockJump => {
            let d = fs
                .delta_ms
                .ok_or_else(|| (field("delta_ms"), "a clock jump needs delta_ms".into()))?;
            (
                Fault::ClockJump(target, signed_ms_to_us(d).map_err(|m| (field("delta_ms"), m))?),
                None,
            )
        }
        FaultOp::Drift => {
            let d = fs
                .drift_pct
                .ok_or_else(|| (field("drift_pct"), "drift needs drift_pct".into()))?;
            (
                Fault::Drift(target, pct_to_ppm(d).map_err(|m| (field("drift_pct"), m))?),
                None,
            )
        }
        FaultOp::Partition => {
            let b = peers()?;
            (
                Fault::Partition {
                    a: target,
                    b: b.clone(),
                    oneway: fs.oneway,
                },
                Some(Fault::Repair { a: target, b }),
            )
        }
        FaultOp::Repair => (
            Fault::Repair {
                a: target,
                b: peers()?,
            },
            None,
        ),
        FaultOp::Latency => {
            let b = peers()?;
            let l = fs
                .latency_ms
                .as_ref()
                .ok_or_else(|| (field("latency_ms"), "a latency fault needs latency_ms".into()))?;
            let latency = latency_of(l).map_err(|m| (field("latency_ms"), m))?;
            // What the link had when the scenario began is what `until_ms` restores.
            let first_peer = b.first().copied().unwrap_or(target);
            let restore = links.get(target * n + first_peer).map_or(latency, |l| l.latency);
            (
                Fault::Latency {
                    a: target,
                    b: b.clone(),
                    latency,
                },
                Some(Fault::Latency {
                    a: target,
                    b,
                    latency: restore,
                }),
            )
        }
        FaultOp::Command => {
            if target >= n_nodes {
                return Err((field("target"), "commands run on a node".into()));
            }
            let c = fs.command.as_ref().filter(|c| !c.is_empty()).ok_or_else(|| {
                (
                    field("command"),
                    "needs a command, e.g. [\"DEL\", \"lock\"]".to_string(),
                )
            })?;
            (
                Fault::Command {
                    node: target,
                    args: c.iter().map(|a| a.as_bytes().to_vec()).collect(),
                },
                None,
            )
        }
    };
    Ok(FaultPlan {
        at_us: at,
        fault: first,
        then: until.zip(second),
    })
}

fn signed_ms_to_us(ms: f64) -> Result<i64, String> {
    if !ms.is_finite() || ms.abs() > MAX_TIME_MS {
        return Err(format!("{ms} is not a time within ±{MAX_TIME_MS} ms"));
    }
    Ok((ms * 1000.0).round() as i64)
}

fn pct_to_ppm(pct: f64) -> Result<i64, String> {
    if !pct.is_finite() || pct.abs() > 50.0 {
        return Err(format!("{pct} % is not a drift within ±50 %"));
    }
    Ok((pct * 10_000.0).round() as i64)
}

fn latency_of(l: &LatencySpec) -> Result<Latency, String> {
    match l {
        LatencySpec::Fixed(ms) => Ok(Latency::Fixed(ms_to_us(*ms)?)),
        LatencySpec::Range([a, b]) => {
            let (a, b) = (ms_to_us(*a)?, ms_to_us(*b)?);
            if b < a {
                return Err("latency range [lo, hi] needs lo ≤ hi".to_string());
            }
            Ok(Latency::Uniform(a, b))
        }
    }
}

fn probability(p: f64) -> Result<f64, String> {
    if !(0.0..=1.0).contains(&p) {
        return Err(format!("{p} is not a probability (0 to 1)"));
    }
    Ok(p)
}

fn parse_step(s: &str) -> Result<Step, String> {
    let words: Vec<&str> = s.split_whitespace().collect();
    let bad = || {
        format!("`{s}` is not a step: use `sleep MS`, `sleep LO..HI`, `sleep MEDIAN~P99`, `read KEY`, `expect KEY VALUE`, `write KEY VALUE` or `crash`")
    };
    match words.as_slice() {
        ["sleep", d] if d.contains('~') => {
            let (m, p) = d.split_once('~').ok_or_else(bad)?;
            let median = ms_to_us(m.parse::<f64>().map_err(|_| bad())?)?;
            let p99 = ms_to_us(p.parse::<f64>().map_err(|_| bad())?)?;
            if median == 0 || p99 < median {
                return Err(format!("`{s}`: a work time MEDIAN~P99 needs 0 < MEDIAN ≤ P99"));
            }
            Ok(Step::SleepLogNormal {
                median_us: median,
                p99_us: p99,
            })
        }
        ["crash"] => Ok(Step::Crash),
        ["sleep", d] => {
            let (lo, hi) = match d.split_once("..") {
                Some((a, b)) => (a, b),
                None => (*d, *d),
            };
            let lo = ms_to_us(lo.parse::<f64>().map_err(|_| bad())?)?;
            let hi = ms_to_us(hi.parse::<f64>().map_err(|_| bad())?)?;
            if hi < lo {
                return Err(format!("`{s}`: the range needs LO ≤ HI"));
            }
            Ok(Step::Sleep { lo_us: lo, hi_us: hi })
        }
        ["read", k] => Ok(Step::Read(k.to_string())),
        ["expect", k, v] => Ok(Step::Expect(k.to_string(), v.to_string())),
        ["write", k, v] => Ok(Step::Write(k.to_string(), v.to_string())),
        ["claim", d] => {
            let ttl_us = ms_to_us(d.parse::<f64>().map_err(|_| bad())?)?;
            if ttl_us == 0 {
                return Err(format!("`{s}`: a claim needs an expiry above 0 ms"));
            }
            Ok(Step::Claim { ttl_us })
        }
        _ => Err(bad()),
    }
}

/// The pids `peer` names as seen from `me`: one process, or `*` for every other one.
fn resolve_peers(names: &VecMap<String, Pid>, peer: &str, me: Pid, n: usize) -> Result<Vec<Pid>, String> {
    if peer == "*" {
        return Ok((0..n).filter(|p| *p != me).collect());
    }
    match names.get(peer) {
        Some(p) if *p != me => Ok(vec![*p]),
        Some(_) => Err("a process cannot be cut off from itself".to_string()),
        None => Err(format!("`{peer}` is not a process")),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Two nodes, a group-free resource, two set-nx clients: a scenario with no mistake,
    /// to which each test adds one.
    const BASE: &str = r#"
name = "t"
end_ms = 1000

[[nodes]]
name = "n1"

[[nodes]]
name = "n2"

[[clients]]
name = "A"
algorithm = "set-nx"
nodes = ["n1"]
ttl_ms = 100

[[clients]]
name = "B"
algorithm = "set-nx"
nodes = ["n2"]
ttl_ms = 100
"#;

    /// The scenario `BASE` + `extra`, read without any check (as toml gives it).
    fn scenario(extra: &str) -> Scenario {
        match toml::from_str(&format!("{BASE}{extra}")) {
            Ok(s) => s,
            Err(e) => panic!("not a scenario: {e}"),
        }
    }

    fn error(extra: &str) -> (String, String) {
        match validate(&scenario(extra)) {
            Err(e) => e,
            Ok(()) => panic!("accepted: {extra}"),
        }
    }

    #[test]
    fn a_good_scenario_is_planned_with_pids_in_process_order() {
        let extra = "[[links]]\nfrom = \"A\"\nto = \"n2\"\nlatency_ms = 5\n\n\
                     [[faults]]\nat_ms = 10\nuntil_ms = 20\nop = \"latency\"\ntarget = \"A\"\npeer = \"n2\"\nlatency_ms = 40\n";
        let p = match plan(&scenario(extra), 1) {
            Ok(p) => p,
            Err(e) => panic!("{e:?}"),
        };
        let nodes: Vec<&str> = p.nodes.iter().map(|n| n.name.as_str()).collect();
        let clients: Vec<&str> = p.clients.iter().map(|c| c.name.as_str()).collect();
        assert_eq!(
            (nodes, p.resource.0.as_str(), clients),
            (vec!["n1", "n2"], "storage", vec!["A", "B"])
        );
        assert_eq!(p.end_us, 1_000_000);
        // Pids: n1 0, n2 1, the resource 2, A 3, B 4.
        assert!(matches!(p.clients[1].cfg.dests.as_slice(), [Dest::Node(1)]));
        assert_eq!(p.links.len(), 25);
        let latency = |from: Pid, to: Pid| p.links[from * 5 + to].latency;
        assert_eq!(latency(3, 1), Latency::Fixed(5_000));
        assert_eq!(latency(1, 3), Latency::Fixed(5_000), "a link goes both ways");
        assert_eq!(
            latency(3, 0),
            Latency::Fixed(1_000),
            "the others keep the network's"
        );
        // The latency fault, and at until_ms the link's own latency back.
        let f = &p.faults[0];
        assert_eq!(f.at_us, 10_000);
        assert_eq!(
            f.fault,
            Fault::Latency {
                a: 3,
                b: vec![1],
                latency: Latency::Fixed(40_000)
            }
        );
        assert_eq!(
            f.then,
            Some((
                20_000,
                Fault::Latency {
                    a: 3,
                    b: vec![1],
                    latency: Latency::Fixed(5_000)
                }
            ))
        );
    }

    #[test]
    fn each_phase_names_the_field_of_its_mistake() {
        let cases: &[(&str, &str, &str)] = &[
            ("[resource]\nname = \"*\"\n", "resource.name", "`*` is not a usable name"),
            (
                "[[nodes]]\nname = \"n3\"\ninit = [[\"INCR\", \"a\", \"b\"]]\n",
                "nodes[2].init[0]",
                "the node refused it: ERR wrong number of arguments for 'incr' command",
            ),
            ("[[nodes]]\nname = \"A\"\n", "clients[0].name", "the name `A` is used twice"),
            (
                "[[groups]]\nname = \"g\"\nmaster = \"n1\"\nreplicas = [\"n1\"]\n",
                "groups[0].replicas",
                "`n1` is listed twice",
            ),
            (
                "[[groups]]\nname = \"g\"\nmaster = \"n1\"\nreplicas = []\n\n[[groups]]\nname = \"h\"\nmaster = \"n2\"\nreplicas = [\"n1\"]\n",
                "groups[1].replicas",
                "`n1` is already in a group",
            ),
            (
                "[[groups]]\nname = \"storage\"\nmaster = \"n1\"\nreplicas = []\n",
                "resource.name",
                "the name `storage` is used twice",
            ),
            (
                "[[clients]]\nname = \"C\"\nalgorithm = \"redlock\"\nnodes = [\"n1\", \"A\"]\n",
                "clients[2].nodes",
                "`A` is not a node or group",
            ),
            (
                "[[clients]]\nname = \"C\"\nalgorithm = \"set-nx\"\nnodes = [\"n1\"]\nwork = [\"sleep 5..1\"]\n",
                "clients[2].work[0]",
                "`sleep 5..1`: the range needs LO ≤ HI",
            ),
            (
                "[[clients]]\nname = \"C\"\nalgorithm = \"library\"\nnodes = [\"n1\"]\nttl_ms = 150\n",
                "clients[2].extension_threshold_ms",
                "must be at least 100 ms shorter than the TTL (the library refuses otherwise)",
            ),
            ("[network]\nloss = 2\n", "network.loss", "2 is not a probability (0 to 1)"),
            (
                "[[links]]\nfrom = \"A\"\nto = \"A\"\n",
                "links[0].to",
                "a process cannot be cut off from itself",
            ),
            (
                "[[faults]]\nat_ms = 5\nop = \"crash\"\ntarget = \"Z\"\n",
                "faults[0].target",
                "`Z` is not a process",
            ),
            (
                "[[faults]]\nat_ms = 5\nop = \"command\"\ntarget = \"A\"\ncommand = [\"DEL\", \"lock\"]\n",
                "faults[0].target",
                "commands run on a node",
            ),
        ];
        for (extra, field, message) in cases {
            assert_eq!(error(extra), (field.to_string(), message.to_string()), "{extra}");
        }
    }

    #[test]
    fn the_first_mistake_in_phase_order_is_the_one_reported() {
        // A fault, a link and a client are each wrong: the client comes first.
        let extra = "[[clients]]\nname = \"C\"\nalgorithm = \"set-nx\"\nnodes = [\"n1\"]\nttl_ms = 0.5\n\n\
                     [[links]]\nfrom = \"nobody\"\nto = \"n1\"\n\n\
                     [[faults]]\nat_ms = 5\nop = \"crash\"\ntarget = \"Z\"\n";
        assert_eq!(error(extra).0, "clients[2].ttl_ms");
        // Without the client's mistake, the link's.
        assert_eq!(
            error(&extra.replace("ttl_ms = 0.5", "ttl_ms = 5")).0,
            "links[0].from"
        );
        // Limits come before everything: a bad end hides the rest.
        let s = format!("{BASE}{extra}").replace("end_ms = 1000", "end_ms = -1");
        let s: Scenario = toml::from_str(&s).unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(
            validate(&s),
            Err((
                "end_ms".into(),
                "-1 is not a time (must be a finite number ≥ 0)".into()
            ))
        );
    }

    #[test]
    fn scenario_parse_reports_a_plan_error_with_file_line_and_field() {
        let src = format!("{BASE}\n[[faults]]\nat_ms = 30\nuntil_ms = 20\nop = \"pause\"\ntarget = \"A\"\n");
        let e = match crate::sim::scenario::parse("f.toml", &src) {
            Err(e) => e.to_string(),
            Ok(_) => panic!("accepted"),
        };
        let line = src
            .lines()
            .position(|l| l.starts_with("until_ms"))
            .map_or(0, |i| i + 1);
        assert_eq!(
            e,
            format!("f.toml:{line}: faults[0].until_ms: must not be before at_ms")
        );
    }
}
