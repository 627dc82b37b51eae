use crate::store::parse::{is, Args};
use crate::store::script::Scripting;
use crate::store::Reply;

/// `SCRIPT LOAD script`, `SCRIPT EXISTS sha1 [sha1 ...]`, `SCRIPT FLUSH [ASYNC | SYNC]`
pub(crate) enum Script {
    Load(Vec<u8>),
    Exists(Vec<Vec<u8>>),
    Flush,
}

impl Script {
    pub(crate) fn parse(args: &mut Args) -> Result<Script, Reply> {
        let sub = args.required()?;
        let arity_error = |name: &str| {
            Reply::err(format!(
                "ERR wrong number of arguments for 'script|{name}' command"
            ))
        };
        if is(sub, "load") {
            let source = args.next().ok_or_else(|| arity_error("load"))?.to_vec();
            if args.remaining() > 0 {
                return Err(arity_error("load"));
            }
            Ok(Script::Load(source))
        } else if is(sub, "exists") {
            let shas = args.rest().to_vec();
            if shas.is_empty() {
                return Err(arity_error("exists"));
            }
            Ok(Script::Exists(shas))
        } else if is(sub, "flush") {
            match args.next() {
                None => Ok(Script::Flush),
                Some(mode) if (is(mode, "async") || is(mode, "sync")) && args.remaining() == 0 => {
                    Ok(Script::Flush)
                }
                Some(_) if args.remaining() > 0 => Err(arity_error("flush")),
                Some(_) => Err(Reply::err("ERR SCRIPT FLUSH only support SYNC|ASYNC option")),
            }
        } else {
            Err(Reply::err(format!(
                "ERR unknown subcommand '{}'. Try SCRIPT HELP.",
                String::from_utf8_lossy(sub)
            )))
        }
    }

    pub(crate) fn apply(self, scripting: &mut Scripting) -> Reply {
        match self {
            Script::Load(source) => match scripting.load(&source) {
                Ok(sha) => Reply::Bulk(sha.into_bytes()),
                Err(reply) => reply,
            },
            Script::Exists(shas) => Reply::Array(
                shas.iter()
                    .map(|sha| Reply::Int(i64::from(scripting.exists(sha))))
                    .collect(),
            ),
            Script::Flush => {
                scripting.flush();
                Reply::ok()
            }
        }
    }
}
