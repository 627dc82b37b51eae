use crate::store::db::Db;
use crate::store::parse::{parse_i64, Args};
use crate::store::script::Scripting;
use crate::store::Reply;

/// `EVAL script numkeys [key [key ...]] [arg [arg ...]]`,
/// `EVALSHA sha1 numkeys [key [key ...]] [arg [arg ...]]`
pub(crate) struct Eval {
    body: Body,
    keys: Vec<Vec<u8>>,
    args: Vec<Vec<u8>>,
}

enum Body {
    Source(Vec<u8>),
    Sha(Vec<u8>),
}

impl Eval {
    pub(crate) fn parse(args: &mut Args, by_sha: bool) -> Result<Eval, Reply> {
        let script = args.required()?.to_vec();
        let numkeys = parse_i64(args.required()?).ok_or_else(Reply::not_an_integer)?;
        let rest = args.rest();
        let available = i64::try_from(rest.len()).unwrap_or(i64::MAX);
        if numkeys > available {
            return Err(Reply::err(
                "ERR Number of keys can't be greater than number of args",
            ));
        }
        let numkeys =
            usize::try_from(numkeys).map_err(|_| Reply::err("ERR Number of keys can't be negative"))?;
        let (keys, argv) = rest.split_at(numkeys.min(rest.len()));
        Ok(Eval {
            body: if by_sha {
                Body::Sha(script)
            } else {
                Body::Source(script)
            },
            keys: keys.to_vec(),
            args: argv.to_vec(),
        })
    }

    pub(crate) fn apply(self, scripting: &mut Scripting, db: &mut Db) -> Reply {
        let sha = match self.body {
            Body::Source(source) => match scripting.load(&source) {
                Ok(sha) => sha,
                Err(reply) => return reply,
            },
            Body::Sha(sha) => {
                if sha.len() != 40 || !scripting.exists(&sha) {
                    return Reply::err("NOSCRIPT No matching script. Please use EVAL.");
                }
                String::from_utf8_lossy(&sha).to_ascii_lowercase()
            }
        };
        scripting.run(db, &sha, &self.keys, &self.args)
    }
}
