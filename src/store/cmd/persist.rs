use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `PERSIST key`
pub(crate) struct Persist {
    key: Vec<u8>,
}

impl Persist {
    pub(crate) fn parse(args: &mut Args) -> Result<Persist, Reply> {
        let key = args.required()?.to_vec();
        args.finish()?;
        Ok(Persist { key })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        match db.get(&self.key).map(|e| e.expire_at_ms) {
            Some(Some(_)) => {
                db.set_expiry(&self.key, None);
                Reply::Int(1)
            }
            _ => Reply::Int(0),
        }
    }
}
