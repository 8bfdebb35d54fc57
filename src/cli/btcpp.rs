//! `arbor import` and `arbor export`: a BehaviorTree.CPP XML file (docs/BTCPP.md) written
//! as an Arbor tree file, and the reverse.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::input::located;
use super::{EXIT_OK, EXIT_UNREADABLE};
use crate::io::btcpp::{self, Source};
use crate::io::{PROJECT_FILE, Project, ProjectCatalog, parse_project};
use crate::model::{Catalog, Tree};

/// Which way a tree goes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Direction {
    /// BehaviorTree.CPP XML to Arbor JSON.
    Import,
    /// Arbor JSON to BehaviorTree.CPP XML.
    Export,
}

/// `arbor import FILE.xml [-o OUT]` / `arbor export TREE.json [-o OUT]`: the tree of
/// `input` written to `output` (default: beside it, with the other extension; a folder:
/// in it, under the input's name). Exit 2 when the input does not read or the output
/// cannot be written.
pub fn transfer(
    direction: Direction,
    input: &Path,
    output: Option<&Path>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let extension = match direction {
        Direction::Import => "json",
        Direction::Export => "xml",
    };
    let output = target(input, output, extension);
    let wrong = match direction {
        Direction::Import if !crate::io::btcpp::is_xml(input) => {
            Some("a BehaviorTree.CPP file (.xml)")
        }
        Direction::Export if crate::io::btcpp::is_xml(input) => Some("an Arbor tree file (.json)"),
        _ => None,
    };
    if let Some(what) = wrong {
        let _ = writeln!(err, "{}: not read: give {what}", input.display());
        return EXIT_UNREADABLE;
    }
    let written = crate::io::check_output(&output, &[input.to_owned()])
        .and_then(|()| crate::io::load_tree_kept(input))
        .and_then(|(tree, _, kept)| crate::io::save_tree(&output, &tree).map(|_| (tree, kept)));
    let (tree, kept) = match written {
        Ok(done) => {
            let _ = writeln!(out, "wrote {}", output.display());
            done
        }
        Err(e) => {
            let _ = writeln!(err, "{}", located(&e));
            return EXIT_UNREADABLE;
        }
    };
    if let Some(source) = kept
        && let Err(e) = own_kinds(input, &output, &tree, &source, out)
    {
        let _ = writeln!(err, "{e}");
        return EXIT_UNREADABLE;
    }
    EXIT_OK
}

/// After an import: the kinds of the file's own that the project of `tree_out`'s folder
/// does not know yet, written as a node library beside the tree (`STEM.nodes.json`) and
/// listed in that project's file (made in the folder when it has none).
fn own_kinds(
    input: &Path,
    tree_out: &Path,
    tree: &Tree,
    source: &Source,
    out: &mut dyn Write,
) -> Result<(), String> {
    let folder = match tree_out.parent() {
        Some(f) if !f.as_os_str().is_empty() => f.to_owned(),
        _ => PathBuf::from("."),
    };
    let project = crate::io::find_project(&folder);
    let known = ProjectCatalog::load(project.as_deref(), &Catalog::builtin());
    if let Some(problem) = known.problems.iter().find(|p| p.is_error()) {
        return Err(format!(
            "{}\nthe kinds of the file's own were not written: the project has an error",
            problem.line()
        ));
    }
    let name = library_name(input);
    let library = btcpp::library_of(tree, source, &name, &known.catalog);
    if library.kinds.is_empty() {
        return Ok(());
    }
    let file = format!("{name}.nodes.json");
    let path = folder.join(&file);
    crate::io::check_output(&path, &[input.to_owned()]).map_err(|e| located(&e))?;
    library.write(&path)?;
    let count = library.kinds.len();
    let _ = writeln!(
        out,
        "wrote {} ({count} {} of the file's own)",
        path.display(),
        if count == 1 { "kind" } else { "kinds" }
    );
    let Some(project) = project else {
        let path = folder.join(PROJECT_FILE);
        let made = Project {
            path: path.clone(),
            nodes: vec![file],
            keys: Vec::new(),
        };
        crate::io::write_atomically(&path, made.to_text().as_bytes()).map_err(|e| located(&e))?;
        let _ = writeln!(out, "wrote {}", path.display());
        return Ok(());
    };
    let text = std::fs::read_to_string(&project).map_err(|e| {
        format!(
            "{}: error: cannot read the project file: {e}",
            project.display()
        )
    })?;
    let mut listed = parse_project(&text, &project).map_err(|e| e.line())?;
    let entry =
        relative_to(&path, project.parent().unwrap_or(Path::new("."))).ok_or_else(|| {
            format!(
                "{}: error: {} is not in the project's folder, so the project cannot list it",
                project.display(),
                path.display()
            )
        })?;
    if !listed.nodes.contains(&entry) {
        listed.nodes.push(entry);
        crate::io::write_atomically(&project, listed.to_text().as_bytes())
            .map_err(|e| located(&e))?;
        let _ = writeln!(out, "added {} to {}", file, project.display());
    }
    Ok(())
}

/// A library's name from a file's: its stem, each character that is not a letter, a digit
/// or `_` made `_`, and `_` before a leading digit.
fn library_name(input: &Path) -> String {
    let stem = input
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let mut name: String = stem
        .chars()
        .map(|c| if c.is_ascii_alphanumeric() { c } else { '_' })
        .collect();
    if name.is_empty() || name.starts_with(|c: char| c.is_ascii_digit()) {
        name.insert(0, '_');
    }
    name
}

/// `path` relative to `folder` (both made absolute), in `/`-separated form, when it lies
/// inside it.
fn relative_to(path: &Path, folder: &Path) -> Option<String> {
    let path = std::path::absolute(path).ok()?;
    let folder = std::path::absolute(folder).ok()?;
    let rest = path.strip_prefix(&folder).ok()?;
    let parts: Vec<String> = rest
        .components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect();
    Some(parts.join("/"))
}

/// Where the tree of `input` goes: `output`, or in it when it is a folder, or beside
/// `input`; with `extension`.
fn target(input: &Path, output: Option<&Path>, extension: &str) -> PathBuf {
    let named = input.with_extension(extension);
    let name = named.file_name().map(PathBuf::from).unwrap_or_default();
    match output {
        Some(o) if o.is_dir() => o.join(name),
        Some(o) => o.to_owned(),
        None => named,
    }
}
