//! `arbor import` and `arbor export`: a BehaviorTree.CPP XML file (docs/BTCPP.md) written
//! as an Arbor tree file, and the reverse.

use std::io::Write;
use std::path::{Path, PathBuf};

use super::input::located;
use super::{EXIT_OK, EXIT_UNREADABLE};

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
        .and_then(|()| crate::io::load_tree(input))
        .and_then(|tree| crate::io::save_tree(&output, &tree));
    match written {
        Ok(_) => {
            let _ = writeln!(out, "wrote {}", output.display());
            EXIT_OK
        }
        Err(e) => {
            let _ = writeln!(err, "{}", located(&e));
            EXIT_UNREADABLE
        }
    }
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
