//! The catalog of node kinds: each kind's category, help and field schema.
//!
//! The palette, the inspector and validation all read it. It starts with the
//! built-in kinds of SEMANTICS.md §1 and §4; embedding code registers its own.

use foldhash::{HashMap, HashMapExt};

use super::{Category, KeyDecl, KeyType, KeyTypes, Node, NodeId, Port, Rule, Tree, Value};

/// The type of a field, with its allowed range.
#[derive(Clone, Debug, PartialEq)]
pub enum FieldType {
    /// true / false.
    Bool,
    /// A whole number in `min..=max`.
    Int {
        /// Smallest allowed value.
        min: i64,
        /// Largest allowed value.
        max: i64,
    },
    /// A number in the range; `min_exclusive` makes the lower bound strict.
    Float {
        /// Lower bound.
        min: f64,
        /// Whether the lower bound itself is refused.
        min_exclusive: bool,
        /// Upper bound (inclusive).
        max: f64,
    },
    /// Free text.
    Text,
    /// One of a fixed set of words.
    Enum(Vec<String>),
    /// A key of the agent's context (an identifier, or empty for none), holding a value of
    /// one of these types: the field reads it (`in_context`), or writes it
    /// (`out_context`).
    ContextKey(KeyTypes),
    /// A path to another tree file, relative to the file that names it.
    Asset,
    /// A script of letters from the alphabet, at least one.
    Script(String),
    /// A condition in BehaviorTree.CPP's script language (docs/SCRIPTS.md): an expression
    /// over keys, that assigns none.
    Expression,
    /// Statements in BehaviorTree.CPP's script language (docs/SCRIPTS.md), which may assign
    /// keys.
    Statements,
    /// A value compared as a text or as a number (a Switch's `variable` and cases): any
    /// text, or bound to a key of bool, int, float or text.
    Scalar,
}

impl FieldType {
    /// The value of this type that `text` says, as BehaviorTree.CPP reads a port's text (and
    /// Arbor a placeholder's field, whose values are text), for a bool, a whole number or a
    /// number; `None` for text it does not read (and for any other type, whose
    /// values are text). A bool is `true`, `True`, `TRUE` or `1`, or `false`, `False`,
    /// `FALSE` or `0`; a whole number is all digits with an optional `-` (BehaviorTree.CPP
    /// also reads the digits that start a longer text, which Arbor refuses); a number is a
    /// finite decimal with an optional `-`, and no space (what every BehaviorTree.CPP 4 reads
    /// alike: its later versions refuse a `+` and a leading space).
    pub fn value_from(&self, text: &str) -> Option<Value> {
        match self {
            FieldType::Bool => match text {
                "true" | "True" | "TRUE" | "1" => Some(Value::Bool(true)),
                "false" | "False" | "FALSE" | "0" => Some(Value::Bool(false)),
                _ => None,
            },
            FieldType::Int { .. } => {
                let digits = text.strip_prefix('-').unwrap_or(text);
                if digits.is_empty() || !digits.bytes().all(|b| b.is_ascii_digit()) {
                    return None;
                }
                text.parse().ok().map(Value::Int)
            }
            FieldType::Float { .. } => {
                // Rust also reads `inf`, `NaN` and `+1`; a value is finite, and written so.
                let body = text.strip_prefix('-').unwrap_or(text);
                let written = body.starts_with(|c: char| c.is_ascii_digit() || c == '.')
                    && text.bytes().all(|b| {
                        b.is_ascii_digit() || matches!(b, b'-' | b'+' | b'.' | b'e' | b'E')
                    });
                let x: f64 = text.parse().ok().filter(|x: &f64| x.is_finite())?;
                written.then_some(Value::Float(x))
            }
            _ => None,
        }
    }

    /// Whether it is written in BehaviorTree.CPP's script language.
    pub fn is_script(&self) -> bool {
        matches!(self, FieldType::Expression | FieldType::Statements)
    }

    /// The key types a field of this type can be bound to (SEMANTICS.md §3.5): a number
    /// from an `int` (a whole number) or a `float` key, true or false from a `bool` key,
    /// text, a choice or a script from a `text` key, and any of them from an `any` key.
    /// `None` for a field that names a key or a file itself.
    pub fn key_types(&self) -> Option<KeyTypes> {
        Some(match self {
            FieldType::Bool => KeyType::Bool.set(),
            FieldType::Int { .. } => KeyType::Int.set(),
            FieldType::Float { .. } => KeyTypes::of(&[KeyType::Int, KeyType::Float]),
            FieldType::Text | FieldType::Enum(_) | FieldType::Script(_) => KeyType::Text.set(),
            FieldType::Scalar => KeyTypes::SCRIPT,
            FieldType::ContextKey(_)
            | FieldType::Asset
            | FieldType::Expression
            | FieldType::Statements => return None,
        })
    }

    /// A non-negative float with no upper bound.
    pub fn non_negative() -> Self {
        FieldType::Float {
            min: 0.0,
            min_exclusive: false,
            max: f64::MAX,
        }
    }

    /// A strictly positive float with no upper bound.
    pub fn positive() -> Self {
        FieldType::Float {
            min: 0.0,
            min_exclusive: true,
            max: f64::MAX,
        }
    }

    /// A short name of the type, for help and messages.
    pub fn describe(&self) -> String {
        match self {
            FieldType::Bool => "true or false".into(),
            FieldType::Int { min, max } if *min == i64::MIN && *max == i64::MAX => {
                "a whole number".into()
            }
            FieldType::Int { min, max } if *min == i64::MIN => format!("a whole number ≤ {max}"),
            FieldType::Int { min, max } if *max == i64::MAX => format!("a whole number ≥ {min}"),
            FieldType::Int { min, max } => format!("a whole number from {min} to {max}"),
            FieldType::Float {
                min,
                min_exclusive: true,
                max,
            } if *max == f64::MAX => {
                format!("a number > {min}")
            }
            FieldType::Float { min, max, .. } if *min <= -f64::MAX && *max >= f64::MAX => {
                "a number".into()
            }
            FieldType::Float { min, max, .. } if *min <= -f64::MAX => format!("a number ≤ {max}"),
            FieldType::Float { min, max, .. } if *max == f64::MAX => format!("a number ≥ {min}"),
            FieldType::Float { min, max, .. } => format!("a number from {min} to {max}"),
            FieldType::Text => "text".into(),
            FieldType::Enum(options) => format!("one of {}", options.join(", ")),
            FieldType::ContextKey(t) if t.is_any() => {
                "a context key (letters, digits, _ . -) or empty".into()
            }
            FieldType::ContextKey(t) => format!(
                "a context key of {} (letters, digits, _ . -) or empty",
                t.types()
                    .map(KeyType::describe)
                    .collect::<Vec<_>>()
                    .join(" or ")
            ),
            FieldType::Asset => "a tree file path, relative to this file".into(),
            FieldType::Expression => {
                "a script condition, such as `battery > 0.2 && !docked`".into()
            }
            FieldType::Statements => "a script, such as `tries += 1; ready := tries > 2`".into(),
            FieldType::Scalar => "a text or a number".into(),
            FieldType::Script(alphabet) => {
                format!(
                    "a script of the letters {}",
                    alphabet
                        .chars()
                        .map(String::from)
                        .collect::<Vec<_>>()
                        .join(", ")
                )
            }
        }
    }
}

/// Which way a field bound to a key passes its value (a BehaviorTree.CPP port's
/// direction): read from the key as the node is entered (`In`), given to it by the node's
/// code (`Out`), or both.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum FieldDirection {
    /// The node reads the key (an input port).
    #[default]
    In,
    /// The node's code writes the key (an output port).
    Out,
    /// Both (an inout port).
    InOut,
}

impl FieldDirection {
    /// Whether the node reads the key (`In`, `InOut`).
    pub fn reads(self) -> bool {
        self != FieldDirection::Out
    }

    /// Whether the node's code writes the key (`Out`, `InOut`).
    pub fn writes(self) -> bool {
        self != FieldDirection::In
    }

    /// Its word in a node library (`in`, `out`, `inout`).
    pub fn word(self) -> &'static str {
        match self {
            FieldDirection::In => "in",
            FieldDirection::Out => "out",
            FieldDirection::InOut => "inout",
        }
    }

    /// The direction a node library's word names.
    pub fn from_word(word: &str) -> Option<Self> {
        [
            FieldDirection::In,
            FieldDirection::Out,
            FieldDirection::InOut,
        ]
        .into_iter()
        .find(|d| d.word() == word)
    }
}

/// One field of a kind.
#[derive(Clone, Debug, PartialEq)]
pub struct FieldSpec {
    /// The field's name in files.
    pub name: String,
    /// Its type and range.
    pub ty: FieldType,
    /// The value when the field is not set; `None` means "none" (no value).
    pub default: Option<Value>,
    /// Whether a node must set it.
    pub required: bool,
    /// One line of help for the inspector.
    pub help: String,
    /// The unit of a number, shown after it (`deg`, `m/s`); empty for none.
    pub unit: String,
    /// Bound to a key, which way its value passes (`In` for every built-in field).
    pub direction: FieldDirection,
}

impl FieldSpec {
    /// The same field passing its key's value `direction`.
    pub fn with_direction(mut self, direction: FieldDirection) -> Self {
        self.direction = direction;
        self
    }

    /// A field with a default.
    pub fn new(name: &str, ty: FieldType, default: Value, help: &str) -> Self {
        Self {
            name: name.into(),
            ty,
            default: Some(default),
            required: false,
            help: help.into(),
            unit: String::new(),
            direction: FieldDirection::In,
        }
    }

    /// The same field with a unit shown after its value.
    pub fn with_unit(mut self, unit: &str) -> Self {
        self.unit = unit.into();
        self
    }

    /// A field whose default is "none".
    pub fn optional(name: &str, ty: FieldType, help: &str) -> Self {
        Self {
            name: name.into(),
            ty,
            default: None,
            required: false,
            help: help.into(),
            unit: String::new(),
            direction: FieldDirection::In,
        }
    }

    /// A field that must be set.
    pub fn required(name: &str, ty: FieldType, help: &str) -> Self {
        Self {
            name: name.into(),
            ty,
            default: None,
            required: true,
            help: help.into(),
            unit: String::new(),
            direction: FieldDirection::In,
        }
    }

    /// Checks a value against the type and range: the rule broken and a message if it does not fit.
    /// A field bound to a key (`{"key": NAME}`) fits when its type can be read from a key
    /// ([`FieldType::key_types`]); the key's own type is the key rules' to check.
    pub fn check(&self, value: &Value) -> Result<(), (Rule, String)> {
        if let Value::Key(k) = value {
            if self.ty.key_types().is_some() {
                return Ok(());
            }
            return Err((
                Rule::FieldType,
                format!(
                    "field '{}' is bound to key '{k}', but it cannot be read from a key; give '{}' {}",
                    self.name,
                    self.name,
                    self.ty.describe()
                ),
            ));
        }
        let wrong = || {
            Err((
                Rule::FieldType,
                format!(
                    "field '{}' must be {}, not {}",
                    self.name,
                    self.ty.describe(),
                    value.type_name()
                ),
            ))
        };
        let out = || {
            Err((
                Rule::FieldRange,
                format!(
                    "field '{}' is {value}, but must be {}",
                    self.name,
                    self.ty.describe()
                ),
            ))
        };
        match (&self.ty, value) {
            (FieldType::Bool, Value::Bool(_)) => Ok(()),
            (FieldType::Int { min, max }, Value::Int(i)) => {
                if i < min || i > max {
                    out()
                } else {
                    Ok(())
                }
            }
            (
                FieldType::Float {
                    min,
                    min_exclusive,
                    max,
                },
                v @ (Value::Int(_) | Value::Float(_)),
            ) => {
                let x = v.as_f64().unwrap_or(f64::NAN);
                let low_ok = if *min_exclusive { x > *min } else { x >= *min };
                if low_ok && x <= *max { Ok(()) } else { out() }
            }
            (FieldType::Text | FieldType::Asset | FieldType::Scalar, Value::Text(_))
            | (FieldType::Scalar, Value::Int(_) | Value::Float(_) | Value::Bool(_)) => Ok(()),
            (FieldType::Enum(options), Value::Text(s)) => {
                if options.iter().any(|o| o == s) {
                    Ok(())
                } else {
                    out()
                }
            }
            (FieldType::ContextKey(_), Value::Text(s)) => {
                if s.chars()
                    .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
                {
                    Ok(())
                } else {
                    out()
                }
            }
            (FieldType::Statements, Value::Text(code)) => match super::script::parse(code) {
                Err(e) => Err((
                    Rule::FieldType,
                    format!("field '{}' is not a script: {e}", self.name),
                )),
                Ok(_) => Ok(()),
            },
            (FieldType::Expression, Value::Text(code)) => match super::script::parse(code) {
                Err(e) => Err((
                    Rule::FieldType,
                    format!("field '{}' is not a script condition: {e}", self.name),
                )),
                Ok(script) => match script.writes().first() {
                    Some(k) => Err((
                        Rule::FieldType,
                        format!(
                            "field '{}' assigns '{k}': a condition's script reads keys and writes none",
                            self.name
                        ),
                    )),
                    None => Ok(()),
                },
            },
            (FieldType::Script(alphabet), Value::Text(s)) => {
                if !s.is_empty() && s.chars().all(|c| alphabet.contains(c)) {
                    Ok(())
                } else {
                    out()
                }
            }
            _ => wrong(),
        }
    }
}

/// Where a kind comes from.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub enum Origin {
    /// Built into Arbor (SEMANTICS.md §1 and §4).
    #[default]
    BuiltIn,
    /// Registered by embedding code ([`Catalog::register`]).
    Registered,
    /// Declared by a node library file.
    Library {
        /// The library's name (its `library` header).
        library: String,
        /// The library file, as the project names it.
        file: std::path::PathBuf,
    },
    /// Known to no library: a stand-in made from the tree itself so that its nodes keep
    /// their fields and links, draw with their pins and save back unchanged. Validation
    /// reports it as an unknown kind.
    Placeholder,
}

/// A node kind: its name, category, help and fields.
#[derive(Clone, Debug, PartialEq)]
pub struct KindSpec {
    /// The kind's name in files, e.g. `MoveTo`.
    pub name: String,
    /// Its category.
    pub category: Category,
    /// One line saying what it does.
    pub help: String,
    /// All its fields, including those common to its category, in display order.
    pub fields: Vec<FieldSpec>,
    /// The palette group it is listed under (`Combat`); empty: its category's.
    pub group: String,
    /// Where it comes from.
    pub origin: Origin,
    /// A leaf's or condition's stand-in script, run while no behaviour is registered for
    /// it: `R`, `S`, `F` per execute for a leaf (as `MockAction`), `T`, `F` per step for a
    /// condition (as `MockCondition`). `None`: a leaf succeeds at its first execute, a
    /// condition is true.
    pub stand_in: Option<String>,
    /// The built-in composite or decorator a library's own branch kind runs as.
    pub runs_as: Option<String>,
    /// How a branch kind runs its children, where validation and the compiler need to
    /// know (a library's kind has its `runs_as` kind's: see [`Catalog::runs`]).
    pub runs: Runs,
}

/// How a branch kind runs its children, as far as the rules about a whole tree need to
/// know; the kind's own module says (`KindSpec::with_runs`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Runs {
    /// All its children at once (Parallel): the leaves active below it add up.
    pub all_at_once: bool,
    /// Its children in order of priority (Selector): an earlier child's observer
    /// (`aborts_lower`) can take over from a later one.
    pub by_priority: bool,
    /// Whether it runs its child again without end.
    pub repeats: Repeats,
    /// How many children a composite takes, at least and at most, where that is fixed
    /// (IfThenElse: 2 or 3); `None`: one or more.
    pub children: Option<(usize, usize)>,
}

/// Whether a decorator runs its child again without end.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum Repeats {
    /// It does not (or not without end).
    #[default]
    No,
    /// Always (UntilFail).
    ForEver,
    /// When this count field is 0 (Repeater's and Retry's `times`).
    WhenZero(&'static str),
}

impl KindSpec {
    /// A kind with the fields common to its category followed by its own.
    pub fn new(name: &str, category: Category, help: &str, own: Vec<FieldSpec>) -> Self {
        let mut fields = own;
        fields.extend(common_fields(category));
        Self {
            name: name.into(),
            category,
            help: help.into(),
            fields,
            group: String::new(),
            origin: Origin::BuiltIn,
            stand_in: None,
            runs_as: None,
            runs: Runs::default(),
        }
    }

    /// The same kind running its children as `runs` says.
    pub fn with_runs(mut self, runs: Runs) -> Self {
        self.runs = runs;
        self
    }

    /// The same kind listed under `group` in the palette.
    pub fn with_group(mut self, group: &str) -> Self {
        self.group = group.into();
        self
    }

    /// The same kind with a stand-in script (see [`KindSpec::stand_in`]).
    pub fn with_stand_in(mut self, script: &str) -> Self {
        self.stand_in = Some(script.into());
        self
    }

    /// The same kind running as the built-in branch `kind` (see [`KindSpec::runs_as`]).
    pub fn with_runs_as(mut self, kind: &str) -> Self {
        self.runs_as = Some(kind.into());
        self
    }

    /// The same kind reading a value of one of `types` from `in_context`.
    pub fn reads(self, types: KeyTypes) -> Self {
        self.with_key_types("in_context", types)
    }

    /// The same kind producing a value of one of `types` for `out_context`.
    pub fn gives(self, types: KeyTypes) -> Self {
        self.with_key_types("out_context", types)
    }

    /// The same kind with key field `field` taking or giving a value of one of `types`.
    pub fn with_key_types(mut self, field: &str, types: KeyTypes) -> Self {
        if let Some(f) = self.fields.iter_mut().find(|f| f.name == field) {
            f.ty = FieldType::ContextKey(types);
        }
        self
    }

    /// The types its key field `field` takes or gives (`None`: it is not a key field).
    pub fn key_types(&self, field: &str) -> Option<KeyTypes> {
        match self.field(field)?.ty {
            FieldType::ContextKey(t) => Some(t),
            _ => None,
        }
    }

    /// The fields it adds to those common to its category, in order.
    pub fn own_fields(&self) -> impl Iterator<Item = &FieldSpec> {
        let common = common_fields(self.category);
        self.fields
            .iter()
            .filter(move |f| common.iter().all(|c| c.name != f.name))
    }

    /// Whether a field of this name is common to every kind of `category`.
    pub fn is_common_field(category: Category, name: &str) -> bool {
        common_fields(category).iter().any(|f| f.name == name)
    }

    /// Why its field `name` cannot be bound to a key, `{"key": NAME}`, if it cannot
    /// (SEMANTICS.md §3.5): the fields the runtime reads itself on a leaf (`max_duration`,
    /// `in_context` …), a SubTree's own and an Interrupt's take values. (Whether the
    /// field's type can be read from a key at all is [`FieldType::key_types`].)
    pub fn key_bound_refused(&self, name: &str) -> Option<String> {
        match self.category {
            Category::Leaf | Category::Condition
                if KindSpec::is_common_field(self.category, name) =>
            {
                Some(format!(
                    "'{name}' is read by the runtime itself and takes a value; only the {}'s own fields are read from keys",
                    self.name
                ))
            }
            Category::Leaf | Category::Condition | Category::Composite | Category::Decorator => {
                None
            }
            Category::SubTree => Some(format!(
                "'{name}' decides what the SubTree runs when the tree compiles and takes a value; its parameters are bound to keys"
            )),
            Category::Interrupt => Some(
                "an Interrupt's fields decide how the tree answers a trigger and take values"
                    .into(),
            ),
            Category::Root => Some("Root's fields take values".into()),
        }
    }

    /// Whether a leaf's or a condition's field `name` means anything where the node is
    /// linked (`port`: its parent's input it is in, if any): an action's `interval` only on
    /// a service (SEMANTICS.md §3.2.1), a condition's `aborts_lower` only on a guard
    /// (§3.3.2); every other field everywhere.
    pub fn field_applies(name: &str, port: Option<Port>) -> bool {
        match name {
            "interval" => port == Some(Port::Services),
            "aborts_lower" => port == Some(Port::Conditions),
            _ => true,
        }
    }

    /// The palette group: its own, else its category's name.
    pub fn group_label(&self) -> &str {
        if self.group.is_empty() {
            self.category.label()
        } else {
            &self.group
        }
    }

    /// What is wrong with its stand-in script, if anything: only a leaf (letters `R`, `S`,
    /// `F`) or a condition (`T`, `F`) has one, of one letter or more.
    pub fn stand_in_problem(&self) -> Option<String> {
        let script = self.stand_in.as_deref()?;
        let alphabet = match self.category {
            Category::Leaf => "RSF",
            Category::Condition => "TF",
            _ => {
                return Some(
                    "only a leaf or a condition has a stand-in; a composite or decorator says what it runs as with \"runs_as\"".into(),
                );
            }
        };
        if script.is_empty() || !script.chars().all(|c| alphabet.contains(c)) {
            return Some(format!(
                "the stand-in's script \"{script}\" must be one or more of the letters {alphabet}"
            ));
        }
        None
    }

    /// Whether no library or code defines it ([`Origin::Placeholder`]).
    pub fn is_placeholder(&self) -> bool {
        self.origin == Origin::Placeholder
    }

    /// The value of a field on a node: set, else the default of its kind (`kind`, asked
    /// for only when the field is not set). `None` for "none" or unknown.
    pub fn value_on<'a>(
        node: &'a Node,
        field: &str,
        kind: impl FnOnce() -> Option<&'a KindSpec>,
    ) -> Option<&'a Value> {
        node.fields
            .get(field)
            .or_else(|| kind()?.field(field)?.default.as_ref())
    }

    /// The spec of the named field.
    pub fn field(&self, name: &str) -> Option<&FieldSpec> {
        self.fields.iter().find(|f| f.name == name)
    }
}

/// The scripts every node of BehaviorTree.CPP's kinds may have (SEMANTICS.md §3.7):
/// checked as it is entered, `_failureIf` first, or run as it finishes or is aborted.
/// Their names are BehaviorTree.CPP's attributes: a port's name starts with a letter, so
/// none is ever a kind's own field.
pub const HOOKS: [&str; 8] = [
    "_failureIf",
    "_successIf",
    "_skipIf",
    "_while",
    "_onSuccess",
    "_onFailure",
    "_post",
    "_onHalted",
];

/// Whether field `name` is one of [`HOOKS`].
pub fn is_hook(name: &str) -> bool {
    HOOKS.contains(&name)
}

/// The hook fields ([`HOOKS`]), in their order.
pub fn hook_fields() -> Vec<FieldSpec> {
    let check = |name: &str, help: &str| FieldSpec::optional(name, FieldType::Expression, help);
    let run = |name: &str, help: &str| FieldSpec::optional(name, FieldType::Statements, help);
    vec![
        check(
            "_failureIf",
            "Checked as the node is entered: when it holds, the node fails at once without running.",
        ),
        check(
            "_successIf",
            "Checked as the node is entered (after _failureIf): when it holds, the node succeeds at once without running.",
        ),
        check(
            "_skipIf",
            "Checked as the node is entered (after _successIf): when it holds, the node is skipped without running.",
        ),
        check(
            "_while",
            "Checked as the node is entered (after _skipIf) and at every step while it runs: when it does not hold, the node is skipped (stopped, if it runs).",
        ),
        run("_onSuccess", "Run when the node succeeds."),
        run("_onFailure", "Run when the node fails."),
        run(
            "_post",
            "Run when the node finishes, after _onSuccess or _onFailure.",
        ),
        run("_onHalted", "Run when the node is aborted while it runs."),
    ]
}

fn common_fields(category: Category) -> Vec<FieldSpec> {
    let mut fields = category_fields(category);
    if matches!(
        category,
        Category::Leaf
            | Category::Condition
            | Category::Composite
            | Category::Decorator
            | Category::SubTree
    ) {
        fields.extend(hook_fields());
    }
    fields
}

/// The fields common to the kinds of `category` but the hooks.
fn category_fields(category: Category) -> Vec<FieldSpec> {
    let key = || FieldType::ContextKey(KeyTypes::ANY);
    match category {
        Category::Leaf => vec![
            FieldSpec::optional(
                "max_duration",
                FieldType::positive(),
                "Fail the action once it has run this many seconds (none: no limit).",
            ),
            FieldSpec::optional(
                "interval",
                FieldType::positive(),
                "As a service (on a composite's services input): seconds between its runs (none: every step).",
            ),
            FieldSpec::new(
                "in_context",
                key(),
                Value::Text(String::new()),
                "Context key read before the action starts (its target).",
            ),
            FieldSpec::new(
                "out_context",
                key(),
                Value::Text(String::new()),
                "Context key the action's result is stored under when it finishes.",
            ),
            FieldSpec::new(
                "overwrite_out",
                FieldType::Bool,
                Value::Bool(true),
                "Replace an existing value under out_context.",
            ),
        ],
        Category::Condition => vec![
            FieldSpec::new(
                "invert",
                FieldType::Bool,
                Value::Bool(false),
                "Flip the result.",
            ),
            FieldSpec::new(
                "in_context",
                key(),
                Value::Text(String::new()),
                "Context key read before checking (its subject).",
            ),
            FieldSpec::new(
                "aborts_lower",
                FieldType::Bool,
                Value::Bool(false),
                "As a guard of a Selector's child: keep watching while a later child runs, and take over when this branch could run again (a missing key does not hold).",
            ),
        ],
        Category::Interrupt => vec![
            FieldSpec::required(
                "interrupt_id",
                FieldType::Text,
                "The name triggers use to start this interrupt; unique in the tree.",
            ),
            FieldSpec::new(
                "force_reset",
                FieldType::Bool,
                Value::Bool(false),
                "After the interrupt, restart the tree from Root instead of resuming.",
            ),
            FieldSpec::new(
                "out_context",
                key(),
                Value::Text(String::new()),
                "Context key the trigger's payload is stored under.",
            ),
            FieldSpec::new(
                "overwrite_out",
                FieldType::Bool,
                Value::Bool(true),
                "Replace an existing value under out_context.",
            ),
        ],
        _ => vec![],
    }
}

/// Why a kind cannot be registered.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
pub enum CatalogError {
    /// The name is taken.
    #[error("a node kind named '{0}' is already registered")]
    Duplicate(String),
    /// Only leaves and conditions can be added by embedding code.
    #[error("'{0}': only Leaf and Condition kinds can be registered; branches are built in")]
    NotRegistrable(String),
    /// A stand-in script that does not fit the kind.
    #[error("'{0}': {1}")]
    BadStandIn(String, String),
    /// A library's composite or decorator runs as something that is not a built-in branch
    /// of its category.
    #[error("'{kind}': runs_as '{runs_as}' is not a built-in {category}")]
    BadRunsAs {
        /// The kind.
        kind: String,
        /// What it names.
        runs_as: String,
        /// Its category, in words.
        category: &'static str,
    },
    /// A library branch's field of the same name as a field of the kind it runs as, but of
    /// another type.
    #[error(
        "'{kind}': field '{field}' is a field of {runs_as}, which it runs as, but of another type; give it {runs_as}'s type and range"
    )]
    RunsAsField {
        /// The kind.
        kind: String,
        /// The field.
        field: String,
        /// What it runs as.
        runs_as: String,
    },
}

/// How many kind names that no kind has a catalog looks for a near kind for (the "did you
/// mean" of `unknown-kind`): each look compares the name with every kind of about its
/// length, so a tree of thousands of unknown kinds against a library of thousands of kinds
/// costs this many looks, not one a node, and validating the tree again costs none.
pub const HINTED_KINDS: usize = 16;

/// The near kind found for each unknown kind name looked for, shared by a catalog and its
/// copies until one of them changes.
#[derive(Debug, Default)]
struct KindHints(std::sync::Mutex<HashMap<String, Option<String>>>);

impl KindHints {
    fn found(&self) -> std::sync::MutexGuard<'_, HashMap<String, Option<String>>> {
        self.0
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    }
}

/// All node kinds known to this build: built in and registered.
#[derive(Clone, Debug)]
pub struct Catalog {
    kinds: Vec<KindSpec>,
    index: HashMap<String, usize>,
    hints: std::sync::Arc<KindHints>,
    /// The keys the project declares for all its trees (SEMANTICS.md §3.5).
    shared_keys: std::sync::Arc<[KeyDecl]>,
    /// The names the project's scripts read as whole numbers (docs/SCRIPTS.md, "Enums").
    enums: std::sync::Arc<std::collections::BTreeMap<String, i64>>,
}

impl Catalog {
    /// A catalog with no kinds (`Catalog::builtin`, in the world, fills it).
    pub(crate) fn empty() -> Self {
        Self {
            kinds: Vec::new(),
            index: HashMap::new(),
            hints: std::sync::Arc::default(),
            shared_keys: std::sync::Arc::new([]),
            enums: std::sync::Arc::default(),
        }
    }

    /// The keys the project declares for all its trees (none outside a project).
    pub fn shared_keys(&self) -> &[KeyDecl] {
        &self.shared_keys
    }

    /// The project declares `keys` for all its trees.
    pub fn declare_shared_keys(&mut self, keys: Vec<KeyDecl>) {
        self.shared_keys = keys.into();
    }

    /// The project's enums: names its scripts and Switches read as these whole numbers.
    pub fn declare_enums(&mut self, enums: std::collections::BTreeMap<String, i64>) {
        self.enums = enums.into();
    }

    /// The whole number the project's enum `name` is, if it is one.
    pub fn enum_value(&self, name: &str) -> Option<i64> {
        self.enums.get(name).copied()
    }

    /// The project's enums, shared (a compiled program keeps them).
    pub(crate) fn enums(&self) -> std::sync::Arc<std::collections::BTreeMap<String, i64>> {
        self.enums.clone()
    }

    pub(crate) fn insert(&mut self, k: KindSpec) {
        // Hints found before, or shared with a copy, were found among other kinds.
        if std::sync::Arc::get_mut(&mut self.hints).is_none_or(|h| !h.found().is_empty()) {
            self.hints = std::sync::Arc::default();
        }
        self.index.insert(k.name.clone(), self.kinds.len());
        self.kinds.push(k);
    }

    /// Adds a game's own Leaf or Condition kind.
    pub fn register(&mut self, mut kind: KindSpec) -> Result<(), CatalogError> {
        if self.index.contains_key(&kind.name) {
            return Err(CatalogError::Duplicate(kind.name));
        }
        if !matches!(kind.category, Category::Leaf | Category::Condition) {
            return Err(CatalogError::NotRegistrable(kind.name));
        }
        if let Some(problem) = kind.stand_in_problem() {
            return Err(CatalogError::BadStandIn(kind.name, problem));
        }
        kind.origin = Origin::Registered;
        self.insert(kind);
        Ok(())
    }

    /// Adds a kind a node library declares (its `origin` says which): a leaf, a condition,
    /// or a composite or decorator that runs as a built-in one of its category (or not at
    /// all, without `runs_as`).
    pub fn add_library_kind(&mut self, kind: KindSpec) -> Result<(), CatalogError> {
        if self.index.contains_key(&kind.name) {
            return Err(CatalogError::Duplicate(kind.name));
        }
        match kind.category {
            Category::Leaf | Category::Condition => {}
            Category::Composite | Category::Decorator => {
                if let Some(runs_as) = &kind.runs_as {
                    let Some(base) = self
                        .kind(runs_as)
                        .filter(|k| k.category == kind.category && k.origin == Origin::BuiltIn)
                    else {
                        return Err(CatalogError::BadRunsAs {
                            runs_as: runs_as.clone(),
                            category: kind.category.label(),
                            kind: kind.name,
                        });
                    };
                    // A field it shares with the kind it runs as is that field: same type.
                    if let Some(f) = kind
                        .fields
                        .iter()
                        .find(|f| base.field(&f.name).is_some_and(|b| b.ty != f.ty))
                    {
                        return Err(CatalogError::RunsAsField {
                            field: f.name.clone(),
                            runs_as: runs_as.clone(),
                            kind: kind.name,
                        });
                    }
                }
            }
            _ => return Err(CatalogError::NotRegistrable(kind.name)),
        }
        self.insert(kind);
        Ok(())
    }

    /// The kinds `tree` uses that this catalog does not know, added as placeholders
    /// ([`Origin::Placeholder`]) with the category their links show: a node with
    /// children is a composite, one with a child a decorator, one linked as a guard a
    /// condition, one linked into Root's interrupts an Interrupt, anything else a leaf.
    /// Returns how many kinds were added.
    pub fn add_placeholders(&mut self, tree: &Tree) -> usize {
        if tree
            .nodes()
            .iter()
            .all(|n| self.index.contains_key(&n.kind))
        {
            return 0;
        }
        let mut guessed: HashMap<&str, Category> = HashMap::new();
        let mut order: Vec<&str> = Vec::new();
        let mut linked_as: HashMap<&NodeId, Port> = HashMap::new();
        for n in tree.nodes() {
            for (port, _, child) in n.links() {
                linked_as.entry(child).or_insert(port);
            }
        }
        // How much a guess lets link: a branch or an Interrupt takes links in; a condition
        // goes where a leaf goes and onto guards too.
        let rank = |c: Category| match c {
            Category::Leaf => 0,
            Category::Condition => 1,
            _ => 2,
        };
        for n in tree.nodes() {
            if self.index.contains_key(&n.kind) {
                continue;
            }
            let category = match linked_as.get(&n.id) {
                Some(Port::Interrupts) => Category::Interrupt,
                _ if !n.linked(Port::Children).is_empty() => Category::Composite,
                _ if !n.linked(Port::Child).is_empty() => Category::Decorator,
                _ if !n.linked(Port::Conditions).is_empty() => Category::Composite,
                _ if !n.linked(Port::Services).is_empty() => Category::Composite,
                Some(Port::Conditions) => Category::Condition,
                _ => Category::Leaf,
            };
            match guessed.get(n.kind.as_str()) {
                Some(&c) if rank(c) >= rank(category) => {}
                Some(_) => {
                    guessed.insert(&n.kind, category);
                }
                None => {
                    guessed.insert(&n.kind, category);
                    order.push(&n.kind);
                }
            }
        }
        for name in &order {
            let category = guessed[name];
            let mut kind = KindSpec::new(
                name,
                category,
                "A kind no node library defines: kept as it is, with its fields and links.",
                vec![],
            );
            kind.fields.clear();
            kind.origin = Origin::Placeholder;
            self.insert(kind);
        }
        order.len()
    }

    /// The placeholders of `other` for kinds this catalog does not know, added (so that a
    /// node removed before the kinds were read again can come back with undo).
    pub fn keep_placeholders_of(&mut self, other: &Catalog) {
        for k in other.kinds.iter().filter(|k| k.is_placeholder()) {
            if !self.index.contains_key(&k.name) {
                self.insert(k.clone());
            }
        }
    }

    /// How a node of `kind` runs its children: as the kind it behaves as (see
    /// [`Catalog::behaves_as`]) says; the default for a kind nobody defines.
    pub fn runs(&self, kind: &str) -> Runs {
        self.kind(self.behaves_as(kind))
            .map(|k| k.runs)
            .unwrap_or_default()
    }

    /// The name of the built-in kind a node of `kind` runs as: its `runs_as` for a
    /// library's branch kind, else `kind` itself.
    pub fn behaves_as<'k>(&'k self, kind: &'k str) -> &'k str {
        self.kind(kind)
            .and_then(|k| k.runs_as.as_deref())
            .unwrap_or(kind)
    }

    /// A node of a library's branch kind as the built-in kind it runs as (`runs_as`): that
    /// kind, with the fields the two share, each as the node sets it or else as the
    /// library's default (its other fields are the game's alone). `None` for any other node.
    pub fn as_built_in(&self, node: &Node) -> Option<Node> {
        let kind = self.kind(&node.kind)?;
        let base = self.kind(kind.runs_as.as_deref()?)?;
        let mut proxy = node.clone();
        proxy.kind = base.name.clone();
        proxy.fields.retain(|f, _| base.field(f).is_some());
        for f in kind.fields.iter().filter(|f| base.field(&f.name).is_some()) {
            if let Some(d) = &f.default {
                proxy
                    .fields
                    .entry(f.name.clone())
                    .or_insert_with(|| d.clone());
            }
        }
        Some(proxy)
    }

    /// The same catalog without its placeholders.
    pub fn without_placeholders(&self) -> Self {
        let mut c = Self::empty();
        for k in self.kinds.iter().filter(|k| !k.is_placeholder()) {
            c.insert(k.clone());
        }
        c
    }

    /// The kind with this name.
    pub fn kind(&self, name: &str) -> Option<&KindSpec> {
        self.index.get(name).map(|&i| &self.kinds[i])
    }

    /// The kind (not a placeholder) whose name is nearest to `name`, a kind this catalog
    /// does not have, when one is near enough to be a slip of it ("did you mean"). Found
    /// once a name, for the first [`HINTED_KINDS`] names asked about; `None` after.
    pub fn near_kind(&self, name: &str) -> Option<String> {
        let mut found = self.hints.found();
        if let Some(hint) = found.get(name) {
            return hint.clone();
        }
        if found.len() >= HINTED_KINDS {
            return None;
        }
        let hint = super::validate::nearest(
            name,
            self.kinds
                .iter()
                .filter(|k| !k.is_placeholder())
                .map(|k| k.name.as_str()),
        )
        .map(str::to_owned);
        found.insert(name.to_owned(), hint.clone());
        hint
    }

    /// How many unknown kind names this catalog looked for a near kind for (at most
    /// [`HINTED_KINDS`]).
    pub fn kinds_looked_for(&self) -> usize {
        self.hints.found().len()
    }

    /// The category of the kind with this name.
    pub fn category_of(&self, name: &str) -> Option<Category> {
        self.kind(name).map(|k| k.category)
    }

    /// Every kind, in palette order.
    pub fn kinds(&self) -> &[KindSpec] {
        &self.kinds
    }

    /// The value of a field on a node: set, else the default. `None` for "none" or unknown.
    pub fn field_value<'a>(&'a self, node: &'a Node, field: &str) -> Option<&'a Value> {
        KindSpec::value_on(node, field, || self.kind(&node.kind))
    }

    /// A text field's effective value ("" when unset or not text).
    pub fn text<'a>(&'a self, node: &'a Node, field: &str) -> &'a str {
        self.field_value(node, field)
            .and_then(Value::as_str)
            .unwrap_or("")
    }

    /// A boolean field's effective value (false when unset or not boolean).
    pub fn flag(&self, node: &Node, field: &str) -> bool {
        self.field_value(node, field)
            .and_then(Value::as_bool)
            .unwrap_or(false)
    }

    /// A numeric field's effective value.
    pub fn number(&self, node: &Node, field: &str) -> Option<f64> {
        self.field_value(node, field).and_then(Value::as_f64)
    }

    /// A numeric field that has a default: its value, else the default its kind's spec
    /// gives, the one place that default is written. (0 only for a node that validation
    /// refuses: a field of another type, or one its kind does not have.)
    pub fn amount(&self, node: &Node, field: &str) -> f64 {
        self.number(node, field).unwrap_or_default()
    }
}
