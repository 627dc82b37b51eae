use crate::store::parse::Args;
use crate::store::Reply;

/// `WATCH key [key ...]`; the bookkeeping lives with the connection state in `Store`.
pub(crate) struct Watch {
    pub(crate) keys: Vec<Vec<u8>>,
}

impl Watch {
    pub(crate) fn parse(args: &mut Args) -> Result<Watch, Reply> {
        Ok(Watch {
            keys: args.rest().to_vec(),
        })
    }
}
