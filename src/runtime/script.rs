//! `ScriptCondition`: a condition written in BehaviorTree.CPP's script language
//! (docs/SCRIPTS.md), its keys found in the context when it is checked. The spec of the
//! kind is here beside its behaviour, with the evaluator of the language's expressions.

use std::sync::Arc;

use super::behaviour::{CondIo, Condition, Context, CtxValue, KeyId, NodeSpec};
use crate::model::script::{Binary, Compare, Expr, Unary, parse};
use crate::model::{Category, FieldSpec, FieldType, KindSpec, Value};

/// The spec of `ScriptCondition`.
pub(crate) fn specs() -> [KindSpec; 1] {
    [KindSpec::new(
        "ScriptCondition",
        Category::Condition,
        "True when its script, an expression over keys, gives true (BehaviorTree.CPP's ScriptCondition).",
        vec![FieldSpec::new(
            "code",
            FieldType::Expression,
            Value::Text("true".into()),
            "The expression: keys, numbers, 'text', arithmetic, comparisons, && || !, a ? b : c.",
        )],
    )]
}

/// `ScriptCondition`'s behaviour, from its node's fields: the script with its keys'
/// ids.
pub(super) fn script_condition(spec: &mut NodeSpec<'_>) -> Result<ScriptCondition, String> {
    let code = spec.text("code").to_owned();
    let script = parse(&code).map_err(|e| format!("its code is not a script: {e}"))?;
    if let Some(k) = script.writes().first() {
        return Err(format!("its code assigns '{k}': a condition writes no key"));
    }
    let mut compiled = Vec::with_capacity(script.statements.len());
    for s in &script.statements {
        compiled.push(compile(s, spec));
    }
    Ok(ScriptCondition {
        statements: compiled.into(),
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
}

/// `e` (which assigns nothing) with its keys interned. The parser bounds how deep an
/// expression nests, and so this recursion.
fn compile(e: &Expr, spec: &mut NodeSpec<'_>) -> Code {
    match e {
        Expr::Number(n) => Code::Number(*n),
        Expr::Text(t) => Code::Text(t.as_str().into()),
        Expr::Key(k) => Code::Key(spec.key(k), k.as_str().into()),
        Expr::Unary(op, a) => Code::Unary(*op, Box::new(compile(a, spec))),
        Expr::Binary(a, op, b) => {
            Code::Binary(Box::new(compile(a, spec)), *op, Box::new(compile(b, spec)))
        }
        Expr::Compare(a, rest) => Code::Compare(
            Box::new(compile(a, spec)),
            rest.iter().map(|(op, e)| (*op, compile(e, spec))).collect(),
        ),
        Expr::If(a, b, c) => Code::If(
            Box::new(compile(a, spec)),
            Box::new(compile(b, spec)),
            Box::new(compile(c, spec)),
        ),
        // Refused before compiling (`script_condition`).
        Expr::Assign(..) => Code::Number(0.0),
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
            Val::Number(n) if n.fract() == 0.0 && n.abs() < 1e15 => format!("{n:.0}").into(),
            Val::Number(n) => n.to_string().into(),
        }
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

fn eval(e: &Code, ctx: &Context) -> Result<Val, Fail> {
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
    pub(crate) fn value(&self, ctx: &Context) -> Result<Val, Fail> {
        let mut last = Val::Number(0.0);
        for s in self.statements.iter() {
            last = eval(s, ctx)?;
        }
        Ok(last)
    }
}

impl<A> Condition<A> for ScriptCondition {
    fn check(&self, _: &mut A, io: &CondIo<'_>) -> bool {
        match self.value(io.context) {
            Ok(Val::Number(n)) => n != 0.0,
            Ok(Val::Text(t)) => matches!(t.trim(), "true" | "1"),
            Err(_) => false,
        }
    }
}
