use crate::store::parse::Args;
use crate::store::Reply;

/// `ECHO message`
pub(crate) struct Echo {
    message: Vec<u8>,
}

impl Echo {
    pub(crate) fn parse(args: &mut Args) -> Result<Echo, Reply> {
        let message = args.required()?.to_vec();
        args.finish()?;
        Ok(Echo { message })
    }

    pub(crate) fn apply(self) -> Reply {
        Reply::Bulk(self.message)
    }
}
