use crate::store::db::Db;
use crate::store::parse::{is, Args};
use crate::store::Reply;

/// `FLUSHALL [ASYNC | SYNC]`
pub(crate) struct FlushAll;

impl FlushAll {
    pub(crate) fn parse(args: &mut Args) -> Result<FlushAll, Reply> {
        if let Some(mode) = args.next() {
            if !(is(mode, "async") || is(mode, "sync")) {
                return Err(Reply::syntax_error());
            }
        }
        args.finish()?;
        Ok(FlushAll)
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        db.flush_all();
        Reply::ok()
    }
}
