//! Exploration: "can this ever break?" Run a scenario many times with random faults
//! drawn around it (pauses, clock jumps and drift, crashes, latency spikes), count
//! the trials that break, per property, and shrink the smallest counterexample.
//!
//! What "break" means depends on the resource ([`counts`]): where it checks fencing
//! tokens or idempotency keys, two clients believing they hold the lock at once is what
//! the resource is built to absorb; a trial breaks only when a property of the
//! resource's data does (a stale write accepted, a lost update, a double effect).
//!
//! Trial `i` uses sim seed `sub_seed(seed, "trial:i")` and draws its faults from
//! `sub_seed(seed, "faults:i")`, so any trial can be rerun alone, and shrinking reruns
//! the same trial with fewer or smaller faults.

use super::checker::{Outcome, Property};
use super::rng::{sub_seed, SimRng};
use super::scenario::{Fencing, Scenario};
use super::trace::{fmt_ms, TraceEvent, TraceLevel};
use super::world::{Fault, Latency, Pid, World};
use super::{run_with, Run};

/// Trials are capped so a typo cannot start a week-long run.
pub const MAX_TRIALS: u64 = 10_000_000;
/// At most this many reruns while shrinking.
pub const MAX_SHRINK_RUNS: u32 = 500;

#[derive(Clone, Debug)]
pub struct ExploreConfig {
    pub trials: u64,
    pub seed: u64,
}

/// One random fault, as one or two scheduled operations (e.g. pause, then resume).
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct FaultUnit {
    pub ops: Vec<(u64, Fault)>,
    pub label: String,
}

#[derive(Clone, Debug)]
pub struct Counterexample {
    /// The trial's sim seed.
    pub seed: u64,
    pub faults: Vec<FaultUnit>,
    pub fault_labels: Vec<String>,
    pub names: Vec<String>,
    /// The full trace, cut after the end of the first violation.
    pub trace: Vec<TraceEvent>,
    pub outcome: Outcome,
    /// The properties it breaks (see [`counts`]).
    pub broken: Vec<Property>,
}

#[derive(Clone, Debug)]
pub struct ExploreReport {
    pub seed: u64,
    pub trials: u64,
    /// Trials that broke a property that counts for this scenario ([`counts`]).
    pub violating: u64,
    /// Per property: the trials that broke it (a trial may break several).
    pub by_property: crate::vecmap::VecMap<Property, u64>,
    /// Trials whose only violations the resource absorbed (e.g. an overlap whose
    /// stale write a fenced resource rejected): not broken.
    pub absorbed: u64,
    /// 95 % Wilson score interval of the violation rate.
    pub interval: (f64, f64),
    pub smallest: Option<Counterexample>,
}

impl ExploreReport {
    pub fn rate(&self) -> f64 {
        if self.trials == 0 {
            0.0
        } else {
            self.violating as f64 / self.trials as f64
        }
    }
}

/// Does breaking `p` break `scenario`? A resource that checks fencing tokens or
/// idempotency keys is built for two clients holding the lock at once, so mutual
/// exclusion does not count there; a resource that only deduplicates (no fencing)
/// accepts a late write by design and refuses it when it repeats an effect, so a stale
/// write does not count either: the double effect does.
pub fn counts(scenario: &Scenario, p: Property) -> bool {
    let fenced = scenario.resource.fencing != Fencing::Off;
    let idempotent = scenario.resource.idempotency;
    match p {
        Property::MutualExclusion => !fenced && !idempotent,
        Property::StaleWrite => fenced || !idempotent,
        Property::LostUpdate | Property::DuplicateToken | Property::DoubleEffect => true,
    }
}

/// The properties `outcome` breaks that count for `scenario`, each once, in order.
pub fn broken(scenario: &Scenario, outcome: &Outcome) -> Vec<Property> {
    let mut ps: Vec<Property> = outcome
        .violations
        .iter()
        .filter_map(|v| v.property())
        .filter(|p| counts(scenario, *p))
        .collect();
    crate::sorting::sort(&mut ps);
    ps.dedup();
    ps
}

/// True time (ms) of the first violation that counts for `scenario`.
fn first_break_ms(scenario: &Scenario, outcome: &Outcome) -> Option<f64> {
    outcome
        .violations
        .iter()
        .filter(|v| v.property().is_some_and(|p| counts(scenario, p)))
        .map(|v| v.from_ms)
        .reduce(f64::min)
}

/// 95 % Wilson score interval for `k` successes in `n` trials.
pub fn wilson(k: u64, n: u64) -> (f64, f64) {
    if n == 0 {
        return (0.0, 1.0);
    }
    let z = 1.959_963_984_540_054_f64;
    let n = n as f64;
    let p = k as f64 / n;
    let denom = 1.0 + z * z / n;
    let centre = (p + z * z / (2.0 * n)) / denom;
    let half = z * ((p * (1.0 - p) / n) + z * z / (4.0 * n * n)).sqrt() / denom;
    ((centre - half).max(0.0), (centre + half).min(1.0))
}

/// What the explorer may touch, read from the built world.
struct Targets {
    clients: Vec<Pid>,
    nodes: Vec<Pid>,
    names: Vec<String>,
    end_us: u64,
    ttl_us: u64,
}

fn targets(scenario: &Scenario, world: &World) -> Targets {
    let names = world.process_names();
    let clients = (0..names.len()).filter(|p| world.is_client(*p)).collect();
    let nodes = (0..names.len()).filter(|p| world.is_node(*p)).collect();
    let ttl_ms = scenario.clients.iter().map(|c| c.ttl_ms).fold(1_000.0, f64::max);
    Targets {
        clients,
        nodes,
        names,
        end_us: super::world::ms_to_us(scenario.end_ms).unwrap_or(60_000_000),
        ttl_us: super::world::ms_to_us(ttl_ms).unwrap_or(10_000_000),
    }
}

fn pick(rng: &mut SimRng, xs: &[Pid]) -> Option<Pid> {
    if xs.is_empty() {
        None
    } else {
        xs.get(rng.range_u64(0, xs.len() as u64) as usize).copied()
    }
}

/// Draw 0–4 random faults for one trial.
fn draw_faults(rng: &mut SimRng, t: &Targets) -> Vec<FaultUnit> {
    let n = rng.range_u64(0, 5);
    let mut out = Vec::new();
    let horizon = (t.end_us * 6 / 10).max(1);
    for _ in 0..n {
        let at = rng.range_u64(0, horizon);
        let name = |p: Pid| t.names.get(p).cloned().unwrap_or_default();
        let unit = match rng.range_u64(0, 6) {
            0 => pick(rng, &t.clients).map(|c| {
                let d = rng.range_u64(50_000, 2 * t.ttl_us);
                FaultUnit {
                    ops: vec![(at, Fault::Pause(c)), (at + d, Fault::Resume(c))],
                    label: format!("pause {} at {} ms for {} ms", name(c), fmt_ms(at), fmt_ms(d)),
                }
            }),
            1 => pick(rng, &t.nodes).map(|p| {
                let d = rng.range_i64(-(t.ttl_us as i64), t.ttl_us as i64);
                FaultUnit {
                    ops: vec![(at, Fault::ClockJump(p, d))],
                    label: format!(
                        "clock of {} jumps {:+} ms at {} ms",
                        name(p),
                        d as f64 / 1000.0,
                        fmt_ms(at)
                    ),
                }
            }),
            2 => pick(rng, &t.nodes).map(|p| {
                let ppm = rng.range_i64(-50_000, 50_001);
                FaultUnit {
                    ops: vec![(at, Fault::Drift(p, ppm))],
                    label: format!(
                        "clock of {} drifts {:+} % from {} ms",
                        name(p),
                        ppm as f64 / 10_000.0,
                        fmt_ms(at)
                    ),
                }
            }),
            3 => pick(rng, &t.nodes).map(|p| {
                let d = rng.range_u64(0, 2 * t.ttl_us);
                FaultUnit {
                    ops: vec![(at, Fault::Crash(p)), (at + d, Fault::Restart(p))],
                    label: format!(
                        "crash {} at {} ms, restart after {} ms",
                        name(p),
                        fmt_ms(at),
                        fmt_ms(d)
                    ),
                }
            }),
            4 => pick(rng, &t.clients).map(|c| FaultUnit {
                ops: vec![(at, Fault::Crash(c))],
                label: format!("crash {} at {} ms", name(c), fmt_ms(at)),
            }),
            _ => match (pick(rng, &t.clients), pick(rng, &t.nodes)) {
                (Some(c), Some(p)) => {
                    let lat = rng.range_u64(1_000, 100_000);
                    let d = rng.range_u64(0, t.ttl_us);
                    Some(FaultUnit {
                        ops: vec![
                            (
                                at,
                                Fault::Latency {
                                    a: c,
                                    b: vec![p],
                                    latency: Latency::Fixed(lat),
                                },
                            ),
                            (
                                at + d,
                                Fault::Latency {
                                    a: c,
                                    b: vec![p],
                                    latency: Latency::Fixed(1_000),
                                },
                            ),
                        ],
                        label: format!(
                            "latency {}↔{} {} ms from {} ms for {} ms",
                            name(c),
                            name(p),
                            fmt_ms(lat),
                            fmt_ms(at),
                            fmt_ms(d)
                        ),
                    })
                }
                _ => None,
            },
        };
        out.extend(unit);
    }
    out
}

fn ops(units: &[FaultUnit]) -> Vec<(u64, Fault)> {
    units.iter().flat_map(|u| u.ops.iter().cloned()).collect()
}

fn trial(scenario: &Scenario, seed: u64, units: &[FaultUnit], level: TraceLevel) -> Result<Run, String> {
    run_with(scenario, seed, level, &ops(units))
}

/// A smaller version of a fault: halve its duration or magnitude. None when it cannot
/// shrink further.
fn smaller(u: &FaultUnit) -> Option<FaultUnit> {
    let mut v = u.clone();
    match v.ops.as_mut_slice() {
        [(at, _), (end, _)] => {
            let d = end.saturating_sub(*at);
            if d < 2_000 {
                return None;
            }
            *end = *at + d / 2;
            v.label = format!("{} (shortened to {} ms)", strip(&u.label), fmt_ms(d / 2));
        }
        [(_, fault @ Fault::ClockJump(..))] => {
            let Fault::ClockJump(p, d) = *fault else {
                return None;
            };
            if d.abs() < 2_000 {
                return None;
            }
            let half = d / 2;
            *fault = Fault::ClockJump(p, half);
            v.label = format!("{} (reduced to {:+} ms)", strip(&u.label), half as f64 / 1000.0);
        }
        _ => return None,
    }
    Some(v)
}

fn strip(label: &str) -> &str {
    label.split(" (").next().unwrap_or(label)
}

fn violates(scenario: &Scenario, seed: u64, units: &[FaultUnit]) -> bool {
    trial(scenario, seed, units, TraceLevel::Semantic)
        .is_ok_and(|r| first_break_ms(scenario, &r.outcome).is_some())
}

/// Shrink: drop faults one at a time while the trial still violates, then halve
/// durations and magnitudes.
fn shrink(scenario: &Scenario, seed: u64, mut units: Vec<FaultUnit>) -> Vec<FaultUnit> {
    let mut budget = MAX_SHRINK_RUNS;
    let mut i = 0;
    while i < units.len() && budget > 0 {
        let mut fewer = units.clone();
        fewer.remove(i);
        budget -= 1;
        if violates(scenario, seed, &fewer) {
            units = fewer;
        } else {
            i += 1;
        }
    }
    for i in 0..units.len() {
        while budget > 0 {
            let Some(s) = units.get(i).and_then(smaller) else {
                break;
            };
            let mut cand = units.clone();
            if let Some(slot) = cand.get_mut(i) {
                *slot = s;
            }
            budget -= 1;
            if violates(scenario, seed, &cand) {
                units = cand;
            } else {
                break;
            }
        }
    }
    units
}

/// Run `cfg.trials` random trials around `scenario`.
pub fn explore(scenario: &Scenario, cfg: &ExploreConfig) -> Result<ExploreReport, String> {
    if cfg.trials == 0 || cfg.trials > MAX_TRIALS {
        return Err(format!("--trials must be between 1 and {MAX_TRIALS}"));
    }
    let world =
        World::build(scenario, cfg.seed, TraceLevel::Semantic).map_err(|(f, m)| format!("{f}: {m}"))?;
    let t = targets(scenario, &world);
    let mut violating = 0;
    let mut absorbed = 0;
    let mut by_property = crate::vecmap::VecMap::new();
    let mut best: Option<(usize, f64, u64, Vec<FaultUnit>)> = None;
    for i in 0..cfg.trials {
        let seed = sub_seed(cfg.seed, &format!("trial:{i}"));
        let mut rng = SimRng::new(sub_seed(cfg.seed, &format!("faults:{i}")));
        let units = draw_faults(&mut rng, &t);
        let run = trial(scenario, seed, &units, TraceLevel::Semantic)?;
        if let Some(first) = first_break_ms(scenario, &run.outcome) {
            violating += 1;
            for p in broken(scenario, &run.outcome) {
                *by_property.entry(p).or_insert(0) += 1;
            }
            let better = match &best {
                None => true,
                Some((n, f, _, _)) => units.len() < *n || (units.len() == *n && first < *f),
            };
            if better {
                best = Some((units.len(), first, seed, units));
            }
        } else if !run.outcome.is_safe() {
            absorbed += 1;
        }
    }
    let smallest = match best {
        None => None,
        Some((_, _, seed, units)) => {
            let units = shrink(scenario, seed, units);
            let run = trial(scenario, seed, &units, TraceLevel::Full)?;
            let cut_us = run
                .outcome
                .violations
                .iter()
                .find(|v| v.property().is_some_and(|p| counts(scenario, p)))
                .map(|v| (v.to_ms * 1000.0).ceil() as u64)
                .unwrap_or(u64::MAX);
            let trace: Vec<TraceEvent> = run.trace.iter().filter(|e| e.t_us <= cut_us).cloned().collect();
            Some(Counterexample {
                seed,
                fault_labels: units.iter().map(|u| u.label.clone()).collect(),
                faults: units,
                names: run.names.clone(),
                trace,
                broken: broken(scenario, &run.outcome),
                outcome: run.outcome,
            })
        }
    };
    Ok(ExploreReport {
        seed: cfg.seed,
        trials: cfg.trials,
        violating,
        by_property,
        absorbed,
        interval: wilson(violating, cfg.trials),
        smallest,
    })
}

/// Trials per batch of the app's "Can this break?": it runs a session as batches, so
/// that it can show progress and stop between two.
pub const BATCH_TRIALS: u64 = 10;

/// The explorer's seed for batch `batch` of a session from `seed`.
pub fn batch_seed(seed: u64, batch: u64) -> u64 {
    seed.wrapping_add(batch.wrapping_mul(0x9E37_79B9))
}

/// One batch of "Can this break?" as the page shows it: what the engine's worker sends
/// back (JSON), without the counterexample's trace.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct BatchSummary {
    pub trials: u64,
    pub violating: u64,
    pub absorbed: u64,
    pub by_property: Vec<(Property, u64)>,
    pub smallest: Option<Smallest>,
}

/// A batch's smallest counterexample: enough to name it (each fault carries its label)
/// and to load it on the timeline.
#[derive(Clone, Debug, PartialEq, serde::Serialize, serde::Deserialize)]
pub struct Smallest {
    pub seed: u64,
    pub faults: Vec<FaultUnit>,
    pub names: Vec<String>,
    pub broken: Vec<Property>,
}

/// Batch `batch` of a "Can this break?" session of `scenario` from `seed`.
pub fn explore_batch(scenario: &Scenario, seed: u64, batch: u64) -> Result<BatchSummary, String> {
    let r = explore(
        scenario,
        &ExploreConfig {
            trials: BATCH_TRIALS,
            seed: batch_seed(seed, batch),
        },
    )?;
    Ok(BatchSummary {
        trials: r.trials,
        violating: r.violating,
        absorbed: r.absorbed,
        by_property: r.by_property.into_iter().collect(),
        smallest: r.smallest.map(|c| Smallest {
            seed: c.seed,
            faults: c.faults,
            names: c.names,
            broken: c.broken,
        }),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The engine's worker gets the scenario as JSON and sends the batch back as JSON:
    /// for every built-in scenario, what crosses is what the page would have computed.
    #[test]
    fn a_batch_crosses_the_worker_unchanged() {
        let mut broke = 0;
        for b in crate::sim::scenario::BUILTINS {
            let sc = crate::sim::scenario::builtin(b.name).unwrap().unwrap();
            let text = serde_json::to_string(&sc).unwrap();
            let back: Scenario = serde_json::from_str(&text).unwrap();
            assert_eq!(back, sc, "{}", b.name);
            let here = explore_batch(&sc, 7, 3).unwrap();
            let json = serde_json::to_string(&explore_batch(&back, 7, 3).unwrap()).unwrap();
            let there: BatchSummary = serde_json::from_str(&json).unwrap();
            assert_eq!(there, here, "{}", b.name);
            assert_eq!(here.trials, BATCH_TRIALS);
            // The batch is the explorer's own run under the batch's seed.
            let r = explore(
                &sc,
                &ExploreConfig {
                    trials: BATCH_TRIALS,
                    seed: batch_seed(7, 3),
                },
            )
            .unwrap();
            assert_eq!(
                (here.violating, here.absorbed),
                (r.violating, r.absorbed),
                "{}",
                b.name
            );
            assert_eq!(
                here.smallest.as_ref().map(|c| c.seed),
                r.smallest.as_ref().map(|c| c.seed)
            );
            if let Some(c) = &here.smallest {
                broke += 1;
                assert!(c.faults.iter().all(|u| !u.label.is_empty()), "{}", b.name);
                assert!(!c.broken.is_empty(), "{}", b.name);
            }
        }
        // Enough scenarios break within one batch for the counterexample's path to count.
        assert!(broke >= 5, "only {broke} scenarios broke in a batch");
    }

    #[test]
    fn wilson_interval_brackets_the_rate() {
        let (lo, hi) = wilson(50, 100);
        assert!(lo < 0.5 && hi > 0.5 && lo > 0.39 && hi < 0.61, "{lo} {hi}");
        let (lo, hi) = wilson(0, 1000);
        assert!(lo < 1e-12, "{lo}");
        assert!(hi > 0.0 && hi < 0.005, "{hi}");
        assert_eq!(wilson(0, 0), (0.0, 1.0));
    }
}
