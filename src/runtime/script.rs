//! The kinds written in BehaviorTree.CPP's script language (docs/SCRIPTS.md):
//! `ScriptCondition`, whose script reads keys, and the action `Script`, whose script sets
//! them. Their specs are here beside their behaviours, with the evaluator of the
//! language.

use std::sync::Arc;

use super::behaviour::{
    Action, CondIo, Condition, Context, CtxValue, KeyId, LeafIo, NodeSpec, Outcome, Writes, stage,
    staged,
};
use crate::model::script::{Assign, Binary, Compare, Expr, Unary, parse};
use crate::model::{Catalog, Category, FieldSpec, FieldType, KindSpec, Value};

/// The specs of `ScriptCondition` and `Script`.
pub(crate) fn specs() -> [KindSpec; 2] {
    [
        KindSpec::new(
            "ScriptCondition",
            Category::Condition,
            "True when its script, an expression over keys, gives true (BehaviorTree.CPP's ScriptCondition).",
            vec![FieldSpec::new(
                "code",
                FieldType::Expression,
                Value::Text("true".into()),
                "The expression: keys, numbers, 'text', arithmetic, comparisons, && || !, a ? b : c.",
            )],
        ),
        KindSpec::new(
            "Script",
            Category::Leaf,
            "Runs its script, which sets keys (`tries += 1; ready := tries > 2`), and succeeds; fails when the script has no value (BehaviorTree.CPP's Script).",
            vec![FieldSpec::new(
                "code",
                FieldType::Statements,
                Value::Text("true".into()),
                "Statements separated by ';': key := value, key = value, key += value, ... over keys, numbers and 'text'.",
            )],
        ),
    ]
}

/// `ScriptCondition`'s behaviour, from its node's fields: the script with its keys'
/// ids.
pub(super) fn script_condition(spec: &mut NodeSpec<'_>) -> Result<ScriptCondition, String> {
    let code = spec.text("code").to_owned();
    let script = parse(&code).map_err(|e| format!("its code is not a script: {e}"))?;
    if let Some(k) = script.writes().first() {
        return Err(format!("its code assigns '{k}': a condition writes no key"));
    }
    Ok(ScriptCondition {
        statements: compiled(&script, spec),
    })
}

/// The statements of `script` with their keys' ids, found by `spec`.
fn compiled(script: &crate::model::script::Script, spec: &mut NodeSpec<'_>) -> Box<[Code]> {
    let catalog = spec.catalog;
    let mut key = |k: &str| spec.key(k);
    script
        .statements
        .iter()
        .map(|s| compile(s, &mut key, catalog))
        .collect()
}

/// A branch's condition in the language (Precondition's `if`, a hook's `_failureIf`):
/// `code` with its keys' ids, found by `key`. A script that does not parse (validation
/// refuses it) has no value, and so does not hold.
pub(crate) fn branch_condition(
    code: &str,
    enums: &Catalog,
    key: impl FnMut(&str) -> KeyId,
) -> ScriptCondition {
    ScriptCondition {
        statements: compile_code(code, enums, key),
    }
}

/// `code`'s statements with their keys' ids, found by `key`; for a script that does not
/// parse, one that has no value (a key no program has).
fn compile_code(code: &str, enums: &Catalog, mut key: impl FnMut(&str) -> KeyId) -> Box<[Code]> {
    match parse(code) {
        Ok(script) => script
            .statements
            .iter()
            .map(|s| compile(s, &mut key, enums))
            .collect(),
        Err(_) => Box::new([Code::Key(KeyId::MAX, "".into())]),
    }
}

/// A node's hook that runs statements (`_onSuccess` …, SEMANTICS.md §3.7): `code` with
/// its keys' ids, found by `key`. A script that does not parse (validation refuses it)
/// has no value, and so sets nothing.
pub(crate) fn hook_statements(
    code: &str,
    enums: &Catalog,
    key: impl FnMut(&str) -> KeyId,
) -> Statements {
    Statements {
        statements: compile_code(code, enums, key),
    }
}

/// Statements a node runs as it finishes or is aborted (its hooks), which set keys.
pub(crate) struct Statements {
    statements: Box<[Code]>,
}

impl Statements {
    /// Runs them over `context`, each seeing what those before set: the keys they set go
    /// into `writes` (empty before). False, and nothing in `writes`, when the script has
    /// no value.
    pub(crate) fn run(&self, context: &Context, writes: &mut Writes) -> bool {
        let mut env = Staged { context, writes };
        let ok = run(&self.statements, &mut env).is_ok();
        if !ok {
            env.writes.clear();
        }
        ok
    }
}

/// A hook's: the context with what its script set so far noted over it.
struct Staged<'a> {
    context: &'a Context,
    writes: &'a mut Writes,
}

impl Env for Staged<'_> {
    fn get(&self, key: KeyId) -> Option<&CtxValue> {
        staged(Some(self.writes), self.context, key)
    }

    fn set(&mut self, key: KeyId, value: CtxValue) {
        stage(self.writes, key, Some(value));
    }
}

/// `Script`'s behaviour, from its node's fields: the script with its keys' ids.
pub(super) fn script(spec: &mut NodeSpec<'_>) -> Result<Script, String> {
    let code = spec.text("code").to_owned();
    let script = parse(&code).map_err(|e| format!("its code is not a script: {e}"))?;
    Ok(Script {
        statements: compiled(&script, spec),
    })
}

/// An expression with its keys as the program's ids.
enum Code {
    Number(f64),
    Text(Arc<str>),
    Key(KeyId, Arc<str>),
    Unary(Unary, Box<Code>),
    Binary(Box<Code>, Binary, Box<Code>),
    Compare(Box<Code>, Box<[(Compare, Code)]>),
    If(Box<Code>, Box<Code>, Box<Code>),
    Assign(KeyId, Arc<str>, Assign, Box<Code>),
}

/// `e` with its keys interned by `key`, and the project's enums (in `enums`) as their
/// numbers. The parser bounds how deep an
/// expression nests, and so this recursion.
fn compile(e: &Expr, key: &mut impl FnMut(&str) -> KeyId, enums: &Catalog) -> Code {
    match e {
        Expr::Number(n) => Code::Number(*n),
        Expr::Text(t) => Code::Text(t.as_str().into()),
        Expr::Key(k) => match enums.enum_value(k) {
            // A name the project declares an enum is its number (as BehaviorTree.CPP
            // looks in its enums first).
            Some(v) => Code::Number(v as f64),
            None => Code::Key(key(k), k.as_str().into()),
        },
        Expr::Unary(op, a) => Code::Unary(*op, Box::new(compile(a, key, enums))),
        Expr::Binary(a, op, b) => Code::Binary(
            Box::new(compile(a, key, enums)),
            *op,
            Box::new(compile(b, key, enums)),
        ),
        Expr::Compare(a, rest) => Code::Compare(
            Box::new(compile(a, key, enums)),
            rest.iter()
                .map(|(op, e)| (*op, compile(e, key, enums)))
                .collect(),
        ),
        Expr::If(a, b, c) => Code::If(
            Box::new(compile(a, key, enums)),
            Box::new(compile(b, key, enums)),
            Box::new(compile(c, key, enums)),
        ),
        Expr::Assign(k, how, e) => Code::Assign(
            key(k),
            k.as_str().into(),
            *how,
            Box::new(compile(e, key, enums)),
        ),
    }
}

/// Where a script finds its keys' values, and puts those it assigns.
trait Env {
    fn get(&self, key: KeyId) -> Option<&CtxValue>;
    fn set(&mut self, key: KeyId, value: CtxValue);
}

/// A condition's: the context, which it does not write (its script assigns nothing:
/// `script_condition` refuses one that does).
impl Env for &Context {
    fn get(&self, key: KeyId) -> Option<&CtxValue> {
        Context::get(self, key)
    }

    fn set(&mut self, _: KeyId, _: CtxValue) {}
}

/// An action's: what it assigned in this execute over the context, and its writes.
impl Env for LeafIo<'_> {
    fn get(&self, key: KeyId) -> Option<&CtxValue> {
        self.current(key)
    }

    fn set(&mut self, key: KeyId, value: CtxValue) {
        self.write(key, Some(value));
    }
}

/// A value of the language: a number (true and false are 1 and 0) or a text.
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Val {
    Number(f64),
    Text(Arc<str>),
}

/// Why an expression has no value (BehaviorTree.CPP throws then).
type Fail = String;

impl Val {
    fn of(v: &CtxValue, name: &str) -> Result<Val, Fail> {
        match v {
            CtxValue::Number(n) => Ok(Val::Number(*n)),
            CtxValue::Bool(b) => Ok(Val::Number(f64::from(u8::from(*b)))),
            CtxValue::Text(t) => Ok(Val::Text(t.clone())),
            CtxValue::Entity(_) | CtxValue::Position(_) => Err(format!(
                "key '{name}' holds a world entity or position, which a script cannot use"
            )),
        }
    }

    /// As a condition: a number other than 0, a text that is not empty.
    fn holds(&self) -> bool {
        match self {
            Val::Number(n) => *n != 0.0,
            Val::Text(t) => !t.is_empty(),
        }
    }

    /// A number read from a text (as BehaviorTree.CPP compares a text with a number).
    fn number(&self) -> Result<f64, Fail> {
        match self {
            Val::Number(n) => Ok(*n),
            Val::Text(t) => t
                .trim()
                .parse::<f64>()
                .map_err(|_| format!("'{t}' is not a number")),
        }
    }

    fn text(&self) -> Arc<str> {
        match self {
            Val::Text(t) => t.clone(),
            Val::Number(n) => number_text(*n).into(),
        }
    }

    fn into_ctx(self) -> CtxValue {
        match self {
            Val::Number(n) => CtxValue::Number(n),
            Val::Text(t) => CtxValue::Text(t),
        }
    }
}

/// A number as the language writes it in a text: a whole number without a decimal point.
pub(crate) fn number_text(n: f64) -> String {
    if n.fract() == 0.0 && n.abs() < 1e15 {
        format!("{n:.0}")
    } else {
        n.to_string()
    }
}

/// A whole number from a number that is one (for `~`, `&`, `|`, `^`).
fn whole(n: f64) -> Result<i64, Fail> {
    if n.fract() == 0.0 && n.abs() < 9.2e18 {
        Ok(n as i64)
    } else {
        Err(format!("{n} is not a whole number"))
    }
}

/// BehaviorTree.CPP's equality of numbers: within a float's epsilon.
fn same(a: f64, b: f64) -> bool {
    (a - b).abs() <= f64::from(f32::EPSILON)
}

fn eval(e: &Code, ctx: &mut impl Env) -> Result<Val, Fail> {
    Ok(match e {
        Code::Number(n) => Val::Number(*n),
        Code::Text(t) => Val::Text(t.clone()),
        Code::Key(id, name) => match ctx.get(*id) {
            Some(v) => Val::of(v, name)?,
            None => return Err(format!("key '{name}' has no value")),
        },
        Code::Unary(op, a) => {
            let Val::Number(n) = eval(a, ctx)? else {
                return Err("'-', '~' and '!' take a number, not a text".into());
            };
            Val::Number(match op {
                Unary::Negate => -n,
                Unary::Complement => !whole(n)? as f64,
                Unary::Not => f64::from(u8::from(n == 0.0)),
            })
        }
        Code::Binary(a, op, b) => {
            // Both sides are evaluated, as in BehaviorTree.CPP (no short circuit).
            let (l, r) = (eval(a, ctx)?, eval(b, ctx)?);
            match (&l, &r, op) {
                (Val::Number(x), Val::Number(y), _) => {
                    let (x, y) = (*x, *y);
                    Val::Number(match op {
                        Binary::Plus => x + y,
                        Binary::Minus => x - y,
                        Binary::Times => x * y,
                        Binary::Divide => x / y,
                        Binary::BitAnd => (whole(x)? & whole(y)?) as f64,
                        Binary::BitOr => (whole(x)? | whole(y)?) as f64,
                        Binary::BitXor => (whole(x)? ^ whole(y)?) as f64,
                        Binary::And => f64::from(u8::from(x != 0.0 && y != 0.0)),
                        Binary::Or => f64::from(u8::from(x != 0.0 || y != 0.0)),
                        Binary::Concat => {
                            return Ok(Val::Text(format!("{}{}", l.text(), r.text()).into()));
                        }
                    })
                }
                (Val::Text(_), Val::Text(_), Binary::Plus) | (_, _, Binary::Concat) => {
                    Val::Text(format!("{}{}", l.text(), r.text()).into())
                }
                _ => return Err("that operator does not take a text".into()),
            }
        }
        Code::Compare(a, rest) => {
            let mut left = eval(a, ctx)?;
            for (op, e) in rest.iter() {
                let right = eval(e, ctx)?;
                let order = match (&left, &right) {
                    (Val::Text(x), Val::Text(y)) => x.cmp(y),
                    _ => {
                        let (x, y) = (left.number()?, right.number()?);
                        if same(x, y) {
                            std::cmp::Ordering::Equal
                        } else if x < y {
                            std::cmp::Ordering::Less
                        } else {
                            std::cmp::Ordering::Greater
                        }
                    }
                };
                use std::cmp::Ordering::{Equal, Greater, Less};
                let holds = match op {
                    Compare::Equal => order == Equal,
                    Compare::NotEqual => order != Equal,
                    Compare::Less => order == Less,
                    Compare::Greater => order == Greater,
                    Compare::LessEqual => order != Greater,
                    Compare::GreaterEqual => order != Less,
                };
                if !holds {
                    return Ok(Val::Number(0.0));
                }
                left = right;
            }
            Val::Number(1.0)
        }
        Code::If(c, a, b) => {
            if eval(c, ctx)?.holds() {
                eval(a, ctx)?
            } else {
                eval(b, ctx)?
            }
        }
        Code::Assign(key, name, how, e) => {
            let value = eval(e, ctx)?;
            let old = ctx.get(*key).map(|v| Val::of(v, name)).transpose()?;
            let new = match (how, old) {
                (Assign::Create, _) | (Assign::Existing, Some(_)) => value,
                (_, None) => {
                    return Err(format!(
                        "key '{name}' has no value (':=' sets a key that has none)"
                    ));
                }
                (how, Some(old)) => combine(*how, old, value)?,
            };
            ctx.set(*key, new.clone().into_ctx());
            new
        }
    })
}

/// `old OP= value`: arithmetic on numbers; `+=` of a text joins it to the old value's
/// text.
fn combine(how: Assign, old: Val, value: Val) -> Result<Val, Fail> {
    Ok(match (old, value, how) {
        (Val::Number(x), Val::Number(y), _) => Val::Number(match how {
            Assign::Plus => x + y,
            Assign::Minus => x - y,
            Assign::Times => x * y,
            _ => x / y,
        }),
        (old, Val::Text(t), Assign::Plus) => Val::Text(format!("{}{t}", old.text()).into()),
        (Val::Text(_), Val::Number(_), _) => {
            return Err("that assignment does not take a text key".into());
        }
        _ => return Err("only '+=' takes a text".into()),
    })
}

/// `ScriptCondition`: holds when its last statement's value does (a number other than 0,
/// the text `true` or `1`). A script that has no value (a key with none, a text where a
/// number must be) does not hold.
pub(crate) struct ScriptCondition {
    statements: Box<[Code]>,
}

impl ScriptCondition {
    /// The value of the script in `ctx`, or why it has none.
    pub(crate) fn value(&self, mut ctx: &Context) -> Result<Val, Fail> {
        run(&self.statements, &mut ctx)
    }
}

/// The value of `statements`, the last one's, run in order in `env`.
fn run(statements: &[Code], env: &mut impl Env) -> Result<Val, Fail> {
    let mut last = Val::Number(0.0);
    for s in statements {
        last = eval(s, env)?;
    }
    Ok(last)
}

/// `Script`: runs its script as it executes, sets the keys it assigns, produces its value
/// (the last statement's) for `out_context`, and succeeds. A script that has no value (a
/// key with none, a text where a number must be) sets nothing and fails.
pub(crate) struct Script {
    statements: Box<[Code]>,
}

/// The reason of a `Script` whose script has no value.
const NO_VALUE: &str = "its script has no value";

impl<A> Action<A> for Script {
    type Memory = ();

    fn on_execute(&self, _: &mut (), _: &mut A, io: &mut LeafIo<'_>, _dt: f64) -> Outcome {
        match run(&self.statements, io) {
            Ok(v) => {
                io.produce(v.into_ctx());
                Outcome::Success
            }
            Err(_) => {
                if let Some(w) = io.writes() {
                    w.clear();
                }
                Outcome::FailureBecause(NO_VALUE)
            }
        }
    }
}

impl ScriptCondition {
    /// Whether it holds in `ctx`: its value is a number other than 0, or the text `true`
    /// or `1`; a script with no value does not hold.
    pub(crate) fn holds(&self, ctx: &Context) -> bool {
        match self.value(ctx) {
            Ok(Val::Number(n)) => n != 0.0,
            Ok(Val::Text(t)) => matches!(t.trim(), "true" | "1"),
            Err(_) => false,
        }
    }
}

impl<A> Condition<A> for ScriptCondition {
    fn check(&self, _: &mut A, io: &CondIo<'_>) -> bool {
        self.holds(io.context)
    }
}
