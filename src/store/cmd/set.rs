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

/// A SET option word, recognised case-insensitively by its length and letters (this runs
/// on every lock acquisition, so no table scan).
#[derive(Clone, Copy)]
enum Opt {
    Nx,
    Xx,
    Get,
    KeepTtl,
    Expire(Unit),
    Unknown,
}

impl Opt {
    fn of(word: &[u8]) -> Opt {
        let lower = |b: &u8| b.to_ascii_lowercase();
        match word {
            [a, b] => match [lower(a), lower(b)] {
                [b'n', b'x'] => Opt::Nx,
                [b'x', b'x'] => Opt::Xx,
                [b'e', b'x'] => Opt::Expire(Unit::Ex),
                [b'p', b'x'] => Opt::Expire(Unit::Px),
                _ => Opt::Unknown,
            },
            [a, b, c] if [lower(a), lower(b), lower(c)] == *b"get" => Opt::Get,
            [a, b, c, d] => match [lower(a), lower(b), lower(c), lower(d)] {
                [b'e', b'x', b'a', b't'] => Opt::Expire(Unit::ExAt),
                [b'p', b'x', b'a', b't'] => Opt::Expire(Unit::PxAt),
                _ => Opt::Unknown,
            },
            _ if is(word, "keepttl") => Opt::KeepTtl,
            _ => Opt::Unknown,
        }
    }
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
            match Opt::of(opt) {
                Opt::Nx if condition != Condition::IfPresent => condition = Condition::IfAbsent,
                Opt::Xx if condition != Condition::IfAbsent => condition = Condition::IfPresent,
                Opt::Get => get = true,
                Opt::KeepTtl if expire.is_none() => keep_ttl = true,
                Opt::Expire(unit) if !keep_ttl && !other_expire(unit) && has_next => {
                    expire = Some((unit, args.required()?));
                }
                _ => return Err(Reply::syntax_error()),
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
        let live = db.with_live(self.key, |e| {
            // Only SET ... GET needs the old value copied out.
            (e.expire_at_ms, self.get.then(|| Reply::Bulk(e.value.clone())))
        });
        let (exists, old_expiry, get_reply) = match live {
            Some((old_expiry, get_reply)) => (true, old_expiry, get_reply),
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
