//! `arbor rename-kind FROM TO`: every node of kind FROM in the trees of a project made a
//! TO, as after a kind is renamed in the game's node library.

use std::io::Write;
use std::path::Path;

use super::{EXIT_OK, EXIT_UNREADABLE};
use crate::io::ProjectCatalog;
use crate::model::Catalog;

/// `arbor rename-kind FROM TO [--dry-run]`, over the project file `project` (else the one
/// that governs the current folder).
pub fn rename_kind(
    from: &str,
    to: &str,
    dry_run: bool,
    project: Option<&Path>,
    catalog: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let Some(project) = project
        .map(Path::to_owned)
        .or_else(|| crate::io::find_project(Path::new(".")))
    else {
        let _ = writeln!(
            err,
            "error: no project file (arbor.project.json) governs this folder: give one with --project FILE"
        );
        return EXIT_UNREADABLE;
    };
    let kinds = ProjectCatalog::load(Some(&project), catalog);
    if let Some(p) = kinds.problems.first() {
        let _ = writeln!(
            err,
            "error: {p} (the project's kinds must load before its trees are changed)"
        );
        return EXIT_UNREADABLE;
    }
    let plan = match crate::io::plan_project_kind_rename(&project, &kinds.catalog, from, to) {
        Ok(plan) => plan,
        Err(why) => {
            let _ = writeln!(err, "error: {why}");
            return EXIT_UNREADABLE;
        }
    };
    for c in &plan.changes {
        let _ = writeln!(out, "{}: its {from} nodes made {to}", c.path.display());
    }
    for d in &plan.dropped {
        let _ = writeln!(out, "{d}");
    }
    let files = plan.changes.len();
    if files == 0 {
        let _ = writeln!(out, "no tree of {} has a {from} node", project.display());
        return EXIT_OK;
    }
    if dry_run {
        let _ = writeln!(
            out,
            "{files} file(s) would change (--dry-run: none written)"
        );
        return EXIT_OK;
    }
    if let Err(why) = crate::io::apply_file_changes(&plan.changes, true) {
        let _ = writeln!(err, "error: {why} (nothing written)");
        return EXIT_UNREADABLE;
    }
    let _ = writeln!(out, "{files} file(s) changed");
    EXIT_OK
}
