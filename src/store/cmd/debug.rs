use crate::store::db::Db;
use crate::store::parse::{is, parse_f64_prefix, Args};
use crate::store::Reply;

/// `DEBUG SLEEP seconds`: here it moves the store's virtual clock forward instead of
/// blocking (fractions allowed; unparsable or negative values sleep 0, as in Redis).
/// Redis converts the seconds to microseconds in a C `long long`; a value beyond it (such
/// as `1e400`, infinity) becomes negative there and sleeps 0, and so it does here. The clock
/// never passes [`MAX_CLOCK_MS`], so `SET ... PX` keeps working after any sleep.
pub(crate) struct Debug {
    sleep_ms: u64,
}

/// 9999-12-31T23:59:59.999Z: DEBUG SLEEP moves the clock no further.
pub(crate) const MAX_CLOCK_MS: u64 = 253_402_300_799_999;

impl Debug {
    pub(crate) fn parse(args: &mut Args) -> Result<Debug, Reply> {
        let sub = args.required()?;
        if is(sub, "sleep") && args.remaining() == 1 {
            let seconds = parse_f64_prefix(args.required()?);
            let micros = seconds * 1_000_000.0;
            // x86-64's double -> long long: out of range (and NaN) is LLONG_MIN.
            let in_range = micros.is_finite() && micros.abs() < 9.2e18;
            let ms = if in_range { (micros / 1000.0).round() } else { 0.0 };
            // `as` saturates; the range check above keeps it exact.
            let sleep_ms = if ms > 0.0 { ms as u64 } else { 0 };
            return Ok(Debug { sleep_ms });
        }
        Err(Reply::err(format!(
            "ERR unknown subcommand or wrong number of arguments for '{}'. Try DEBUG HELP.",
            String::from_utf8_lossy(sub)
        )))
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        db.now_ms = db
            .now_ms
            .saturating_add(self.sleep_ms)
            .min(MAX_CLOCK_MS.max(db.now_ms));
        Reply::ok()
    }
}
