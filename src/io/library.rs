//! Node library files (`NAME.nodes.json`, format `arbor.nodes`, documented in
//! docs/FORMAT.md): a game's own node kinds, read into [`KindSpec`]s, written back in
//! canonical form, and generated from the kinds a game registers in code.

use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::value::RawValue;

use super::canonical::to_canonical_json;
use crate::model::{
    Catalog, Category, FieldDirection, FieldSpec, FieldType, KeyType, KeyTypes, KindSpec, Origin,
    Severity, Value,
};

/// The `format` header of a node library file.
pub const LIBRARY_FORMAT: &str = super::header::LIBRARY.name;
/// The newest node library version this build reads and the one it writes.
pub const LIBRARY_VERSION: u64 = super::header::LIBRARY.newest;

/// A node library: the kinds a game declares, under the library's name.
#[derive(Clone, Debug, PartialEq)]
pub struct Library {
    /// The library's name (`my_game`).
    pub name: String,
    /// Its kinds, in file order, each with its category's common fields.
    pub kinds: Vec<KindSpec>,
}

/// A problem found in a node library or project file: where, which kind and field, what.
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}", self.line())]
pub struct Problem {
    /// Error (the kind, the library or the project is left out) or warning.
    pub severity: Severity,
    /// The file.
    pub path: PathBuf,
    /// 1-based line and column, where known.
    pub place: Option<(u32, u32)>,
    /// The kind it concerns, if one.
    pub kind: Option<String>,
    /// The field it concerns, if one.
    pub field: Option<String>,
    /// What is wrong.
    pub message: String,
}

impl Problem {
    /// `FILE[:LINE:COLUMN]: SEVERITY: kind 'K': field 'F': MESSAGE`, as `validate` prints it.
    pub fn line(&self) -> String {
        let place = self
            .place
            .map(|(l, c)| format!(":{l}:{c}"))
            .unwrap_or_default();
        let kind = self
            .kind
            .as_deref()
            .map(|k| format!("kind '{}': ", crate::model::names::clipped(k)))
            .unwrap_or_default();
        let field = self
            .field
            .as_deref()
            .map(|f| format!("field '{}': ", crate::model::names::clipped(f)))
            .unwrap_or_default();
        format!(
            "{}{place}: {}: {kind}{field}{}",
            self.path.display(),
            self.severity,
            self.message
        )
    }

    /// An error about a whole file.
    pub(crate) fn file(path: &Path, message: impl Into<String>) -> Self {
        Self {
            severity: Severity::Error,
            path: path.to_owned(),
            place: None,
            kind: None,
            field: None,
            message: message.into(),
        }
    }

    /// Whether it is an error.
    pub fn is_error(&self) -> bool {
        self.severity == Severity::Error
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a node library: an object with \"format\", \"version\", \"library\" and \"kinds\""
)]
struct LibraryIn<'a> {
    // The header, checked before the body is read.
    #[serde(rename = "format")]
    _format: serde::de::IgnoredAny,
    #[serde(rename = "version")]
    _version: serde::de::IgnoredAny,
    library: String,
    #[serde(borrow)]
    kinds: Vec<&'a RawValue>,
}

#[derive(Deserialize, Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum CategoryDto {
    Leaf,
    Condition,
    Composite,
    Decorator,
}

impl CategoryDto {
    fn category(self) -> Category {
        match self {
            CategoryDto::Leaf => Category::Leaf,
            CategoryDto::Condition => Category::Condition,
            CategoryDto::Composite => Category::Composite,
            CategoryDto::Decorator => Category::Decorator,
        }
    }

    fn of(category: Category) -> Option<Self> {
        Some(match category {
            Category::Leaf => CategoryDto::Leaf,
            Category::Condition => CategoryDto::Condition,
            Category::Composite => CategoryDto::Composite,
            Category::Decorator => CategoryDto::Decorator,
            _ => return None,
        })
    }
}

#[derive(Deserialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a kind: an object with \"kind\" and \"category\""
)]
struct KindIn<'a> {
    kind: String,
    category: CategoryDto,
    #[serde(default)]
    group: String,
    #[serde(default)]
    doc: String,
    #[serde(default, borrow)]
    fields: Vec<&'a RawValue>,
    #[serde(default)]
    stand_in: Option<StandInDto>,
    #[serde(default)]
    runs_as: Option<String>,
    /// The types of value a leaf or condition reads from its `in_context` key.
    #[serde(default)]
    in_context: Option<String>,
    /// The types of value a leaf produces for its `out_context` key.
    #[serde(default)]
    out_context: Option<String>,
}

#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a stand-in: an object with \"script\""
)]
struct StandInDto {
    script: String,
}

#[derive(Deserialize, Serialize, Clone, Copy, PartialEq, Eq)]
#[serde(rename_all = "snake_case")]
enum TypeDto {
    Bool,
    Int,
    Float,
    Text,
    Enum,
    ContextKey,
}

#[derive(Deserialize, Serialize)]
#[serde(
    deny_unknown_fields,
    expecting = "a field: an object with \"name\" and \"type\""
)]
struct FieldDto {
    name: String,
    #[serde(rename = "type")]
    ty: TypeDto,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    values: Option<Vec<String>>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    default: Option<Value>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    min: Option<Value>,
    #[serde(default, skip_serializing_if = "is_false")]
    min_exclusive: bool,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    max: Option<Value>,
    #[serde(default, skip_serializing_if = "is_false")]
    required: bool,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    unit: String,
    /// A `context_key` field's types of value (`entity|position`; none: any).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    key_type: Option<String>,
    #[serde(default, skip_serializing_if = "String::is_empty")]
    doc: String,
    /// Bound to a key, which way its value passes: `in` (the default), `out`, `inout`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    direction: Option<String>,
}

fn is_false(b: &bool) -> bool {
    !*b
}

#[derive(Serialize)]
struct LibraryOut {
    format: &'static str,
    version: u64,
    library: String,
    kinds: Vec<KindOut>,
}

#[derive(Serialize)]
struct KindOut {
    kind: String,
    category: CategoryDto,
    #[serde(skip_serializing_if = "String::is_empty")]
    group: String,
    #[serde(skip_serializing_if = "String::is_empty")]
    doc: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    in_context: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    out_context: Option<String>,
    #[serde(skip_serializing_if = "Vec::is_empty")]
    fields: Vec<FieldDto>,
    #[serde(skip_serializing_if = "Option::is_none")]
    stand_in: Option<StandInDto>,
    #[serde(skip_serializing_if = "Option::is_none")]
    runs_as: Option<String>,
}

/// serde's words for JSON's shapes, in JSON's words.
const PLAIN_WORDS: &[(&str, &str)] = &[
    ("expected a sequence", "expected a list [ … ]"),
    ("expected a map", "expected an object { … }"),
    ("invalid type: sequence", "invalid type: a list"),
    ("invalid type: map", "invalid type: an object"),
    ("unknown variant", "unknown word"),
];

/// Lines and columns of places in a text, from an index made once, on first use: the
/// start of each line, and the characters before every [`Places::STRIDE`]th byte. A
/// column is then counted over at most that many bytes, so a file with a problem in every
/// kind, or every kind on one line, is still read in linear time. A file without problems
/// makes no index.
pub(crate) struct Places<'t> {
    text: &'t str,
    index: std::cell::OnceCell<PlaceIndex>,
}

/// What [`Places`] finds lines and columns by.
struct PlaceIndex {
    /// The byte offset of each line's start.
    starts: Vec<usize>,
    /// The characters before byte `k × STRIDE`, for each `k`.
    chars: Vec<usize>,
}

impl<'t> Places<'t> {
    /// The bytes between two marks of the characters before them.
    const STRIDE: usize = 4096;

    pub(crate) fn new(text: &'t str) -> Self {
        Self {
            text,
            index: std::cell::OnceCell::new(),
        }
    }

    fn index(&self) -> &PlaceIndex {
        self.index.get_or_init(|| {
            let bytes = self.text.as_bytes();
            let starts = std::iter::once(0)
                .chain(self.text.match_indices('\n').map(|(i, _)| i + 1))
                .collect();
            let mut chars = Vec::with_capacity(bytes.len() / Self::STRIDE + 1);
            let mut before = 0;
            chars.push(0);
            for chunk in bytes.chunks(Self::STRIDE) {
                before += chars_in(chunk);
                chars.push(before);
            }
            PlaceIndex { starts, chars }
        })
    }

    /// The characters before byte `offset` (at most the text's length).
    fn chars_before(&self, offset: usize) -> usize {
        let mark = offset / Self::STRIDE;
        let from = mark * Self::STRIDE;
        self.index().chars[mark] + chars_in(&self.text.as_bytes()[from..offset])
    }

    /// The 1-based line and column of byte `offset`.
    pub(crate) fn of(&self, offset: usize) -> (u32, u32) {
        let starts = &self.index().starts;
        let offset = offset.min(self.text.len());
        let line = starts.partition_point(|&s| s <= offset).max(1);
        let start = starts[line - 1];
        let column = self.chars_before(offset) - self.chars_before(start) + 1;
        let narrow = |n: usize| u32::try_from(n).unwrap_or(u32::MAX);
        (narrow(line), narrow(column))
    }

    /// Where `part` (a slice of the text) starts.
    fn start_of(&self, part: &str) -> (u32, u32) {
        self.of(offset_in(self.text, part))
    }
}

/// The characters that start in `bytes` (UTF-8: every byte but a continuation byte).
fn chars_in(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xC0 != 0x80).count()
}

/// Where `part` (a slice of `text`) starts in `text`.
fn offset_in(text: &str, part: &str) -> usize {
    (part.as_ptr() as usize).saturating_sub(text.as_ptr() as usize)
}

/// A serde error in `part` (a slice of the text of `places`), placed in that text.
pub(crate) fn syntax_in(
    path: &Path,
    places: &Places<'_>,
    part: &str,
    e: &serde_json::Error,
) -> Problem {
    let full = e.to_string();
    let suffix = format!(" at line {} column {}", e.line(), e.column());
    let mut message = full.strip_suffix(&suffix).unwrap_or(&full).to_owned();
    for (serde, plain) in PLAIN_WORDS {
        message = message.replace(serde, plain);
    }
    // The error's place within `part`, as a byte offset.
    let inner: usize = part
        .split_inclusive('\n')
        .take(e.line().saturating_sub(1))
        .map(str::len)
        .sum::<usize>()
        + e.column().saturating_sub(1);
    let mut p = Problem::file(path, message);
    p.place = Some(places.of(offset_in(places.text, part) + inner));
    p
}

/// Reads a file of the given format, its header checked first: a wrong header explains a
/// body that does not fit better than the body's own error.
pub(crate) fn read_headed<'t, T: Deserialize<'t>>(
    text: &'t str,
    path: &Path,
    format: super::FileFormat,
) -> Result<T, Problem> {
    format
        .check(text)
        .map_err(|p| Problem::file(path, p.message))?;
    serde_json::from_str(text).map_err(|e| syntax_in(path, &Places::new(text), text, &e))
}

/// Whether a name can be a kind's or a field's: letters, digits and `_`, not starting
/// with a digit.
fn is_identifier(name: &str) -> bool {
    !name.is_empty()
        && !name.starts_with(|c: char| c.is_ascii_digit())
        && name.chars().all(|c| c.is_alphanumeric() || c == '_')
}

/// Parses the text of a node library file; `path` names it in problems and in each
/// kind's [`Origin`]. `Err` when the file as a whole cannot be read (bad JSON, wrong
/// header); otherwise the library with every kind that could be read, and the problems
/// found in the others (a kind with an error is left out; a field's bad default is
/// dropped, the rest of the kind kept).
pub fn parse_library(text: &str, path: &Path) -> Result<(Library, Vec<Problem>), Problem> {
    parse_placed(text, path).map(|p| (p.library, p.problems))
}

/// A library read, with its problems and where each kind read starts in the text.
pub(crate) struct Placed {
    pub(crate) library: Library,
    pub(crate) problems: Vec<Problem>,
    /// Where each kind of `library` starts in the text (a byte offset), in order.
    pub(crate) starts: Vec<usize>,
}

/// [`parse_library`], with where each kind read starts in the text (for problems found
/// later, when the kinds go into a catalog).
pub(crate) fn parse_placed(text: &str, path: &Path) -> Result<Placed, Problem> {
    let file: LibraryIn<'_> = read_headed(text, path, super::header::LIBRARY)?;
    if !is_identifier(&file.library) {
        return Err(Problem::file(
            path,
            format!(
                "the library's name \"{}\" must be letters, digits and _, and not start with a digit",
                file.library
            ),
        ));
    }
    let mut problems = Vec::new();
    let mut kinds: Vec<KindSpec> = Vec::with_capacity(file.kinds.len());
    let mut starts = Vec::with_capacity(file.kinds.len());
    // Each kind's name seen, and whether that entry was read.
    let mut seen: std::collections::HashMap<String, bool> = std::collections::HashMap::new();
    let places = Places::new(text);
    for raw in &file.kinds {
        let part = raw.get();
        let dto: KindIn<'_> = match serde_json::from_str(part) {
            Ok(k) => k,
            Err(e) => {
                // The kind is left out: named, so that it counts as the kind's problem.
                let mut p = syntax_in(path, &places, part, &e);
                let name = serde_json::from_str::<serde_json::Value>(part)
                    .ok()
                    .and_then(|v| v.get("kind")?.as_str().map(str::to_owned));
                p.kind = Some(name.unwrap_or_else(|| "?".into()));
                problems.push(p);
                continue;
            }
        };
        let problem = |field: Option<&str>, message: String| Problem {
            severity: Severity::Error,
            path: path.to_owned(),
            place: Some(places.start_of(part)),
            kind: Some(dto.kind.clone()),
            field: field.map(str::to_owned),
            message,
        };
        if !is_identifier(&dto.kind) {
            problems.push(problem(
                None,
                "a kind's name must be letters, digits and _, and not start with a digit (it is the `kind` of nodes in tree files)".into(),
            ));
            continue;
        }
        if let Some(&first_read) = seen.get(&dto.kind) {
            let message = if first_read {
                "the library defines this kind twice; the first is kept"
            } else {
                "the library defines this kind twice, and the first has problems: neither is read"
            };
            problems.push(problem(None, message.into()));
            continue;
        }
        match read_kind(&dto, &places, path, &file.library, &mut problems) {
            Ok(kind) => {
                seen.insert(dto.kind.clone(), true);
                kinds.push(kind);
                starts.push(offset_in(text, part));
            }
            Err(wrong) => {
                seen.insert(dto.kind.clone(), false);
                for e in wrong {
                    let mut p = problem(e.field.as_deref(), e.message);
                    if let Some(at) = e.place {
                        p.place = Some(at);
                    }
                    problems.push(p);
                }
            }
        }
    }
    Ok(Placed {
        library: Library {
            name: file.library,
            kinds,
        },
        problems,
        starts,
    })
}

/// Why a kind is left out: the field it is in, what, and where, when not at the kind's
/// start.
struct KindProblem {
    field: Option<String>,
    message: String,
    place: Option<(u32, u32)>,
}

impl From<(Option<String>, String)> for KindProblem {
    fn from((field, message): (Option<String>, String)) -> Self {
        Self {
            field,
            message,
            place: None,
        }
    }
}

/// A kind read from its entry; else every problem that leaves it out (one a field at
/// most, each with the field it is in and where).
fn read_kind(
    dto: &KindIn<'_>,
    places: &Places<'_>,
    path: &Path,
    library: &str,
    problems: &mut Vec<Problem>,
) -> Result<KindSpec, Vec<KindProblem>> {
    let category = dto.category.category();
    let mut own = Vec::with_capacity(dto.fields.len());
    let mut wrong = Vec::new();
    // The fields' names seen, the wrong ones too (so that a name twice is said once).
    let mut names = std::collections::HashSet::new();
    for raw in &dto.fields {
        let part = raw.get();
        let f: FieldDto = match serde_json::from_str(part) {
            Ok(f) => f,
            Err(e) => {
                let p = syntax_in(path, places, part, &e);
                wrong.push(KindProblem {
                    field: serde_json::from_str::<serde_json::Value>(part)
                        .ok()
                        .and_then(|v| v.get("name")?.as_str().map(str::to_owned)),
                    message: p.message,
                    place: p.place,
                });
                continue;
            }
        };
        let name = f.name.clone();
        let at = |message: String| KindProblem {
            field: Some(name.clone()),
            message,
            place: Some(places.start_of(part)),
        };
        if !is_identifier(&name) {
            wrong.push(at(
                "a field's name must be letters, digits and _, and not start with a digit".into(),
            ));
            continue;
        }
        if KindSpec::is_common_field(category, &name) {
            wrong.push(at(format!(
                "every {} has this field already; give the game's own field another name",
                category.label().to_lowercase()
            )));
            continue;
        }
        if !names.insert(name.clone()) {
            wrong.push(at("the kind has two fields of this name".into()));
            continue;
        }
        let (spec, bad_default) = match read_field(f) {
            Ok(read) => read,
            Err(m) => {
                wrong.push(at(m));
                continue;
            }
        };
        if let Some(message) = bad_default {
            problems.push(Problem {
                severity: Severity::Error,
                path: path.to_owned(),
                place: Some(places.start_of(part)),
                kind: Some(dto.kind.clone()),
                field: Some(name),
                message,
            });
        }
        own.push(spec);
    }
    let mut kind = KindSpec::new(&dto.kind, category, &dto.doc, own);
    kind.group = dto.group.clone();
    kind.origin = Origin::Library {
        library: library.to_owned(),
        file: path.to_owned(),
    };
    kind.stand_in = dto.stand_in.as_ref().map(|s| s.script.clone());
    if let Some(problem) = kind.stand_in_problem() {
        wrong.push(KindProblem::from((None, problem)));
    }
    if let Some(r) = &dto.runs_as {
        if !category.is_branch() {
            wrong.push(KindProblem::from((
                None,
                "only a composite or a decorator runs as a built-in kind; a leaf or condition runs as its stand-in".into(),
            )));
        }
        kind.runs_as = Some(r.clone());
    }
    for (field, types) in [
        ("in_context", &dto.in_context),
        ("out_context", &dto.out_context),
    ] {
        let Some(types) = types else { continue };
        if kind.key_types(field).is_none() {
            wrong.push(KindProblem::from((
                None,
                format!(
                    "a {} has no {field} field; only a leaf has out_context, a leaf or a condition in_context",
                    category.label().to_lowercase()
                ),
            )));
            continue;
        }
        match key_types(Some(types)) {
            Ok(t) => kind = kind.with_key_types(field, t),
            Err(m) => wrong.push(KindProblem::from((None, format!("{field}: {m}")))),
        }
    }
    if wrong.is_empty() {
        Ok(kind)
    } else {
        Err(wrong)
    }
}

/// A bound of an `int` field: a whole number, read as it is written.
fn whole_bound(v: Option<&Value>, which: &str) -> Result<Option<i64>, String> {
    match v {
        None => Ok(None),
        Some(Value::Int(i)) => Ok(Some(*i)),
        Some(other) => Err(format!(
            "\"{which}\" must be a whole number, not {}",
            other.type_name()
        )),
    }
}

/// A bound of a `float` field.
fn number_bound(v: Option<&Value>, which: &str) -> Result<Option<f64>, String> {
    match v {
        None => Ok(None),
        Some(v @ (Value::Int(_) | Value::Float(_))) => Ok(v.as_f64()),
        Some(other) => Err(format!(
            "\"{which}\" must be a number, not {}",
            other.type_name()
        )),
    }
}

/// A field's spec from its entry, and the problem with its default, if any (the default is
/// then dropped).
fn read_field(f: FieldDto) -> Result<(FieldSpec, Option<String>), String> {
    let numeric = matches!(f.ty, TypeDto::Int | TypeDto::Float);
    if !numeric && (f.min.is_some() || f.max.is_some() || f.min_exclusive) {
        return Err("only an int or a float field has \"min\" and \"max\"".into());
    }
    if f.ty != TypeDto::Enum && f.values.is_some() {
        return Err("only an enum field has \"values\"".into());
    }
    if !numeric && !f.unit.is_empty() {
        return Err("only an int or a float field has a \"unit\"".into());
    }
    if f.ty != TypeDto::ContextKey && f.key_type.is_some() {
        return Err("only a context_key field has a \"key_type\"".into());
    }
    let ty = match f.ty {
        TypeDto::Bool => FieldType::Bool,
        TypeDto::Text => FieldType::Text,
        TypeDto::ContextKey => FieldType::ContextKey(key_types(f.key_type.as_deref())?),
        TypeDto::Enum => {
            let values = f.values.clone().unwrap_or_default();
            if values.is_empty() {
                return Err("an enum field lists its words in \"values\"".into());
            }
            let mut seen = std::collections::HashSet::new();
            if let Some(v) = values.iter().find(|v| !seen.insert(v.as_str())) {
                return Err(format!("\"values\" lists \"{v}\" twice"));
            }
            FieldType::Enum(values)
        }
        TypeDto::Int => {
            if f.min_exclusive {
                return Err("\"min_exclusive\" is for float fields".into());
            }
            let min = whole_bound(f.min.as_ref(), "min")?.unwrap_or(i64::MIN);
            let max = whole_bound(f.max.as_ref(), "max")?.unwrap_or(i64::MAX);
            if min > max {
                return Err(format!("\"min\" {min} is above \"max\" {max}"));
            }
            FieldType::Int { min, max }
        }
        TypeDto::Float => {
            let min = number_bound(f.min.as_ref(), "min")?.unwrap_or(-f64::MAX);
            let max = number_bound(f.max.as_ref(), "max")?.unwrap_or(f64::MAX);
            if min > max || (f.min_exclusive && min >= max) {
                return Err(format!("\"min\" {min} is above \"max\" {max}"));
            }
            FieldType::Float {
                min,
                min_exclusive: f.min_exclusive,
                max,
            }
        }
    };
    let direction = match f.direction.as_deref() {
        None => FieldDirection::In,
        Some(word) => FieldDirection::from_word(word).ok_or_else(|| {
            format!("\"direction\" is \"{word}\"; it is \"in\", \"out\" or \"inout\"")
        })?,
    };
    let mut spec = FieldSpec {
        name: f.name,
        ty,
        default: None,
        required: f.required,
        help: f.doc,
        unit: f.unit,
        direction,
    };
    let mut bad = None;
    if let Some(d) = f.default {
        if f.required {
            return Err("a required field has no \"default\"".into());
        }
        match spec.check(&d) {
            Ok(()) => spec.default = Some(d),
            Err((_, why)) => {
                bad = Some(format!(
                    "its default {d} does not fit the field ({why}); the field has no default until it is fixed"
                ));
            }
        }
    }
    Ok((spec, bad))
}

/// The types a library writes as `entity|position` (none written: any).
fn key_types(text: Option<&str>) -> Result<KeyTypes, String> {
    match text {
        None => Ok(KeyTypes::ANY),
        Some(t) => KeyTypes::parse(t).map_err(|name| {
            format!(
                "\"{name}\" is not a key type; a key holds {}, or several joined by | (entity|position)",
                KeyType::ALL.map(KeyType::name).join(", ")
            )
        }),
    }
}

/// What a library writes for key types `t`: nothing for any.
fn key_types_out(t: KeyTypes) -> Option<String> {
    (!t.is_any()).then(|| t.describe())
}

/// The library entry of a field, or why a library cannot describe it.
fn field_out(f: &FieldSpec) -> Result<FieldDto, String> {
    let key_type = match f.ty {
        FieldType::ContextKey(t) => key_types_out(t),
        _ => None,
    };
    let (ty, values, min, min_exclusive, max) = match &f.ty {
        FieldType::Bool => (TypeDto::Bool, None, None, false, None),
        FieldType::Text => (TypeDto::Text, None, None, false, None),
        FieldType::ContextKey(_) => (TypeDto::ContextKey, None, None, false, None),
        FieldType::Enum(v) => (TypeDto::Enum, Some(v.clone()), None, false, None),
        FieldType::Int { min, max } => (
            TypeDto::Int,
            None,
            (*min != i64::MIN).then_some(Value::Int(*min)),
            false,
            (*max != i64::MAX).then_some(Value::Int(*max)),
        ),
        FieldType::Float {
            min,
            min_exclusive,
            max,
        } => (
            TypeDto::Float,
            None,
            (*min > -f64::MAX).then_some(Value::Float(*min)),
            *min_exclusive,
            (*max < f64::MAX).then_some(Value::Float(*max)),
        ),
        FieldType::Asset
        | FieldType::Script(_)
        | FieldType::Expression
        | FieldType::Statements
        | FieldType::Scalar => {
            return Err(format!(
                "field '{}' is {}; a node library describes bool, int, float, text, enum and context_key fields",
                f.name,
                f.ty.describe()
            ));
        }
    };
    Ok(FieldDto {
        name: f.name.clone(),
        ty,
        values,
        default: f.default.clone(),
        min,
        min_exclusive,
        max,
        required: f.required,
        unit: f.unit.clone(),
        key_type,
        doc: f.help.clone(),
        direction: (f.direction != FieldDirection::In).then(|| f.direction.word().to_owned()),
    })
}

impl Library {
    /// The library of the kinds a game registered in `catalog` ([`Origin::Registered`]),
    /// in the order registered, under `name`; what it writes is what the editor, `validate`
    /// and `run` read. `Err` names a field a library cannot describe.
    pub fn from_catalog(name: &str, catalog: &Catalog) -> Result<Self, String> {
        let kinds: Vec<KindSpec> = catalog
            .kinds()
            .iter()
            .filter(|k| k.origin == Origin::Registered)
            .cloned()
            .collect();
        let library = Self {
            name: name.to_owned(),
            kinds,
        };
        library.to_text()?;
        Ok(library)
    }

    /// The canonical text of the library file; `Err` names a field a library cannot
    /// describe (an asset path or a script: those are for built-in kinds).
    pub fn to_text(&self) -> Result<String, String> {
        let mut kinds = Vec::with_capacity(self.kinds.len());
        for k in &self.kinds {
            let Some(category) = CategoryDto::of(k.category) else {
                return Err(format!(
                    "kind '{}' is a {}; a node library holds leaves, conditions, composites and decorators",
                    k.name,
                    k.category.label()
                ));
            };
            let fields = k
                .own_fields()
                .map(field_out)
                .collect::<Result<Vec<_>, _>>()
                .map_err(|e| format!("kind '{}': {e}", k.name))?;
            kinds.push(KindOut {
                kind: k.name.clone(),
                category,
                group: k.group.clone(),
                doc: k.help.clone(),
                fields,
                stand_in: k.stand_in.clone().map(|script| StandInDto { script }),
                runs_as: k.runs_as.clone(),
                in_context: k.key_types("in_context").and_then(key_types_out),
                out_context: k.key_types("out_context").and_then(key_types_out),
            });
        }
        let file = LibraryOut {
            format: LIBRARY_FORMAT,
            version: LIBRARY_VERSION,
            library: self.name.clone(),
            kinds,
        };
        let value = serde_json::to_value(&file).map_err(|e| e.to_string())?;
        Ok(to_canonical_json(&value))
    }

    /// Writes the library to `path` in canonical form (atomically).
    pub fn write(&self, path: &Path) -> Result<(), String> {
        let text = self.to_text()?;
        super::write_atomically(path, text.as_bytes()).map_err(|e| e.to_string())
    }

    /// Checks that the library file at `path` says what this library says (the game's
    /// code), for a game's own test suite: `Err` holds a readable diff, file against code,
    /// and how to bring the file up to date. With the environment variable
    /// `ARBOR_UPDATE_LIBRARY=1` the file is rewritten instead and the check passes.
    ///
    /// ```no_run
    /// # use arbor::{io::Library, model::Catalog};
    /// # fn game_catalog() -> Catalog { Catalog::builtin() }
    /// #[test]
    /// fn node_library_is_current() {
    ///     let library = Library::from_catalog("my_game", &game_catalog()).unwrap();
    ///     library.check("ai/my_game.nodes.json").unwrap();
    /// }
    /// ```
    pub fn check(&self, path: impl AsRef<Path>) -> Result<(), LibraryDrift> {
        let path = path.as_ref();
        let from_code = self.to_text().map_err(|message| LibraryDrift {
            path: path.to_owned(),
            message,
        })?;
        if std::env::var_os("ARBOR_UPDATE_LIBRARY").is_some_and(|v| v == "1") {
            return self.write(path).map_err(|message| LibraryDrift {
                path: path.to_owned(),
                message,
            });
        }
        let on_disk = match super::read_text(path) {
            Ok(t) => t,
            Err(e) => {
                return Err(LibraryDrift {
                    path: path.to_owned(),
                    message: format!(
                        "cannot read it ({e}); write it from the code with ARBOR_UPDATE_LIBRARY=1"
                    ),
                });
            }
        };
        // Compared as the canonical text of what each says, so layout alone is no drift.
        let file_says = match parse_library(&on_disk, path) {
            Ok((lib, problems)) if problems.is_empty() => lib.to_text().unwrap_or(on_disk),
            _ => on_disk,
        };
        if file_says == from_code {
            return Ok(());
        }
        let diff = similar::TextDiff::from_lines(&file_says, &from_code)
            .unified_diff()
            .context_radius(2)
            .header(&format!("{} (file)", path.display()), "the game's code")
            .to_string();
        Err(LibraryDrift {
            path: path.to_owned(),
            message: format!(
                "the node library differs from the kinds the code registers:\n{diff}\nUpdate the file with ARBOR_UPDATE_LIBRARY=1, or change the code back"
            ),
        })
    }
}

/// Whether two kinds are declared alike: what a library file says of each is the same
/// (where a kind comes from does not count; a kind no library can describe is like none).
pub fn declared_alike(a: &KindSpec, b: &KindSpec) -> bool {
    let text = |k: &KindSpec| {
        Library {
            name: String::new(),
            kinds: vec![k.clone()],
        }
        .to_text()
    };
    matches!((text(a), text(b)), (Ok(x), Ok(y)) if x == y)
}

/// A node library file that does not match the game's code ([`Library::check`]).
#[derive(Clone, Debug, PartialEq, thiserror::Error)]
#[error("{}: {message}", path.display())]
pub struct LibraryDrift {
    /// The library file.
    pub path: PathBuf,
    /// What differs, as a diff, and what to do.
    pub message: String,
}

#[cfg(test)]
mod tests {
    use super::Places;

    /// Lines and columns as counted one character at a time.
    fn counted(text: &str, offset: usize) -> (u32, u32) {
        let before = &text[..offset];
        let line = before.matches('\n').count() + 1;
        let start = before.rfind('\n').map_or(0, |i| i + 1);
        let column = text[start..offset].chars().count() + 1;
        (line as u32, column as u32)
    }

    #[test]
    fn places_count_characters_across_the_index_marks() {
        // Lines longer than the index's stride, with characters of 1 to 4 bytes.
        let line = "aé€😀 ".repeat(700);
        let text = format!("{line}\n{line}{line}\nend");
        let places = Places::new(&text);
        for (offset, _) in text.char_indices().step_by(37) {
            assert_eq!(
                places.of(offset),
                counted(&text, offset),
                "at byte {offset}"
            );
        }
        assert_eq!(places.of(text.len()), counted(&text, text.len()));
    }
}
