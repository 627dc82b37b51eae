//! The keyspace: values with optional absolute expiry, judged lazily against the store's
//! clock, and the bookkeeping every write needs (replication effects, WATCH invalidation).

use std::collections::{BTreeSet, HashMap};
use std::hash::{BuildHasherDefault, Hasher};

use super::effect::Effect;

/// A `HashMap` with a fixed hasher: `RandomState` would read OS entropy, and nothing in the
/// store may depend on it. Iteration order is never observable (KEYS sorts).
pub(crate) type Map<K, V> = HashMap<K, V, BuildHasherDefault<FxHasher>>;

/// The Fx hash (rustc's): a multiply-rotate per word. Much cheaper than SipHash on short
/// keys; hash flooding is not a concern for an in-process teaching store.
#[derive(Default, Clone, Copy)]
pub(crate) struct FxHasher {
    hash: u64,
}

impl FxHasher {
    const SEED: u64 = 0x51_7c_c1_b7_27_22_0a_95;

    fn add(&mut self, word: u64) {
        self.hash = (self.hash.rotate_left(5) ^ word).wrapping_mul(Self::SEED);
    }
}

impl Hasher for FxHasher {
    fn write(&mut self, bytes: &[u8]) {
        let mut chunks = bytes.chunks_exact(8);
        for chunk in &mut chunks {
            let mut word = [0u8; 8];
            word.copy_from_slice(chunk);
            self.add(u64::from_le_bytes(word));
        }
        let rest = chunks.remainder();
        if !rest.is_empty() {
            // The tail as a little-endian word (the same value as zero-padding it to 8
            // bytes), built in registers: filling a stack buffer byte by byte and reading
            // it back as one word stalls on store forwarding, and keys are short.
            let word = rest
                .iter()
                .rev()
                .fold(0u64, |word, &b| (word << 8) | u64::from(b));
            self.add(word);
        }
    }

    fn write_u8(&mut self, i: u8) {
        self.add(u64::from(i));
    }

    fn write_u64(&mut self, i: u64) {
        self.add(i);
    }

    fn write_usize(&mut self, i: usize) {
        self.add(i as u64);
    }

    fn finish(&self) -> u64 {
        self.hash
    }
}

#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct Entry {
    pub(crate) value: Vec<u8>,
    /// Absolute unix-epoch milliseconds.
    pub(crate) expire_at_ms: Option<u64>,
}

#[derive(Clone, Debug, Default)]
pub(crate) struct Db {
    keys: Map<Vec<u8>, Entry>,
    pub(crate) now_ms: u64,
    effects: Vec<Effect>,
    /// Key → connections WATCHing it.
    watchers: Map<Vec<u8>, BTreeSet<u64>>,
    /// Connections whose WATCHed keys were touched: their next EXEC fails.
    dirty: BTreeSet<u64>,
    /// Bytes the keyspace and the pending effect stream hold (see [`Db::used_memory`]).
    used: usize,
    pub(crate) max_memory: MaxMemory,
}

/// The store-wide memory limit (Redis's `maxmemory` with the `noeviction` policy).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct MaxMemory(pub(crate) usize);

impl Default for MaxMemory {
    fn default() -> Self {
        MaxMemory(DEFAULT_MAX_MEMORY)
    }
}

/// 64 MB per store: far above any lesson's needs, small enough for five nodes in a page.
pub(crate) const DEFAULT_MAX_MEMORY: usize = 64 * 1024 * 1024;

/// What one key costs beyond its bytes (the entry, the hash slot), as Redis counts its
/// dictEntry and robj headers.
const ENTRY_OVERHEAD: usize = 64;

fn entry_cost(key: &[u8], value: &[u8]) -> usize {
    key.len()
        .saturating_add(value.len())
        .saturating_add(ENTRY_OVERHEAD)
}

fn effect_cost(effect: &Effect) -> usize {
    match effect {
        Effect::Set { key, value, .. } => entry_cost(key, value),
        Effect::Del { key } => entry_cost(key, &[]),
        Effect::FlushAll => ENTRY_OVERHEAD,
    }
}

impl Db {
    /// Redis's `keyIsExpired`: a key expires strictly after its expiry instant.
    fn expired(now_ms: u64, entry: &Entry) -> bool {
        entry.expire_at_ms.is_some_and(|at| now_ms > at)
    }

    /// Looks a key up, deleting it first if it has expired (Redis's lazy expiry, which
    /// propagates a DEL).
    pub(crate) fn get(&mut self, key: &[u8]) -> Option<&Entry> {
        self.expire_if_needed(key);
        self.keys.get(key)
    }

    /// `get` with one hash lookup when the key is live or absent (the hot paths: SET NX on
    /// a held lock, GET): `f` sees the live entry. An expired key is deleted as by `get`.
    pub(crate) fn with_live<R>(&mut self, key: &[u8], f: impl FnOnce(&Entry) -> R) -> Option<R> {
        match self.keys.get(key) {
            None => return None,
            Some(entry) if !Self::expired(self.now_ms, entry) => return Some(f(entry)),
            Some(_) => {}
        }
        self.remove(key);
        None
    }

    /// Whether the key exists and is live, without side effects (for WATCH bookkeeping).
    pub(crate) fn is_live(&self, key: &[u8]) -> bool {
        self.keys.get(key).is_some_and(|e| !Self::expired(self.now_ms, e))
    }

    pub(crate) fn exists(&mut self, key: &[u8]) -> bool {
        self.with_live(key, |_| ()).is_some()
    }

    fn expire_if_needed(&mut self, key: &[u8]) {
        if self.keys.get(key).is_some_and(|e| Self::expired(self.now_ms, e)) {
            self.remove(key);
        }
    }

    /// Stores a value and its expiry, emitting the effect and invalidating WATCHes.
    pub(crate) fn set(&mut self, key: &[u8], value: Vec<u8>, expire_at_ms: Option<u64>) {
        self.push_effect(Effect::Set {
            key: key.to_vec(),
            value: value.clone(),
            expire_at_ms,
        });
        self.touch(key);
        self.insert_entry(key.to_vec(), Entry { value, expire_at_ms });
    }

    /// Changes only the expiry of an existing key. Returns false if there is no such key.
    pub(crate) fn set_expiry(&mut self, key: &[u8], expire_at_ms: Option<u64>) -> bool {
        let Some(entry) = self.keys.get_mut(key) else {
            return false;
        };
        entry.expire_at_ms = expire_at_ms;
        let effect = Effect::Set {
            key: key.to_vec(),
            value: entry.value.clone(),
            expire_at_ms,
        };
        self.push_effect(effect);
        self.touch(key);
        true
    }

    /// DEL of one key: deletes it whether live or expired (an expired key goes as by lazy
    /// expiry), with one hash lookup. Returns whether it was live.
    pub(crate) fn delete_live(&mut self, key: &[u8]) -> bool {
        let Some(entry) = self.remove_entry(key) else {
            return false;
        };
        self.push_effect(Effect::Del { key: key.to_vec() });
        self.touch(key);
        !Self::expired(self.now_ms, &entry)
    }

    /// Deletes a key (live or not). Returns whether it was present.
    pub(crate) fn remove(&mut self, key: &[u8]) -> bool {
        if self.remove_entry(key).is_some() {
            self.push_effect(Effect::Del { key: key.to_vec() });
            self.touch(key);
            true
        } else {
            false
        }
    }

    pub(crate) fn flush_all(&mut self) {
        let watched: Vec<Vec<u8>> = self
            .watchers
            .keys()
            .filter(|k| self.keys.contains_key(*k))
            .cloned()
            .collect();
        for key in watched {
            self.touch(&key);
        }
        self.keys.clear();
        self.used = self.effects.iter().map(effect_cost).sum();
        self.push_effect(Effect::FlushAll);
    }

    /// Live keys with their entries, sorted by key.
    pub(crate) fn live(&self) -> Vec<(&Vec<u8>, &Entry)> {
        let mut live: Vec<_> = self
            .keys
            .iter()
            .filter(|(_, e)| !Self::expired(self.now_ms, e))
            .collect();
        crate::sorting::sort_by(&mut live, |a, b| a.0.cmp(b.0));
        live
    }

    pub(crate) fn live_count(&self) -> usize {
        self.keys
            .values()
            .filter(|e| !Self::expired(self.now_ms, e))
            .count()
    }

    pub(crate) fn take_effects(&mut self) -> Vec<Effect> {
        let taken: usize = self.effects.iter().map(effect_cost).sum();
        self.used = self.used.saturating_sub(taken);
        std::mem::take(&mut self.effects)
    }

    /// The length of a key's value (0 if absent), without expiring it.
    pub(crate) fn value_len(&self, key: &[u8]) -> usize {
        self.keys.get(key).map_or(0, |e| e.value.len())
    }

    /// Bytes the store holds for data: every key and value (with a per-key overhead) and
    /// the effects not yet taken.
    pub(crate) fn used_memory(&self) -> usize {
        self.used
    }

    /// Whether a write that brings `incoming` bytes must be refused: Redis's `maxmemory`
    /// check, made strict (the write is refused if it could pass the limit, so the store
    /// never holds more than `max_memory`).
    pub(crate) fn refuses_write(&self, incoming: usize) -> bool {
        self.used
            .saturating_add(incoming.saturating_mul(2))
            .saturating_add(2 * ENTRY_OVERHEAD)
            > self.max_memory.0
    }

    fn insert_entry(&mut self, key: Vec<u8>, entry: Entry) {
        let added = entry_cost(&key, &entry.value);
        let new_len = entry.value.len();
        match self.keys.insert(key, entry) {
            // The key and its overhead were counted with the old entry.
            Some(old) => self.used = self.used.saturating_sub(old.value.len()).saturating_add(new_len),
            None => self.used = self.used.saturating_add(added),
        }
    }

    fn remove_entry(&mut self, key: &[u8]) -> Option<Entry> {
        let old = self.keys.remove(key)?;
        self.used = self.used.saturating_sub(entry_cost(key, &old.value));
        Some(old)
    }

    fn push_effect(&mut self, effect: Effect) {
        self.used = self.used.saturating_add(effect_cost(&effect));
        self.effects.push(effect);
    }

    /// A replica applies a primary's effect: same state change, no new effect recorded.
    pub(crate) fn apply_effect(&mut self, effect: &Effect) {
        match effect {
            Effect::Set {
                key,
                value,
                expire_at_ms,
            } => {
                self.touch(key);
                self.insert_entry(
                    key.clone(),
                    Entry {
                        value: value.clone(),
                        expire_at_ms: *expire_at_ms,
                    },
                );
            }
            Effect::Del { key } => {
                if self.remove_entry(key).is_some() {
                    self.touch(key);
                }
            }
            Effect::FlushAll => {
                let before = self.effects.len();
                self.flush_all();
                let dropped: usize = self
                    .effects
                    .get(before..)
                    .unwrap_or_default()
                    .iter()
                    .map(effect_cost)
                    .sum();
                self.used = self.used.saturating_sub(dropped);
                self.effects.truncate(before);
            }
        }
    }

    // ---- WATCH bookkeeping (Redis's touchWatchedKey) ----

    fn touch(&mut self, key: &[u8]) {
        if let Some(conns) = self.watchers.get(key) {
            self.dirty.extend(conns.iter().copied());
        }
    }

    pub(crate) fn watch(&mut self, conn: u64, key: &[u8]) {
        self.watchers.entry(key.to_vec()).or_default().insert(conn);
    }

    /// Forgets a connection's WATCHes. Returns whether any watched key was touched.
    pub(crate) fn unwatch(&mut self, conn: u64, keys: &[Vec<u8>]) -> bool {
        for key in keys {
            if let Some(conns) = self.watchers.get_mut(key.as_slice()) {
                conns.remove(&conn);
                if conns.is_empty() {
                    self.watchers.remove(key.as_slice());
                }
            }
        }
        self.dirty.remove(&conn)
    }
}
