//! The `arbor` binary: parses arguments and runs a command.

use std::process::ExitCode;

use clap::{CommandFactory, Parser};

use arbor::cli::{self, Cli, Command};
use arbor::model::Catalog;

fn main() -> ExitCode {
    let args = Cli::parse();
    let catalog = Catalog::builtin();
    let (mut out, mut err) = (std::io::stdout().lock(), std::io::stderr().lock());
    let code = match args.command {
        Some(Command::Validate { files }) => cli::validate(&files, &catalog, &mut out, &mut err),
        Some(Command::Fmt { check, files }) => cli::fmt(&files, check, &mut out, &mut err),
        Some(Command::Kinds) => cli::kinds(&catalog, &mut out),
        Some(Command::Run {
            file,
            steps,
            dt,
            seed,
            triggers,
            trace,
        }) => {
            let args = cli::RunArgs {
                file: &file,
                steps,
                dt,
                seed,
                triggers: &triggers,
                trace: trace.as_deref(),
            };
            cli::run(&args, &catalog, &mut out, &mut err)
        }
        None => {
            let _ = Cli::command().print_help();
            cli::EXIT_OK
        }
    };
    ExitCode::from(code)
}
