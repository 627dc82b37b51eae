use crate::store::parse::Args;
use crate::store::Reply;

/// `PING [message]`
pub(crate) struct Ping {
    message: Option<Vec<u8>>,
}

impl Ping {
    pub(crate) fn parse(args: &mut Args) -> Result<Ping, Reply> {
        if args.remaining() > 1 {
            return Err(Reply::err("ERR wrong number of arguments for 'ping' command"));
        }
        Ok(Ping {
            message: args.next().map(<[u8]>::to_vec),
        })
    }

    pub(crate) fn apply(self) -> Reply {
        match self.message {
            Some(m) => Reply::Bulk(m),
            None => Reply::Status("PONG".to_string()),
        }
    }
}
