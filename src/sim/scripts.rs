//! The Lua scripts clients send. They are data: a scenario may replace any of them
//! (the lesson lets a learner edit the release script and rerun).

use serde::{Deserialize, Serialize};

/// Check-and-delete: delete the key only if it still holds my token.
pub const RELEASE: &str =
    "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('del', KEYS[1]) else return 0 end";

/// Check-and-extend (the watchdog's renewal): reset the TTL only if the key is mine.
pub const EXTEND: &str = "if redis.call('get', KEYS[1]) == ARGV[1] then return redis.call('pexpire', KEYS[1], ARGV[2]) else return 0 end";

/// Acquire with a fencing token: SET NX PX, and on success INCR the counter in the
/// same atomic script. Returns the token, or 0 when the lock is taken.
pub const ACQUIRE_FENCED: &str = "if redis.call('set', KEYS[1], ARGV[1], 'NX', 'PX', ARGV[2]) then return redis.call('incr', KEYS[2]) else return 0 end";

/// The library's multi-resource acquire: fail if any key exists, else set them all.
/// Returns how many keys it set.
pub const LIB_ACQUIRE: &str =
    "for _, key in ipairs(KEYS) do if redis.call('exists', key) == 1 then return 0 end end \
for _, key in ipairs(KEYS) do redis.call('set', key, ARGV[1], 'PX', ARGV[2]) end return #KEYS";

/// The library's extend: every key must still hold the token; then PEXPIRE them all.
pub const LIB_EXTEND: &str =
    "for _, key in ipairs(KEYS) do if redis.call('get', key) ~= ARGV[1] then return 0 end end \
for _, key in ipairs(KEYS) do redis.call('pexpire', key, ARGV[2]) end return #KEYS";

/// The library's release: delete each key that still holds the token; returns how many.
pub const LIB_RELEASE: &str = "local count = 0 for _, key in ipairs(KEYS) do if redis.call('get', key) == ARGV[1] then redis.call('del', key) count = count + 1 end end return count";

/// The scripts a scenario's clients use. Each field may be overridden in the scenario
/// file's `[scripts]` table.
#[derive(Clone, Debug, PartialEq, Eq, Serialize, Deserialize)]
#[serde(default, deny_unknown_fields)]
pub struct Scripts {
    pub release: String,
    pub extend: String,
    pub acquire_fenced: String,
    pub lib_acquire: String,
    pub lib_extend: String,
    pub lib_release: String,
}

impl Default for Scripts {
    fn default() -> Self {
        Scripts {
            release: RELEASE.to_string(),
            extend: EXTEND.to_string(),
            acquire_fenced: ACQUIRE_FENCED.to_string(),
            lib_acquire: LIB_ACQUIRE.to_string(),
            lib_extend: LIB_EXTEND.to_string(),
            lib_release: LIB_RELEASE.to_string(),
        }
    }
}
