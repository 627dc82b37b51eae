//! A run's changes in a URL: the knobs and the injected faults, as short text, so a link
//! reproduces exactly what the sender saw. Decoding skips anything it cannot read (a
//! hand-edited link never panics) and caps the number of faults.

use super::variant::{self as bounds, Bounds};
use super::Variant;
use crate::sim::scenario::Persistence;
use crate::sim::world::Latency;
use crate::sim::Fault;
use std::fmt::Write as _;

/// Most faults a link may carry.
pub const MAX_FAULTS: usize = 64;

fn pids(list: &[usize]) -> String {
    list.iter().map(|p| p.to_string()).collect::<Vec<_>>().join(".")
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().fold(String::new(), |mut s, b| {
        let _ = write!(s, "{b:02x}");
        s
    })
}

fn unhex(s: &str) -> Option<Vec<u8>> {
    if !s.len().is_multiple_of(2) {
        return None;
    }
    (0..s.len())
        .step_by(2)
        .map(|i| s.get(i..i + 2).and_then(|h| u8::from_str_radix(h, 16).ok()))
        .collect()
}

/// `t_us:kind:args` items joined by `_`, URL-safe without escaping.
pub fn encode_faults(faults: &[(u64, Fault)]) -> String {
    faults
        .iter()
        .map(|(t, f)| {
            let body = match f {
                Fault::Pause(p) => format!("pause:{p}"),
                Fault::Resume(p) => format!("resume:{p}"),
                Fault::Crash(p) => format!("crash:{p}"),
                Fault::Restart(p) => format!("restart:{p}"),
                Fault::ClockJump(p, d) => format!("jump:{p}:{d}"),
                Fault::Drift(p, r) => format!("drift:{p}:{r}"),
                Fault::Partition { a, b, oneway } => format!("part:{a}:{}:{}", pids(b), u8::from(*oneway)),
                Fault::Repair { a, b } => format!("repair:{a}:{}", pids(b)),
                Fault::Latency {
                    a,
                    b,
                    latency: Latency::Fixed(us),
                } => format!("lat:{a}:{}:{us}:{us}", pids(b)),
                Fault::Latency {
                    a,
                    b,
                    latency: Latency::Uniform(lo, hi),
                } => format!("lat:{a}:{}:{lo}:{hi}", pids(b)),
                Fault::Command { node, args } => {
                    format!(
                        "cmd:{node}:{}",
                        args.iter().map(|a| hex(a)).collect::<Vec<_>>().join(".")
                    )
                }
            };
            format!("{t}:{body}")
        })
        .collect::<Vec<_>>()
        .join("_")
}

pub fn decode_faults(text: &str) -> Vec<(u64, Fault)> {
    text.split('_').filter_map(decode_one).take(MAX_FAULTS).collect()
}

fn decode_one(item: &str) -> Option<(u64, Fault)> {
    let mut parts = item.split(':');
    let t: u64 = parts.next()?.parse().ok()?;
    let kind = parts.next()?;
    let rest: Vec<&str> = parts.collect();
    let pid = |i: usize| rest.get(i).and_then(|s| s.parse::<usize>().ok());
    let num = |i: usize| rest.get(i).and_then(|s| s.parse::<i64>().ok());
    let list = |i: usize| -> Option<Vec<usize>> {
        rest.get(i)?
            .split('.')
            .map(|p| p.parse().ok())
            .collect::<Option<Vec<usize>>>()
            .filter(|v| !v.is_empty())
    };
    let fault = match kind {
        "pause" => Fault::Pause(pid(0)?),
        "resume" => Fault::Resume(pid(0)?),
        "crash" => Fault::Crash(pid(0)?),
        "restart" => Fault::Restart(pid(0)?),
        "jump" => Fault::ClockJump(pid(0)?, num(1)?),
        "drift" => Fault::Drift(pid(0)?, num(1)?),
        "part" => Fault::Partition {
            a: pid(0)?,
            b: list(1)?,
            oneway: num(2)? == 1,
        },
        "repair" => Fault::Repair {
            a: pid(0)?,
            b: list(1)?,
        },
        "lat" => {
            let (lo, hi) = (u64::try_from(num(2)?).ok()?, u64::try_from(num(3)?).ok()?);
            let latency = if lo == hi {
                Latency::Fixed(lo)
            } else {
                Latency::Uniform(lo.min(hi), hi.max(lo))
            };
            Fault::Latency {
                a: pid(0)?,
                b: list(1)?,
                latency,
            }
        }
        "cmd" => {
            let args = rest.get(1)?.split('.').map(unhex).collect::<Option<Vec<_>>>()?;
            Fault::Command { node: pid(0)?, args }
        }
        _ => return None,
    };
    Some((t, fault))
}

/// The knobs as `ttl=…&drift=…` pairs (only the ones set), and back.
pub fn encode_variant(v: &Variant) -> Vec<(&'static str, String)> {
    let mut out = Vec::new();
    if let Some(t) = v.ttl_ms {
        out.push(("ttl", t.to_string()));
    }
    if let Some(d) = v.drift_factor {
        out.push(("drift", d.to_string()));
    }
    if let Some(t) = v.timeout_ms {
        out.push(("timeout", t.to_string()));
    }
    if let Some((m, p)) = v.work_ms {
        out.push(("work", format!("{m}~{p}")));
    }
    if let Some(n) = v.nodes {
        out.push(("n", n.to_string()));
    }
    if let Some(d) = v.retry_delay_ms {
        out.push(("retry", d.to_string()));
    }
    if let Some(l) = v.latency_ms {
        out.push(("latency", l.to_string()));
    }
    if let Some(p) = v.persistence {
        out.push(("aof", p.code().to_string()));
    }
    if let Some(r) = v.retries {
        out.push(("retries", r.to_string()));
    }
    if let Some(j) = v.retry_jitter_ms {
        out.push(("jitter", j.to_string()));
    }
    if let Some(t) = v.extension_threshold_ms {
        out.push(("extend", t.to_string()));
    }
    out
}

pub fn decode_variant(get: impl Fn(&str) -> Option<String>) -> Variant {
    let num = |k: &str, b: Bounds| {
        get(k)
            .and_then(|s| crate::decimal::parse(&s))
            .filter(|x| b.contains(*x))
    };
    // N and retries are whole numbers.
    let whole = |k: &str, b: Bounds| num(k, b).filter(|n| n.fract() == 0.0).map(|n| n as u32);
    let work = get("work").and_then(|w| {
        let (m, p) = w.split_once('~')?;
        let (m, p) = (crate::decimal::parse(m)?, crate::decimal::parse(p)?);
        (bounds::WORK_MS.contains(m) && bounds::WORK_MS.contains(p) && p >= m).then_some((m, p))
    });
    Variant {
        ttl_ms: num("ttl", bounds::TTL_MS),
        drift_factor: num("drift", bounds::DRIFT_FACTOR),
        timeout_ms: num("timeout", bounds::TIMEOUT_MS),
        work_ms: work,
        nodes: whole("n", bounds::NODES),
        retry_delay_ms: num("retry", bounds::RETRY_DELAY_MS),
        latency_ms: num("latency", bounds::LATENCY_MS),
        persistence: get("aof").and_then(|p| Persistence::from_code(&p)),
        retries: whole("retries", bounds::RETRIES),
        retry_jitter_ms: num("jitter", bounds::RETRY_JITTER_MS),
        extension_threshold_ms: num("extend", bounds::EXTENSION_THRESHOLD_MS),
        ..Variant::default()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn faults_round_trip() {
        let faults = vec![
            (5_000, Fault::Crash(3)),
            (6_000, Fault::Restart(3)),
            (100, Fault::Pause(0)),
            (12_100_000, Fault::Resume(0)),
            (1_000_000, Fault::ClockJump(4, 10_000_000)),
            (1, Fault::Drift(4, -20_000)),
            (
                2,
                Fault::Partition {
                    a: 0,
                    b: vec![3, 4],
                    oneway: true,
                },
            ),
            (3, Fault::Repair { a: 0, b: vec![3] }),
            (
                4,
                Fault::Latency {
                    a: 1,
                    b: vec![2],
                    latency: Latency::Uniform(500, 2000),
                },
            ),
            (
                5,
                Fault::Latency {
                    a: 1,
                    b: vec![2],
                    latency: Latency::Fixed(700),
                },
            ),
            (
                6,
                Fault::Command {
                    node: 2,
                    args: vec![b"SET".to_vec(), b"lock:x".to_vec(), b"t \x00:_".to_vec()],
                },
            ),
        ];
        let text = encode_faults(&faults);
        assert!(
            text.chars()
                .all(|c| c.is_ascii_alphanumeric() || ":._-".contains(c)),
            "{text}"
        );
        assert_eq!(decode_faults(&text), faults);
    }

    #[test]
    fn bad_links_decode_to_what_can_be_read() {
        assert_eq!(
            decode_faults("5:crash:2_x:crash:1_7:nope:1_8:cmd:1:zz_9:jump:1"),
            vec![(5, Fault::Crash(2))]
        );
        assert!(decode_faults("").is_empty());
        let many = vec!["1:crash:0"; 500].join("_");
        assert_eq!(decode_faults(&many).len(), MAX_FAULTS);
    }

    #[test]
    fn knobs_round_trip_and_reject_nonsense() {
        let v = Variant {
            ttl_ms: Some(30_000.0),
            drift_factor: Some(0.02),
            work_ms: Some((100.0, 400.0)),
            nodes: Some(3),
            retry_delay_ms: Some(150.0),
            latency_ms: Some(2.5),
            persistence: Some(Persistence::Always),
            retries: Some(4),
            retry_jitter_ms: Some(50.0),
            extension_threshold_ms: Some(750.0),
            ..Variant::default()
        };
        let pairs = encode_variant(&v);
        let get = |k: &str| pairs.iter().find(|(n, _)| *n == k).map(|(_, v)| v.clone());
        assert_eq!(decode_variant(get), v);
        let bad = |k: &str| match k {
            "ttl" => Some("-5".to_string()),
            "drift" => Some("NaN".to_string()),
            "work" => Some("800~200".to_string()),
            "n" => Some("9".to_string()),
            "latency" => Some("-1".to_string()),
            "aof" => Some("sometimes".to_string()),
            "retries" => Some("2.5".to_string()),
            "jitter" => Some("-3".to_string()),
            "extend" => Some("inf".to_string()),
            _ => None,
        };
        assert_eq!(decode_variant(bad), Variant::default());
    }

    /// A link takes each knob's value up to the bounds the knob editor says, and no
    /// further: one set of bounds for both.
    #[test]
    fn a_link_takes_each_knob_within_the_editors_bounds() {
        type Read = fn(&Variant) -> Option<f64>;
        let knobs: [(&str, Bounds, Read); 9] = [
            ("ttl", bounds::TTL_MS, |v| v.ttl_ms),
            ("drift", bounds::DRIFT_FACTOR, |v| v.drift_factor),
            ("timeout", bounds::TIMEOUT_MS, |v| v.timeout_ms),
            ("n", bounds::NODES, |v| v.nodes.map(f64::from)),
            ("retry", bounds::RETRY_DELAY_MS, |v| v.retry_delay_ms),
            ("latency", bounds::LATENCY_MS, |v| v.latency_ms),
            ("retries", bounds::RETRIES, |v| v.retries.map(f64::from)),
            ("jitter", bounds::RETRY_JITTER_MS, |v| v.retry_jitter_ms),
            ("extend", bounds::EXTENSION_THRESHOLD_MS, |v| {
                v.extension_threshold_ms
            }),
        ];
        for (key, b, read) in knobs {
            let with = |x: f64| decode_variant(|k| (k == key).then(|| x.to_string()));
            assert_eq!(read(&with(b.lo)), Some(b.lo), "{key} at {}", b.lo);
            assert_eq!(read(&with(b.hi)), Some(b.hi), "{key} at {}", b.hi);
            assert_eq!(read(&with(b.hi + 1.0)), None, "{key} past {}", b.hi);
            assert_eq!(read(&with(b.lo - 1.0)), None, "{key} under {}", b.lo);
        }
        let work = |w: &str| decode_variant(|k| (k == "work").then(|| w.to_string())).work_ms;
        let (lo, hi) = (bounds::WORK_MS.lo, bounds::WORK_MS.hi);
        assert_eq!(work(&format!("{lo}~{hi}")), Some((lo, hi)));
        assert_eq!(work(&format!("{lo}~{}", hi + 1.0)), None);
        assert_eq!(work(&format!("{}~{hi}", lo - 0.5)), None);
    }
}
