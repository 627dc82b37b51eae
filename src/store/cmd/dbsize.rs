use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `DBSIZE`: counts live keys only (Redis also counts expired keys it has not purged yet;
/// its active expiry makes that number converge to this one).
pub(crate) struct DbSize;

impl DbSize {
    pub(crate) fn parse(args: &mut Args) -> Result<DbSize, Reply> {
        args.finish()?;
        Ok(DbSize)
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        Reply::Int(i64::try_from(db.live_count()).unwrap_or(i64::MAX))
    }
}
