//! The node kinds of the project that governs each file a command reads: each project
//! file read once, its problems printed once, as `validate` lines.

use std::io::Write;
use std::path::PathBuf;

use super::{EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE};
use crate::io::{Problem, ProjectCatalog};
use crate::model::{Catalog, Severity};

/// The catalogs of the projects that govern files, each project read once, its problems
/// printed once.
pub(super) struct Projects<'b> {
    base: &'b Catalog,
    explicit: Option<&'b std::path::Path>,
    pub(super) loaded: Vec<ProjectCatalog>,
}

impl<'b> Projects<'b> {
    pub(super) fn new(base: &'b Catalog, explicit: Option<&'b std::path::Path>) -> Self {
        Self {
            base,
            explicit,
            loaded: Vec::new(),
        }
    }

    /// The index in `loaded` of the catalog for `file`; a project read for the first time
    /// prints its problems to `out` and adds their counts to `counts` (errors, warnings,
    /// unreadable files).
    pub(super) fn index_for(
        &mut self,
        file: &std::path::Path,
        out: &mut dyn Write,
        counts: &mut (usize, usize, usize),
    ) -> usize {
        let project = self
            .explicit
            .map(std::path::Path::to_owned)
            .or_else(|| crate::io::project_for(file));
        let i = self.index_of(project, out, counts);
        // A BehaviorTree.CPP file that describes kinds of its own has a catalog of its own.
        match self.loaded[i].with_file_models(file) {
            Some(with) => {
                self.loaded.push(with);
                self.loaded.len() - 1
            }
            None => i,
        }
    }

    /// The index in `loaded` of the catalog of the project file `project` (none: the
    /// built-in kinds alone), read and its problems printed as [`Projects::index_for`]
    /// does.
    pub(super) fn index_of(
        &mut self,
        project: Option<PathBuf>,
        out: &mut dyn Write,
        counts: &mut (usize, usize, usize),
    ) -> usize {
        if let Some(i) = self.loaded.iter().position(|c| c.project == project) {
            return i;
        }
        let loaded = ProjectCatalog::load(project.as_deref(), self.base);
        report_problems(&loaded.problems, out, counts);
        self.loaded.push(loaded);
        self.loaded.len() - 1
    }

    /// Whether `file` is a project or library file already read (its problems printed).
    pub(super) fn has_read(&self, file: &std::path::Path) -> bool {
        self.loaded
            .iter()
            .flat_map(|p| &p.files)
            .any(|f| f == file || crate::io::same_file(f, file))
    }
}

/// Prints a project's problems as `validate` lines and counts them: a file that cannot be
/// read or parsed as unreadable, other errors and warnings as such.
pub(super) fn report_problems(
    problems: &[Problem],
    out: &mut dyn Write,
    counts: &mut (usize, usize, usize),
) {
    for p in problems {
        let _ = writeln!(out, "{p}");
        match p.severity {
            Severity::Warning => counts.1 += 1,
            Severity::Error if p.kind.is_none() => counts.2 += 1,
            Severity::Error => counts.0 += 1,
        }
    }
}

/// The exit code for counts of (errors, warnings, unreadable files).
pub(super) fn code_of(counts: (usize, usize, usize)) -> u8 {
    match counts {
        (_, _, u) if u > 0 => EXIT_UNREADABLE,
        (e, _, _) if e > 0 => EXIT_ERRORS,
        _ => EXIT_OK,
    }
}
