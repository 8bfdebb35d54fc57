//! The files named on the command line, read once and told apart by their header, and
//! the lines that say why one does not read (`FILE[:LINE[:COLUMN]]: error: MESSAGE`).

use crate::io::LoadError;

/// A trace error as a `validate` line: `FILE[:LINE]: error: MESSAGE`.
pub(super) fn trace_error_line(e: &crate::io::TraceError) -> String {
    let place = if e.line > 0 {
        format!(":{}", e.line)
    } else {
        String::new()
    };
    format!("{}{place}: error: {}", e.path.display(), e.message)
}

/// A scenario error as a `validate` line: `FILE[:LINE:COLUMN]: error: MESSAGE`.
pub(super) fn scenario_error_line(e: &crate::world::ScenarioError) -> String {
    let place = e
        .place
        .as_deref()
        .map(|p| format!(":{p}"))
        .unwrap_or_default();
    let entity = e
        .entity
        .as_deref()
        .map(|n| format!("entity '{n}': "))
        .unwrap_or_default();
    format!("{}{place}: error: {entity}{}", e.path.display(), e.message)
}

/// A load error as a `validate` line: `FILE[:LINE:COLUMN]: error: MESSAGE`.
pub(super) fn located(e: &LoadError) -> String {
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

/// A file named on the command line, read once: a scenario, a node library, a project,
/// a behaviour test or a tree, by its header; or a trace (by its name or its first line;
/// not read here, as it may be large).
pub(super) enum Input {
    Scenario(String),
    Library(String),
    Project,
    Test(String),
    Tree(String),
    Trace,
}

/// The file at `path`, read and told apart by its header ([`Input`]).
pub(super) fn read_input(path: &std::path::Path) -> Result<Input, LoadError> {
    if crate::io::is_trace(path) {
        return Ok(Input::Trace);
    }
    let text = crate::io::read_text(path).map_err(|e| LoadError::Read {
        path: path.to_owned(),
        source: std::sync::Arc::new(e),
    })?;
    let format = crate::io::read_header(&text).and_then(|h| h.format);
    Ok(match format.as_deref() {
        Some(crate::io::LIBRARY_FORMAT) => Input::Library(text),
        Some(crate::io::PROJECT_FORMAT) => Input::Project,
        Some(crate::check::file::TEST_FORMAT) => Input::Test(text),
        _ if crate::world::is_scenario(&text) => Input::Scenario(text),
        _ => Input::Tree(text),
    })
}
