mod compiler;
pub mod interning;
pub mod lexer;
mod operators;
pub mod parser;
mod register_allocator;

// Lockstep patch: `DebugNames` exported (local and upvalue names for error messages).
pub use self::{
    compiler::{
        compile_chunk, CompileError, CompileErrorKind, CompiledPrototype, DebugNames, FunctionRef,
    },
    interning::StringInterner,
    lexer::LineNumber,
    parser::parse_chunk,
    parser::{ParseError, ParseErrorKind},
};
