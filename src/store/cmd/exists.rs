use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `EXISTS key [key ...]`: a key named twice counts twice.
pub(crate) struct Exists {
    keys: Vec<Vec<u8>>,
}

impl Exists {
    pub(crate) fn parse(args: &mut Args) -> Result<Exists, Reply> {
        Ok(Exists {
            keys: args.rest().to_vec(),
        })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let n = self.keys.iter().filter(|k| db.exists(k)).count();
        Reply::Int(i64::try_from(n).unwrap_or(i64::MAX))
    }
}
