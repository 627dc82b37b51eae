use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `APPEND key value`
pub(crate) struct Append {
    key: Vec<u8>,
    value: Vec<u8>,
}

/// Redis's `proto-max-bulk-len` default: a string may not grow past 512 MB.
const MAX_STRING_LEN: usize = 512 * 1024 * 1024;

impl Append {
    pub(crate) fn parse(args: &mut Args) -> Result<Append, Reply> {
        let key = args.required()?.to_vec();
        let value = args.required()?.to_vec();
        args.finish()?;
        Ok(Append { key, value })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let (mut value, expire_at_ms) = match db.get(&self.key) {
            Some(entry) => (entry.value.clone(), entry.expire_at_ms),
            None => (Vec::new(), None),
        };
        if value.len().saturating_add(self.value.len()) > MAX_STRING_LEN {
            return Reply::err("ERR string exceeds maximum allowed size (proto-max-bulk-len)");
        }
        value.extend_from_slice(&self.value);
        let len = value.len();
        db.set(&self.key, value, expire_at_ms);
        Reply::Int(i64::try_from(len).unwrap_or(i64::MAX))
    }
}
