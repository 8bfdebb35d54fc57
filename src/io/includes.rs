//! A BehaviorTree.CPP file's `<include path="…">`s (docs/BTCPP.md, "SubTrees"), each
//! resolved against the file that includes it: every file reached must be there and load,
//! and no file may include itself through any number of others.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use super::{LoadError, btcpp, read_text};

/// The file an include names, resolved against the including file's folder.
pub(crate) fn included(including: &Path, path: &str) -> PathBuf {
    including.parent().unwrap_or(Path::new("")).join(path)
}

/// The file a path names, made absolute where possible so that two spellings of one file
/// agree.
pub(crate) fn identity(path: &Path) -> PathBuf {
    std::fs::canonicalize(path)
        .unwrap_or_else(|_| std::path::absolute(path).unwrap_or_else(|_| path.to_owned()))
}

/// A file's name, for messages.
pub(crate) fn short(path: &Path) -> String {
    path.file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_else(|| path.display().to_string())
}

/// Checks the includes of file `path` (its outline's, `includes`): the first problem as a
/// load error of `path` at the `<include>` that leads to it. Each file is read once; the
/// walk keeps its own stack, so a long chain of files cannot overflow the thread's.
pub(crate) fn check(path: &Path, includes: &[(String, u32, u32)]) -> Result<(), LoadError> {
    let top = identity(path);
    let mut checked: HashSet<PathBuf> = HashSet::new();
    for (written, line, column) in includes {
        let fail = |message: String| LoadError::Syntax {
            path: path.to_owned(),
            line: *line as usize,
            column: *column as usize,
            message: format!("<include path=\"{written}\">: {message}"),
        };
        // The chain of files being walked, each with its includes and how many are done.
        let mut chain: Vec<(PathBuf, Vec<PathBuf>, usize)> =
            vec![(top.clone(), vec![included(path, written)], 0)];
        while let Some((_, next, done)) = chain.last_mut() {
            let Some(file) = next.get(*done).cloned() else {
                if let Some((f, _, _)) = chain.pop() {
                    checked.insert(f);
                }
                continue;
            };
            *done += 1;
            if !file.exists() {
                return Err(fail(format!("no such file: {}", file.display())));
            }
            let id = identity(&file);
            if let Some(at) = chain.iter().position(|(f, _, _)| *f == id) {
                let names: Vec<String> = chain[at..]
                    .iter()
                    .map(|(f, _, _)| short(f))
                    .chain(std::iter::once(short(&id)))
                    .collect();
                return Err(fail(format!(
                    "the files include each other ({})",
                    names.join(" → ")
                )));
            }
            if checked.contains(&id) {
                continue;
            }
            let text = read_text(&file)
                .map_err(|e| fail(format!("cannot read {}: {e}", file.display())))?;
            let outline = btcpp::outline(&text).map_err(|p| {
                fail(format!(
                    "{}:{}:{}: {}",
                    short(&file),
                    p.line,
                    p.column,
                    p.message
                ))
            })?;
            let next = outline
                .includes
                .iter()
                .map(|(p, _, _)| included(&file, p))
                .collect();
            chain.push((id, next, 0));
        }
    }
    Ok(())
}
