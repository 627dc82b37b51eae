use crate::store::db::Db;
use crate::store::parse::Args;
use crate::store::Reply;

/// `TYPE key`: this store holds only strings.
pub(crate) struct Type {
    key: Vec<u8>,
}

impl Type {
    pub(crate) fn parse(args: &mut Args) -> Result<Type, Reply> {
        let key = args.required()?.to_vec();
        args.finish()?;
        Ok(Type { key })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let name = if db.exists(&self.key) { "string" } else { "none" };
        Reply::Status(name.to_string())
    }
}
