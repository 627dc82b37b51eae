use crate::store::db::Db;
use crate::store::parse::{parse_i64, Args};
use crate::store::Reply;

/// `INCR key`, `DECR key`, `INCRBY key increment`, `DECRBY key decrement`: the four share
/// `incrDecrCommand`, so they share this file.
pub(crate) struct IncrBy {
    key: Vec<u8>,
    delta: i64,
}

impl IncrBy {
    /// `INCR key` / `DECR key`.
    pub(crate) fn parse_step(args: &mut Args, delta: i64) -> Result<IncrBy, Reply> {
        let key = args.required()?.to_vec();
        args.finish()?;
        Ok(IncrBy { key, delta })
    }

    /// `INCRBY key increment`.
    pub(crate) fn parse_by(args: &mut Args) -> Result<IncrBy, Reply> {
        let key = args.required()?.to_vec();
        let delta = args.required_int()?;
        args.finish()?;
        Ok(IncrBy { key, delta })
    }

    /// `DECRBY key decrement`.
    pub(crate) fn parse_decr_by(args: &mut Args) -> Result<IncrBy, Reply> {
        let key = args.required()?.to_vec();
        let delta = args.required_int()?;
        args.finish()?;
        let delta = delta
            .checked_neg()
            .ok_or_else(|| Reply::err("ERR decrement would overflow"))?;
        Ok(IncrBy { key, delta })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let (current, expire_at_ms) = match db.get(&self.key) {
            Some(entry) => match parse_i64(&entry.value) {
                Some(n) => (n, entry.expire_at_ms),
                None => return Reply::not_an_integer(),
            },
            None => (0, None),
        };
        let Some(next) = current.checked_add(self.delta) else {
            return Reply::err("ERR increment or decrement would overflow");
        };
        db.set(&self.key, next.to_string().into_bytes(), expire_at_ms);
        Reply::Int(next)
    }
}
