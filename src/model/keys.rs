//! The blackboard's declarations (SEMANTICS.md §3.5): what a key is called, what type of
//! value it holds, its default and its doc, and the types a node's key field takes or
//! gives. A tree file declares its keys, a project file the keys all its trees share;
//! validation checks every use against them.

use std::fmt;

use foldhash::{HashMap, HashMapExt};

use super::validate::{Diagnostic, Rule, nearest};
use super::{Catalog, FieldDirection, FieldType, KindSpec, Node, NodeId, Tree, Value};

/// The type of the value a context key holds.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum KeyType {
    /// true or false.
    Bool,
    /// A whole number.
    Int,
    /// A number.
    Float,
    /// Text.
    Text,
    /// A world entity (an agent, an item, a door …).
    Entity,
    /// A point in the world.
    Position,
    /// Any value: a key of a file that declares none, or one whose type is not fixed.
    Any,
}

impl KeyType {
    /// Every type, in the order files and menus list them.
    pub const ALL: [KeyType; 7] = [
        KeyType::Bool,
        KeyType::Int,
        KeyType::Float,
        KeyType::Text,
        KeyType::Entity,
        KeyType::Position,
        KeyType::Any,
    ];

    /// The type's name in files: `bool`, `int`, `float`, `text`, `entity`, `position`, `any`.
    pub fn name(self) -> &'static str {
        match self {
            KeyType::Bool => "bool",
            KeyType::Int => "int",
            KeyType::Float => "float",
            KeyType::Text => "text",
            KeyType::Entity => "entity",
            KeyType::Position => "position",
            KeyType::Any => "any",
        }
    }

    /// The type named `name` in a file.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|t| t.name() == name)
    }

    /// The type in a designer's words, with its article: "an entity", "a whole number".
    pub fn describe(self) -> &'static str {
        match self {
            KeyType::Bool => "true or false",
            KeyType::Int => "a whole number",
            KeyType::Float => "a number",
            KeyType::Text => "a text",
            KeyType::Entity => "an entity",
            KeyType::Position => "a position",
            KeyType::Any => "any value",
        }
    }

    /// Whether `value` can be the default of a key of this type: a bool's is `true` or
    /// `false`, an int's a whole number, a float's any number, a text's text. Entity,
    /// position and `any` keys take no default in a file (a scenario or the game seeds
    /// them).
    pub fn takes_default(self, value: &Value) -> bool {
        matches!(
            (self, value),
            (KeyType::Bool, Value::Bool(_))
                | (KeyType::Int, Value::Int(_))
                | (KeyType::Float, Value::Int(_) | Value::Float(_))
                | (KeyType::Text, Value::Text(_))
        )
    }

    /// Whether a key of this type may have a default in a file.
    pub fn has_defaults(self) -> bool {
        matches!(
            self,
            KeyType::Bool | KeyType::Int | KeyType::Float | KeyType::Text
        )
    }

    /// The set of this one type (every type for `any`).
    pub fn set(self) -> KeyTypes {
        match self {
            KeyType::Any => KeyTypes::ANY,
            t => KeyTypes(1 << t as u8),
        }
    }
}

impl fmt::Display for KeyType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.name())
    }
}

/// The types a key field takes (a reader) or gives (a writer): one type, a few (MoveTo's
/// target is an entity or a position), or any.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct KeyTypes(u8);

impl KeyTypes {
    /// What a script reads a key as: true or false, a number or text.
    pub const SCRIPT: KeyTypes = KeyTypes(
        1 << KeyType::Bool as u8
            | 1 << KeyType::Int as u8
            | 1 << KeyType::Float as u8
            | 1 << KeyType::Text as u8,
    );

    /// Any type.
    pub const ANY: Self = Self(0b11_1111);

    /// The types in `types` (`any` among them: every type).
    pub fn of(types: &[KeyType]) -> Self {
        Self(types.iter().fold(0, |acc, t| acc | t.set().0))
    }

    /// Whether this is every type.
    pub fn is_any(self) -> bool {
        self == Self::ANY
    }

    /// Whether it holds `t` (every set holds `any`, and `ANY` every type).
    pub fn contains(self, t: KeyType) -> bool {
        t == KeyType::Any || self.0 & t.set().0 != 0
    }

    /// Whether a value of one of `self`'s types can be one of `other`'s.
    pub fn meets(self, other: Self) -> bool {
        self.0 & other.0 != 0
    }

    /// The one type it holds: `any` for `ANY`, `None` for a few.
    pub fn single(self) -> Option<KeyType> {
        if self.is_any() {
            return Some(KeyType::Any);
        }
        let mut types = self.types();
        let first = types.next()?;
        types.next().is_none().then_some(first)
    }

    /// Its types, in [`KeyType::ALL`]'s order (`any` alone for `ANY`).
    pub fn types(self) -> impl Iterator<Item = KeyType> {
        let all = self.is_any();
        KeyType::ALL.into_iter().filter(move |&t| {
            if all {
                t == KeyType::Any
            } else {
                t != KeyType::Any && self.0 & t.set().0 != 0
            }
        })
    }

    /// Its names joined by `|` (`entity|position`), as files and messages write it.
    pub fn describe(self) -> String {
        self.types()
            .map(KeyType::name)
            .collect::<Vec<_>>()
            .join("|")
    }

    /// The set a file writes as `entity|position` (or `any`); the name that is not a type
    /// when one is not.
    pub fn parse(text: &str) -> Result<Self, String> {
        let mut set = 0;
        for name in text.split('|') {
            let t = KeyType::parse(name.trim()).ok_or_else(|| name.trim().to_owned())?;
            set |= t.set().0;
        }
        Ok(Self(set))
    }
}

impl Default for KeyTypes {
    fn default() -> Self {
        Self::ANY
    }
}

/// Which way a SubTree parameter passes a value (SEMANTICS.md §3.5).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Param {
    /// The caller gives it; the SubTree reads it.
    In,
    /// The SubTree writes it for the caller.
    Out,
    /// Both.
    InOut,
}

impl Param {
    /// Every direction, in the order files and menus list them.
    pub const ALL: [Param; 3] = [Param::In, Param::Out, Param::InOut];

    /// Its name in files: `in`, `out`, `inout`.
    pub fn name(self) -> &'static str {
        match self {
            Param::In => "in",
            Param::Out => "out",
            Param::InOut => "inout",
        }
    }

    /// The direction named `name` in a file.
    pub fn parse(name: &str) -> Option<Self> {
        Self::ALL.into_iter().find(|p| p.name() == name)
    }

    /// Whether the caller's value passes in.
    pub fn passes_in(self) -> bool {
        self != Param::Out
    }

    /// Whether the SubTree's value passes out.
    pub fn passes_out(self) -> bool {
        self != Param::In
    }
}

/// One declared key.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyDecl {
    /// Its name: what `in_context`, `out_context` and key fields write.
    pub name: String,
    /// The type of value it holds.
    pub ty: KeyType,
    /// The value it holds when a run starts (and after the context is cleared), if any.
    pub default: Option<Value>,
    /// One line saying what it is for.
    pub doc: String,
    /// Whether a SubTree node that runs this tree binds it, and which way: a parameter.
    pub parameter: Option<Param>,
}

impl KeyDecl {
    /// A key of type `ty` with no default and no doc.
    pub fn new(name: impl Into<String>, ty: KeyType) -> Self {
        Self {
            name: name.into(),
            ty,
            default: None,
            doc: String::new(),
            parameter: None,
        }
    }

    /// Whether the key holds a value from the start of a run: it has a default, or it is a
    /// parameter that the SubTree node running the tree gives it.
    pub fn given(&self) -> bool {
        self.default.is_some() || self.parameter.is_some_and(Param::passes_in)
    }

    /// Whether a SubTree node running this tree must bind it: an `in` or `inout`
    /// parameter without a default.
    pub fn required(&self) -> bool {
        self.parameter.is_some_and(Param::passes_in) && self.default.is_none()
    }

    /// What is wrong with this declaration on its own, if anything: its name, or a
    /// default its type does not take.
    pub fn problem(&self) -> Option<String> {
        if let Some(why) = key_name_problem(&self.name) {
            return Some(format!("key '{}': {why}", self.name));
        }
        match &self.default {
            Some(_) if self.parameter == Some(Param::Out) => Some(format!(
                "key '{}': an out parameter takes no default (the SubTree writes it)",
                self.name
            )),
            Some(_) if !self.ty.has_defaults() => Some(format!(
                "key '{}': a key of type {} takes no default (a scenario or the game seeds it)",
                self.name, self.ty
            )),
            Some(v) if !self.ty.takes_default(v) => Some(format!(
                "key '{}' is of type {}, but its default {v} is {}",
                self.name,
                self.ty,
                v.type_name()
            )),
            _ => None,
        }
    }
}

/// What a key of a SubTree's asset is for the SubTree node that runs it (SEMANTICS.md
/// §3.5).
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Binding<'v> {
    /// The caller's key of this name, read and written through.
    Caller(&'v str),
    /// The SubTree node's own key, holding this literal from the start.
    Literal(&'v Value),
    /// The SubTree node's own key, apart from every other SubTree node's.
    Own,
}

/// Where key `inner` of a SubTree's asset lives for the SubTree node whose fields are
/// `fields`: a parameter as the node binds it, else (or a parameter left unbound) the
/// caller's key of the same name when the node `shares` its keys, else its own.
pub fn binding<'v>(
    inner: &'v str,
    decl: Option<&KeyDecl>,
    fields: &'v std::collections::BTreeMap<String, Value>,
    shares: bool,
) -> Binding<'v> {
    // (A hook is the SubTree node's own script, never a parameter's binding.)
    let bound = decl
        .filter(|d| d.parameter.is_some() && !super::is_hook(&d.name))
        .and_then(|d| fields.get(&d.name));
    match bound {
        Some(Value::Key(k)) => Binding::Caller(k),
        Some(v) => Binding::Literal(v),
        None if shares => Binding::Caller(inner),
        None => Binding::Own,
    }
}

/// Whether SubTree node `node` shares every key of its asset with its caller by name: as
/// its `autoremap` says; where that is not set, when the tree it is in declares no keys (a
/// file older than declarations).
pub fn shares_keys(node: &Node, caller: &super::Tree) -> bool {
    match node.fields.get("autoremap") {
        Some(Value::Bool(b)) => *b,
        _ => caller.keys.is_none(),
    }
}

/// What SubTree node `node` binds of an asset that declares no keys (a BehaviorTree.CPP
/// tree's port remapping): each of its fields but `asset`, `autoremap` and its hooks, by
/// the name of the asset's key it binds (SEMANTICS.md §3.5).
pub fn open_bindings(node: &Node) -> impl Iterator<Item = (&str, &Value)> {
    node.fields
        .iter()
        .filter(|(name, _)| *name != "asset" && *name != "autoremap" && !super::is_hook(name))
        .map(|(name, v)| (name.as_str(), v))
}

/// Why `name` cannot be a key's name, if it cannot: a key is letters, digits, `_`, `.`
/// and `-`, as a key field takes.
pub fn key_name_problem(name: &str) -> Option<&'static str> {
    if name.is_empty() {
        Some("a key's name cannot be empty")
    } else if name.contains('/') {
        Some("a key's name cannot contain '/'")
    } else if name.chars().any(char::is_whitespace) {
        Some("a key's name cannot contain spaces")
    } else if !name
        .chars()
        .all(|c| c.is_alphanumeric() || matches!(c, '_' | '.' | '-'))
    {
        Some("a key's name is letters, digits, '_', '.' and '-'")
    } else {
        None
    }
}

/// The most keys one file may declare (as many as a program holds).
pub const MAX_DECLARED_KEYS: usize = super::MAX_CONTEXT_KEYS;

/// Every key field of `node` (of kind `kind`) that names a key: the field and the key
/// (set on the node, else its kind's default).
pub(super) fn key_fields<'a>(
    node: &'a Node,
    kind: &'a KindSpec,
) -> impl Iterator<Item = (&'a super::FieldSpec, &'a str)> {
    kind.fields.iter().filter_map(move |f| {
        let FieldType::ContextKey(_) = f.ty else {
            return None;
        };
        let key = KindSpec::value_on(node, &f.name, || Some(kind)).and_then(Value::as_str)?;
        (!key.is_empty()).then_some((f, key))
    })
}

/// Every field of `node` (of kind `kind`) bound to a key, `{"key": NAME}` (SEMANTICS.md
/// §3.5): the field, the key, the types the field can take from it, and which way the
/// value passes (read as the node is entered, or given by its code). A SubTree's bindings
/// are its parameters', not fields of its kind.
pub(super) fn bound_fields<'a>(
    node: &'a Node,
    kind: Option<&'a KindSpec>,
) -> impl Iterator<Item = (&'a str, &'a str, KeyTypes, FieldDirection)> {
    node.fields.iter().filter_map(move |(name, value)| {
        let Value::Key(key) = value else {
            return None;
        };
        let kind = kind?;
        if kind.key_bound_refused(name).is_some() {
            return None;
        }
        let field = kind.field(name)?;
        let types = field.ty.key_types()?;
        Some((name.as_str(), key.as_str(), types, field.direction))
    })
}

/// Each node's key field that names `key` (set, or its kind's default): the node and the
/// field, in file order.
pub fn fields_naming(tree: &Tree, catalog: &Catalog, key: &str) -> Vec<(NodeId, String)> {
    let mut out = Vec::new();
    for node in tree.nodes() {
        // A field bound to the key: a SubTree's parameter, `{"key": NAME}`.
        for (name, value) in &node.fields {
            if matches!(value, Value::Key(k) if k == key) {
                out.push((node.id.clone(), name.clone()));
            }
        }
        let Some(kind) = catalog.kind(&node.kind) else {
            continue;
        };
        for (f, k) in key_fields(node, kind) {
            if k == key {
                out.push((node.id.clone(), f.name.clone()));
            }
        }
    }
    out
}

/// The script fields (a Script's code, a condition's expression, a hook) of `tree`'s
/// nodes that name key `key`, read or assigned: each node and field. A kind's default
/// script is not a node's, and is not listed.
pub fn scripts_naming(tree: &Tree, catalog: &Catalog, key: &str) -> Vec<(NodeId, String)> {
    let mut out = Vec::new();
    for node in tree.nodes() {
        let Some(kind) = catalog.kind(&node.kind) else {
            continue;
        };
        for (name, value) in &node.fields {
            // (A name the project declares an enum is that number there, not a key.)
            if let Value::Text(code) = value
                && kind.field(name).is_some_and(|f| f.ty.is_script())
                && catalog.enum_value(key).is_none()
                && super::script::names(code).is_some_and(|names| names.contains(&key))
            {
                out.push((node.id.clone(), name.clone()));
            }
        }
    }
    out
}

/// Where a key a field may name is declared.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KeyOrigin {
    /// By the tree.
    Tree,
    /// By its project, for all its trees.
    Project,
    /// Nowhere: a tree that declares no keys names it (its type is `any`).
    Used,
}

/// A key a key field can name.
#[derive(Clone, Debug, PartialEq)]
pub struct KeyChoice {
    /// Its name.
    pub name: String,
    /// Its type.
    pub ty: KeyType,
    /// Where it is declared.
    pub origin: KeyOrigin,
}

/// The keys a key field taking or giving `types` can name: the tree's declared keys, then
/// the project's (a name the tree declares hides the project's), those whose type fits
/// (`types.contains`, the rule validation checks the field by). A tree that declares no
/// keys may name any key: every key its nodes name comes last, sorted, as `any`.
pub fn keys_fitting(tree: &Tree, catalog: &Catalog, types: KeyTypes) -> Vec<KeyChoice> {
    let own = tree.keys.as_deref().unwrap_or_default();
    let mut seen: foldhash::HashSet<&str> = foldhash::HashSet::default();
    let mut out = Vec::new();
    let declared = own.iter().map(|k| (k, KeyOrigin::Tree)).chain(
        catalog
            .shared_keys()
            .iter()
            .map(|k| (k, KeyOrigin::Project)),
    );
    for (k, origin) in declared {
        if seen.insert(&k.name) && types.contains(k.ty) {
            out.push(KeyChoice {
                name: k.name.clone(),
                ty: k.ty,
                origin,
            });
        }
    }
    if tree.keys.is_none() {
        let mut used: Vec<&str> = tree
            .nodes()
            .iter()
            .filter_map(|n| Some((n, catalog.kind(&n.kind)?)))
            .flat_map(|(n, kind)| key_fields(n, kind).map(|(_, k)| k))
            .filter(|k| seen.insert(k))
            .collect();
        used.sort_unstable();
        out.extend(used.into_iter().map(|k| KeyChoice {
            name: k.to_owned(),
            ty: KeyType::Any,
            origin: KeyOrigin::Used,
        }));
    }
    out
}

/// Whether a node reads a key or writes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Role {
    /// Its `in_context`, a key field of its kind's own, or a SubTree's asset reading it.
    Reads,
    /// Its `out_context`, a script assigning it, or a SubTree's asset writing it.
    Writes,
}

/// One node's use of one key, as validation finds it.
pub(super) struct Use<'a> {
    pub node: &'a NodeId,
    pub key: &'a str,
    pub role: Role,
    /// The field that names the key (`in_context`, `out_context`, `key` …).
    pub field: &'a str,
    /// The types the field takes (a reader) or gives (a writer).
    pub types: KeyTypes,
}

/// Declarations for the keys `uses` name that neither the tree (`declared`) nor its project
/// (`shared`) declares, in order of first use, each typed by what writes it: the one type
/// every writer gives, else the one type every reader takes, else `any`.
pub(super) fn infer(declared: &[KeyDecl], shared: &[KeyDecl], uses: &[Use<'_>]) -> Vec<KeyDecl> {
    let known: foldhash::HashSet<&str> = declared
        .iter()
        .chain(shared)
        .map(|k| k.name.as_str())
        .collect();
    // Per key: the types its writers give, its readers take (ANDed), in order of first use.
    let mut found: HashMap<&str, (Option<KeyTypes>, Option<KeyTypes>)> = HashMap::new();
    let mut order = Vec::new();
    for u in uses.iter().filter(|u| !known.contains(u.key)) {
        let (gives, takes) = found.entry(u.key).or_insert_with(|| {
            order.push(u.key);
            (None, None)
        });
        let slot = match u.role {
            Role::Writes => gives,
            Role::Reads => takes,
        };
        *slot = Some(match *slot {
            None => u.types,
            Some(t) if u.role == Role::Writes => KeyTypes(t.0 | u.types.0),
            Some(t) => KeyTypes(t.0 & u.types.0),
        });
    }
    order
        .into_iter()
        .map(|key| {
            let (gives, takes) = found[key];
            let ty = [gives, takes]
                .into_iter()
                .flatten()
                .find_map(|t| t.single().filter(|t| *t != KeyType::Any))
                .unwrap_or(KeyType::Any);
            KeyDecl::new(key, ty)
        })
        .collect()
}

/// The most "did you mean" suggestions one validation looks for among the declared keys
/// (each looks at every declared key, so a tree of many typos stays linear).
const SUGGESTIONS: usize = 64;

/// The blackboard's rules (SEMANTICS.md §2): every use of a key against the declarations of
/// the tree (`declared`: `None` for a file that declares none, whose keys are all `any`)
/// and of its project (`shared`).
pub(super) fn check(
    declared: Option<&[KeyDecl]>,
    shared: &[KeyDecl],
    uses: &[Use<'_>],
) -> Vec<Diagnostic> {
    let mut out = Vec::new();
    // The tree's own declaration of a name wins over the project's.
    let mut decls: HashMap<&str, &KeyDecl> = HashMap::with_capacity(shared.len());
    for k in shared {
        decls.insert(&k.name, k);
    }
    for k in declared.unwrap_or_default() {
        if let Some(project) = decls.insert(&k.name, k)
            && project.ty != k.ty
        {
            out.push(Diagnostic::new(
                Rule::KeyType,
                vec![],
                format!(
                    "key '{}' is declared {} here, but {} by the project; declare it once",
                    k.name, k.ty, project.ty
                ),
            ));
        }
    }
    // What each key's writers give, and whether anything writes it.
    let mut written: HashMap<&str, (KeyTypes, &NodeId)> = HashMap::new();
    for u in uses.iter().filter(|u| u.role == Role::Writes) {
        written
            .entry(u.key)
            .and_modify(|(t, _)| *t = KeyTypes(t.0 | u.types.0))
            .or_insert((u.types, u.node));
    }
    let mut suggestions = 0;
    let mut unwritten: HashMap<&str, Vec<NodeId>> = HashMap::new();
    let mut order: Vec<&str> = Vec::new();
    for u in uses {
        let verb = match u.role {
            Role::Reads => "reads",
            Role::Writes => "writes",
        };
        match decls.get(u.key) {
            Some(d) => {
                let fits = match u.role {
                    Role::Reads => u.types.contains(d.ty),
                    // A writer may give another type only where it gives the declared one too.
                    Role::Writes => u.types.contains(d.ty) || d.ty == KeyType::Any,
                };
                if !fits {
                    out.push(Diagnostic::new(
                        Rule::KeyType,
                        vec![u.node.clone()],
                        format!(
                            "its '{}' {verb} key '{}' as {}, but the key is declared {}",
                            u.field,
                            u.key,
                            u.types.describe(),
                            d.ty
                        ),
                    ));
                }
            }
            None if declared.is_some() => {
                let hint = if suggestions < SUGGESTIONS {
                    suggestions += 1;
                    nearest(u.key, decls.keys().copied())
                        .map(|k| format!("; did you mean '{k}'?"))
                        .unwrap_or_default()
                } else {
                    String::new()
                };
                out.push(Diagnostic::new(
                    Rule::KeyUndeclared,
                    vec![u.node.clone()],
                    format!(
                        "its '{}' {verb} key '{}', which neither the tree nor its project declares{hint}",
                        u.field, u.key
                    ),
                ));
            }
            None => {
                // An undeclared key of a file that declares none: its readers and writers
                // must still agree.
                if let (Role::Reads, Some((gives, writer))) = (u.role, written.get(u.key))
                    && !gives.meets(u.types)
                {
                    out.push(Diagnostic::new(
                        Rule::KeyType,
                        vec![u.node.clone(), (*writer).clone()],
                        format!(
                            "its '{}' reads key '{}' as {}, but {} writes it as {}",
                            u.field,
                            u.key,
                            u.types.describe(),
                            writer,
                            gives.describe()
                        ),
                    ));
                }
            }
        }
        if u.role == Role::Reads
            && !written.contains_key(u.key)
            && decls.get(u.key).is_none_or(|d| !d.given())
        {
            let readers = unwritten.entry(u.key).or_default();
            if readers.is_empty() {
                order.push(u.key);
            }
            readers.push(u.node.clone());
        }
    }
    for key in order {
        let readers = unwritten.remove(key).unwrap_or_default();
        let others = match readers.len() {
            1 => String::new(),
            2 => " (and by 1 other node)".to_owned(),
            n => format!(" (and by {} other nodes)", n - 1),
        };
        out.push(Diagnostic::new(
            Rule::KeyUnwritten,
            readers,
            format!(
                "key '{key}' is read here{others}, but nothing writes it: no action's out_context, Interrupt or SubTree, and it has no default"
            ),
        ));
    }
    let used: foldhash::HashSet<&str> = uses.iter().map(|u| u.key).collect();
    for k in declared.unwrap_or_default() {
        if !used.contains(k.name.as_str()) {
            out.push(Diagnostic::new(
                Rule::KeyUnused,
                vec![],
                format!(
                    "key '{}' is declared, but no node reads or writes it",
                    k.name
                ),
            ));
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn sets_parse_describe_and_meet() {
        let target = KeyTypes::of(&[KeyType::Entity, KeyType::Position]);
        assert_eq!(KeyTypes::parse("entity|position"), Ok(target));
        assert_eq!(target.describe(), "entity|position");
        assert!(target.contains(KeyType::Entity) && !target.contains(KeyType::Text));
        assert_eq!(target.single(), None);
        assert_eq!(KeyType::Entity.set().single(), Some(KeyType::Entity));
        assert!(KeyTypes::ANY.meets(KeyType::Bool.set()));
        assert!(!KeyType::Text.set().meets(target));
        assert_eq!(KeyTypes::parse("any"), Ok(KeyTypes::ANY));
        assert_eq!(KeyTypes::parse("entity|thing"), Err("thing".into()));
    }

    #[test]
    fn a_declaration_says_what_is_wrong_with_it() {
        let mut k = KeyDecl::new("speed", KeyType::Float);
        k.default = Some(Value::Int(2));
        assert_eq!(k.problem(), None);
        k.default = Some(Value::Text("fast".into()));
        assert_eq!(
            k.problem().as_deref(),
            Some("key 'speed' is of type float, but its default \"fast\" is text")
        );
        let mut e = KeyDecl::new("enemy", KeyType::Entity);
        e.default = Some(Value::Int(1));
        let says = |k: &KeyDecl, what: &str| k.problem().is_some_and(|p| p.contains(what));
        assert!(says(&e, "takes no default"));
        assert!(says(&KeyDecl::new("my key", KeyType::Any), "spaces"));
        assert!(says(&KeyDecl::new("a/b", KeyType::Any), "'/'"));
    }
}
