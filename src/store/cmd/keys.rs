use crate::store::db::Db;
use crate::store::glob::glob_match;
use crate::store::parse::Args;
use crate::store::Reply;

/// `KEYS pattern`: live keys matching a glob, sorted (Redis's order is its hash table's).
pub(crate) struct Keys {
    pattern: Vec<u8>,
}

impl Keys {
    pub(crate) fn parse(args: &mut Args) -> Result<Keys, Reply> {
        let pattern = args.required()?.to_vec();
        args.finish()?;
        Ok(Keys { pattern })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let all = self.pattern == b"*";
        Reply::Array(
            db.live()
                .into_iter()
                .filter(|(key, _)| all || glob_match(&self.pattern, key))
                .map(|(key, _)| Reply::Bulk(key.clone()))
                .collect(),
        )
    }
}
