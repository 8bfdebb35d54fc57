//! The command line: argument parsing and the headless commands (SPEC §5).
//!
//! Each command writes to the given streams and returns the process exit code, so tests
//! can run it in-process as well as through the binary.

use std::io::Write;
use std::path::PathBuf;

use clap::{Parser, Subcommand};

use crate::io::{LoadError, TreeFiles, load_tree, tree_to_string, write_atomically};
use crate::model::{Catalog, Severity};

/// Exit code: everything is fine.
pub const EXIT_OK: u8 = 0;
/// Exit code: a tree has validation errors, or `fmt --check` found files to format.
pub const EXIT_ERRORS: u8 = 1;
/// Exit code: a file could not be read or parsed.
pub const EXIT_UNREADABLE: u8 = 2;

/// Arbor: design, validate and run behaviour trees.
#[derive(Debug, Parser)]
#[command(name = "arbor", version, about, long_about = None)]
pub struct Cli {
    /// What to do; without a command Arbor prints this help.
    #[command(subcommand)]
    pub command: Option<Command>,
}

/// The commands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Check tree files: one line per problem, `FILE: SEVERITY: [NODE-ID] MESSAGE (rule)`.
    /// Exit 0 without errors, 1 with errors, 2 when a file cannot be read or parsed.
    Validate {
        /// Tree files to check.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
    /// Rewrite tree files in canonical form (stable key order, two-space indent).
    Fmt {
        /// Change nothing: list the files that are not canonical and exit 1 if any.
        #[arg(long)]
        check: bool,
        /// Tree files to format.
        #[arg(required = true)]
        files: Vec<PathBuf>,
    },
}

/// `arbor validate FILE...`.
pub fn validate(
    files: &[PathBuf],
    catalog: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let set = TreeFiles::new(catalog);
    let mut code = EXIT_OK;
    let (mut errors, mut warnings, mut unreadable) = (0, 0, 0);
    for path in files {
        match set.validate_file(path) {
            Ok(diags) => {
                for d in &diags {
                    let _ = writeln!(out, "{}: {d}", path.display());
                    match d.severity() {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                }
                if diags.iter().any(|d| d.is_error()) {
                    code = code.max(EXIT_ERRORS);
                }
            }
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                unreadable += 1;
                code = EXIT_UNREADABLE;
            }
        }
    }
    let _ = writeln!(
        err,
        "checked {} file(s): {errors} error(s), {warnings} warning(s), {unreadable} unreadable",
        files.len()
    );
    code
}

/// A load error as a `validate` line: `FILE[:LINE:COLUMN]: error: MESSAGE`.
fn located(e: &LoadError) -> String {
    match e {
        LoadError::Syntax {
            path,
            line,
            column,
            message,
        } => {
            format!("{}:{line}:{column}: error: {message}", path.display())
        }
        other => {
            let text = other.to_string();
            match text.split_once(": ") {
                Some((file, rest)) => format!("{file}: error: {rest}"),
                None => format!("error: {text}"),
            }
        }
    }
}

/// `arbor fmt [--check] FILE...`.
pub fn fmt(files: &[PathBuf], check: bool, out: &mut dyn Write, err: &mut dyn Write) -> u8 {
    let mut code = EXIT_OK;
    for path in files {
        let tree = match load_tree(path) {
            Ok(t) => t,
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                code = EXIT_UNREADABLE;
                continue;
            }
        };
        let canonical = tree_to_string(&tree);
        let current = std::fs::read_to_string(path).unwrap_or_default();
        if canonical == current {
            continue;
        }
        if check {
            let _ = writeln!(out, "{}", path.display());
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
