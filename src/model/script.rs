//! BehaviorTree.CPP's script language (docs/SCRIPTS.md): statements of assignments and
//! expressions over blackboard keys, parsed into a tree that the runtime evaluates.
//!
//! `a := 1; b = a + 2 * 3; msg := 'hi ' .. name; ok := !(b >= 7) || done`: literals are
//! numbers (`3`, `0x1F`, `2.5e3`), `true`/`false` (1 and 0) and `'text'`; names are keys;
//! the operators, loosest first: `:= = += -= *= /=`, `? :`, `||`, `&&`, comparisons (which
//! chain: `1 < x < 3`), `| ^`, `&`, `+ - ..`, `* /`, and the prefixes `- ~ !`.

use std::fmt;

/// A parsed script: its statements, in order.
#[derive(Clone, Debug, PartialEq)]
pub struct Script {
    /// Each statement; the value of the last is the script's.
    pub statements: Vec<Expr>,
}

/// An expression.
#[derive(Clone, Debug, PartialEq)]
pub enum Expr {
    /// A number.
    Number(f64),
    /// A text.
    Text(String),
    /// A key's value (a name starting with `@` is the root blackboard's: the same key here).
    Key(String),
    /// A prefix operator applied.
    Unary(Unary, Box<Expr>),
    /// An infix operator applied.
    Binary(Box<Expr>, Binary, Box<Expr>),
    /// A chain of comparisons: `a < b <= c` holds when each does.
    Compare(Box<Expr>, Vec<(Compare, Expr)>),
    /// `condition ? then : otherwise`.
    If(Box<Expr>, Box<Expr>, Box<Expr>),
    /// An assignment to a key.
    Assign(String, Assign, Box<Expr>),
}

/// A prefix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Unary {
    /// `-`
    Negate,
    /// `~` (of a whole number)
    Complement,
    /// `!`
    Not,
}

/// An infix operator.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Binary {
    /// `+` (numbers, or two texts)
    Plus,
    /// `-`
    Minus,
    /// `*`
    Times,
    /// `/`
    Divide,
    /// `..`: texts and numbers joined as text
    Concat,
    /// `&` of whole numbers
    BitAnd,
    /// `|`
    BitOr,
    /// `^`
    BitXor,
    /// `&&`
    And,
    /// `||`
    Or,
}

/// A comparison.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Compare {
    /// `==`
    Equal,
    /// `!=`
    NotEqual,
    /// `<`
    Less,
    /// `>`
    Greater,
    /// `<=`
    LessEqual,
    /// `>=`
    GreaterEqual,
}

/// An assignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Assign {
    /// `:=`: creates the key if it has no value.
    Create,
    /// `=`: the key must have a value already.
    Existing,
    /// `+=`
    Plus,
    /// `-=`
    Minus,
    /// `*=`
    Times,
    /// `/=`
    Divide,
}

/// Why a script does not parse: where (a character offset, 0-based) and what.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScriptError {
    /// The character it was found at.
    pub at: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for ScriptError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "at character {}: {}", self.at + 1, self.message)
    }
}

/// How deep parentheses, prefixes and operators may nest while parsing, and how tall the
/// expression they make may be (more is refused, so that a hostile script cannot exhaust
/// the stack of what parses, walks or drops it).
const MAX_DEPTH: usize = 64;
const MAX_HEIGHT: usize = 256;

#[derive(Clone, Debug, PartialEq)]
enum Tok {
    Number(f64),
    Text(String),
    Name(String),
    Op(&'static str),
    End,
}

/// The operators, longest first so that `:=` is not read as `:`.
const OPS: &[&str] = &[
    "..", "&&", "||", "==", "!=", "<=", ">=", ":=", "+=", "-=", "*=", "/=", "+", "-", "*", "/",
    "&", "|", "^", "~", "!", "<", ">", "=", "?", ":", "(", ")", ";",
];

fn tokens(code: &str) -> Result<Vec<(usize, Tok)>, ScriptError> {
    let chars: Vec<char> = code.chars().collect();
    let mut out = Vec::new();
    let mut i = 0;
    let err = |at: usize, message: String| ScriptError { at, message };
    while i < chars.len() {
        let c = chars[i];
        if c.is_whitespace() {
            i += 1;
            continue;
        }
        let start = i;
        if c == '\'' {
            let end = chars[i + 1..]
                .iter()
                .position(|&c| c == '\'')
                .ok_or_else(|| err(start, "a text that is never closed with '".into()))?;
            out.push((start, Tok::Text(chars[i + 1..i + 1 + end].iter().collect())));
            i += end + 2;
            continue;
        }
        if c.is_ascii_digit() {
            let hex = c == '0' && matches!(chars.get(i + 1), Some('x' | 'X'));
            if hex {
                i += 2;
            }
            while i < chars.len()
                && (chars[i].is_ascii_alphanumeric()
                    || (chars[i] == '.' && chars.get(i + 1) != Some(&'.') && !hex)
                    || (!hex && matches!(chars[i], '+' | '-') && matches!(chars[i - 1], 'e' | 'E')))
            {
                i += 1;
            }
            let text: String = chars[start..i].iter().collect();
            let value = if hex {
                i64::from_str_radix(&text[2..], 16).ok().map(|v| v as f64)
            } else {
                text.parse::<f64>().ok().filter(|v| v.is_finite())
            };
            let value = value.ok_or_else(|| err(start, format!("'{text}' is not a number")))?;
            out.push((start, Tok::Number(value)));
            continue;
        }
        if c.is_alphabetic() || c == '_' || c == '@' {
            i += 1;
            while i < chars.len() && (chars[i].is_alphanumeric() || chars[i] == '_') {
                i += 1;
            }
            let name: String = chars[start..i].iter().collect();
            out.push((
                start,
                match name.as_str() {
                    "true" => Tok::Number(1.0),
                    "false" => Tok::Number(0.0),
                    _ => Tok::Name(name),
                },
            ));
            continue;
        }
        let op = OPS.iter().find(|o| {
            o.chars()
                .enumerate()
                .all(|(k, oc)| chars.get(i + k) == Some(&oc))
        });
        let Some(op) = op else {
            return Err(err(start, format!("'{c}' is not part of the language")));
        };
        out.push((start, Tok::Op(op)));
        i += op.chars().count();
    }
    out.push((chars.len(), Tok::End));
    Ok(out)
}

/// Whether `text` is a name as the language reads one (a letter or `_`, then letters,
/// digits and `_`), and not `true` or `false`.
pub fn is_name(text: &str) -> bool {
    let mut chars = text.chars();
    chars.next().is_some_and(|c| c.is_alphabetic() || c == '_')
        && chars.all(|c| c.is_alphanumeric() || c == '_')
        && !matches!(text, "true" | "false")
}

/// The keys a script names (read or assigned), each once, in order: slices of `code`
/// (`@goal` names `goal`). `None` when it does not tokenize.
pub fn names(code: &str) -> Option<Vec<&str>> {
    let offsets: Vec<usize> = code
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(code.len()))
        .collect();
    let toks = tokens(code).ok()?;
    let mut seen = std::collections::HashSet::new();
    let mut out = Vec::new();
    for (at, t) in &toks {
        if let Tok::Name(n) = t {
            let start = offsets[*at];
            let name = code[start..start + n.len()].trim_start_matches('@');
            if seen.insert(name) {
                out.push(name);
            }
        }
    }
    Some(out)
}

/// `code` with each name of key `from` made `to` (`@from` made `@to`), the rest as
/// written; `None` when it does not tokenize or names no such key.
pub fn rename(code: &str, from: &str, to: &str) -> Option<String> {
    let offsets: Vec<usize> = code
        .char_indices()
        .map(|(b, _)| b)
        .chain(std::iter::once(code.len()))
        .collect();
    let mut out = String::with_capacity(code.len());
    let mut done = 0;
    for (at, t) in tokens(code).ok()? {
        let Tok::Name(n) = t else { continue };
        let start = offsets[at];
        let at_sign = usize::from(n.starts_with('@'));
        if n[at_sign..] != *from {
            continue;
        }
        out.push_str(&code[done..start + at_sign]);
        out.push_str(to);
        done = start + n.len();
    }
    if done == 0 {
        return None;
    }
    out.push_str(&code[done..]);
    Some(out)
}

/// Parses a script. An empty one (only spaces and `;`) is refused: it says nothing.
pub fn parse(code: &str) -> Result<Script, ScriptError> {
    let mut p = Parser {
        toks: tokens(code)?,
        at: 0,
        depth: 0,
    };
    let mut statements = Vec::new();
    loop {
        while p.eat(";") {}
        if p.peek() == &Tok::End {
            break;
        }
        statements.push(p.expr(0)?.0);
        if !p.eat(";") && p.peek() != &Tok::End {
            return Err(p.error("expected ';' between statements"));
        }
    }
    if statements.is_empty() {
        return Err(ScriptError {
            at: 0,
            message: "the script is empty".into(),
        });
    }
    Ok(Script { statements })
}

struct Parser {
    toks: Vec<(usize, Tok)>,
    at: usize,
    depth: usize,
}

/// How tightly an infix operator binds (higher: tighter), as BehaviorTree.CPP's parser.
fn binding_power(op: &str) -> Option<u8> {
    Some(match op {
        ":=" | "=" | "+=" | "-=" | "*=" | "/=" => 2,
        "?" => 4,
        "||" => 6,
        "&&" => 8,
        "==" | "!=" | "<" | ">" | "<=" | ">=" => 10,
        "|" | "^" => 12,
        "&" => 14,
        "+" | "-" | ".." => 16,
        "*" | "/" => 18,
        _ => return None,
    })
}

const PREFIX: u8 = 20;

impl Parser {
    fn peek(&self) -> &Tok {
        &self.toks[self.at.min(self.toks.len() - 1)].1
    }

    fn position(&self) -> usize {
        self.toks[self.at.min(self.toks.len() - 1)].0
    }

    fn next(&mut self) -> Tok {
        let t = self.peek().clone();
        if self.at < self.toks.len() - 1 {
            self.at += 1;
        }
        t
    }

    fn eat(&mut self, op: &str) -> bool {
        if matches!(self.peek(), Tok::Op(o) if *o == op) {
            self.at += 1;
            true
        } else {
            false
        }
    }

    fn error(&self, message: &str) -> ScriptError {
        let got = match self.peek() {
            Tok::End => "the end".to_owned(),
            Tok::Number(n) => format!("{n}"),
            Tok::Text(t) => format!("'{t}'"),
            Tok::Name(n) => n.clone(),
            Tok::Op(o) => format!("'{o}'"),
        };
        ScriptError {
            at: self.position(),
            message: format!("{message}, found {got}"),
        }
    }

    fn expr(&mut self, min: u8) -> Result<(Expr, usize), ScriptError> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.error(&format!("nested more than {MAX_DEPTH} deep")));
        }
        let r = self.expr_inner(min);
        self.depth -= 1;
        r
    }

    /// `e`, of height `h` (its longest path down): refused past [`MAX_HEIGHT`], so that
    /// what walks it cannot exhaust the stack.
    fn grown(&self, e: Expr, h: usize) -> Result<(Expr, usize), ScriptError> {
        if h > MAX_HEIGHT {
            return Err(self.error(&format!(
                "more than {MAX_HEIGHT} operators one inside another"
            )));
        }
        Ok((e, h))
    }

    fn expr_inner(&mut self, min: u8) -> Result<(Expr, usize), ScriptError> {
        let (mut left, mut h) = self.prefix()?;
        while let Tok::Op(op) = self.peek().clone() {
            let Some(bp) = binding_power(op) else {
                break;
            };
            if bp < min {
                break;
            }
            let at = self.position();
            self.next();
            match op {
                ":=" | "=" | "+=" | "-=" | "*=" | "/=" => {
                    let Expr::Key(name) = left else {
                        return Err(ScriptError {
                            at,
                            message: format!(
                                "'{op}' assigns to a key, and its left side is not one"
                            ),
                        });
                    };
                    let how = match op {
                        ":=" => Assign::Create,
                        "=" => Assign::Existing,
                        "+=" => Assign::Plus,
                        "-=" => Assign::Minus,
                        "*=" => Assign::Times,
                        _ => Assign::Divide,
                    };
                    let (right, rh) = self.expr(0)?;
                    return self.grown(Expr::Assign(name, how, Box::new(right)), rh + 1);
                }
                "?" => {
                    let (then, th) = self.expr(0)?;
                    if !self.eat(":") {
                        return Err(self.error("expected ':' of 'a ? b : c'"));
                    }
                    let (otherwise, oh) = self.expr(4)?;
                    let e = Expr::If(Box::new(left), Box::new(then), Box::new(otherwise));
                    return self.grown(e, h.max(th).max(oh) + 1);
                }
                "==" | "!=" | "<" | ">" | "<=" | ">=" => {
                    let (first, fh) = self.expr(bp + 1)?;
                    let mut tallest = h.max(fh);
                    let mut chain = vec![(compare(op), first)];
                    while let Tok::Op(next @ ("==" | "!=" | "<" | ">" | "<=" | ">=")) =
                        self.peek().clone()
                    {
                        self.next();
                        let (e, eh) = self.expr(bp + 1)?;
                        tallest = tallest.max(eh);
                        chain.push((compare(next), e));
                    }
                    (left, h) = self.grown(Expr::Compare(Box::new(left), chain), tallest + 1)?;
                }
                _ => {
                    let (right, rh) = self.expr(bp + 1)?;
                    let how = match op {
                        "+" => Binary::Plus,
                        "-" => Binary::Minus,
                        "*" => Binary::Times,
                        "/" => Binary::Divide,
                        ".." => Binary::Concat,
                        "&" => Binary::BitAnd,
                        "|" => Binary::BitOr,
                        "^" => Binary::BitXor,
                        "&&" => Binary::And,
                        _ => Binary::Or,
                    };
                    let e = Expr::Binary(Box::new(left), how, Box::new(right));
                    (left, h) = self.grown(e, h.max(rh) + 1)?;
                }
            }
        }
        Ok((left, h))
    }

    fn prefix(&mut self) -> Result<(Expr, usize), ScriptError> {
        let before = self.at;
        match self.next() {
            Tok::Number(n) => Ok((Expr::Number(n), 1)),
            Tok::Text(t) => Ok((Expr::Text(t), 1)),
            Tok::Name(n) => Ok((Expr::Key(n.trim_start_matches('@').to_owned()), 1)),
            Tok::Op("(") => {
                let e = self.expr(0)?;
                if !self.eat(")") {
                    return Err(self.error("expected ')'"));
                }
                Ok(e)
            }
            Tok::Op(op @ ("-" | "~" | "!")) => {
                let how = match op {
                    "-" => Unary::Negate,
                    "~" => Unary::Complement,
                    _ => Unary::Not,
                };
                let (e, h) = self.expr(PREFIX)?;
                self.grown(Expr::Unary(how, Box::new(e)), h + 1)
            }
            _ => {
                self.at = before;
                Err(self.error("expected a value, a key or '('"))
            }
        }
    }
}

fn compare(op: &str) -> Compare {
    match op {
        "==" => Compare::Equal,
        "!=" => Compare::NotEqual,
        "<" => Compare::Less,
        ">" => Compare::Greater,
        "<=" => Compare::LessEqual,
        _ => Compare::GreaterEqual,
    }
}

impl Script {
    /// Every key the script reads (before or after it writes it), in order of first use.
    pub fn reads(&self) -> Vec<&str> {
        let (mut out, mut seen) = (Vec::new(), std::collections::HashSet::new());
        for s in &self.statements {
            walk(
                s,
                &mut |e| match e {
                    Expr::Key(k) => Some(k.as_str()),
                    // `+=` and the like read the key too.
                    Expr::Assign(k, how, _)
                        if *how != Assign::Create && *how != Assign::Existing =>
                    {
                        Some(k.as_str())
                    }
                    _ => None,
                },
                &mut seen,
                &mut out,
            );
        }
        out
    }

    /// Every key the script assigns, in order of first assignment.
    pub fn writes(&self) -> Vec<&str> {
        let (mut out, mut seen) = (Vec::new(), std::collections::HashSet::new());
        for s in &self.statements {
            walk(
                s,
                &mut |e| match e {
                    Expr::Assign(k, _, _) => Some(k.as_str()),
                    _ => None,
                },
                &mut seen,
                &mut out,
            );
        }
        out
    }
}

/// Collects, without repeats, what `pick` finds in `e` and below it (with its own stack).
fn walk<'e>(
    e: &'e Expr,
    pick: &mut impl FnMut(&'e Expr) -> Option<&'e str>,
    seen: &mut std::collections::HashSet<&'e str>,
    out: &mut Vec<&'e str>,
) {
    let mut stack = vec![e];
    while let Some(e) = stack.pop() {
        if let Some(k) = pick(e)
            && seen.insert(k)
        {
            out.push(k);
        }
        match e {
            Expr::Number(_) | Expr::Text(_) | Expr::Key(_) => {}
            Expr::Unary(_, a) | Expr::Assign(_, _, a) => stack.push(a),
            Expr::Binary(a, _, b) => {
                stack.push(b);
                stack.push(a);
            }
            Expr::Compare(a, rest) => {
                stack.extend(rest.iter().rev().map(|(_, e)| e));
                stack.push(a);
            }
            Expr::If(a, b, c) => {
                stack.push(c);
                stack.push(b);
                stack.push(a);
            }
        }
    }
}

#[cfg(test)]
#[allow(clippy::unwrap_used)]
mod tests {
    use super::*;

    fn one(code: &str) -> Expr {
        parse(code).unwrap().statements.remove(0)
    }

    #[test]
    fn operators_bind_as_in_behaviortree_cpp() {
        let n = |v| Box::new(Expr::Number(v));
        assert_eq!(
            one("1 + 2 * 3"),
            Expr::Binary(
                n(1.0),
                Binary::Plus,
                Box::new(Expr::Binary(n(2.0), Binary::Times, n(3.0)))
            )
        );
        assert_eq!(
            one("a := b > 1 ? 'x' : 'y'"),
            Expr::Assign(
                "a".into(),
                Assign::Create,
                Box::new(Expr::If(
                    Box::new(Expr::Compare(
                        Box::new(Expr::Key("b".into())),
                        vec![(Compare::Greater, Expr::Number(1.0))]
                    )),
                    Box::new(Expr::Text("x".into())),
                    Box::new(Expr::Text("y".into())),
                ))
            )
        );
        assert!(matches!(one("1 < x <= 3"), Expr::Compare(_, chain) if chain.len() == 2));
        assert_eq!(
            one("!true && false"),
            Expr::Binary(
                Box::new(Expr::Unary(Unary::Not, n(1.0))),
                Binary::And,
                n(0.0)
            )
        );
        assert_eq!(one("0x1F"), Expr::Number(31.0));
        assert_eq!(one("2.5e3"), Expr::Number(2500.0));
        assert_eq!(
            one("65..'a'"),
            Expr::Binary(n(65.0), Binary::Concat, Box::new(Expr::Text("a".into())))
        );
        assert_eq!(one("@goal"), Expr::Key("goal".into()));
    }

    /// Random scripts of the language's pieces (and some that are not): each is parsed or
    /// refused with a place inside it, never a panic; what parses is walked.
    #[test]
    fn random_scripts_parse_or_are_refused_never_a_panic() {
        let pieces = [
            "a", "@b", "é", "1", "0x1F", "2.5e3", "65.", "'t'", "'", "(", ")", "-", "~", "!", "+",
            "*", "/", "..", "&&", "||", "==", "<", ">=", "?", ":", ":=", "=", "+=", ";", " ", "#",
            "&", "|", "^",
        ];
        let mut x: u64 = 7;
        let mut parsed = 0;
        for _ in 0..20_000 {
            let mut code = String::new();
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            for _ in 0..(x >> 60) + 1 {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                code.push_str(pieces[(x >> 33) as usize % pieces.len()]);
            }
            match parse(&code) {
                Ok(s) => {
                    parsed += 1;
                    let _ = (s.reads(), s.writes(), names(&code));
                }
                Err(e) => assert!(e.at <= code.chars().count(), "{code:?}: {e}"),
            }
        }
        assert!(parsed > 200, "only {parsed} parsed");
    }

    #[test]
    fn reads_and_writes_are_found() {
        assert_eq!(names("é := @b + 1; b += é").unwrap(), ["é", "b"]);
        let s = parse("a := b + 1; c += a; msg = 'hi' .. who").unwrap();
        assert_eq!(s.reads(), ["b", "c", "a", "who"]);
        assert_eq!(s.writes(), ["a", "c", "msg"]);
    }

    #[test]
    fn what_does_not_parse_says_where() {
        let e = |code: &str| parse(code).unwrap_err().to_string();
        assert_eq!(
            e("a := "),
            "at character 6: expected a value, a key or '(', found the end"
        );
        assert_eq!(
            e("'open"),
            "at character 1: a text that is never closed with '"
        );
        assert_eq!(
            e("1 + # 2"),
            "at character 5: '#' is not part of the language"
        );
        assert_eq!(
            e("3 := 4"),
            "at character 3: ':=' assigns to a key, and its left side is not one"
        );
        assert_eq!(
            e("a b"),
            "at character 3: expected ';' between statements, found b"
        );
        assert_eq!(e("65.x"), "at character 1: '65.x' is not a number");
        assert_eq!(e(" ; "), "at character 1: the script is empty");
        let deep = format!("{}1{}", "(".repeat(10_000), ")".repeat(10_000));
        assert!(e(&deep).contains("nested more than 64 deep"));
        assert!(parse(&format!("{}1", "-".repeat(100_000))).is_err());
        let long = format!("1{}", " + 1".repeat(100_000));
        assert!(e(&long).contains("more than 256 operators one inside another"));
        assert!(parse(&format!("1{}", " + 1".repeat(200))).is_ok());
    }
}
