//! `arbor fmt`: tree, scenario, node library, project and behaviour test files rewritten
//! in canonical form, or listed (`--check`) with how they differ (`--diff`).

use std::io::Write;
use std::path::{Path, PathBuf};

use super::input::{located, scenario_error_line};
use super::{EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE};
use crate::io::{ProjectCatalog, TreeFiles, write_atomically};
use crate::model::{Catalog, Tree, declare_keys};

/// The canonical text of a node library or project file, or why it is not written: a file
/// with problems keeps its text, so that nothing in it is dropped.
fn canonical_library(text: &str, path: &std::path::Path, library: bool) -> Result<String, String> {
    if library {
        let (lib, problems) = crate::io::parse_library(text, path).map_err(|p| p.to_string())?;
        if let Some(p) = problems.first() {
            return Err(format!("{p} (not formatted: fix its problems first)"));
        }
        let out = lib.to_text()?;
        match crate::io::parse_library(&out, path) {
            Ok((back, _)) if back == lib => Ok(out),
            _ => Err(format!(
                "{}: not written: its canonical text would not load back to the same library",
                path.display()
            )),
        }
    } else {
        let project = crate::io::parse_project(text, path).map_err(|p| p.to_string())?;
        Ok(project.to_text())
    }
}

/// What `arbor fmt` is asked to do besides writing files in canonical form.
#[derive(Clone, Copy, Debug, Default)]
pub struct Formatting {
    /// Change nothing: list the files that are not canonical.
    pub check: bool,
    /// With `check`: print how each differs.
    pub diff: bool,
    /// Declare in each tree the keys it uses and does not declare.
    pub declare_keys: bool,
}

/// `tree`, read from `path`, declaring every key it uses (see [`declare_keys`]; typed by
/// the kinds of its project, found from `path` or given as `project`, over `catalog`).
fn declaring_keys(mut tree: Tree, path: &Path, project: Option<&Path>, catalog: &Catalog) -> Tree {
    let project = ProjectCatalog::for_tree(Some(path), project, catalog);
    let files = TreeFiles::new(&project.catalog);
    declare_keys(&mut tree, &project.catalog, &files.assets_for(path));
    tree
}

/// `arbor fmt [--check] [--declare-keys] FILE...`.
pub fn fmt(
    files: &[PathBuf],
    how: &Formatting,
    project: Option<&Path>,
    catalog: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let Formatting {
        check,
        diff,
        declare_keys,
    } = *how;
    let mut code = EXIT_OK;
    for path in files {
        // Each file is read once: the text decides whether it is a scenario or a tree.
        // A byte-order mark is not canonical: the file is formatted without it.
        let current = match crate::io::read_text_as_is(path) {
            Ok(text) => text,
            Err(e) => {
                let e = crate::io::LoadError::Read {
                    path: path.clone(),
                    source: std::sync::Arc::new(e),
                };
                let _ = writeln!(err, "{}", located(&e));
                code = EXIT_UNREADABLE;
                continue;
            }
        };
        let text = current.strip_prefix(crate::io::BOM).unwrap_or(&current);
        let format = crate::io::read_header(text).and_then(|h| h.format);
        let library = format.as_deref() == Some(crate::io::LIBRARY_FORMAT);
        let canonical = if crate::io::btcpp::is_xml(path) {
            // A BehaviorTree.CPP file: through Arbor's model and back, as the editor saves
            // it (docs/BTCPP.md).
            let written = crate::io::parse_xml_tree(text, path)
                .and_then(|(tree, kept)| crate::io::round_trip_kept(&tree, path, &kept));
            match written {
                Ok(_) if declare_keys => {
                    let _ = writeln!(
                        err,
                        "{}: not formatted: a BehaviorTree.CPP file has no place for key declarations (--declare-keys writes them into Arbor's own files)",
                        path.display()
                    );
                    code = EXIT_UNREADABLE;
                    continue;
                }
                Ok((text, _)) => text,
                Err(e) => {
                    let _ = writeln!(err, "{}", located(&e));
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        } else if library || format.as_deref() == Some(crate::io::PROJECT_FORMAT) {
            match canonical_library(text, path, library) {
                Ok(text) => text,
                Err(e) => {
                    let _ = writeln!(err, "{e}");
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        } else if format.as_deref() == Some(crate::check::file::TEST_FORMAT) {
            // Test files keep their key order, as scenarios do; only the layout changes, so
            // a test file with mistakes in it is laid out too.
            match serde_json::from_str(text) {
                Ok(v) => crate::io::to_canonical_json(&v),
                Err(e) => {
                    let _ = writeln!(err, "{}:{}: error: {e}", path.display(), e.line());
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        } else if crate::world::is_scenario(text) {
            // Scenarios keep their key order; only the layout is made canonical.
            if let Err(e) = crate::world::parse_scenario(text, path) {
                let _ = writeln!(err, "{}", scenario_error_line(&e));
                code = EXIT_UNREADABLE;
                continue;
            }
            match serde_json::from_str(text) {
                Ok(v) => crate::io::to_canonical_json(&v),
                Err(_) => continue, // unreachable: it parsed above
            }
        } else {
            match crate::io::parse_tree(text, path) {
                // Never write a text that does not load back to the same tree.
                Ok(t) => match crate::io::round_trip(
                    &if declare_keys {
                        declaring_keys(t, path, project, catalog)
                    } else {
                        t
                    },
                    path,
                ) {
                    Ok(text) => text,
                    Err(e) => {
                        let _ = writeln!(err, "{}", located(&e));
                        code = EXIT_UNREADABLE;
                        continue;
                    }
                },
                Err(e) => {
                    let _ = writeln!(err, "{}", located(&e));
                    code = EXIT_UNREADABLE;
                    continue;
                }
            }
        };
        if canonical == current {
            continue;
        }
        if check {
            let _ = writeln!(out, "{}", path.display());
            if diff {
                let shown = path.display().to_string();
                let d = similar::TextDiff::from_lines(&current, &canonical);
                let _ = write!(
                    out,
                    "{}",
                    d.unified_diff()
                        .context_radius(2)
                        .header(&shown, &format!("{shown} (canonical)"))
                );
            }
            code = code.max(EXIT_ERRORS);
        } else if let Err(e) = write_atomically(path, canonical.as_bytes()) {
            let _ = writeln!(err, "{}", located(&e));
            code = EXIT_UNREADABLE;
        } else {
            let _ = writeln!(out, "formatted {}", path.display());
        }
    }
    code
}
