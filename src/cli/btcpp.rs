//! `arbor import` and `arbor export`: a BehaviorTree.CPP XML file (docs/BTCPP.md) written
//! as an Arbor tree file, and the reverse.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::input::located;
use super::{EXIT_OK, EXIT_UNREADABLE};
use std::collections::{HashMap, HashSet};

use crate::io::btcpp;
use crate::io::{PROJECT_FILE, ProjectCatalog};
use crate::model::{Catalog, Tree, Value};

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
    let read = crate::io::check_output(&output, &[input.to_owned()])
        .and_then(|()| crate::io::load_tree_kept(input));
    let (tree, kept) = match read {
        Ok((tree, _, kept)) => (tree, kept),
        Err(e) => {
            let _ = writeln!(err, "{}", located(&e));
            return EXIT_UNREADABLE;
        }
    };
    let mut trees = match direction {
        Direction::Import => with_subtrees(input, &output, tree, kept, err),
        Direction::Export => vec![Imported {
            tree,
            kept,
            path: output,
        }],
    };
    // The kinds of the file's own, and the trees' values in the types those and the
    // project's kinds give them (docs/BTCPP.md, "Port types").
    let own = (direction == Direction::Import).then(|| own_kinds(input, &trees));
    if let Some(Ok(own)) = &own {
        let mut catalog = own.known.clone();
        for kind in &own.library.kinds {
            let _ = catalog.add_library_kind(kind.clone());
        }
        for t in &mut trees {
            btcpp::fit(&mut t.tree, &catalog);
        }
    }
    for t in &trees {
        let saved = crate::io::check_output(&t.path, &[input.to_owned()])
            .and_then(|()| crate::io::save_tree(&t.path, &t.tree));
        match saved {
            Ok(_) => {
                let _ = writeln!(out, "wrote {}", t.path.display());
            }
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                return EXIT_UNREADABLE;
            }
        }
    }
    if let Some(Err(e)) | Some(Ok(Err(e))) = own.map(|o| o.map(|o| write_own_kinds(input, o, out)))
    {
        let _ = writeln!(err, "{e}");
        return EXIT_UNREADABLE;
    }
    EXIT_OK
}

/// A tree read from a BehaviorTree.CPP file, with the rest of its document, and where it
/// is written.
struct Imported {
    tree: Tree,
    kept: crate::io::Kept,
    path: PathBuf,
}

/// The tree of `input` to be written at `output`, and every tree its SubTrees run (in the
/// file, in a file it includes, in its folder: docs/BTCPP.md), each to be written beside
/// it as `ID.json`, the SubTrees' assets naming those files. A SubTree whose tree is not
/// found or does not read keeps its asset, and a warning says why.
fn with_subtrees(
    input: &Path,
    output: &Path,
    tree: Tree,
    kept: crate::io::Kept,
    err: &mut dyn Write,
) -> Vec<Imported> {
    let catalog = Catalog::builtin();
    let files = crate::io::TreeFiles::new(&catalog);
    let folder = output.parent().unwrap_or(Path::new("")).to_owned();
    let identity = crate::io::identity;
    let mut names: HashMap<(PathBuf, Option<String>), String> = HashMap::new();
    let mut taken: HashSet<String> = HashSet::new();
    let main_name = output
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    names.insert((identity(input), None), main_name.clone());
    taken.insert(main_name);
    let mut trees = vec![(
        input.to_owned(),
        Imported {
            tree,
            kept,
            path: output.to_owned(),
        },
    )];
    let mut at = 0;
    while at < trees.len() {
        let source = trees[at].0.clone();
        let mut nodes = trees[at].1.tree.nodes().to_vec();
        let mut changed = false;
        for node in nodes.iter_mut().filter(|n| n.kind == "SubTree") {
            let Some(asset) = node
                .fields
                .get("asset")
                .and_then(Value::as_str)
                .map(str::to_owned)
            else {
                continue;
            };
            let Some(id) = crate::io::split_asset(&asset).1.map(str::to_owned) else {
                continue;
            };
            let warn = |err: &mut dyn Write, why: &str| {
                let _ = writeln!(
                    err,
                    "{}: warning: [{}] its tree '{asset}' is not imported ({why}); its asset is left as it is",
                    source.display(),
                    node.id
                );
            };
            let (file, tree_id) = match files.target(&source, &asset) {
                Ok(t) => t,
                Err(why) => {
                    warn(err, &why);
                    continue;
                }
            };
            let key = (identity(&file), tree_id.clone());
            let name = match names.get(&key) {
                Some(name) => name.clone(),
                None => match crate::io::load_tree_named_kept(&file, tree_id.as_deref()) {
                    Ok((tree, kept)) => {
                        let name = fresh_name(&id, &folder, &mut taken);
                        names.insert(key, name.clone());
                        trees.push((
                            file,
                            Imported {
                                tree,
                                kept,
                                path: folder.join(&name),
                            },
                        ));
                        name
                    }
                    Err(e) => {
                        warn(err, &e.to_string());
                        continue;
                    }
                },
            };
            node.fields.insert("asset".to_owned(), Value::Text(name));
            changed = true;
        }
        if changed && let Ok(tree) = Tree::from_nodes(nodes) {
            let mut tree = tree;
            tree.description = trees[at].1.tree.description.clone();
            tree.keys = trees[at].1.tree.keys.clone();
            trees[at].1.tree = tree;
        }
        at += 1;
    }
    trees.into_iter().map(|(_, t)| t).collect()
}

/// A file name for the tree of ID `id` that no other imported tree has and no file of
/// `folder` has (an import never writes over a file it did not make in this run): `ID.json`,
/// its characters as [`library_name`] makes them, `ID_2.json` … when taken.
fn fresh_name(id: &str, folder: &Path, taken: &mut HashSet<String>) -> String {
    let base = btcpp::library_name(Path::new(id));
    let mut name = format!("{base}.json");
    let mut n = 2;
    while folder.join(&name).exists() || !taken.insert(name.clone()) {
        name = format!("{base}_{n}.json");
        n += 1;
    }
    name
}

/// After an import, the kinds of the file's own that the project of the trees' folder
/// does not know yet: the library they make, beside the project that knows the others.
struct OwnKinds {
    folder: PathBuf,
    /// The project file governing the folder, if any.
    project: Option<PathBuf>,
    /// What that project knows.
    known: Catalog,
    library: crate::io::Library,
}

/// The kinds of the file's own that the project of the first tree's folder does not know
/// yet ([`OwnKinds`]).
fn own_kinds(input: &Path, trees: &[Imported]) -> Result<OwnKinds, String> {
    let folder = match trees.first().and_then(|t| t.path.parent()) {
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
    let name = btcpp::library_name(input);
    let mut library = crate::io::Library {
        name: name.clone(),
        kinds: Vec::new(),
    };
    for t in trees {
        let Some(source) = &t.kept else {
            continue;
        };
        for kind in btcpp::library_of(&t.tree, source, &name, &known.catalog).kinds {
            if !library.kinds.iter().any(|k| k.name == kind.name) {
                library.kinds.push(kind);
            }
        }
    }
    Ok(OwnKinds {
        folder,
        project,
        known: known.catalog,
        library,
    })
}

/// Writes the library of the kinds of the file's own beside the trees
/// (`STEM.nodes.json`) and lists it in the folder's project file (made there when there is
/// none).
fn write_own_kinds(input: &Path, own: OwnKinds, out: &mut dyn Write) -> Result<(), String> {
    let OwnKinds {
        folder,
        project,
        library,
        ..
    } = own;
    if library.kinds.is_empty() {
        return Ok(());
    }
    let name = library.name.clone();
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
    let project = project.unwrap_or_else(|| folder.join(PROJECT_FILE));
    match crate::io::list_library(&project, &path).map_err(|e| located(&e))? {
        crate::io::Listed::Made => {
            let _ = writeln!(out, "wrote {}", project.display());
        }
        crate::io::Listed::Added => {
            let _ = writeln!(out, "added {} to {}", file, project.display());
        }
        crate::io::Listed::Already => {}
    }
    Ok(())
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
