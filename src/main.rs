//! The `arbor` binary: parses arguments and runs a command.

use std::process::ExitCode;

use clap::Parser;

use std::io::Write;
use std::path::Path;

use arbor::cli::{self, Cli, Command};
use arbor::io::{ProjectCatalog, find_project};
use arbor::model::Catalog;

fn main() -> ExitCode {
    let args = Cli::parse();
    let catalog = Catalog::builtin();
    let project = args.project.as_deref();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = match args.command {
        Some(Command::Validate { files }) => {
            cli::validate(&files, project, &catalog, &mut out, &mut err)
        }
        Some(Command::Fmt { check, files }) => cli::fmt(&files, check, &mut out, &mut err),
        Some(Command::Kinds) => {
            let here = ProjectCatalog::load(
                project
                    .map(Path::to_owned)
                    .or_else(|| find_project(Path::new(".")))
                    .as_deref(),
                &catalog,
            );
            for p in &here.problems {
                let _ = writeln!(err, "{p}");
            }
            cli::kinds(&here.catalog, &mut out)
        }
        Some(Command::Run {
            file,
            steps,
            dt,
            seed,
            triggers,
            trace,
            scenario,
            show,
            show_every,
            breaks,
        }) => {
            let args = cli::RunArgs {
                file: &file,
                steps,
                dt,
                seed,
                triggers: &triggers,
                trace: trace.as_deref(),
                scenario: scenario.as_deref(),
                show,
                show_every,
                breaks: &breaks,
                project,
            };
            cli::run(&args, &catalog, &mut out, &mut err)
        }
        Some(Command::Edit { file, run }) => editor(file.as_deref(), run, project, &mut err),
        None if cfg!(feature = "gui") => editor(None, false, project, &mut err),
        None => {
            use clap::CommandFactory;
            let _ = Cli::command().print_help();
            cli::EXIT_OK
        }
    };
    ExitCode::from(code)
}

#[cfg(feature = "gui")]
fn editor(
    file: Option<&std::path::Path>,
    run: bool,
    project: Option<&std::path::Path>,
    err: &mut dyn std::io::Write,
) -> u8 {
    match arbor::editor::run(file, run, project) {
        Ok(()) => cli::EXIT_OK,
        Err(e) => {
            let _ = writeln!(err, "error: {e}");
            cli::EXIT_UNREADABLE
        }
    }
}

#[cfg(not(feature = "gui"))]
fn editor(
    _file: Option<&std::path::Path>,
    _run: bool,
    _project: Option<&std::path::Path>,
    err: &mut dyn std::io::Write,
) -> u8 {
    let _ = writeln!(
        err,
        "error: this build of arbor has no editor (it was built without the `gui` feature)"
    );
    cli::EXIT_UNREADABLE
}
