use crate::store::db::Db;
use crate::store::parse::{is, parse_f64_prefix, Args};
use crate::store::Reply;

/// `DEBUG SLEEP seconds`: here it moves the store's virtual clock forward instead of
/// blocking (fractions allowed; unparsable or negative values sleep 0, as in Redis).
pub(crate) struct Debug {
    sleep_ms: u64,
}

impl Debug {
    pub(crate) fn parse(args: &mut Args) -> Result<Debug, Reply> {
        let sub = args.required()?;
        if is(sub, "sleep") && args.remaining() == 1 {
            let seconds = parse_f64_prefix(args.required()?);
            let ms = (seconds * 1000.0).round();
            // `as` saturates; NaN becomes 0.
            let sleep_ms = if ms > 0.0 { ms as u64 } else { 0 };
            return Ok(Debug { sleep_ms });
        }
        Err(Reply::err(format!(
            "ERR unknown subcommand or wrong number of arguments for '{}'. Try DEBUG HELP.",
            String::from_utf8_lossy(sub)
        )))
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        db.now_ms = db.now_ms.saturating_add(self.sleep_ms);
        Reply::ok()
    }
}
