//! Transactions: MULTI, EXEC, DISCARD, WATCH and UNWATCH. Unlike the commands in
//! `cmd/`, which act on the keyspace, these act on a connection's own state (its queue
//! and its watched keys), which the store keeps per connection; so they live together
//! here rather than one per file. Their parsing is in `cmd/` like every command's; running
//! the commands an EXEC releases is the store's (`Store::exec`), as for any command.

use super::db::{Db, Map};
use super::reply::Reply;

/// Per-connection transaction state.
#[derive(Clone, Debug, Default)]
struct Conn {
    /// Commands queued since MULTI; `None` outside a transaction.
    queue: Option<Vec<Vec<Vec<u8>>>>,
    /// A command was rejected while queueing: EXEC will answer EXECABORT.
    queue_failed: bool,
    /// WATCHed keys, with whether each was live when watched (a watched key that expires
    /// before EXEC aborts the transaction, as in Redis 7).
    watched: Vec<(Vec<u8>, bool)>,
}

/// Every connection's transaction state, by connection id.
#[derive(Clone, Debug, Default)]
pub(super) struct Conns(Map<u64, Conn>);

impl Conns {
    pub(super) fn multi(&mut self, conn: u64) -> Reply {
        let c = self.0.entry(conn).or_default();
        if c.queue.is_some() {
            return Reply::err("ERR MULTI calls can not be nested");
        }
        c.queue = Some(Vec::new());
        c.queue_failed = false;
        Reply::ok()
    }

    pub(super) fn discard(&mut self, db: &mut Db, conn: u64) -> Reply {
        let Some(c) = self.0.get_mut(&conn).filter(|c| c.queue.is_some()) else {
            return Reply::err("ERR DISCARD without MULTI");
        };
        c.queue = None;
        c.queue_failed = false;
        self.unwatch_all(db, conn);
        Reply::ok()
    }

    pub(super) fn watch(&mut self, db: &mut Db, conn: u64, keys: Vec<Vec<u8>>) -> Reply {
        let c = self.0.entry(conn).or_default();
        if c.queue.is_some() {
            return Reply::err("ERR WATCH inside MULTI is not allowed");
        }
        for key in keys {
            if c.watched.iter().any(|(k, _)| *k == key) {
                continue;
            }
            db.watch(conn, &key);
            let live = db.is_live(&key);
            c.watched.push((key, live));
        }
        Reply::ok()
    }

    /// Forgets a connection's WATCHes; returns whether the transaction must abort.
    pub(super) fn unwatch_all(&mut self, db: &mut Db, conn: u64) -> bool {
        let Some(c) = self.0.get_mut(&conn) else {
            return false;
        };
        let watched = std::mem::take(&mut c.watched);
        let keys: Vec<Vec<u8>> = watched.iter().map(|(k, _)| k.clone()).collect();
        let expired = watched
            .iter()
            .any(|(key, was_live)| *was_live && !db.is_live(key));
        let touched = db.unwatch(conn, &keys);
        touched || expired
    }

    /// `execCommandAbort`: a rejected EXEC discards the transaction and its WATCHes.
    pub(super) fn abort_exec(&mut self, db: &mut Db, conn: u64) {
        if let Some(c) = self.0.get_mut(&conn) {
            c.queue = None;
            c.queue_failed = false;
        }
        self.unwatch_all(db, conn);
    }

    /// A command was rejected: inside MULTI, the coming EXEC will answer EXECABORT.
    pub(super) fn note_rejected(&mut self, conn: u64) {
        if let Some(c) = self.0.get_mut(&conn).filter(|c| c.queue.is_some()) {
            c.queue_failed = true;
        }
    }

    /// Queues `argv` if the connection is inside MULTI; returns whether it did.
    pub(super) fn enqueue(&mut self, conn: u64, argv: &[Vec<u8>]) -> bool {
        match self.0.get_mut(&conn).and_then(|c| c.queue.as_mut()) {
            Some(queue) => {
                queue.push(argv.to_vec());
                true
            }
            None => false,
        }
    }

    /// EXEC's own part: ends the transaction and hands back the queued commands to run,
    /// or the reply EXEC gives instead (no MULTI, a command rejected while queueing, a
    /// WATCHed key touched or expired).
    pub(super) fn take_exec(&mut self, db: &mut Db, conn: u64) -> Result<Vec<Vec<Vec<u8>>>, Reply> {
        let Some(c) = self.0.get_mut(&conn) else {
            return Err(Reply::err("ERR EXEC without MULTI"));
        };
        let Some(queue) = c.queue.take() else {
            return Err(Reply::err("ERR EXEC without MULTI"));
        };
        let failed = std::mem::take(&mut c.queue_failed);
        let aborted = self.unwatch_all(db, conn);
        if failed {
            return Err(Reply::err(
                "EXECABORT Transaction discarded because of previous errors.",
            ));
        }
        if aborted {
            return Err(Reply::NilArray);
        }
        Ok(queue)
    }
}
