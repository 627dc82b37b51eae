use crate::store::db::Db;
use crate::store::parse::{is, parse_i64, Args};
use crate::store::Reply;

/// `SET key value [NX | XX] [GET] [EX seconds | PX milliseconds | EXAT unix-time-seconds |
/// PXAT unix-time-milliseconds | KEEPTTL]`
pub(crate) struct Set<'a> {
    key: &'a [u8],
    value: &'a [u8],
    condition: Condition,
    get: bool,
    expiry: Expiry,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Condition {
    Always,
    /// NX: only if the key does not exist.
    IfAbsent,
    /// XX: only if the key exists.
    IfPresent,
}

#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum Expiry {
    /// No option: the key loses any TTL it had.
    None,
    KeepTtl,
    /// EX, PX, EXAT or PXAT resolved to an absolute instant.
    At(u64),
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Unit {
    Ex,
    Px,
    ExAt,
    PxAt,
}

impl<'a> Set<'a> {
    /// A port of `parseExtendedStringArgumentsOrReply`: which option may follow which, and
    /// when the expire value is checked, match Redis (options first, then the number).
    pub(crate) fn parse(args: &mut Args<'a>, now_ms: u64) -> Result<Set<'a>, Reply> {
        let key = args.required()?;
        let value = args.required()?;
        let mut condition = Condition::Always;
        let mut get = false;
        let mut keep_ttl = false;
        let mut expire: Option<(Unit, &[u8])> = None;
        while let Some(opt) = args.next() {
            let has_next = args.peek().is_some();
            let other_expire = |u: Unit| expire.is_some_and(|(v, _)| v != u);
            if is(opt, "nx") && condition != Condition::IfPresent {
                condition = Condition::IfAbsent;
            } else if is(opt, "xx") && condition != Condition::IfAbsent {
                condition = Condition::IfPresent;
            } else if is(opt, "get") {
                get = true;
            } else if is(opt, "keepttl") && expire.is_none() {
                keep_ttl = true;
            } else if let Some(unit) = [
                ("ex", Unit::Ex),
                ("px", Unit::Px),
                ("exat", Unit::ExAt),
                ("pxat", Unit::PxAt),
            ]
            .into_iter()
            .find(|(name, _)| is(opt, name))
            .map(|(_, u)| u)
            .filter(|&u| !keep_ttl && !other_expire(u) && has_next)
            {
                expire = Some((unit, args.required()?));
            } else {
                return Err(Reply::syntax_error());
            }
        }
        let expiry = match expire {
            Some((unit, raw)) => Expiry::At(resolve_expire(unit, raw, now_ms)?),
            None if keep_ttl => Expiry::KeepTtl,
            None => Expiry::None,
        };
        Ok(Set {
            key,
            value,
            condition,
            get,
            expiry,
        })
    }

    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        let (exists, old_expiry, get_reply) = match db.get(self.key) {
            Some(e) => (
                true,
                e.expire_at_ms,
                // Only SET ... GET needs the old value copied out.
                self.get.then(|| Reply::Bulk(e.value.clone())),
            ),
            None => (false, None, self.get.then_some(Reply::Nil)),
        };
        let allowed = match self.condition {
            Condition::Always => true,
            Condition::IfAbsent => !exists,
            Condition::IfPresent => exists,
        };
        if !allowed {
            return get_reply.unwrap_or(Reply::Nil);
        }
        let expire_at_ms = match self.expiry {
            Expiry::None => None,
            Expiry::KeepTtl => old_expiry,
            Expiry::At(at) => Some(at),
        };
        db.set(self.key, self.value.to_vec(), expire_at_ms);
        get_reply.unwrap_or_else(Reply::ok)
    }
}

/// `getExpireMillisecondsOrReply`: positive numbers only, relative ones added to the clock,
/// overflow rejected.
fn resolve_expire(unit: Unit, raw: &[u8], now_ms: u64) -> Result<u64, Reply> {
    let invalid = || Reply::err("ERR invalid expire time in 'set' command");
    let n = parse_i64(raw).ok_or_else(Reply::not_an_integer)?;
    if n <= 0 {
        return Err(invalid());
    }
    let ms = match unit {
        Unit::Ex | Unit::ExAt => n.checked_mul(1000).ok_or_else(invalid)?,
        Unit::Px | Unit::PxAt => n,
    };
    let ms = u64::try_from(ms).map_err(|_| invalid())?;
    let at = match unit {
        Unit::Ex | Unit::Px => ms.checked_add(now_ms).ok_or_else(invalid)?,
        Unit::ExAt | Unit::PxAt => ms,
    };
    if at > i64::MAX as u64 {
        return Err(invalid());
    }
    Ok(at)
}
