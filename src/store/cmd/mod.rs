//! The command table (name, arity, flags), one `Command` enum, and the single dispatch of
//! keyspace commands. Connection and scripting commands are dispatched by `Store`.

mod append;
mod dbsize;
mod debug;
mod del;
mod echo;
mod eval;
mod exists;
mod expire;
mod flushall;
mod get;
mod getdel;
mod incr;
mod keys;
mod persist;
mod ping;
mod script;
mod set;
mod setnx;
mod strlen;
mod ttl;
mod type_;
mod watch;

pub(crate) use debug::Debug;
pub(crate) use eval::Eval;
pub(crate) use script::Script;
pub(crate) use watch::Watch;

use super::db::Db;
use super::parse::Args;
use super::reply::Reply;
use super::script::Dispatch;

/// Which command a table entry is.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum Kind {
    Get,
    Set,
    SetNx,
    GetDel,
    Del,
    Exists,
    Incr,
    IncrBy,
    Decr,
    DecrBy,
    Append,
    StrLen,
    Type,
    Keys,
    DbSize,
    FlushAll,
    Ping,
    Echo,
    Expire,
    PExpire,
    ExpireAt,
    PExpireAt,
    Ttl,
    PTtl,
    Persist,
    Eval,
    EvalSha,
    Script,
    Multi,
    Exec,
    Discard,
    Watch,
    Unwatch,
    Debug,
}

/// A command's entry in the command table.
pub(crate) struct Spec {
    pub(crate) kind: Kind,
    /// Lower-case, as Redis prints it in error messages.
    pub(crate) name: &'static str,
    /// Redis's arity: N means exactly N words (name included), -N at least N.
    pub(crate) arity: i32,
    /// Refused inside scripts (`This Redis command is not allowed from script`).
    pub(crate) noscript: bool,
}

const fn spec(kind: Kind, name: &'static str, arity: i32) -> Spec {
    Spec {
        kind,
        name,
        arity,
        noscript: false,
    }
}

const fn noscript(kind: Kind, name: &'static str, arity: i32) -> Spec {
    Spec {
        kind,
        name,
        arity,
        noscript: true,
    }
}

const SPECS: &[Spec] = &[
    spec(Kind::Get, "get", 2),
    spec(Kind::Set, "set", -3),
    spec(Kind::SetNx, "setnx", 3),
    spec(Kind::GetDel, "getdel", 2),
    spec(Kind::Del, "del", -2),
    spec(Kind::Exists, "exists", -2),
    spec(Kind::Incr, "incr", 2),
    spec(Kind::IncrBy, "incrby", 3),
    spec(Kind::Decr, "decr", 2),
    spec(Kind::DecrBy, "decrby", 3),
    spec(Kind::Append, "append", 3),
    spec(Kind::StrLen, "strlen", 2),
    spec(Kind::Type, "type", 2),
    spec(Kind::Keys, "keys", 2),
    spec(Kind::DbSize, "dbsize", 1),
    spec(Kind::FlushAll, "flushall", -1),
    spec(Kind::Ping, "ping", -1),
    spec(Kind::Echo, "echo", 2),
    spec(Kind::Expire, "expire", -3),
    spec(Kind::PExpire, "pexpire", -3),
    spec(Kind::ExpireAt, "expireat", -3),
    spec(Kind::PExpireAt, "pexpireat", -3),
    spec(Kind::Ttl, "ttl", 2),
    spec(Kind::PTtl, "pttl", 2),
    spec(Kind::Persist, "persist", 2),
    noscript(Kind::Eval, "eval", -3),
    noscript(Kind::EvalSha, "evalsha", -3),
    noscript(Kind::Script, "script", -2),
    noscript(Kind::Multi, "multi", 1),
    noscript(Kind::Exec, "exec", 1),
    noscript(Kind::Discard, "discard", 1),
    noscript(Kind::Watch, "watch", -2),
    noscript(Kind::Unwatch, "unwatch", 1),
    noscript(Kind::Debug, "debug", -2),
];

pub(crate) fn lookup(name: &[u8]) -> Option<&'static Spec> {
    SPECS
        .iter()
        .find(|s| name.eq_ignore_ascii_case(s.name.as_bytes()))
}

/// Redis's `processCommand` checks: the command exists and has a valid number of words.
pub(crate) fn check(argv: &[Vec<u8>]) -> Result<&'static Spec, Reply> {
    let Some(name) = argv.first() else {
        return Err(Reply::err("ERR empty command"));
    };
    let Some(spec) = lookup(name) else {
        return Err(unknown_command(argv));
    };
    let n = i32::try_from(argv.len()).unwrap_or(i32::MAX);
    if (spec.arity > 0 && n != spec.arity) || n < -spec.arity {
        return Err(Reply::err(format!(
            "ERR wrong number of arguments for '{}' command",
            spec.name
        )));
    }
    Ok(spec)
}

/// `ERR unknown command 'X', with args beginning with: 'a' 'b' ` (arguments quoted while
/// the list is under 128 bytes, each cut to what is left of the 128; as C strings).
fn unknown_command(argv: &[Vec<u8>]) -> Reply {
    let c_str = |bytes: &[u8]| {
        let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
        String::from_utf8_lossy(bytes.get(..end).unwrap_or(bytes)).into_owned()
    };
    let name: String = argv
        .first()
        .map(|n| c_str(n))
        .unwrap_or_default()
        .chars()
        .take(128)
        .collect();
    let mut list = String::new();
    for arg in argv.iter().skip(1) {
        if list.len() >= 128 {
            break;
        }
        let room = 128 - list.len();
        let text = c_str(arg);
        let mut cut = text.len().min(room);
        while !text.is_char_boundary(cut) {
            cut -= 1;
        }
        list.push_str(&format!("'{}' ", text.get(..cut).unwrap_or_default()));
    }
    let msg = format!("ERR unknown command '{name}', with args beginning with: {list}");
    // Redis replaces newlines so the error stays one protocol line.
    Reply::Error(msg.replace(['\r', '\n'], " "))
}

/// Every command, parsed.
pub(crate) enum Command<'a> {
    /// Commands that only read and write the keyspace (allowed in scripts).
    Data(DataCommand<'a>),
    Eval(Eval),
    Script(Script),
    Multi,
    Exec,
    Discard,
    Watch(Watch),
    Unwatch,
    Debug(Debug),
}

pub(crate) enum DataCommand<'a> {
    Get(get::Get<'a>),
    Set(set::Set<'a>),
    SetNx(setnx::SetNx),
    GetDel(getdel::GetDel),
    Del(del::Del),
    Exists(exists::Exists),
    IncrBy(incr::IncrBy),
    Append(append::Append),
    StrLen(strlen::StrLen),
    Type(type_::Type),
    Keys(keys::Keys),
    DbSize(dbsize::DbSize),
    FlushAll(flushall::FlushAll),
    Ping(ping::Ping),
    Echo(echo::Echo),
    Expire(expire::Expire),
    Ttl(ttl::Ttl),
    Persist(persist::Persist),
}

impl<'a> Command<'a> {
    /// Parses a command that passed `check`. Syntax errors are replies.
    pub(crate) fn parse(spec: &Spec, argv: &'a [Vec<u8>], now_ms: u64) -> Result<Command<'a>, Reply> {
        use expire::Variant;
        let args = &mut Args::new(argv);
        let data = |d| Ok(Command::Data(d));
        match spec.kind {
            Kind::Get => data(DataCommand::Get(get::Get::parse(args)?)),
            Kind::Set => data(DataCommand::Set(set::Set::parse(args, now_ms)?)),
            Kind::SetNx => data(DataCommand::SetNx(setnx::SetNx::parse(args)?)),
            Kind::GetDel => data(DataCommand::GetDel(getdel::GetDel::parse(args)?)),
            Kind::Del => data(DataCommand::Del(del::Del::parse(args)?)),
            Kind::Exists => data(DataCommand::Exists(exists::Exists::parse(args)?)),
            Kind::Incr => data(DataCommand::IncrBy(incr::IncrBy::parse_step(args, 1)?)),
            Kind::Decr => data(DataCommand::IncrBy(incr::IncrBy::parse_step(args, -1)?)),
            Kind::IncrBy => data(DataCommand::IncrBy(incr::IncrBy::parse_by(args)?)),
            Kind::DecrBy => data(DataCommand::IncrBy(incr::IncrBy::parse_decr_by(args)?)),
            Kind::Append => data(DataCommand::Append(append::Append::parse(args)?)),
            Kind::StrLen => data(DataCommand::StrLen(strlen::StrLen::parse(args)?)),
            Kind::Type => data(DataCommand::Type(type_::Type::parse(args)?)),
            Kind::Keys => data(DataCommand::Keys(keys::Keys::parse(args)?)),
            Kind::DbSize => data(DataCommand::DbSize(dbsize::DbSize::parse(args)?)),
            Kind::FlushAll => data(DataCommand::FlushAll(flushall::FlushAll::parse(args)?)),
            Kind::Ping => data(DataCommand::Ping(ping::Ping::parse(args)?)),
            Kind::Echo => data(DataCommand::Echo(echo::Echo::parse(args)?)),
            Kind::Expire => data(DataCommand::Expire(expire::Expire::parse(
                args,
                Variant::Expire,
                now_ms,
            )?)),
            Kind::PExpire => data(DataCommand::Expire(expire::Expire::parse(
                args,
                Variant::PExpire,
                now_ms,
            )?)),
            Kind::ExpireAt => data(DataCommand::Expire(expire::Expire::parse(
                args,
                Variant::ExpireAt,
                now_ms,
            )?)),
            Kind::PExpireAt => data(DataCommand::Expire(expire::Expire::parse(
                args,
                Variant::PExpireAt,
                now_ms,
            )?)),
            Kind::Ttl => data(DataCommand::Ttl(ttl::Ttl::parse(args, false)?)),
            Kind::PTtl => data(DataCommand::Ttl(ttl::Ttl::parse(args, true)?)),
            Kind::Persist => data(DataCommand::Persist(persist::Persist::parse(args)?)),
            Kind::Eval => Ok(Command::Eval(Eval::parse(args, false)?)),
            Kind::EvalSha => Ok(Command::Eval(Eval::parse(args, true)?)),
            Kind::Script => Ok(Command::Script(Script::parse(args)?)),
            Kind::Multi => Ok(Command::Multi),
            Kind::Exec => Ok(Command::Exec),
            Kind::Discard => Ok(Command::Discard),
            Kind::Watch => Ok(Command::Watch(Watch::parse(args)?)),
            Kind::Unwatch => Ok(Command::Unwatch),
            Kind::Debug => Ok(Command::Debug(Debug::parse(args)?)),
        }
    }
}

impl DataCommand<'_> {
    /// The one dispatch for keyspace commands.
    pub(crate) fn apply(self, db: &mut Db) -> Reply {
        match self {
            DataCommand::Get(c) => c.apply(db),
            DataCommand::Set(c) => c.apply(db),
            DataCommand::SetNx(c) => c.apply(db),
            DataCommand::GetDel(c) => c.apply(db),
            DataCommand::Del(c) => c.apply(db),
            DataCommand::Exists(c) => c.apply(db),
            DataCommand::IncrBy(c) => c.apply(db),
            DataCommand::Append(c) => c.apply(db),
            DataCommand::StrLen(c) => c.apply(db),
            DataCommand::Type(c) => c.apply(db),
            DataCommand::Keys(c) => c.apply(db),
            DataCommand::DbSize(c) => c.apply(db),
            DataCommand::FlushAll(c) => c.apply(db),
            DataCommand::Ping(c) => c.apply(),
            DataCommand::Echo(c) => c.apply(),
            DataCommand::Expire(c) => c.apply(db),
            DataCommand::Ttl(c) => c.apply(db),
            DataCommand::Persist(c) => c.apply(db),
        }
    }
}

/// Redis's reply to a `denyoom` command when the store is full.
const OOM: &str = "OOM command not allowed when used memory > 'maxmemory'.";

/// The OOM refusal for the commands Redis flags `denyoom` (the ones here that can grow the
/// keyspace), if this one would take the store past its `maxmemory`.
pub(crate) fn refuse_oom(spec: &Spec, db: &Db, argv: &[Vec<u8>]) -> Option<Reply> {
    let grows = matches!(
        spec.kind,
        Kind::Set | Kind::SetNx | Kind::Append | Kind::Incr | Kind::IncrBy | Kind::Decr | Kind::DecrBy
    );
    if !grows {
        return None;
    }
    let mut incoming: usize = argv.iter().skip(1).map(Vec::len).sum();
    if spec.kind == Kind::Append {
        // The new value is the old one and the suffix, and the effect carries all of it.
        let old = argv.get(1).map_or(0, |key| db.value_len(key));
        incoming = incoming.saturating_add(old);
    }
    db.refuses_write(incoming).then(|| Reply::err(OOM))
}

/// The commands as scripts reach them: `redis.call` / `redis.pcall` run through this.
pub(crate) struct FromScript;

impl Dispatch for FromScript {
    fn call(&self, db: &mut Db, argv: &[Vec<u8>]) -> Reply {
        execute_from_script(db, argv)
    }
}

/// A command called through `redis.call` / `redis.pcall`, with Redis's script-specific
/// errors (`scriptCall`).
fn execute_from_script(db: &mut Db, argv: &[Vec<u8>]) -> Reply {
    let Some(spec) = argv.first().and_then(|name| lookup(name)) else {
        return Reply::err("ERR Unknown Redis command called from script");
    };
    let n = i32::try_from(argv.len()).unwrap_or(i32::MAX);
    if (spec.arity > 0 && n != spec.arity) || n < -spec.arity {
        return Reply::err("ERR Wrong number of args calling Redis command from script");
    }
    if spec.noscript {
        return Reply::err("ERR This Redis command is not allowed from script");
    }
    if let Some(oom) = refuse_oom(spec, db, argv) {
        return oom;
    }
    match Command::parse(spec, argv, db.now_ms) {
        Ok(Command::Data(command)) => command.apply(db),
        Ok(_) => Reply::err("ERR This Redis command is not allowed from script"),
        Err(reply) => reply,
    }
}
