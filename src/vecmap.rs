//! Ordered maps and sets kept as one vector sorted by key, for the code the page runs.
//!
//! `BTreeMap` and `BTreeSet` compile their node code (insert, split, merge, remove, drop,
//! iterate) once per key and value type: about 6 KB of the page's module each, 93 KB in
//! all for some twenty types (BENCHMARKS.md, issue #16). [`VecMap`] and [`VecSet`] keep
//! the same order and the same serde form (a map, a sequence) with a binary search and a
//! vector's insert and remove: a few hundred bytes per type. They suit small collections
//! (a run's lanes, a learner's sections and answers, the checker's and the timeline's
//! state per process, keyed mostly in the order it grows); an insert in the middle moves
//! the items after it, so the simulated world's own large, busy maps stay `BTreeMap`s.
//!
//! Building from an iterator inserts item by item (a later key's value wins, as with
//! `BTreeMap`'s `collect`): `slice::sort` would compile std's sort once more per type.

use serde::de::{Deserialize, Deserializer, MapAccess, SeqAccess, Visitor};
use serde::ser::{Serialize, SerializeMap, SerializeSeq, Serializer};
use std::borrow::Borrow;
use std::fmt;
use std::marker::PhantomData;

/// A map ordered by key, as `BTreeMap`, kept as a sorted vector of pairs.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VecMap<K, V> {
    items: Vec<(K, V)>,
}

impl<K, V> VecMap<K, V> {
    pub const fn new() -> Self {
        VecMap { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The pairs in key order.
    pub fn iter(&self) -> impl DoubleEndedIterator<Item = (&K, &V)> + ExactSizeIterator + Clone {
        self.items.iter().map(|(k, v)| (k, v))
    }

    pub fn keys(&self) -> impl DoubleEndedIterator<Item = &K> + ExactSizeIterator + Clone {
        self.items.iter().map(|(k, _)| k)
    }

    pub fn values(&self) -> impl DoubleEndedIterator<Item = &V> + ExactSizeIterator + Clone {
        self.items.iter().map(|(_, v)| v)
    }

    /// The values in key order, taken.
    pub fn into_values(self) -> impl DoubleEndedIterator<Item = V> + ExactSizeIterator {
        self.items.into_iter().map(|(_, v)| v)
    }

    /// Keeps the pairs `keep` accepts, in order.
    pub fn retain(&mut self, mut keep: impl FnMut(&K, &mut V) -> bool) {
        self.items.retain_mut(|(k, v)| keep(k, v));
    }

    pub fn clear(&mut self) {
        self.items.clear();
    }

    /// The pair with the smallest key.
    pub fn first_key_value(&self) -> Option<(&K, &V)> {
        self.items.first().map(|(k, v)| (k, v))
    }

    /// Takes the pair with the smallest key.
    pub fn pop_first(&mut self) -> Option<(K, V)> {
        (!self.items.is_empty()).then(|| self.items.remove(0))
    }
}

impl<K: Ord, V> VecMap<K, V> {
    /// Where `key` is (`Ok`) or would go (`Err`).
    fn find<Q: Ord + ?Sized>(&self, key: &Q) -> Result<usize, usize>
    where
        K: Borrow<Q>,
    {
        self.items.binary_search_by(|(k, _)| k.borrow().cmp(key))
    }

    /// Sets `key`'s value; the old one, if there was one.
    pub fn insert(&mut self, key: K, value: V) -> Option<V> {
        // Keys often come in order (a run's lanes, a map read back): append at once.
        if self.items.last().is_none_or(|(last, _)| *last < key) {
            self.items.push((key, value));
            return None;
        }
        match self.find(&key) {
            Ok(i) => Some(std::mem::replace(&mut self.items[i].1, value)),
            Err(i) => {
                self.items.insert(i, (key, value));
                None
            }
        }
    }

    pub fn get<Q: Ord + ?Sized>(&self, key: &Q) -> Option<&V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &self.items[i].1)
    }

    pub fn get_mut<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<&mut V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| &mut self.items[i].1)
    }

    pub fn contains_key<Q: Ord + ?Sized>(&self, key: &Q) -> bool
    where
        K: Borrow<Q>,
    {
        self.find(key).is_ok()
    }

    /// Takes `key` out; its value, if it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, key: &Q) -> Option<V>
    where
        K: Borrow<Q>,
    {
        self.find(key).ok().map(|i| self.items.remove(i).1)
    }

    /// `key`'s place, to read or fill (as `BTreeMap::entry`).
    pub fn entry(&mut self, key: K) -> Entry<'_, K, V> {
        Entry { map: self, key }
    }
}

/// A key's place in a [`VecMap`], filled or not.
pub struct Entry<'a, K, V> {
    map: &'a mut VecMap<K, V>,
    key: K,
}

impl<'a, K: Ord, V> Entry<'a, K, V> {
    /// The key's value, made by `make` first if the map had none.
    pub fn or_insert_with(self, make: impl FnOnce() -> V) -> &'a mut V {
        let items = &mut self.map.items;
        let i = match items.binary_search_by(|(k, _)| k.cmp(&self.key)) {
            Ok(i) => i,
            Err(i) => {
                items.insert(i, (self.key, make()));
                i
            }
        };
        &mut items[i].1
    }

    /// The key's value, `value` first if the map had none.
    pub fn or_insert(self, value: V) -> &'a mut V {
        self.or_insert_with(|| value)
    }

    /// The key's value, the default first if the map had none.
    pub fn or_default(self) -> &'a mut V
    where
        V: Default,
    {
        self.or_insert_with(V::default)
    }
}

impl<K, V> Default for VecMap<K, V> {
    fn default() -> Self {
        VecMap::new()
    }
}

impl<K: Ord + Borrow<Q>, V, Q: Ord + ?Sized> std::ops::Index<&Q> for VecMap<K, V> {
    type Output = V;

    /// `key`'s value; panics if the map has none, as `BTreeMap`'s index does.
    fn index(&self, key: &Q) -> &V {
        self.get(key).expect("no entry found for key")
    }
}

impl<K: fmt::Debug, V: fmt::Debug> fmt::Debug for VecMap<K, V> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_map().entries(self.iter()).finish()
    }
}

impl<K: Ord, V> FromIterator<(K, V)> for VecMap<K, V> {
    fn from_iter<I: IntoIterator<Item = (K, V)>>(items: I) -> Self {
        let mut map = VecMap::new();
        map.extend(items);
        map
    }
}

impl<K: Ord, V> Extend<(K, V)> for VecMap<K, V> {
    fn extend<I: IntoIterator<Item = (K, V)>>(&mut self, items: I) {
        for (k, v) in items {
            self.insert(k, v);
        }
    }
}

impl<K, V> IntoIterator for VecMap<K, V> {
    type Item = (K, V);
    type IntoIter = std::vec::IntoIter<(K, V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, K, V> IntoIterator for &'a VecMap<K, V> {
    type Item = (&'a K, &'a V);
    type IntoIter = std::iter::Map<std::slice::Iter<'a, (K, V)>, fn(&'a (K, V)) -> (&'a K, &'a V)>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter().map(|(k, v)| (k, v))
    }
}

impl<K: Serialize, V: Serialize> Serialize for VecMap<K, V> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut map = s.serialize_map(Some(self.items.len()))?;
        for (k, v) in &self.items {
            map.serialize_entry(k, v)?;
        }
        map.end()
    }
}

impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Deserialize<'de> for VecMap<K, V> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Pairs<K, V>(PhantomData<(K, V)>);
        impl<'de, K: Ord + Deserialize<'de>, V: Deserialize<'de>> Visitor<'de> for Pairs<K, V> {
            type Value = VecMap<K, V>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a map")
            }
            fn visit_map<A: MapAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                // The length a format announces is not trusted for the allocation.
                let mut map = VecMap::new();
                while let Some((k, v)) = a.next_entry()? {
                    map.insert(k, v);
                }
                Ok(map)
            }
        }
        d.deserialize_map(Pairs(PhantomData))
    }
}

/// A set ordered as `BTreeSet`, kept as a sorted vector.
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct VecSet<T> {
    items: Vec<T>,
}

impl<T> VecSet<T> {
    pub const fn new() -> Self {
        VecSet { items: Vec::new() }
    }

    pub fn len(&self) -> usize {
        self.items.len()
    }

    pub fn is_empty(&self) -> bool {
        self.items.is_empty()
    }

    /// The items in order.
    pub fn iter(&self) -> std::slice::Iter<'_, T> {
        self.items.iter()
    }

    /// Keeps the items `keep` accepts, in order.
    pub fn retain(&mut self, keep: impl FnMut(&T) -> bool) {
        self.items.retain(keep);
    }
}

impl<T: Ord> VecSet<T> {
    fn find<Q: Ord + ?Sized>(&self, x: &Q) -> Result<usize, usize>
    where
        T: Borrow<Q>,
    {
        self.items.binary_search_by(|t| t.borrow().cmp(x))
    }

    /// Adds `x`; whether it was new.
    pub fn insert(&mut self, x: T) -> bool {
        if self.items.last().is_none_or(|last| *last < x) {
            self.items.push(x);
            return true;
        }
        match self.find(&x) {
            Ok(_) => false,
            Err(i) => {
                self.items.insert(i, x);
                true
            }
        }
    }

    pub fn contains<Q: Ord + ?Sized>(&self, x: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        self.find(x).is_ok()
    }

    /// Takes `x` out; whether it was there.
    pub fn remove<Q: Ord + ?Sized>(&mut self, x: &Q) -> bool
    where
        T: Borrow<Q>,
    {
        match self.find(x) {
            Ok(i) => {
                self.items.remove(i);
                true
            }
            Err(_) => false,
        }
    }
}

impl<T> Default for VecSet<T> {
    fn default() -> Self {
        VecSet::new()
    }
}

impl<T: fmt::Debug> fmt::Debug for VecSet<T> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_set().entries(self.iter()).finish()
    }
}

impl<T: Ord> FromIterator<T> for VecSet<T> {
    fn from_iter<I: IntoIterator<Item = T>>(items: I) -> Self {
        let mut set = VecSet::new();
        set.extend(items);
        set
    }
}

impl<T: Ord> Extend<T> for VecSet<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, items: I) {
        for x in items {
            self.insert(x);
        }
    }
}

impl<T> IntoIterator for VecSet<T> {
    type Item = T;
    type IntoIter = std::vec::IntoIter<T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.into_iter()
    }
}

impl<'a, T> IntoIterator for &'a VecSet<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;

    fn into_iter(self) -> Self::IntoIter {
        self.items.iter()
    }
}

impl<T: Serialize> Serialize for VecSet<T> {
    fn serialize<S: Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        let mut seq = s.serialize_seq(Some(self.items.len()))?;
        for x in &self.items {
            seq.serialize_element(x)?;
        }
        seq.end()
    }
}

impl<'de, T: Ord + Deserialize<'de>> Deserialize<'de> for VecSet<T> {
    fn deserialize<D: Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Items<T>(PhantomData<T>);
        impl<'de, T: Ord + Deserialize<'de>> Visitor<'de> for Items<T> {
            type Value = VecSet<T>;
            fn expecting(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                f.write_str("a sequence")
            }
            fn visit_seq<A: SeqAccess<'de>>(self, mut a: A) -> Result<Self::Value, A::Error> {
                let mut set = VecSet::new();
                while let Some(x) = a.next_element()? {
                    set.insert(x);
                }
                Ok(set)
            }
        }
        d.deserialize_seq(Items(PhantomData))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use proptest::prelude::*;
    use std::collections::{BTreeMap, BTreeSet};

    #[derive(Debug, Clone)]
    enum Op {
        Insert(u8, u16),
        Remove(u8),
        GetOrDefault(u8),
        Retain(u8),
        PopFirst,
        Clear,
    }

    fn op() -> impl Strategy<Value = Op> {
        prop_oneof![
            (any::<u8>(), any::<u16>()).prop_map(|(k, v)| Op::Insert(k % 40, v)),
            any::<u8>().prop_map(|k| Op::Remove(k % 40)),
            any::<u8>().prop_map(|k| Op::GetOrDefault(k % 40)),
            any::<u8>().prop_map(Op::Retain),
            // Mostly the first pair taken; rarely everything (little is left to compare).
            any::<u8>().prop_map(|k| if k < 8 { Op::Clear } else { Op::PopFirst }),
        ]
    }

    proptest! {
        /// Any sequence of changes leaves a VecMap and a VecSet equal, pair for pair and
        /// in order, to a BTreeMap and a BTreeSet given the same changes, with the same
        /// answers on the way.
        #[test]
        fn they_behave_as_the_btree_collections(ops in proptest::collection::vec(op(), 0..200)) {
            let (mut vm, mut bm) = (VecMap::new(), BTreeMap::new());
            let (mut vs, mut bs) = (VecSet::new(), BTreeSet::new());
            for op in ops {
                match op {
                    Op::Insert(k, v) => {
                        prop_assert_eq!(vm.insert(k, v), bm.insert(k, v));
                        prop_assert_eq!(vs.insert(k), bs.insert(k));
                    }
                    Op::Remove(k) => {
                        prop_assert_eq!(vm.remove(&k), bm.remove(&k));
                        prop_assert_eq!(vs.remove(&k), bs.remove(&k));
                    }
                    Op::GetOrDefault(k) => {
                        *vm.entry(k).or_default() += 1;
                        *bm.entry(k).or_default() += 1;
                    }
                    Op::Retain(m) => {
                        let keep = |k: &u8| m == 0 || !k.is_multiple_of(m % 7 + 1);
                        vm.retain(|k, _| keep(k));
                        bm.retain(|k, _| keep(k));
                        vs.retain(keep);
                        bs.retain(keep);
                    }
                    Op::PopFirst => {
                        prop_assert_eq!(vm.first_key_value(), bm.first_key_value());
                        prop_assert_eq!(vm.pop_first(), bm.pop_first());
                    }
                    Op::Clear => {
                        vm.clear();
                        bm.clear();
                    }
                }
                prop_assert_eq!(vm.len(), bm.len());
                prop_assert!(vm.iter().eq(bm.iter()));
                prop_assert!(vs.iter().eq(bs.iter()));
                for k in 0..40u8 {
                    prop_assert_eq!(vm.get(&k), bm.get(&k));
                    prop_assert_eq!(vm.contains_key(&k), bm.contains_key(&k));
                    prop_assert_eq!(vs.contains(&k), bs.contains(&k));
                }
            }
        }

        /// Built from pairs in any order, with repeated keys, a VecMap is what `collect`
        /// makes a BTreeMap (a later key's value wins).
        #[test]
        fn collect_agrees(pairs in proptest::collection::vec((0u8..30, any::<u16>()), 0..100)) {
            let vm: VecMap<u8, u16> = pairs.iter().copied().collect();
            let bm: BTreeMap<u8, u16> = pairs.iter().copied().collect();
            prop_assert!(vm.iter().eq(bm.iter()));
            let vs: VecSet<u8> = pairs.iter().map(|p| p.0).collect();
            let bs: BTreeSet<u8> = pairs.iter().map(|p| p.0).collect();
            prop_assert!(vs.iter().eq(bs.iter()));
        }
    }

    /// The serde forms are BTreeMap's and BTreeSet's: the same JSON (a learner's saved
    /// progress keeps reading) and the same wire form (the page and the worker agree), and
    /// each reads the other's.
    #[test]
    fn the_serde_forms_are_the_btree_collections() {
        let bm: BTreeMap<String, Vec<u32>> = [
            ("b".to_string(), vec![2]),
            ("a".to_string(), vec![]),
            ("c".to_string(), vec![3, 4]),
        ]
        .into();
        let vm: VecMap<String, Vec<u32>> = bm.clone().into_iter().collect();
        assert_eq!(
            serde_json::to_string(&vm).unwrap(),
            serde_json::to_string(&bm).unwrap()
        );
        assert_eq!(
            crate::wire::to_text(&vm).unwrap(),
            crate::wire::to_text(&bm).unwrap()
        );
        let back: VecMap<String, Vec<u32>> =
            serde_json::from_str(&serde_json::to_string(&bm).unwrap()).unwrap();
        assert_eq!(back, vm);
        let back: VecMap<String, Vec<u32>> =
            crate::wire::from_text(&crate::wire::to_text(&bm).unwrap()).unwrap();
        assert_eq!(back, vm);
        let empty: VecMap<u32, u32> = VecMap::new();
        assert_eq!(serde_json::to_string(&empty).unwrap(), "{}");
        let numbered: VecMap<u32, bool> = [(3, true), (1, false)].into_iter().collect();
        assert_eq!(
            serde_json::to_string(&numbered).unwrap(),
            r#"{"1":false,"3":true}"#
        );
        assert_eq!(
            serde_json::from_str::<VecMap<u32, bool>>(r#"{"3":true,"1":false}"#).unwrap(),
            numbered
        );

        let bs: BTreeSet<String> = ["y".to_string(), "x".to_string()].into();
        let vs: VecSet<String> = bs.iter().cloned().collect();
        assert_eq!(serde_json::to_string(&vs).unwrap(), r#"["x","y"]"#);
        assert_eq!(
            crate::wire::to_text(&vs).unwrap(),
            crate::wire::to_text(&bs).unwrap()
        );
        assert_eq!(
            serde_json::from_str::<VecSet<String>>(r#"["y","x","y"]"#).unwrap(),
            vs
        );
        assert!(serde_json::from_str::<VecMap<String, u32>>("[1]").is_err());
    }
}
