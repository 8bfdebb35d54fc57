//! `ArborRuntime`: the kinds a game's trees may use (Arbor's own, then those of the node
//! libraries and projects it loads) and the game's callbacks for its own kinds. Trees are
//! loaded through it.

use std::ffi::{c_char, c_void};
use std::path::Path;
use std::sync::Arc;

use arbor::io::ProjectCatalog;
use arbor::model::{Catalog, Category};
use arbor::runtime::Behaviours;

use crate::calls::{
    ArborAction, ArborCheckFn, CAction, CAgent, CCondition, Callbacks, Check, field_names, outside,
};
use crate::error::{
    ARBOR_ERR_ARGUMENT, ARBOR_ERR_INVALID, ARBOR_ERR_LOAD, ARBOR_ERR_NOT_FOUND, ARBOR_ERR_NULL,
    ARBOR_OK, Failure, fail, guard,
};
use crate::handles::{self, Exclusive, Object, Type, claim};
use crate::value::{name, text_in};

/// A handle to a runtime (0: none).
pub type ArborRuntime = u64;

/// What a runtime holds.
pub(crate) struct Runtime {
    pub(crate) kinds: ProjectCatalog,
    pub(crate) behaviours: Behaviours<CAgent>,
}

/// Makes a runtime that knows Arbor's built-in kinds, into `*out`. Free it with
/// `arbor_runtime_free`; trees loaded through it stay usable after.
///
/// # Safety
/// `out` must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_runtime_new(out: *mut ArborRuntime) -> i32 {
    guard(|| {
        outside("arbor_runtime_new")?;
        if out.is_null() {
            return fail(ARBOR_ERR_NULL, "out is null");
        }
        let runtime = Runtime {
            kinds: ProjectCatalog::load(None, &Catalog::builtin()),
            behaviours: Behaviours::with_builtins(),
        };
        // SAFETY: the caller's contract (`out` checked not null above).
        unsafe { handles::give(Object::Runtime(Arc::new(Exclusive::new(runtime))), out) }
    })
}

/// Frees a runtime. Its trees, agents and traces are not freed.
#[unsafe(no_mangle)]
pub extern "C" fn arbor_runtime_free(runtime: ArborRuntime) -> i32 {
    guard(|| {
        outside("arbor_runtime_free")?;
        handles::remove(runtime, Type::Runtime).map(|_| ARBOR_OK)
    })
}

/// `ARBOR_ERR_LOAD`, naming the file, when `path` cannot be read.
fn readable(path: &Path) -> Result<(), Failure> {
    match arbor::io::read_text(path) {
        Ok(_) => Ok(()),
        Err(e) => fail(
            ARBOR_ERR_LOAD,
            format!("{}: cannot read: {e}", path.display()),
        ),
    }
}

/// Adds the kinds the catalog change `add` makes, refusing them all on an error (the
/// message lists every problem, each naming its file, line, kind and field).
fn add_kinds(runtime: ArborRuntime, add: impl FnOnce(&mut ProjectCatalog)) -> Result<i32, Failure> {
    let r = handles::runtime(runtime)?;
    let mut r = claim(&r, "the runtime")?;
    let mut kinds = r.kinds.clone();
    kinds.problems.clear();
    add(&mut kinds);
    let errors: Vec<String> = kinds
        .problems
        .iter()
        .filter(|p| p.is_error())
        .map(|p| p.line())
        .collect();
    if !errors.is_empty() {
        return fail(ARBOR_ERR_INVALID, errors.join("\n"));
    }
    kinds.problems.clear();
    r.kinds = kinds;
    Ok(ARBOR_OK)
}

/// Loads the node library file at `path` (an Arbor `.nodes.json`, or a BehaviorTree.CPP
/// `<TreeNodesModel>` file): its kinds join the runtime's. `ARBOR_ERR_LOAD` /
/// `ARBOR_ERR_INVALID` with every problem; then none of its kinds is added.
///
/// # Safety
/// `path` must be a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_runtime_load_library(
    runtime: ArborRuntime,
    path: *const c_char,
) -> i32 {
    guard(|| {
        outside("arbor_runtime_load_library")?;
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { name(path, "path") }?);
        readable(path)?;
        add_kinds(runtime, |k| k.add_library_file(path))
    })
}

/// As `arbor_runtime_load_library`, from `text` (`len` bytes, or up to a NUL when 0);
/// `path` names it in messages and says whether it is a BehaviorTree.CPP file (`.xml`).
///
/// # Safety
/// `path` must be a NUL-terminated string; `text` readable as `len` says.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_runtime_load_library_text(
    runtime: ArborRuntime,
    path: *const c_char,
    text: *const c_char,
    len: usize,
) -> i32 {
    guard(|| {
        outside("arbor_runtime_load_library_text")?;
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { name(path, "path") }?);
        // SAFETY: the caller's contract.
        let text = unsafe { text_in(text, len) }?;
        add_kinds(runtime, |k| k.add_library_text(path, text))
    })
}

/// Loads the project file at `path` (`arbor.project.json`): its keys, enums and every
/// node library it lists join the runtime's.
///
/// # Safety
/// `path` must be a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_runtime_load_project(
    runtime: ArborRuntime,
    path: *const c_char,
) -> i32 {
    guard(|| {
        outside("arbor_runtime_load_project")?;
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { name(path, "path") }?);
        readable(path)?;
        add_kinds(runtime, |k| {
            let loaded = ProjectCatalog::load(Some(path), &k.catalog);
            *k = ProjectCatalog {
                files: [std::mem::take(&mut k.files), loaded.files].concat(),
                ..loaded
            };
        })
    })
}

/// The kind `kind` of `category`, known to the runtime: or why not.
fn known(
    r: &Runtime,
    kind: &str,
    category: &[Category],
    what: &str,
) -> Result<Vec<String>, Failure> {
    match r.kinds.catalog.kind(kind) {
        None => fail(
            ARBOR_ERR_NOT_FOUND,
            format!(
                "no kind '{kind}': declare it in a node library first (arbor_runtime_load_library)"
            ),
        ),
        Some(k) if !category.contains(&k.category) => {
            fail(ARBOR_ERR_ARGUMENT, format!("'{kind}' is not {what}"))
        }
        Some(_) => Ok(field_names(&r.kinds.catalog, kind)),
    }
}

/// Gives action kind `kind` (a leaf a library declares) the game's callbacks: trees
/// loaded after this run them. The callbacks are copied; `action->user` is handed back to
/// each, and must stay valid while trees using the kind run.
///
/// # Safety
/// `kind` must be a NUL-terminated string; `action` null or readable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_runtime_register_action(
    runtime: ArborRuntime,
    kind: *const c_char,
    action: *const ArborAction,
) -> i32 {
    guard(|| {
        outside("arbor_runtime_register_action")?;
        // SAFETY: the caller's contract.
        let kind = unsafe { name(kind, "kind") }?;
        if action.is_null() {
            return fail(ARBOR_ERR_NULL, "action is null");
        }
        // SAFETY: the caller's contract.
        let calls = Callbacks::of(unsafe { &*action })?;
        let r = handles::runtime(runtime)?;
        let mut r = claim(&r, "the runtime")?;
        let names = known(&r, kind, &[Category::Leaf], "an action (a leaf)")?;
        r.behaviours
            .action(kind, move |spec| Ok(CAction::new(calls, spec, &names)));
        Ok(ARBOR_OK)
    })
}

/// Gives condition kind `kind` (a condition a library declares) the game's check: trees
/// loaded after this run it. `user` is handed back to each call, and must stay valid
/// while trees using the kind run.
///
/// # Safety
/// `kind` must be a NUL-terminated string.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_runtime_register_condition(
    runtime: ArborRuntime,
    kind: *const c_char,
    check: ArborCheckFn,
    user: *mut c_void,
) -> i32 {
    guard(|| {
        outside("arbor_runtime_register_condition")?;
        // SAFETY: the caller's contract.
        let kind = unsafe { name(kind, "kind") }?;
        let check = Check::of(check, user)?;
        let r = handles::runtime(runtime)?;
        let mut r = claim(&r, "the runtime")?;
        let names = known(&r, kind, &[Category::Condition], "a condition")?;
        r.behaviours
            .condition(kind, move |spec| Ok(CCondition::new(check, spec, &names)));
        Ok(ARBOR_OK)
    })
}
