//! The effect stream's unit: one write as the key's resulting state, which a primary hands
//! its replicas.

use serde::{Deserialize, Serialize};

/// One write, as the key's resulting state (Redis 7 effect replication with absolute TTLs).
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
pub enum Effect {
    Set {
        key: Vec<u8>,
        value: Vec<u8>,
        expire_at_ms: Option<u64>,
    },
    Del {
        key: Vec<u8>,
    },
    FlushAll,
}
