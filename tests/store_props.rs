//! Random command sequences against a simple model of keys and expiries: the store must give
//! the model's replies.

use std::collections::HashMap;

use lockstep::store::{Reply, Store};
use proptest::prelude::*;

#[derive(Clone, Debug)]
enum Op {
    Set {
        key: usize,
        value: usize,
        px: Option<u64>,
        nx: bool,
    },
    Get(usize),
    Del(usize),
    PExpire(usize, i64),
    PTtl(usize),
    Incr(usize),
    Exists(usize),
    Sleep(u64),
}

const KEYS: [&str; 3] = ["a", "b", "lock:c"];
const VALUES: [&str; 4] = ["1", "41", "x", "-7"];

fn op() -> impl Strategy<Value = Op> {
    prop_oneof![
        (
            0..3usize,
            0..4usize,
            proptest::option::of(1..2000u64),
            any::<bool>()
        )
            .prop_map(|(key, value, px, nx)| Op::Set { key, value, px, nx }),
        (0..3usize).prop_map(Op::Get),
        (0..3usize).prop_map(Op::Del),
        (0..3usize, -10..2000i64).prop_map(|(k, ms)| Op::PExpire(k, ms)),
        (0..3usize).prop_map(Op::PTtl),
        (0..3usize).prop_map(Op::Incr),
        (0..3usize).prop_map(Op::Exists),
        (0..1500u64).prop_map(Op::Sleep),
    ]
}

/// The model: key → (value, absolute expiry). A key is live while now <= expiry.
struct Model {
    now: u64,
    keys: HashMap<&'static str, (String, Option<u64>)>,
}

impl Model {
    fn live(&mut self, key: &'static str) -> Option<(String, Option<u64>)> {
        let now = self.now;
        match self.keys.get(key) {
            Some((_, Some(at))) if now > *at => {
                self.keys.remove(key);
                None
            }
            other => other.cloned(),
        }
    }

    fn apply(&mut self, op: &Op) -> Reply {
        match *op {
            Op::Set { key, value, px, nx } => {
                let k = KEYS[key];
                if nx && self.live(k).is_some() {
                    return Reply::Nil;
                }
                let at = px.map(|ms| self.now + ms);
                self.keys.insert(k, (VALUES[value].to_string(), at));
                Reply::ok()
            }
            Op::Get(key) => match self.live(KEYS[key]) {
                Some((v, _)) => Reply::bulk(v),
                None => Reply::Nil,
            },
            Op::Del(key) => Reply::Int(i64::from(
                self.live(KEYS[key]).is_some() && self.keys.remove(KEYS[key]).is_some(),
            )),
            Op::PExpire(key, ms) => {
                let k = KEYS[key];
                if self.live(k).is_none() {
                    return Reply::Int(0);
                }
                let when = self.now as i64 + ms;
                if when <= self.now as i64 {
                    self.keys.remove(k);
                } else if let Some(entry) = self.keys.get_mut(k) {
                    entry.1 = Some(when as u64);
                }
                Reply::Int(1)
            }
            Op::PTtl(key) => match self.live(KEYS[key]) {
                None => Reply::Int(-2),
                Some((_, None)) => Reply::Int(-1),
                Some((_, Some(at))) => Reply::Int((at - self.now) as i64),
            },
            Op::Incr(key) => {
                let k = KEYS[key];
                let (current, at) = match self.live(k) {
                    Some((v, at)) => match v.parse::<i64>() {
                        Ok(n) => (n, at),
                        Err(_) => return Reply::err("ERR value is not an integer or out of range"),
                    },
                    None => (0, None),
                };
                self.keys.insert(k, ((current + 1).to_string(), at));
                Reply::Int(current + 1)
            }
            Op::Exists(key) => Reply::Int(i64::from(self.live(KEYS[key]).is_some())),
            Op::Sleep(ms) => {
                self.now += ms;
                Reply::ok()
            }
        }
    }
}

fn argv(op: &Op) -> Vec<Vec<u8>> {
    let words: Vec<String> = match *op {
        Op::Set { key, value, px, nx } => {
            let mut w = vec![
                "SET".to_string(),
                KEYS[key].to_string(),
                VALUES[value].to_string(),
            ];
            if nx {
                w.push("NX".into());
            }
            if let Some(ms) = px {
                w.push("PX".into());
                w.push(ms.to_string());
            }
            w
        }
        Op::Get(k) => vec!["GET".into(), KEYS[k].into()],
        Op::Del(k) => vec!["DEL".into(), KEYS[k].into()],
        Op::PExpire(k, ms) => vec!["PEXPIRE".into(), KEYS[k].into(), ms.to_string()],
        Op::PTtl(k) => vec!["PTTL".into(), KEYS[k].into()],
        Op::Incr(k) => vec!["INCR".into(), KEYS[k].into()],
        Op::Exists(k) => vec!["EXISTS".into(), KEYS[k].into()],
        Op::Sleep(ms) => vec![
            "DEBUG".into(),
            "SLEEP".into(),
            format!("{}.{:03}", ms / 1000, ms % 1000),
        ],
    };
    words.into_iter().map(String::into_bytes).collect()
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 512, ..ProptestConfig::default() })]

    #[test]
    fn store_matches_model(ops in proptest::collection::vec(op(), 1..80)) {
        let start = 1_700_000_000_000;
        let mut store = Store::new(0);
        store.set_now_ms(start);
        let mut model = Model { now: start, keys: HashMap::new() };
        for (i, op) in ops.iter().enumerate() {
            let expected = model.apply(op);
            let got = store.execute(&argv(op));
            prop_assert_eq!(&got, &expected, "step {} {:?}", i, op);
            prop_assert_eq!(store.now_ms(), model.now);
        }
        // The live view agrees with the model too.
        let mut live: Vec<(Vec<u8>, Vec<u8>)> = store.live_keys().into_iter().map(|k| (k.key, k.value)).collect();
        live.sort();
        let now = model.now;
        let mut want: Vec<(Vec<u8>, Vec<u8>)> = model
            .keys
            .iter()
            .filter(|(_, (_, at))| at.is_none_or(|at| now <= at))
            .map(|(k, (v, _))| (k.as_bytes().to_vec(), v.as_bytes().to_vec()))
            .collect();
        want.sort();
        prop_assert_eq!(live, want);
    }
}
