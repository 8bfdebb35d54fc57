//! `arbor validate`: tree, scenario, node library, project, behaviour test and trace
//! files checked, one line per problem.

use std::io::Write;
use std::path::PathBuf;

use super::input::{Input, located, read_input, scenario_error_line, trace_error_line};
use super::projects::{Projects, code_of, report_problems};
use super::{EXIT_ERRORS, EXIT_OK, EXIT_UNREADABLE};
use crate::io::{LoadError, ProjectCatalog, TreeFiles};
use crate::model::{Catalog, Severity};

/// `arbor validate FILE...`: tree and scenario files with the kinds of the project that
/// governs each (`project` when given), node library and project files on their own.
pub fn validate(
    files: &[PathBuf],
    project: Option<&std::path::Path>,
    deny_warnings: bool,
    base: &Catalog,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> u8 {
    let mut projects = Projects::new(base, project);
    let mut counts = (0, 0, 0);
    // The tree files of each project, read in the order given.
    let mut inputs: Vec<(usize, &PathBuf, Result<Input, LoadError>)> = Vec::new();
    for path in files {
        let input = read_input(path);
        let i = match &input {
            Ok(Input::Library(_) | Input::Project | Input::Trace) | Err(_) => usize::MAX,
            // The project of the tree or scenario the test runs (a test file that does not
            // read is said below).
            Ok(Input::Test(text)) => match crate::check::parse_test(text, path) {
                Ok(t) => {
                    let here = crate::check::project_of(&t, project);
                    projects.index_of(here, out, &mut counts)
                }
                Err(_) => usize::MAX,
            },
            Ok(_) => projects.index_for(path, out, &mut counts),
        };
        inputs.push((i, path, input));
    }
    let sets: Vec<TreeFiles<'_>> = projects
        .loaded
        .iter()
        .map(|p| TreeFiles::new(&p.catalog))
        .collect();
    let (mut errors, mut warnings, mut unreadable) = counts;
    let mut code = code_of(counts);
    // Said once: where a game's kinds would come from, for unknown kinds with no project.
    let mut hinted = false;
    for (i, path, input) in inputs {
        let text = match input {
            Ok(Input::Tree(text)) => text,
            // Read with the project of a tree before: its problems are printed already.
            Ok(Input::Library(_) | Input::Project) if projects.has_read(path) => continue,
            Ok(input @ (Input::Library(_) | Input::Project)) => {
                let problems = match input {
                    Input::Library(text) => crate::io::check_library(path, &text, base),
                    _ => ProjectCatalog::load(Some(path), base).problems,
                };
                let mut c = (0, 0, 0);
                report_problems(&problems, out, &mut c);
                (errors, warnings, unreadable) = (errors + c.0, warnings + c.1, unreadable + c.2);
                code = code.max(code_of(c));
                continue;
            }
            Ok(Input::Trace) => {
                let (w, u) = validate_trace(path, out, err);
                (warnings, unreadable) = (warnings + w, unreadable + u);
                if u > 0 {
                    code = EXIT_UNREADABLE;
                }
                continue;
            }
            Ok(Input::Test(text)) => {
                let (e, u) = validate_test(path, &text, projects.loaded.get(i), out);
                (errors, unreadable) = (errors + e, unreadable + u);
                code = code.max(match (u, e) {
                    (0, 0) => EXIT_OK,
                    (0, _) => EXIT_ERRORS,
                    _ => EXIT_UNREADABLE,
                });
                continue;
            }
            Ok(Input::Scenario(text)) => {
                let (e, w, u) = validate_scenario(path, &text, &sets[i], out, err);
                (errors, warnings, unreadable) = (errors + e, warnings + w, unreadable + u);
                code = code.max(match (u, e) {
                    (0, 0) => EXIT_OK,
                    (0, _) => EXIT_ERRORS,
                    _ => EXIT_UNREADABLE,
                });
                continue;
            }
            Err(e) => {
                let _ = writeln!(err, "{}", located(&e));
                unreadable += 1;
                code = EXIT_UNREADABLE;
                continue;
            }
        };
        let set = &sets[i];
        set.load_text(path, &text);
        for note in set.notes(path) {
            let _ = writeln!(err, "note: {}: {note}", path.display());
        }
        match set.validate_file(path) {
            Ok(diags) => {
                for d in &diags {
                    let _ = writeln!(out, "{}: {d}", path.display());
                    match d.severity() {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                }
                let unknown = diags
                    .iter()
                    .any(|d| d.rule == crate::model::Rule::UnknownKind);
                if unknown && projects.loaded[i].project.is_none() && !hinted {
                    hinted = true;
                    let _ = writeln!(
                        err,
                        "note: no arbor.project.json was found in {}'s folder or above it: a game's own kinds come from the node libraries a project file lists (or give one with --project FILE)",
                        path.display()
                    );
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
    let denied = if deny_warnings && warnings > 0 {
        code = code.max(EXIT_ERRORS);
        " (denied)"
    } else {
        ""
    };
    let _ = writeln!(
        err,
        "checked {} file(s): {errors} error(s), {warnings} warning(s){denied}, {unreadable} unreadable",
        files.len()
    );
    code
}

/// Checks a behaviour test file: its shape, and that what it runs loads (with the kinds of
/// `here`, its project) and has the nodes, agents, entities and keys it names. (errors,
/// unreadable): a wrong test file is unreadable, as `arbor test` takes it (exit 2); a tree
/// that does not run is an error.
fn validate_test(
    path: &std::path::Path,
    text: &str,
    here: Option<&ProjectCatalog>,
    out: &mut dyn Write,
) -> (usize, usize) {
    use crate::check::{PrepareError, Prepared};
    let test = match crate::check::parse_test(text, path) {
        Ok(t) => t,
        Err(e) => {
            let _ = writeln!(out, "{e}");
            return (0, 1);
        }
    };
    let Some(here) = here else {
        return (0, 1);
    };
    match Prepared::in_project(test, here) {
        Ok(_) => (0, 0),
        Err(e) => {
            let _ = writeln!(out, "{e}");
            match e {
                PrepareError::Unreadable(_) | PrepareError::File(_) => (0, 1),
                PrepareError::Broken(_) => (1, 0),
            }
        }
    }
}

/// Checks a trace, either encoding, event by event: a line or record that does not read
/// is printed to `err` (the file is unreadable), a last line cut off mid-write and a trace
/// with no events are warnings. (warnings, unreadable).
fn validate_trace(
    path: &std::path::Path,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> (usize, usize) {
    let unreadable = |e: crate::io::TraceError, err: &mut dyn Write| {
        let _ = writeln!(err, "{}", trace_error_line(&e));
        (0, 1)
    };
    // (A BehaviorTree.CPP recording is read whole: its changes are 9 bytes each.)
    let (cut, events) = if crate::io::is_btlog(path) {
        match crate::io::btlog_trace(path) {
            Ok(trace) => (trace.cut, trace.events.len()),
            Err(e) => return unreadable(e, err),
        }
    } else {
        let mut reader = match crate::io::TraceReader::open(path) {
            Ok(r) => r,
            Err(e) => return unreadable(e, err),
        };
        loop {
            match reader.next_event() {
                Ok(Some(_)) => {}
                Ok(None) => break,
                Err(e) => return unreadable(e, err),
            }
        }
        (reader.cut(), reader.events())
    };
    let mut warnings = 0;
    if let Some(cut) = cut {
        let _ = writeln!(out, "{}: warning: {}", cut.location(path), cut.message());
        warnings += 1;
    }
    if events == 0 {
        let _ = writeln!(
            out,
            "{}: warning: the trace holds no events",
            path.display()
        );
        warnings += 1;
    }
    (warnings, 0)
}

/// Validates a scenario file and each tree file it names (once each); returns the counts
/// of errors, warnings and unreadable files.
fn validate_scenario(
    path: &std::path::Path,
    text: &str,
    set: &TreeFiles<'_>,
    out: &mut dyn Write,
    err: &mut dyn Write,
) -> (usize, usize, usize) {
    let agents = match crate::world::parse_scenario(text, path) {
        Ok((_, agents)) => agents,
        Err(e) => {
            let _ = writeln!(err, "{}", scenario_error_line(&e));
            return (0, 0, 1);
        }
    };
    let (mut errors, mut warnings, mut unreadable) = (0, 0, 0);
    let mut seen: Vec<&std::path::Path> = Vec::new();
    for a in &agents {
        if seen.contains(&a.tree.as_path()) {
            continue;
        }
        seen.push(&a.tree);
        match set.validate_file(&a.tree) {
            Ok(diags) => {
                for d in &diags {
                    let _ = writeln!(out, "{}: {d}", a.tree.display());
                    match d.severity() {
                        Severity::Error => errors += 1,
                        Severity::Warning => warnings += 1,
                    }
                }
            }
            Err(e) => {
                let _ = writeln!(
                    err,
                    "{}: error: entity '{}': cannot load its tree: {}",
                    path.display(),
                    a.name,
                    located(&e)
                );
                unreadable += 1;
            }
        }
    }
    (errors, warnings, unreadable)
}
