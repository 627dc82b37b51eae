use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `GETDEL key`
pub(crate) struct GetDel {
    key: Vec<u8>,
}

impl GetDel {
    pub(crate) fn parse(args: &mut Args) -> Result<GetDel, Reply> {
        let key = args.required()?.to_vec();
        args.finish()?;
        Ok(GetDel { key })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let Some(value) = db.get(&self.key).map(|e| e.value.clone()) else {
            return Reply::Nil;
        };
        db.remove(&self.key);
        Reply::Bulk(value)
    }
}
