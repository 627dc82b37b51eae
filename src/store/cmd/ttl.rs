use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `TTL key`, `PTTL key`: -2 without the key, -1 without an expiry; TTL rounds to the
/// nearest second as Redis does (`(ttl + 500) / 1000`).
pub(crate) struct Ttl {
    key: Vec<u8>,
    millis: bool,
}

impl Ttl {
    pub(crate) fn parse(args: &mut Args, millis: bool) -> Result<Ttl, Reply> {
        let key = args.required()?.to_vec();
        args.finish()?;
        Ok(Ttl { key, millis })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let now = db.now_ms;
        let Some(entry) = db.get(&self.key) else {
            return Reply::Int(-2);
        };
        let Some(at) = entry.expire_at_ms else {
            return Reply::Int(-1);
        };
        let ttl_ms = i64::try_from(at.saturating_sub(now)).unwrap_or(i64::MAX);
        Reply::Int(if self.millis {
            ttl_ms
        } else {
            ttl_ms.saturating_add(500) / 1000
        })
    }
}
