use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `GET key`
pub(crate) struct Get<'a> {
    key: &'a [u8],
}

impl<'a> Get<'a> {
    pub(crate) fn parse(args: &mut Args<'a>) -> Result<Get<'a>, Reply> {
        let key = args.required()?;
        args.finish()?;
        Ok(Get { key })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        db.with_live(self.key, |entry| Reply::Bulk(entry.value.clone()))
            .unwrap_or(Reply::Nil)
    }
}
