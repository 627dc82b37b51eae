// Lockstep: a vendored dependency builds as cargo builds registry crates, without lints
// (cargo passes --cap-lints allow to those, not to path dependencies).
#![allow(unknown_lints, warnings, dangerous_implicit_autorefs)]
pub mod any;
pub mod callback;
pub mod closure;
pub mod compiler;
pub mod constant;
pub mod conversion;
pub mod error;
pub mod finalizers;
pub mod fuel;
pub mod function;
pub mod io;
pub mod lua;
pub mod meta_ops;
pub mod opcode;
pub mod raw_ops;
pub mod registry;
pub mod stack;
pub mod stdlib;
pub mod string;
pub mod table;
pub mod thread;
pub mod types;
pub mod userdata;
pub mod value;

#[doc(inline)]
pub use self::{
    callback::{BoxSequence, Callback, CallbackFn, CallbackReturn, Sequence, SequencePoll},
    closure::{Closure, ClosureError, FunctionPrototype, PrototypeError},
    constant::Constant,
    conversion::{FromMultiValue, FromValue, IntoMultiValue, IntoValue, Variadic},
    error::{Error, RuntimeError, StaticError, TypeError},
    finalizers::Finalizers,
    fuel::Fuel,
    function::Function,
    lua::{Context, Lua},
    meta_ops::MetaMethod,
    registry::{
        Registry, Singleton, StashedCallback, StashedClosure, StashedExecutor, StashedFunction,
        StashedTable, StashedThread, StashedUserData, StaticValue,
    },
    stack::Stack,
    string::{BadConcatType, String},
    table::{InvalidTableKey, Table},
    thread::{
        BadExecutorMode, BadThreadMode, Execution, Executor, ExecutorMode, Thread, ThreadMode,
        VMError,
    },
    userdata::{BadUserDataType, UserData},
    value::Value,
};
