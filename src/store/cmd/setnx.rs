use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `SETNX key value`
pub(crate) struct SetNx {
    key: Vec<u8>,
    value: Vec<u8>,
}

impl SetNx {
    pub(crate) fn parse(args: &mut Args) -> Result<SetNx, Reply> {
        let key = args.required()?.to_vec();
        let value = args.required()?.to_vec();
        args.finish()?;
        Ok(SetNx { key, value })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        if db.exists(&self.key) {
            return Reply::Int(0);
        }
        db.set(&self.key, self.value, None);
        Reply::Int(1)
    }
}
