use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `DEL key [key ...]`
pub(crate) struct Del {
    keys: Vec<Vec<u8>>,
}

impl Del {
    pub(crate) fn parse(args: &mut Args) -> Result<Del, Reply> {
        Ok(Del {
            keys: args.rest().to_vec(),
        })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let mut deleted = 0;
        for key in &self.keys {
            if db.delete_live(key) {
                deleted += 1;
            }
        }
        Reply::Int(deleted)
    }
}
