use crate::store::db::Db;
use crate::store::parse::{is, parse_i64, Args};
use crate::store::Reply;

/// `EXPIRE key seconds [NX | XX | GT | LT]`, `PEXPIRE key milliseconds [NX | XX | GT | LT]`,
/// `EXPIREAT key unix-time-seconds [NX | XX | GT | LT]`,
/// `PEXPIREAT key unix-time-milliseconds [NX | XX | GT | LT]`: one `expireGenericCommand`.
pub(crate) struct Expire {
    key: Vec<u8>,
    /// The new expiry in unix-epoch ms (may be in the past or negative: the key is deleted).
    when_ms: i64,
    flags: Flags,
}

/// NX, XX, GT, LT: Redis checks each that is set, in this order.
#[derive(Clone, Copy, Default)]
struct Flags {
    nx: bool,
    xx: bool,
    gt: bool,
    lt: bool,
}

#[derive(Clone, Copy)]
pub(crate) enum Variant {
    Expire,
    PExpire,
    ExpireAt,
    PExpireAt,
}

impl Variant {
    fn name(self) -> &'static str {
        match self {
            Variant::Expire => "expire",
            Variant::PExpire => "pexpire",
            Variant::ExpireAt => "expireat",
            Variant::PExpireAt => "pexpireat",
        }
    }
}

impl Expire {
    pub(crate) fn parse(args: &mut Args, variant: Variant, now_ms: u64) -> Result<Expire, Reply> {
        let key = args.required()?.to_vec();
        let param = args.required()?;
        // Options are checked before the number, as in `parseExtendedExpireArgumentsOrReply`.
        let mut flags = Flags::default();
        while let Some(opt) = args.next() {
            if is(opt, "nx") {
                flags.nx = true;
            } else if is(opt, "xx") {
                flags.xx = true;
            } else if is(opt, "gt") {
                flags.gt = true;
            } else if is(opt, "lt") {
                flags.lt = true;
            } else {
                let text = String::from_utf8_lossy(opt);
                return Err(Reply::err(format!("ERR Unsupported option {text}")));
            }
        }
        if flags.nx && (flags.xx || flags.gt || flags.lt) {
            return Err(Reply::err(
                "ERR NX and XX, GT or LT options at the same time are not compatible",
            ));
        }
        if flags.gt && flags.lt {
            return Err(Reply::err(
                "ERR GT and LT options at the same time are not compatible",
            ));
        }
        let invalid = || Reply::err(format!("ERR invalid expire time in '{}' command", variant.name()));
        let n = parse_i64(param).ok_or_else(Reply::not_an_integer)?;
        let ms = match variant {
            Variant::Expire | Variant::ExpireAt => n.checked_mul(1000).ok_or_else(invalid)?,
            Variant::PExpire | Variant::PExpireAt => n,
        };
        let base = match variant {
            Variant::Expire | Variant::PExpire => i64::try_from(now_ms).unwrap_or(i64::MAX),
            Variant::ExpireAt | Variant::PExpireAt => 0,
        };
        let when_ms = ms.checked_add(base).ok_or_else(invalid)?;
        Ok(Expire { key, when_ms, flags })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let Some(current) = db.get(&self.key).map(|e| e.expire_at_ms) else {
            return Reply::Int(0);
        };
        let current = current.map(|c| i64::try_from(c).unwrap_or(i64::MAX));
        let Flags { nx, xx, gt, lt } = self.flags;
        let rejected = (nx && current.is_some())
            || (xx && current.is_none())
            // GT: a key without expiry has an infinite TTL, never smaller than the new one.
            || (gt && current.is_none_or(|c| self.when_ms <= c))
            || (lt && current.is_some_and(|c| self.when_ms >= c));
        if rejected {
            return Reply::Int(0);
        }
        let now = i64::try_from(db.now_ms).unwrap_or(i64::MAX);
        match u64::try_from(self.when_ms) {
            Ok(when) if self.when_ms > now => {
                db.set_expiry(&self.key, Some(when));
            }
            _ => {
                db.remove(&self.key);
            }
        }
        Reply::Int(1)
    }
}
