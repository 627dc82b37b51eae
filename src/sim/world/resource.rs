//! The protected resource (a storage service): what it accepts and refuses, by fencing
//! token and idempotency key. The world and the live lab run (`sim::lab::live`) both answer
//! through [`Resource::apply`], so a write is judged by one set of rules wherever the
//! workers run.

use crate::sim::client::{ResOp, ResReply};
use crate::sim::fact::Reason;
use crate::sim::scenario::definition::{Fencing, ResourceSpec};
use crate::sim::trace::TraceKind;
use crate::vecmap::{VecMap, VecSet};

#[derive(Clone, Debug)]
pub struct Resource {
    fencing: Fencing,
    idempotency: bool,
    /// Each key's value and version (1 for the first write).
    data: VecMap<String, (String, u64)>,
    highest: Option<i64>,
    idem_seen: VecSet<String>,
    /// Idempotency keys claimed as in progress: by whom, until when (true time, µs).
    claims: VecMap<String, (u32, u64)>,
}

impl Resource {
    /// The resource a scenario describes, with its initial data (version 0).
    pub fn new(spec: &ResourceSpec) -> Resource {
        Resource {
            fencing: spec.fencing,
            idempotency: spec.idempotency,
            data: spec
                .init
                .iter()
                .map(|(k, v)| (k.clone(), (v.clone(), 0)))
                .collect(),
            highest: None,
            idem_seen: VecSet::new(),
            claims: VecMap::new(),
        }
    }

    /// Carries out `op` from client `from` at true time `now_us`: the reply, and the
    /// event to trace. `lapsed`: the writer's lock had lapsed (the caller judges that
    /// from the nodes; the resource only records it).
    pub fn apply(&mut self, from: u32, op: ResOp, now_us: u64, lapsed: bool) -> (ResReply, TraceKind) {
        match op {
            ResOp::Read { key } => {
                let (value, version) = match self.data.get(&key) {
                    Some((v, ver)) => (Some(v.clone()), *ver),
                    None => (None, 0),
                };
                let event = TraceKind::Read {
                    key,
                    value: value.clone(),
                    version,
                };
                (ResReply::Read { value, version }, event)
            }
            ResOp::Claim { key, ttl_us } => self.claim(from, key, ttl_us, now_us, lapsed),
            ResOp::Write {
                key,
                value,
                token,
                idempotency_key,
                base_version,
            } => self.write(from, key, value, token, idempotency_key, base_version, lapsed),
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn write(
        &mut self,
        from: u32,
        key: String,
        value: String,
        token: Option<i64>,
        idempotency_key: Option<String>,
        base_version: Option<u64>,
        lapsed: bool,
    ) -> (ResReply, TraceKind) {
        let fence_reject = match (self.fencing, token, self.highest) {
            (Fencing::Strict, Some(t), Some(h)) if t <= h => Some(Reason::StaleToken {
                token: t,
                highest: h,
                equal_allowed: false,
            }),
            (Fencing::AllowEqual, Some(t), Some(h)) if t < h => Some(Reason::StaleToken {
                token: t,
                highest: h,
                equal_allowed: true,
            }),
            (Fencing::Strict | Fencing::AllowEqual, None, _) => Some(Reason::NoFencingToken),
            _ => None,
        };
        let idem_reject = match &idempotency_key {
            Some(k) if self.idempotency && self.idem_seen.contains(k) => {
                Some(Reason::IdempotencyUsed { key: k.clone() })
            }
            _ => None,
        };
        if let Some(reason) = fence_reject.or(idem_reject) {
            let event = TraceKind::WriteRejected {
                from,
                key,
                token,
                highest_seen: self.highest,
                reason: reason.clone(),
            };
            return (ResReply::Rejected { reason }, event);
        }
        if let Some(t) = token {
            self.highest = Some(self.highest.map_or(t, |h| h.max(t)));
        }
        if let Some(k) = idempotency_key {
            if self.idempotency {
                self.claims.remove(&k);
                self.idem_seen.insert(k);
            }
        }
        let current = self.data.get(&key).map(|v| v.1).unwrap_or(0);
        let lost_update = base_version.is_some_and(|b| b != current);
        self.data.insert(key.clone(), (value.clone(), current + 1));
        let event = TraceKind::WriteAccepted {
            from,
            key,
            value,
            token,
            lost_update,
            lock_lapsed: lapsed,
        };
        (ResReply::Accepted, event)
    }

    /// An idempotency claim: refused once the key is done, or while another client's
    /// in-progress claim is live; otherwise (a first claim, or one whose holder's claim
    /// has expired, say after a crash) the key is in progress for `from` until
    /// now + `ttl_us`.
    fn claim(
        &mut self,
        from: u32,
        key: String,
        ttl_us: u64,
        now: u64,
        lapsed: bool,
    ) -> (ResReply, TraceKind) {
        let refused = if self.idem_seen.contains(&key) {
            Some(Reason::IdempotencyUsed { key: key.clone() })
        } else {
            match self.claims.get(&key) {
                Some(&(owner, until)) if owner != from && until > now => {
                    Some(Reason::IdempotencyInProgress {
                        key: key.clone(),
                        until_ms: until / 1000,
                    })
                }
                _ => None,
            }
        };
        let record = format!("idem:{key}");
        if let Some(reason) = refused {
            let event = TraceKind::WriteRejected {
                from,
                key: record,
                token: None,
                highest_seen: None,
                reason: reason.clone(),
            };
            return (ResReply::Rejected { reason }, event);
        }
        self.claims.insert(key, (from, now.saturating_add(ttl_us)));
        let event = TraceKind::WriteAccepted {
            from,
            key: record,
            value: "in-progress".to_string(),
            token: None,
            lost_update: false,
            lock_lapsed: lapsed,
        };
        (ResReply::Accepted, event)
    }
}
