//! Compiles a script after two rewrites of its syntax tree, so that no operation piccolo
//! runs inside its VM can allocate without the store seeing it first:
//!
//! - every `a .. b` becomes a call of a hidden library function ([`CONCAT`]) that charges
//!   the result's length against the script's memory cap *before* making it (piccolo's own
//!   concat instruction allocates whatever its operands add up to, between two checks);
//! - every method call `obj:name(args)` becomes `METHOD(obj, "name", objname, args)` (the
//!   object's name as Lua 5.1 would give it in an error, or nil), so that
//!   `("x"):rep(3)` and `ARGV[1]:upper()` find the string library as in Lua 5.1 (piccolo
//!   0.3.3 has no metatable for strings and cannot index a string value).
//!
//! The hidden names contain a NUL byte: no script can spell them, shadow them with a local,
//! or reassign them.

use piccolo::compiler::parser::{
    AssignmentTarget, BinaryOperator, Block, CallSuffix, Chunk, ConstructorField, Expression, FieldSuffix,
    ForStatement, FunctionDefinition, HeadExpression, PrimaryExpression, RecordKey, SimpleExpression,
    Statement, SuffixPart, SuffixedExpression,
};
use piccolo::compiler::{self, StringInterner};
use piccolo::{Closure, Context, FunctionPrototype, PrototypeError, Table};

/// Global name of the charged concatenation.
pub(crate) const CONCAT: &str = "\0concat";
/// Global name of the method-call helper.
pub(crate) const METHOD: &str = "\0method";

#[derive(Copy, Clone)]
struct Interner<'gc>(Context<'gc>);

impl<'gc> StringInterner for Interner<'gc> {
    type String = piccolo::String<'gc>;

    fn intern(&mut self, s: &[u8]) -> Self::String {
        self.0.intern(s)
    }
}

/// Parses, rewrites and compiles `source` into a closure over `env`.
pub(crate) fn load<'gc>(
    ctx: Context<'gc>,
    source: &[u8],
    env: Table<'gc>,
) -> Result<Closure<'gc>, PrototypeError> {
    let interner = Interner(ctx);
    let mut chunk = compiler::parse_chunk(source, interner)?;
    let mut rw = Rewriter {
        ctx,
        scopes: vec![Vec::new()],
    };
    rw.chunk(&mut chunk);
    let compiled = compiler::compile_chunk(&chunk, interner)?;
    let proto = FunctionPrototype::from_compiled(&ctx, ctx.intern(b"@user_script"), &compiled);
    // A top-level chunk has only the _ENV upvalue, and an environment is given.
    Closure::new(&ctx, proto, Some(env)).map_err(|_| {
        PrototypeError::Compiler(compiler::CompileError {
            kind: compiler::CompileErrorKind::UpValues,
            line_number: compiler::LineNumber(0),
        })
    })
}

type S<'gc> = piccolo::String<'gc>;

struct Rewriter<'gc> {
    ctx: Context<'gc>,
    /// The locals in scope, per function (innermost last), to name a `..` operand as Lua
    /// 5.1 does: `local 'v'`, `upvalue 'v'` or `global 'v'`.
    scopes: Vec<Vec<S<'gc>>>,
}

impl<'gc> Rewriter<'gc> {
    fn name(&self, n: &str) -> S<'gc> {
        self.ctx.intern(n.as_bytes())
    }

    fn chunk(&mut self, c: &mut Chunk<S<'gc>>) {
        self.block(&mut c.block);
    }

    fn block(&mut self, b: &mut Block<S<'gc>>) {
        let mark = self.locals_len();
        self.block_in_scope(b);
        self.truncate_locals(mark);
    }

    /// A block's statements, its locals left in scope (for `repeat ... until`).
    fn block_in_scope(&mut self, b: &mut Block<S<'gc>>) {
        for st in &mut b.statements {
            self.statement(&mut st.inner);
        }
        if let Some(ret) = &mut b.return_statement {
            self.exprs(&mut ret.inner.returns);
        }
    }

    fn locals_len(&self) -> usize {
        self.scopes.last().map_or(0, Vec::len)
    }

    fn truncate_locals(&mut self, len: usize) {
        if let Some(f) = self.scopes.last_mut() {
            f.truncate(len);
        }
    }

    fn declare(&mut self, names: &[S<'gc>]) {
        if let Some(f) = self.scopes.last_mut() {
            f.extend_from_slice(names);
        }
    }

    /// What Lua 5.1 calls an operand of `..` in an error, when the expression alone says
    /// it: a variable (`local 'v'`, `upvalue 'v'`, `global 'v'`) or a field (`field 'x'`,
    /// `field '?'` for a key that is not a constant string).
    fn operand_name(&self, e: &Expression<S<'gc>>) -> Option<String> {
        let HeadExpression::Simple(SimpleExpression::Suffixed(sx)) = e.head.as_ref() else {
            return None;
        };
        if !e.tail.is_empty() {
            return None;
        }
        self.suffixed_name(sx)
    }

    /// [`Self::operand_name`] of a suffixed expression.
    fn suffixed_name(&self, sx: &SuffixedExpression<S<'gc>>) -> Option<String> {
        let text = |s: &S<'gc>| String::from_utf8_lossy(s.as_bytes()).into_owned();
        match (sx.suffixes.last(), &sx.primary) {
            (None, PrimaryExpression::Name(n)) => {
                let mut scopes = self.scopes.iter().rev();
                let kind = if scopes.next().is_some_and(|f| f.contains(n)) {
                    "local"
                } else if scopes.any(|f| f.contains(n)) {
                    "upvalue"
                } else {
                    "global"
                };
                Some(format!("{kind} '{}'", text(n)))
            }
            (Some(SuffixPart::Field(FieldSuffix::Named(n))), _) => Some(format!("field '{}'", text(n))),
            (Some(SuffixPart::Field(FieldSuffix::Indexed(k))), _) => {
                let key = match (k.head.as_ref(), k.tail.is_empty()) {
                    (HeadExpression::Simple(SimpleExpression::String(s)), true) => text(s),
                    _ => "?".to_string(),
                };
                Some(format!("field '{key}'"))
            }
            _ => None,
        }
    }

    fn name_arg(&self, name: Option<String>) -> Expression<S<'gc>> {
        match name {
            Some(n) => simple(SimpleExpression::String(self.name(&n))),
            None => simple(SimpleExpression::Nil),
        }
    }

    fn exprs(&mut self, es: &mut [Expression<S<'gc>>]) {
        for e in es {
            self.expr(e);
        }
    }

    fn function(&mut self, f: &mut FunctionDefinition<S<'gc>>, method: bool) {
        let mut params = Vec::new();
        if method {
            params.push(self.name("self"));
        }
        params.extend(f.parameters.iter().copied());
        self.scopes.push(params);
        self.block(&mut f.body);
        self.scopes.pop();
    }

    fn statement(&mut self, st: &mut Statement<S<'gc>>) {
        match st {
            Statement::If(s) => {
                self.expr(&mut s.if_part.0);
                self.block(&mut s.if_part.1);
                for (cond, body) in &mut s.else_if_parts {
                    self.expr(cond);
                    self.block(body);
                }
                if let Some(b) = &mut s.else_part {
                    self.block(b);
                }
            }
            Statement::While(s) => {
                self.expr(&mut s.condition);
                self.block(&mut s.block);
            }
            Statement::Do(b) => self.block(b),
            Statement::For(ForStatement::Numeric {
                name,
                initial,
                limit,
                step,
                body,
            }) => {
                self.expr(initial);
                self.expr(limit);
                if let Some(step) = step {
                    self.expr(step);
                }
                let mark = self.locals_len();
                self.declare(&[*name]);
                self.block(body);
                self.truncate_locals(mark);
            }
            Statement::For(ForStatement::Generic {
                names,
                arguments,
                body,
            }) => {
                self.exprs(arguments);
                let mark = self.locals_len();
                self.declare(names);
                self.block(body);
                self.truncate_locals(mark);
            }
            Statement::Repeat(s) => {
                // `until` sees the body's locals.
                let mark = self.locals_len();
                self.block_in_scope(&mut s.body);
                self.expr(&mut s.until);
                self.truncate_locals(mark);
            }
            Statement::Function(s) => {
                let method = s.method.is_some();
                self.function(&mut s.definition, method)
            }
            Statement::LocalFunction(s) => {
                self.declare(&[s.name]);
                self.function(&mut s.definition, false)
            }
            Statement::LocalStatement(s) => {
                self.exprs(&mut s.values);
                self.declare(&s.names);
            }
            Statement::Label(_) | Statement::Break | Statement::Goto(_) => {}
            Statement::FunctionCall(s) => {
                self.suffixed(&mut s.head);
                match &mut s.call {
                    CallSuffix::Function(args) => self.exprs(args),
                    CallSuffix::Method(name, args) => {
                        self.exprs(args);
                        let name = *name;
                        let args = std::mem::take(args);
                        let head = std::mem::replace(
                            &mut s.head,
                            SuffixedExpression {
                                primary: PrimaryExpression::Name(self.name(METHOD)),
                                suffixes: Vec::new(),
                            },
                        );
                        s.call = CallSuffix::Function(self.method_args(head, name, args));
                    }
                }
            }
            Statement::Assignment(s) => {
                for t in &mut s.targets {
                    if let AssignmentTarget::Field(head, field) = t {
                        self.suffixed(head);
                        if let FieldSuffix::Indexed(e) = field {
                            self.expr(e);
                        }
                    }
                }
                self.exprs(&mut s.values);
            }
        }
    }

    /// `obj, "name", obj's name or nil, args...` for the method helper.
    fn method_args(
        &self,
        obj: SuffixedExpression<S<'gc>>,
        name: S<'gc>,
        args: Vec<Expression<S<'gc>>>,
    ) -> Vec<Expression<S<'gc>>> {
        let mut all = Vec::with_capacity(args.len() + 3);
        // The object's name, for the error if it cannot be indexed (`local 't'`).
        let obj_name = self.name_arg(self.suffixed_name(&obj));
        all.push(simple(SimpleExpression::Suffixed(obj)));
        all.push(simple(SimpleExpression::String(name)));
        all.push(obj_name);
        all.extend(args);
        all
    }

    fn suffixed(&mut self, s: &mut SuffixedExpression<S<'gc>>) {
        if let PrimaryExpression::GroupedExpression(e) = &mut s.primary {
            self.expr(e);
        }
        for part in &mut s.suffixes {
            match part {
                SuffixPart::Field(FieldSuffix::Indexed(e)) => self.expr(e),
                SuffixPart::Field(FieldSuffix::Named(_)) => {}
                SuffixPart::Call(CallSuffix::Function(args) | CallSuffix::Method(_, args)) => {
                    self.exprs(args)
                }
            }
        }
        // Split at each method call: everything before it becomes the object argument.
        while let Some(at) = s
            .suffixes
            .iter()
            .position(|p| matches!(p, SuffixPart::Call(CallSuffix::Method(..))))
        {
            let rest = s.suffixes.split_off(at);
            let mut rest = rest.into_iter();
            let Some(SuffixPart::Call(CallSuffix::Method(name, args))) = rest.next() else {
                break;
            };
            let obj = SuffixedExpression {
                primary: std::mem::replace(&mut s.primary, PrimaryExpression::Name(self.name(METHOD))),
                suffixes: std::mem::take(&mut s.suffixes),
            };
            let call = CallSuffix::Function(self.method_args(obj, name, args));
            s.suffixes = std::iter::once(SuffixPart::Call(call)).chain(rest).collect();
        }
    }

    fn expr(&mut self, e: &mut Expression<S<'gc>>) {
        match e.head.as_mut() {
            HeadExpression::Simple(s) => self.simple(s),
            HeadExpression::UnaryOperator(_, inner) => self.expr(inner),
        }
        for (_, right) in &mut e.tail {
            self.expr(right);
        }
        if !e.tail.iter().any(|(op, _)| *op == BinaryOperator::Concat) {
            return;
        }
        // The tail is a left fold: (((head op1 e1) op2 e2) ...). Each `..` takes everything
        // folded so far as its left operand.
        let head = std::mem::replace(
            &mut e.head,
            Box::new(HeadExpression::Simple(SimpleExpression::Nil)),
        );
        let tail = std::mem::take(&mut e.tail);
        let mut cur_head = head;
        let mut cur_tail = Vec::new();
        for (op, right) in tail {
            if op == BinaryOperator::Concat {
                let left = Expression {
                    head: cur_head,
                    tail: std::mem::take(&mut cur_tail),
                };
                // The operands' names ride along, for the error a bad operand raises.
                let names = [self.operand_name(&left), self.operand_name(&right)];
                let [left_name, right_name] = names.map(|n| self.name_arg(n));
                let call = SuffixedExpression {
                    primary: PrimaryExpression::Name(self.name(CONCAT)),
                    suffixes: vec![SuffixPart::Call(CallSuffix::Function(vec![
                        left, right, left_name, right_name,
                    ]))],
                };
                cur_head = Box::new(HeadExpression::Simple(SimpleExpression::Suffixed(call)));
            } else {
                cur_tail.push((op, right));
            }
        }
        e.head = cur_head;
        e.tail = cur_tail;
    }

    fn simple(&mut self, s: &mut SimpleExpression<S<'gc>>) {
        match s {
            SimpleExpression::TableConstructor(t) => {
                for f in &mut t.fields {
                    match f {
                        ConstructorField::Array(e) => self.expr(e),
                        ConstructorField::Record(key, e) => {
                            if let RecordKey::Indexed(k) = key {
                                self.expr(k);
                            }
                            self.expr(e);
                        }
                    }
                }
            }
            SimpleExpression::Function(f) => self.function(f, false),
            SimpleExpression::Suffixed(sx) => self.suffixed(sx),
            _ => {}
        }
    }
}

fn simple<'gc>(s: SimpleExpression<S<'gc>>) -> Expression<S<'gc>> {
    Expression {
        head: Box::new(HeadExpression::Simple(s)),
        tail: Vec::new(),
    }
}
