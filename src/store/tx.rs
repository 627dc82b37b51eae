//! Transactions: MULTI, EXEC, DISCARD, WATCH and UNWATCH. Unlike the commands in
//! `cmd/`, which act on the keyspace, these act on a connection's own state (its queue
//! and its watched keys), which the store keeps per connection; so they live together
//! here rather than one per file. Their parsing is in `cmd/` like every command's.

use super::cmd::{self, Command};
use super::{Reply, Store};

/// Per-connection transaction state.
#[derive(Clone, Debug, Default)]
pub(super) struct Conn {
    /// Commands queued since MULTI; `None` outside a transaction.
    pub(super) queue: Option<Vec<Vec<Vec<u8>>>>,
    /// A command was rejected while queueing: EXEC will answer EXECABORT.
    pub(super) queue_failed: bool,
    /// WATCHed keys, with whether each was live when watched (a watched key that expires
    /// before EXEC aborts the transaction, as in Redis 7).
    pub(super) watched: Vec<(Vec<u8>, bool)>,
}

impl Store {
    pub(super) fn multi(&mut self, conn: u64) -> Reply {
        let c = self.conns.entry(conn).or_default();
        if c.queue.is_some() {
            return Reply::err("ERR MULTI calls can not be nested");
        }
        c.queue = Some(Vec::new());
        c.queue_failed = false;
        Reply::ok()
    }

    pub(super) fn discard(&mut self, conn: u64) -> Reply {
        let Some(c) = self.conns.get_mut(&conn).filter(|c| c.queue.is_some()) else {
            return Reply::err("ERR DISCARD without MULTI");
        };
        c.queue = None;
        c.queue_failed = false;
        self.unwatch_all(conn);
        Reply::ok()
    }

    pub(super) fn watch(&mut self, conn: u64, keys: Vec<Vec<u8>>) -> Reply {
        let c = self.conns.entry(conn).or_default();
        if c.queue.is_some() {
            return Reply::err("ERR WATCH inside MULTI is not allowed");
        }
        for key in keys {
            if c.watched.iter().any(|(k, _)| *k == key) {
                continue;
            }
            self.db.watch(conn, &key);
            let live = self.db.is_live(&key);
            c.watched.push((key, live));
        }
        Reply::ok()
    }

    /// Forgets a connection's WATCHes; returns whether the transaction must abort.
    pub(super) fn unwatch_all(&mut self, conn: u64) -> bool {
        let Some(c) = self.conns.get_mut(&conn) else {
            return false;
        };
        let watched = std::mem::take(&mut c.watched);
        let keys: Vec<Vec<u8>> = watched.iter().map(|(k, _)| k.clone()).collect();
        let expired = watched
            .iter()
            .any(|(key, was_live)| *was_live && !self.db.is_live(key));
        let touched = self.db.unwatch(conn, &keys);
        touched || expired
    }

    pub(super) fn exec(&mut self, conn: u64) -> Reply {
        let Some(c) = self.conns.get_mut(&conn) else {
            return Reply::err("ERR EXEC without MULTI");
        };
        let Some(queue) = c.queue.take() else {
            return Reply::err("ERR EXEC without MULTI");
        };
        let failed = std::mem::take(&mut c.queue_failed);
        let aborted = self.unwatch_all(conn);
        if failed {
            return Reply::err("EXECABORT Transaction discarded because of previous errors.");
        }
        if aborted {
            return Reply::NilArray;
        }
        let mut replies = Vec::with_capacity(queue.len());
        for argv in queue {
            let reply = match cmd::check(&argv) {
                Ok(spec) if cmd::refuse_oom(spec, &self.db, &argv).is_some() => Reply::err(cmd::OOM),
                Ok(spec) => match Command::parse(spec, &argv, self.db.now_ms) {
                    Ok(command) => self.dispatch(conn, command),
                    Err(reply) => reply,
                },
                Err(reply) => reply,
            };
            replies.push(reply);
        }
        Reply::Array(replies)
    }
}
