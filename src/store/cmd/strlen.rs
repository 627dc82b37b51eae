use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `STRLEN key`
pub(crate) struct StrLen {
    key: Vec<u8>,
}

impl StrLen {
    pub(crate) fn parse(args: &mut Args) -> Result<StrLen, Reply> {
        let key = args.required()?.to_vec();
        args.finish()?;
        Ok(StrLen { key })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let len = db.get(&self.key).map_or(0, |e| e.value.len());
        Reply::Int(i64::try_from(len).unwrap_or(i64::MAX))
    }
}
