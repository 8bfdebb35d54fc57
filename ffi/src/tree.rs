//! `ArborTree`: a tree file compiled with the runtime's kinds and callbacks, shared by
//! every agent that runs it.

use std::ffi::c_char;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use arbor::io::TreeFiles;
use arbor::model::{KindSpec, Origin};
use arbor::runtime::{CompileError, Program};

use crate::calls::{CAgent, outside};
use crate::error::{
    ARBOR_ERR_INVALID, ARBOR_ERR_LOAD, ARBOR_ERR_NULL, ARBOR_OK, Failure, fail, guard,
};
use crate::handles::{self, Object, Type, claim};
use crate::runtime::ArborRuntime;
use crate::value::{name, text_in};

/// A handle to a tree (0: none).
pub type ArborTree = u64;

/// What a tree holds.
pub(crate) struct Tree {
    pub(crate) program: Arc<Program<CAgent>>,
    /// The file it was read from (or named when given as text).
    pub(crate) path: PathBuf,
    /// The kinds its runtime knew beyond Arbor's own, for the editor a link tells.
    pub(crate) kinds: Arc<[KindSpec]>,
    /// Its text, when it was given as text rather than read from its file: what a link
    /// sends the editor, and a trace's digest is of.
    pub(crate) text: Option<Arc<str>>,
}

/// Compiles the tree of `path` (its text `text` when given) with the runtime's kinds and
/// behaviours.
fn compile(runtime: ArborRuntime, path: &Path, text: Option<&str>) -> Result<Tree, Failure> {
    let r = handles::runtime(runtime)?;
    let r = claim(&r, "the runtime")?;
    // A BehaviorTree.CPP file's own <TreeNodesModel> defines the kinds it describes.
    let own = match text {
        None => r.kinds.with_file_models(path),
        Some(_) => None,
    };
    let catalog = &own.as_ref().unwrap_or(&r.kinds).catalog;
    let files = TreeFiles::new(catalog);
    let loaded = match text {
        Some(t) => files.load_text(path, t),
        None => files.load(path),
    };
    let tree = match &*loaded {
        Ok(t) => t,
        Err(e) => return fail(ARBOR_ERR_LOAD, e.to_string()),
    };
    let assets = files.assets_for(path);
    match Program::compile(tree, catalog, &assets, &r.behaviours) {
        Ok(p) => Ok(Tree {
            program: Arc::new(p),
            path: path.to_owned(),
            kinds: catalog
                .kinds()
                .iter()
                .filter(|k| !matches!(k.origin, Origin::BuiltIn | Origin::Placeholder))
                .cloned()
                .collect(),
            text: text.map(Arc::from),
        }),
        Err(CompileError::Invalid(diags)) => {
            let lines: Vec<String> = diags
                .iter()
                .map(|d| format!("{}: {d}", path.display()))
                .collect();
            fail(ARBOR_ERR_INVALID, lines.join("\n"))
        }
        Err(e) => fail(ARBOR_ERR_INVALID, format!("{}: error: {e}", path.display())),
    }
}

/// Loads and compiles the tree file at `path` (Arbor's JSON, or a BehaviorTree.CPP XML
/// file), with its SubTrees, into `*out`. A tree with errors gives `ARBOR_ERR_INVALID`
/// and every error, each naming the file, the node and the field; one that does not read
/// `ARBOR_ERR_LOAD`, naming the file, line and column. No handle is made then.
///
/// # Safety
/// `path` must be a NUL-terminated string; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_tree_load(
    runtime: ArborRuntime,
    path: *const c_char,
    out: *mut ArborTree,
) -> i32 {
    guard(|| {
        outside("arbor_tree_load")?;
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { name(path, "path") }?);
        if out.is_null() {
            return fail(ARBOR_ERR_NULL, "out is null");
        }
        let tree = compile(runtime, path, None)?;
        // SAFETY: the caller's contract.
        unsafe { handles::give(Object::Tree(Arc::new(tree)), out) }
    })
}

/// As `arbor_tree_load`, from `text` (`len` bytes, or up to a NUL when 0). `path` names
/// the tree in messages and traces; its SubTrees are read relative to it.
///
/// # Safety
/// `path` must be a NUL-terminated string; `text` readable as `len` says; `out` writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn arbor_tree_load_text(
    runtime: ArborRuntime,
    path: *const c_char,
    text: *const c_char,
    len: usize,
    out: *mut ArborTree,
) -> i32 {
    guard(|| {
        outside("arbor_tree_load_text")?;
        // SAFETY: the caller's contract.
        let path = Path::new(unsafe { name(path, "path") }?);
        // SAFETY: the caller's contract.
        let text = unsafe { text_in(text, len) }?;
        if out.is_null() {
            return fail(ARBOR_ERR_NULL, "out is null");
        }
        let tree = compile(runtime, path, Some(text))?;
        // SAFETY: the caller's contract.
        unsafe { handles::give(Object::Tree(Arc::new(tree)), out) }
    })
}

/// Frees a tree. Agents made from it keep running it.
#[unsafe(no_mangle)]
pub extern "C" fn arbor_tree_free(tree: ArborTree) -> i32 {
    guard(|| {
        outside("arbor_tree_free")?;
        handles::remove(tree, Type::Tree).map(|_| ARBOR_OK)
    })
}
